// The `review` step: the reviewer agent reads the diffs of all the run's PRs (each repository's
// work branch against its base), from inside the primary repository, and gives a JSON verdict.
// A reviewer that crashes or gives no valid verdict fails the step as `reviewer-no-verdict`:
// nothing was judged, so nobody is sent to repair. It is read-only: any change it leaves in
// a checkout, tracked or untracked, fails the step. The result says whether the review was
// independent of the coder (core/independence.ts). A verdict is posted on each of the run's PRs as a
// pull request review (pr-review.ts), replacing the step's earlier ones; posting never fails it.
import { ConveyorError } from '../../../core/errors.ts';
import { judgeIndependence } from '../../../core/steps/independence.ts';
import { buildReviewPrompt, quoteWritten, readVerdict, type ReviewedRepo } from '../../../core/prompts/role-prompts.ts';
import { renderFindings } from '../../../core/run/draft.ts';
import type { ErrorCode, StepPayload, StepResult } from '../../../core/contract/wire.ts';
import { agentOutputSection, agentStopped, resolveAgent, runAgentWithPrompt } from '../agent.ts';
import { openExchange } from '../exchange.ts';
import { postPullReviews } from '../pr-review.ts';
import type { VerdictSource } from '../../../core/config/presets.ts';
import { prepareStepWorkspace, removeStepWorkspace, type StepContext } from '../context.ts';
import { baseResult } from '../result.ts';
import { environmentsVariables } from '../variables.ts';
import { workspaceTable } from '../summary.ts';
import type { WorkspaceRepo } from '../workspace.ts';

/** What a checkout looks like: its HEAD and every tracked or untracked change (ignored files aside). */
async function snapshot(r: WorkspaceRepo): Promise<{ head: string; status: string }> {
  return { head: await r.git.currentCommit(), status: await r.git.status() };
}

async function diffOf(r: WorkspaceRepo): Promise<string> {
  // A repository the run did not change is on its base: there is nothing of it to review.
  if (r.checkedOut !== r.workBranch) return '';
  return r.git.diff(`refs/remotes/origin/${r.base}...HEAD`);
}

function changedPaths(status: string): string[] {
  return status
    .split('\0')
    .filter(Boolean)
    .map((e) => e.slice(3));
}

/** How the prompt asks for the verdict, by where the reviewer's CLI gives it. */
const VERDICT_BY: Record<VerdictSource, 'file' | 'answer' | 'reply'> = {
  'agent-writes-file': 'file',
  'structured-output': 'answer',
  'cli-writes-file': 'answer',
  reply: 'reply',
};

export async function runReview(ctx: StepContext, payload: StepPayload): Promise<StepResult> {
  const step = payload.step;
  if (step.kind !== 'review') throw new ConveyorError('internal', `runReview got a ${step.kind} step`);
  const agent = resolveAgent(payload, step.agent, `review ${step.id} uses agent`);
  const ws = await prepareStepWorkspace(ctx, payload.repos, 'checkout');
  const exchange = await openExchange('reviewer-files');
  try {
    // The reviewer works inside a git repository (CLIs such as Codex refuse anything else): the
    // primary one, its siblings beside it, every diff in one file.
    const primary = ws.repos.find((r) => r.role === 'primary') ?? ws.repos[0]!;
    const reviewed: ReviewedRepo[] = [];
    for (const r of ws.repos) {
      reviewed.push({ repo: r.repo, dir: r === primary ? '.' : `../${r.folder}`, base: r.base, branch: r.checkedOut, diff: await diffOf(r) });
    }
    const diffFile = await exchange.write(
      'diffs.patch',
      ctx.scrubber.scrub(
        reviewed
          .filter((r) => r.diff)
          .map((r) => `# ${r.repo}: git diff ${r.base}...${r.branch}\n${r.diff}`)
          .join('\n'),
      ),
    );
    const prompt = (verdict: VerdictSource) =>
      buildReviewPrompt({
        issue: payload.issue,
        step: step.id,
        attempt: payload.attempt,
        repos: reviewed,
        diffFile,
        verdictBy: VERDICT_BY[verdict],
        environments: environmentsVariables(payload),
      });
    const before = await Promise.all(ws.repos.map((r) => snapshot(r)));
    const outcome = await runAgentWithPrompt(ctx, payload, ws, agent, { prompt, cwd: primary.dir, role: 'reviewer', exchange });
    const after = await Promise.all(ws.repos.map((r) => snapshot(r)));
    const commits = Object.fromEntries(ws.repos.map((r, i) => [r.repo, before[i]!.head]));

    const changedRepos = reviewed.filter((r) => r.diff.trim()).length;
    const sections = [workspaceTable(ws), `Reviewed the diffs of ${changedRepos} of ${ws.repos.length} repositories (in \`${diffFile}\`).`];
    const agentTail = agentOutputSection(ctx, `Reviewer \`${agent.name}\``, outcome);
    const fail = (code: ErrorCode, message: string): StepResult => ({
      ...baseResult(payload),
      conclusion: 'failure',
      summary: [`**${message}**`, ...sections, agentTail].join('\n\n'),
      commits,
      error: { code, message },
    });

    const stopped = agentStopped(outcome, agent, 'The reviewer');
    if (stopped) return fail(stopped.code, stopped.message);
    const touched = ws.repos.flatMap((r, i) => {
      const b = before[i]!;
      const a = after[i]!;
      const was = new Set(changedPaths(b.status));
      const found = [
        ...(a.head !== b.head ? [`HEAD moved from ${b.head.slice(0, 12)} to ${a.head.slice(0, 12)}`] : []),
        ...changedPaths(a.status).filter((p) => !was.has(p)),
      ];
      // A change that adds no path (one went away, or its state changed) shows only in the status.
      if (found.length === 0 && a.status !== b.status) found.push('the working tree changed');
      return found.map((f) => `${r.repo}: ${f}`);
    });
    if (touched.length > 0) {
      const list = touched
        .slice(0, 20)
        .map((t) => `- ${t}`)
        .join('\n');
      return fail(
        'reviewer-changed-files',
        `The reviewer must be read-only, but it changed the checkouts:\n${list}${touched.length > 20 ? `\n- … and ${touched.length - 20} more` : ''}`,
      );
    }
    // A reviewer that crashed judged nothing, whatever it left in its result file: no repair follows.
    if (outcome.exitCode !== 0) {
      return fail(
        'reviewer-no-verdict',
        `The reviewer exited with ${outcome.exitCode ?? outcome.signal} before giving a verdict; the change was not judged, and no repair runs.`,
      );
    }
    const reading = readVerdict(outcome.resultText);
    if (!reading.ok) {
      const wrote = outcome.resultText === undefined ? 'nothing' : quoteWritten(outcome.resultText);
      return fail(
        'reviewer-no-verdict',
        `The reviewer gave no valid verdict: ${reading.problem}. It wrote: ${wrote}. The change was not judged, and no repair runs.`,
      );
    }
    const verdict = reading.verdict;
    const independence = judgeIndependence(payload.coder, { agent: agent.name, model: agent.model, models: outcome.models });
    const review = { ...verdict, agent: agent.name, ...(agent.model ? { model: agent.model } : {}), independent: independence.independent };
    const scores = `| complexity | risk | impact |\n| --- | --- | --- |\n| ${verdict.scores.complexity} | ${verdict.scores.risk} | ${verdict.scores.impact} |`;
    const who = `${independence.independent ? 'Independent' : '**Not independent**'} review: ${independence.reason}.`;
    const result: StepResult = { ...baseResult(payload), conclusion: verdict.verdict === 'pass' ? 'success' : 'failure', summary: '', commits, review };
    const findings = verdict.findings.length > 0 ? renderFindings(result) : '';
    const head =
      verdict.verdict === 'pass'
        ? `Review \`${step.id}\` passed (${verdict.findings.length} finding(s)).`
        : `**Review \`${step.id}\` failed with ${verdict.findings.length} finding(s).**`;
    const onPulls = await postPullReviews(ctx, {
      runId: payload.runId,
      step: step.id,
      attempt: payload.attempt,
      verdict,
      reviewer: { agent: agent.name, model: agent.model },
      independence,
      // What the reviewer judged: each repository's diff and head as the step had them, before the reviewer ran.
      repos: ws.repos.map((r, i) => ({
        repo: r.repo,
        role: r.role,
        prefixes: [r.dir, `../${r.folder}`, r.folder],
        diff: reviewed[i]!.diff,
        commit: before[i]!.head,
        ...(r.pr ? { pr: { number: r.pr.number, url: r.pr.url } } : {}),
      })),
    });
    result.summary = [head, who, scores, ...(findings ? ['### Findings', findings] : []), onPulls, ...sections, agentTail].join('\n\n');
    if (verdict.verdict === 'fail') result.findings = findings || 'The reviewer failed the change without findings.';
    return result;
  } finally {
    await exchange.remove();
    await removeStepWorkspace(ctx, ws);
  }
}
