// Five moments of one run as people see them on GitHub (issue #27 item 5): running, repairing a
// failed gate, waiting for an approval, failed and waiting for a retry, and finished with its cost.
// Each is the run as the reducer leaves it, with the tracking comment, the summary check run and
// the step check runs Conveyor writes for it. test/core/github/screens.test.ts checks their
// wording; scripts/screenshots.ts renders them as GitHub would into docs/screenshots/.
import { attemptOutcome, repairNumber, stepCheckName } from '../../core/github/check-run.ts';
import { renderSummaryCheck, renderTrackingComment, type RunLinks, type SummaryCheck } from '../../core/github/tracking.ts';
import type { StepResult } from '../../core/contract/wire.ts';
import { createRun, reduce } from '../../core/run/reducer.ts';
import type { Run, RunEvent } from '../../core/run/types.ts';
import { completionOf, planOf, TEST_ORIGIN } from './plans.ts';

export const SCENE_START = '2025-03-01T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(SCENE_START) + seconds * 1000).toISOString();
const HEAD = '4f9c2e1d8b7a6c5e4f3d2c1b0a9e8d7c6b5a4f3e';
const PR = { repo: 'acme/web', number: 12, url: 'https://github.com/acme/web/pull/12', branch: 'conveyor/web-7', head: HEAD };
const REVIEW: StepResult['review'] = {
  verdict: 'pass',
  findings: [],
  scores: { complexity: 0.2, risk: 0.1, impact: 0.3 },
  independent: true,
  agent: 'reviewer',
  model: 'openai/gpt-5',
};

/** One check run in the pull request's Checks list. */
export interface CheckRow {
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: string;
  title: string;
  /** Buttons (an approval's). */
  actions?: string[];
}

export interface Scene {
  /** File name: docs/screenshots/<name>.png. */
  name: string;
  /** What the picture shows, for docs/github-app.md. */
  caption: string;
  run: Run;
  comment: string;
  summary: SummaryCheck;
  checks: CheckRow[];
}

const step = (run: Run, event: RunEvent): Run => ({ ...reduce(run, event).run, version: run.version + 1 });
const done = (run: Run, id: string, seconds: number, conclusion: StepResult['conclusion'], extra: Partial<StepResult> = {}): Run =>
  step(run, { ...completionOf(run, id, conclusion, { mode: run.steps[id]!.mode, ...extra }), at: at(seconds) } as RunEvent);

/** The links of each step's current attempt, as the app records them. */
function linksOf(run: Run): RunLinks {
  const out: RunLinks = {};
  let n = 4100;
  for (const p of run.plan.steps) {
    n += 7;
    const s = run.steps[p.id];
    if (!s) continue;
    if (p.kind === 'approval' && s.status !== 'pending') out[p.id] = { checkRunUrl: `https://github.com/acme/web/runs/${n}` };
    else if (s.attempt > 0 && p.kind !== 'merge')
      out[p.id] = {
        checkRunUrl: `https://github.com/acme/web/runs/${n + s.attempt}`,
        workflowRunUrl: `https://github.com/acme/web/actions/runs/${9000 + n + s.attempt}`,
      };
  }
  return out;
}

/** Every attempt's check run, then the approval's, as the Checks tab lists them. */
function checksOf(run: Run, summary: SummaryCheck): CheckRow[] {
  const rows: CheckRow[] = [
    { name: 'conveyor', status: summary.status, ...(summary.conclusion ? { conclusion: summary.conclusion } : {}), title: summary.title },
  ];
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (!s) continue;
    if (p.kind === 'approval') {
      if (s.status === 'waiting')
        rows.push({
          name: stepCheckName(p.id),
          status: 'completed',
          conclusion: 'action_required',
          title: s.reason ?? 'waiting',
          actions: ['Approve', 'Reject'],
        });
      if (s.status === 'succeeded') rows.push({ name: stepCheckName(p.id), status: 'completed', conclusion: 'success', title: 'approved by @bob' });
      continue;
    }
    if (p.kind === 'merge') continue;
    for (const a of s.attempts) {
      const name = stepCheckName(p.id, { mode: a.mode, ...(a.mode === 'repair' ? { repair: repairNumber(s, a.attempt) } : {}) });
      if (!a.conclusion || a.conclusion === 'lost') {
        rows.push({ name, status: 'in_progress', title: `attempt ${a.attempt}` });
        continue;
      }
      const outcome = attemptOutcome({ step: p.id, mode: a.mode, conclusion: a.conclusion, ...(a.error ? { error: a.error } : {}) } as StepResult);
      rows.push({ name, status: 'completed', conclusion: outcome.conclusion, title: outcome.title });
    }
  }
  // GitHub lists the newest check run of each name.
  return rows.filter((r, i) => !rows.slice(i + 1).some((later) => later.name === r.name));
}

function scene(name: string, caption: string, run: Run): Scene {
  const links = linksOf(run);
  const summary = renderSummaryCheck(run, links, run.updatedAt);
  return { name, caption, run, comment: renderTrackingComment(run, links, run.updatedAt), summary, checks: checksOf(run, summary) };
}

/** The five moments, in the order a run goes through them (the failure branches off after the repair). */
export function githubTextScenes(): Scene[] {
  const plan = {
    ...planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate', repair: 2 },
      { id: 'review', kind: 'review' },
      { id: 'approve', kind: 'approval' },
      { id: 'ship', kind: 'merge' },
    ]),
    budgetUsd: 1.2,
  };
  let run = createRun({
    id: 'web-7',
    plan,
    issue: {
      repo: 'acme/web',
      number: 7,
      title: 'Greet people by name',
      body: 'Say hello with the visitor’s name.',
      url: 'https://github.com/acme/web/issues/7',
    },
    requester: 'alice',
    origin: TEST_ORIGIN,
    at: SCENE_START,
  });
  run = step(run, { type: 'started', at: SCENE_START });
  run = done(run, 'implement', 252, 'success', {
    prs: [PR],
    commits: { 'acme/web': HEAD },
    usage: { costUsd: 0.84, inputTokens: 48_200, outputTokens: 6_100, turns: 14 },
  });
  const running = run;
  run = done(run, 'test', 330, 'failure', {
    summary: '**Gate `test` failed in 1 of 1.**',
    findings:
      '### acme/web: `npm test` (exit 1)\n```text\nFAIL greet.test.js\n  ● greets by name\n    Expected: "Hello, Ada!"\n    Received: "Hello, !"\n```\n',
    error: { code: 'gate-failed', message: 'gate test failed in acme/web' },
  });
  const repairing = run;
  run = done(run, 'test', 415, 'success', {
    prs: [PR],
    commits: { 'acme/web': HEAD },
    usage: { costUsd: 0.21, inputTokens: 11_800, outputTokens: 1_900, turns: 5 },
  });
  const retested = run;
  // The failure: the gate fails again after every repair it was allowed, and the run waits for a person.
  let failed = done(retested, 'test', 470, 'failure', { error: { code: 'gate-failed', message: 'gate test failed in acme/web: 1 test failed' } });
  failed = done(failed, 'test', 540, 'success', {
    prs: [PR],
    commits: { 'acme/web': HEAD },
    usage: { costUsd: 0.09, inputTokens: 5_400, outputTokens: 700, turns: 3 },
  });
  failed = done(failed, 'test', 600, 'failure', { error: { code: 'gate-failed', message: 'gate test failed in acme/web: 1 test failed (greets by name)' } });
  // The success: the gate passes, the review too, a person approves, the PR merges.
  run = done(retested, 'test', 470, 'success', { commits: { 'acme/web': HEAD } });
  run = done(run, 'review', 655, 'success', {
    commits: { 'acme/web': HEAD },
    review: REVIEW,
    usage: { costUsd: 0.31, inputTokens: 22_000, outputTokens: 1_400, turns: 3 },
  });
  const approving = run;
  run = step(run, { type: 'decision', at: at(1380), step: 'approve', decision: 'approve', by: 'bob' });
  run = done(run, 'ship', 1395, 'success', { commits: { 'acme/web': HEAD } });
  return [
    scene('running', 'A running run: what runs, since when, and the one command that stops it.', running),
    scene('repair', 'A repair: what failed, and the repair named as one (conveyor / test (repair 1)).', repairing),
    scene('approval', 'Waiting for an approval: the command, where to give it, who counts, and the check run with the buttons.', approving),
    scene('failure', 'Failed after its repairs: the reason, and the command that runs it again; the summary is action required.', failed),
    scene('finished', 'Finished: how long it took, and its cost, with the budget it overran in bold.', run),
  ];
}
