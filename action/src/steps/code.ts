// The `code` step (and the repair of a gate or review, which is the same work with findings): one
// agent, run once over the whole workspace; then commit, check `writes`, push, and link the PRs.
import { ConveyorError } from '../../../core/errors.ts';
import { MAX_PROTECTED_PATHS, type ErrorCode, type PayloadRepo, type ProtectedChange, type StepPayload, type StepResult } from '../../../core/contract/wire.ts';
import { listPaths } from '../../../core/run/protect.ts';
import { agentOutputSection, agentStopped, resolveAgent, runAgent } from '../agent.ts';
import { prepareStepWorkspace, removeStepWorkspace, type StepContext } from '../context.ts';
import {
  agentSummary,
  commitLeftovers,
  protectedChanges,
  publishPullRequests,
  pushBranch,
  throughApi,
  writesViolations,
  type Pushed,
  type RepoChange,
} from '../publish.ts';
import { workspaceTable } from '../summary.ts';
import type { WorkspaceRepo } from '../workspace.ts';
import { baseResult } from '../result.ts';

export interface CodeWork {
  agent: string;
  mode: 'run' | 'repair';
  writes: string[];
  findings?: string;
  /** A merge step's repair: the base is left merging with its conflicts marked, for the agent to resolve. */
  resolveConflicts?: boolean;
}

/** What a commit refused (nothing committed): said as the step's failure. */
const REFUSALS = new Set(['nested-repository', 'conflict-unresolved', 'output-refused']);

export async function runCodeWork(ctx: StepContext, payload: StepPayload, work: CodeWork): Promise<StepResult> {
  const agent = resolveAgent(payload, work.agent);
  // The code step's own attempt finds its branches as the run's start left them (at most the draft's empty commit).
  const ws = await prepareStepWorkspace(ctx, payload.repos, 'work', {
    fresh: work.mode === 'run',
    ...(work.resolveConflicts ? { resolveConflicts: true } : {}),
    endedWork: (r) => endedPullRequest(ctx, r),
  });
  try {
    for (const r of ws.repos) ctx.log.info(`${r.repo} ready in ${r.dir} on ${r.workBranch} (${r.baseMerge})`);
    const outcome = await runAgent(ctx, payload, ws, agent, {
      mode: work.mode,
      writes: work.writes,
      ...(work.findings ? { findings: work.findings } : {}),
    });
    const sections: string[] = [workspaceTable(ws)];
    if (ws.notes.length) sections.push(ws.notes.map((n) => `- ${n}`).join('\n'));
    const agentTail = agentOutputSection(ctx, `Agent \`${agent.name}\``, outcome);
    const fail = (code: ErrorCode, message: string): StepResult => ({
      ...baseResult(payload),
      conclusion: 'failure',
      summary: [`**${message}**`, ...sections, agentTail].join('\n\n'),
      error: { code, message },
    });

    const stopped = agentStopped(outcome, agent, 'The agent');
    if (stopped) return fail(stopped.code, `${stopped.message} Nothing was pushed.`);
    if (outcome.exitCode !== 0) {
      return fail('agent-failed', `The agent exited with ${outcome.exitCode ?? outcome.signal}; nothing was pushed.`);
    }

    const changes: RepoChange[] = [];
    try {
      for (const r of ws.repos) changes.push(await commitLeftovers(payload, r));
    } catch (e) {
      if (e instanceof ConveyorError && REFUSALS.has(e.code)) return fail(e.code, `${e.message} Nothing was pushed.`);
      throw e;
    }
    const violations = writesViolations(changes, work.writes);
    if (violations.length) {
      const list = violations.map((v) => `- ${v}`).join('\n');
      const message = `The agent changed paths outside \`writes\` (${work.writes.join(', ')}); nothing was pushed:\n${list}`;
      return fail('writes-violation', message);
    }
    const commits: Record<string, string> = Object.fromEntries(changes.map((c) => [c.repo.repo, c.head]));
    // What each change holds of `protect`, at the head it is left at: the run keeps it, the merge asks for an approval of it.
    const guarded = await protectedChanges(payload, changes);
    const guardedSection = protectedSection(guarded);
    if (guardedSection) sections.push(guardedSection);
    const protectAt = (heads: Record<string, string>) => (guarded.length ? { protected: guarded.map((g) => ({ ...g, head: heads[g.repo] ?? g.head })) } : {});
    const protect = protectAt(commits);
    // A merge step's repair of a PR that was only behind its base (no conflict) has done its work
    // once the base merged in cleanly, whether the agent changed anything after or not: it is pushed.
    const baseMerged = (c: RepoChange) => work.resolveConflicts === true && c.repo.baseMerge === 'merged' && c.advanced;
    if (!changes.some((c) => c.changed || baseMerged(c))) {
      const message = 'The agent changed nothing in any repository.';
      if (work.mode === 'repair') {
        return { ...baseResult(payload), conclusion: 'neutral', summary: [message, ...sections, agentTail].join('\n\n'), commits, ...protect };
      }
      // A re-dispatched attempt, a retry from this step or a restart resumes a branch that already
      // holds the work: an agent with nothing to add leaves the change there, which is no failure.
      const held = await reposHoldingWork(ws.repos);
      if (held.length > 0) {
        const prs = await publishPullRequests(ctx, payload, ws, new Map(), new Set(held), {
          protectedPaths: guarded,
          summary: agentSummary(outcome.resultText),
        });
        const note = `${message} The work branch already holds changes from an earlier attempt in ${held.join(', ')}; they are kept.`;
        return { ...baseResult(payload), conclusion: 'success', summary: [note, ...sections, agentTail].join('\n\n'), prs, commits, ...protect };
      }
      return { ...fail('no-changes', message), commits };
    }

    const toPush = changes.filter((c) => c.advanced);
    const pushes = await Promise.allSettled(toPush.map((c) => pushBranch(ctx, payload, c)));
    const rejected = pushes.flatMap((p) => (p.status === 'rejected' ? [p.reason as unknown] : []));
    // Each branch's head as it is now on the forge: GitHub's own commit where GitHub made it.
    const sent = new Map<string, Pushed>();
    toPush.forEach((c, i) => {
      const p = pushes[i];
      if (p?.status === 'fulfilled') sent.set(c.repo.repo, p.value);
    });
    const pushed = new Map([...sent].map(([repo, p]) => [repo, p.head]));
    for (const [repo, p] of sent) {
      commits[repo] = p.head;
      ctx.log.info(`pushed ${repo}`);
    }
    // The approval must see the heads the forge holds: GitHub's own commits where it made them.
    const protectPushed = protectAt(commits);
    const prs = await publishPullRequests(ctx, payload, ws, pushed, new Set(pushed.keys()), {
      protectedPaths: protectPushed.protected ?? [],
      summary: agentSummary(outcome.resultText),
    });
    if (rejected.length) {
      const first = rejected[0];
      const message = rejected.map((e) => (e instanceof Error ? e.message : String(e))).join('\n');
      const code = first instanceof ConveyorError ? first.code : 'push-rejected';
      return { ...fail(code, message), prs, commits, ...protectPushed };
    }
    const byRepo = new Map(changes.map((c) => [c.repo.repo, c]));
    const prOf = new Map(prs.map((p) => [p.repo, p]));
    const table = workspaceTable(ws, (repo) => {
      const c = byRepo.get(repo);
      const pr = prOf.get(repo);
      const p = sent.get(repo);
      const what = p ? `pushed ${c?.paths.length ?? 0} changed file(s)${throughApi(p)}` : 'unchanged';
      return pr ? `${what}, [#${pr.number}](${pr.url})` : what;
    });
    const summary = [
      `${work.mode === 'repair' ? 'Repaired' : 'Changed'} ${pushed.size} of ${ws.repos.length} repositories.`,
      table,
      ...(ws.notes.length ? [ws.notes.map((n) => `- ${n}`).join('\n')] : []),
      ...(guardedSection ? [guardedSection] : []),
      agentTail,
    ].join('\n\n');
    return { ...baseResult(payload), conclusion: 'success', summary, prs, commits, ...protectPushed };
  } finally {
    await removeStepWorkspace(ctx, ws);
  }
}

/** The protected paths the change holds, for the step's check run; undefined when it holds none. */
function protectedSection(guarded: readonly ProtectedChange[]): string | undefined {
  const held = guarded.filter((g) => g.paths.length > 0);
  if (held.length === 0) return undefined;
  const lines = held.map((g) => `- ${g.repo}: ${listPaths(g.paths, MAX_PROTECTED_PATHS, g.more ?? 0)}`);
  return ['**Protected paths** (`protect`): the change merges only after an approval of these heads.', ...lines].join('\n');
}

/**
 * Why a work branch must start over instead of being resumed: its pull request was merged or
 * closed, so it holds the work of a run that ended (the same issue run again, or another state
 * database's run on the same remotes), which must not come into this run's PR. A branch the run
 * knows the PR of, or one with an open PR, or with none at all (an attempt that pushed and was
 * lost before it opened one), is resumed.
 */
async function endedPullRequest(ctx: StepContext, repo: PayloadRepo): Promise<string | undefined> {
  if (repo.pr) return undefined;
  const forge = await ctx.forge();
  if (await forge.findPullRequest(repo.repo, repo.workBranch)) return undefined;
  const ended = (await forge.listPullRequests(repo.repo, { branches: [repo.workBranch], state: 'closed' })).at(-1);
  return ended ? `its pull request ${repo.repo}#${ended.number} was ${ended.state === 'merged' ? 'merged' : 'closed'}` : undefined;
}

/** Repositories whose resumed work branch differs from its base. */
async function reposHoldingWork(repos: readonly WorkspaceRepo[]): Promise<string[]> {
  const held: string[] = [];
  for (const r of repos) {
    if (!r.resumed) continue;
    if (await r.git.differs(r.baseCommit, r.startCommit)) held.push(r.repo);
  }
  return held;
}
