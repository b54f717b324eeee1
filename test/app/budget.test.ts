// A run's budget on GitHub (issue #17 item 3), driven through probot.receive with GitHub's API
// mocked by nock: once its agents have spent `budget-usd`, the run stops before the next agent
// attempt (no check run, no workflow dispatch), saying on the tracking comment what was spent on
// what; `/conveyor retry` after the budget was raised on the default branch dispatches it, with
// what the run spent so far in its payload, and the run finishes, its cost summed.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { statusText } from '../../app/commands.ts';
import { renderResultText } from '../../core/github/check-run.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { API, createHarness, type Harness, harnessPerTest } from './harness.ts';
import { CONFIG, configScope, dispatchScope, type Dispatched } from './scopes.ts';
import { events, permissionScope, planWith, pr, reportScopes, RUN, seed, WEB_HEAD } from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, token: true });

const plan = {
  ...planWith([
    { id: 'implement', kind: 'code' },
    { id: 'check', kind: 'gate' },
    { id: 'review', kind: 'review' },
  ]),
  budgetUsd: 0.5,
};
const implemented = {
  implement: { prs: [pr('acme/web', 1, WEB_HEAD)], commits: { 'acme/web': WEB_HEAD }, usage: { costUsd: 0.6, inputTokens: 1000, turns: 4 } },
};
const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
  expect(h.logged.filter((l) => /Error/.test(l))).toEqual([]);
};
/** The configuration on the default branch with the pipeline's budget. */
const configWithBudget = (usd: number) => CONFIG.replace('  default:\n', `  default:\n    budget-usd: ${usd}\n`);

describe('a run with a budget', () => {
  it('stops before the next agent attempt once spent (nothing dispatched); raised on the default branch, a retry goes on and the run finishes', async () => {
    await seed(h, plan, implemented, { leaveQueued: 'check', queuedCheckRun: 710 });
    const reports = reportScopes();

    // 1. The gate passes: the review would run an agent, but the coder spent $0.60 of $0.50.
    h.calls.length = 0;
    let run = await h.conveyor.engine.get(RUN);
    const passed = sealedFor(run, resultOf(RUN, 'check', 1, 0, 'success', { commits: { 'acme/web': WEB_HEAD } }));
    await h.receive('check_run', events.checkCompleted(710, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(passed)));
    allDone(reports.scopes);
    run = await h.conveyor.engine.get(RUN);
    const stopped = 'budget-exhausted: the run has spent $0.60 of its $0.50 budget ("implement" $0.60), so no more agent attempts start';
    expect(run.steps.review).toMatchObject({ status: 'failed', attempt: 0, attempts: [] });
    expect(run.steps.review?.reason).toContain(stopped);
    expect(run.status).toBe('waiting');
    // No check run for the review and no workflow dispatch: only the reports were written (and the
    // PR's body read once, as its issue, before its status section is written into it).
    expect(h.calls.filter((c) => c.method !== 'PATCH')).toEqual([{ method: 'GET', path: '/repos/acme/web/issues/1' }]);
    expect(reports.prBodies.at(-1)).toContain('### Run `acme-web-7`: waiting');
    const comment = reports.comments.at(-1)!;
    // (The reason is shown as text: its parentheses escaped for Markdown.)
    expect(comment).toContain('❌ failed: budget-exhausted: the run has spent $0.60 of its $0.50 budget \\("implement" $0.60\\)');
    expect(comment).toContain('| step | kind | state | attempt | duration | usage | links |');
    expect(comment).toMatch(/\| `implement` \| code \| ✅ succeeded \| 1 \| \S+ \| \$0\.60 · 1\.0k tokens \|/);
    // Spent past its budget: in bold, with by how much; and the command that goes on once it is raised.
    expect(comment).toContain('**Usage:** $0.60 · 1,000 tokens in · 4 turns · **budget $0.50 spent, $0.10 over: no more agent attempts start**');
    expect(comment).toContain('comment `/conveyor retry review`');

    // 2. Someone raises the budget on the default branch and retries: the review is dispatched,
    //    told what the run has spent and its new budget.
    const dispatched: Dispatched[] = [];
    const retried = [
      permissionScope('alice', 'write'),
      configScope(configWithBudget(2)),
      nock(API).post('/repos/acme/web/issues/comments/4242/reactions', { content: 'rocket' }).reply(201, {}),
      dispatchScope('review', 711, dispatched),
    ];
    await h.receive('issue_comment', events.prComment('/conveyor retry', 'alice'));
    allDone(retried);
    run = await h.conveyor.engine.get(RUN);
    expect(run.plan.budgetUsd).toBe(2);
    // The budget is outside the plan hash: the run is still on the pipeline it started with.
    expect(run.plan.hash).toBe(plan.hash);
    expect(run.steps.review).toMatchObject({ status: 'queued', attempt: 1 });
    const payload = JSON.parse(dispatched[0]?.inputs.payload ?? '{}') as StepPayload;
    expect(payload.usageSoFar).toEqual({ run: { costUsd: 0.6, inputTokens: 1000, turns: 4 }, budgetUsd: 2 });

    // 3. The review passes, having spent $0.30 more: the run succeeds, its cost summed.
    const reviewed = sealedFor(
      run,
      resultOf(RUN, 'review', 1, 0, 'success', {
        commits: { 'acme/web': WEB_HEAD },
        review: {
          verdict: 'pass',
          findings: [],
          scores: { complexity: 0.1, risk: 0.1, impact: 0.1 },
          independent: true,
          agent: 'reviewer',
          model: 'openai/gpt',
        },
        usage: { costUsd: 0.3, inputTokens: 500, outputTokens: 50 },
      }),
    );
    await h.receive('check_run', events.checkCompleted(711, `${RUN}:review:1:0`, 'conveyor / review', renderResultText(reviewed)));
    run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('succeeded');
    expect(reports.comments.at(-1)).toContain('**Usage:** $0.90 · 1,500 tokens in, 50 out · 4 turns · budget $2.00');
    expect(reports.comments.at(-1)).toMatch(/\| `review` \| review \| ✅ succeeded \| 1 \| \S+ \| \$0\.30 · 550 tokens \|/);
    // `/conveyor status` says the same.
    const said = statusText(run, undefined);
    expect(said).toContain('- `implement` (code): succeeded, attempt 1, $0.60 · 1.0k tokens');
    expect(said).toContain('Usage: $0.90 · 1,500 tokens in, 50 out · 4 turns · budget $2.00');
  });
});
