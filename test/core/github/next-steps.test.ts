// What the tracking comment and the summary check run tell a person (issue #27 item 5): what the
// run waits for and the exact command that continues it, the approval button where there is one,
// a check run that is never left in progress while a person must act, repairs named as repairs,
// human times, and a spent budget in bold.
import { describe, expect, it } from 'vitest';
import { renderRunTable, renderSummaryCheck, renderTrackingComment, usageLine } from '../../../core/github/tracking.ts';
import type { Run, RunEvent } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, step } from '../run/drive.ts';

const later = (seconds: number): string => new Date(Date.parse(AT) + seconds * 1000).toISOString();
const at = (event: RunEvent, seconds: number): RunEvent => ({ ...event, at: later(seconds) });

const gated = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate', repair: 1 },
  { id: 'approve', kind: 'approval', approvers: ['bob', '@acme/leads'] },
]);

/** The run after implement succeeded (at 90 s) and test failed once (at 150 s): its repair 1 is running. */
function repairing(): Run {
  let run = start(gated).run;
  run = step(run, at(current(run, 'implement', 'success'), 90)).run;
  return step(run, at(current(run, 'test', 'failure', { findings: 'expected 1' }), 150)).run;
}

describe('a running run', () => {
  it('says what runs, names a repair as one, and shows the summary in progress', () => {
    const run = repairing();
    const text = renderTrackingComment(run, {}, run.updatedAt);
    expect(text).toContain(
      '> 🔄 **Running** `test` (repair 1, since 00:02 UTC) after attempt 1 failed: test failure. To stop the run, comment `/conveyor cancel`.',
    );
    // A running attempt says how long it has run as of the write (whole minutes: rewritten each minute) and when it started.
    expect(text).toContain('| `test` | gate | 🔧 repairing | 2 (repair 1) | <1m so far, since 00:02 UTC |');
    // Times a reader can use: the moment of the last change and of the start, never raw ISO.
    expect(text).toContain('<sub>Updated Jan 1, 00:02 UTC · started Jan 1, 00:00 UTC.');
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(renderSummaryCheck(run, {}, run.updatedAt)).toMatchObject({ status: 'in_progress', title: 'running test: 1 of 3 steps succeeded' });
  });
});

describe('a run waiting for a person', () => {
  it('for an approval: the command, where to give it, who counts and the check run with the button; the summary action_required', () => {
    let run = repairing();
    run = step(run, at(current(run, 'test', 'success', { mode: 'repair' }), 200)).run;
    run = step(run, at(current(run, 'test', 'success'), 230)).run;
    expect(run.status).toBe('waiting');
    const links = { approve: { checkRunUrl: 'https://github.com/acme/web/runs/600' } };
    const text = renderTrackingComment(run, links, run.updatedAt);
    expect(text).toContain('> ✋ **Waiting for approval** of step `approve`: 0 of 1 so far.');
    expect(text).toContain(
      "> To approve what the pull requests hold now, comment `/conveyor approve` on this issue or on one of the run's pull requests, or press **Approve** on the [`conveyor / approve`](https://github.com/acme/web/runs/600) check run.",
    );
    expect(text).toContain(
      "> To reject, comment `/conveyor reject` followed by why. Counted: people with write permission on acme/web who are among the step's approvers (bob, &#64;acme/leads); alice started the run and does not count.",
    );
    // Without a link yet (its check run is made by the same report), the button is still named.
    expect(renderTrackingComment(run, {}, run.updatedAt)).toContain(
      "press **Approve** on the `conveyor / approve` check run (in the pull request's Checks tab).",
    );
    const check = renderSummaryCheck(run, links, run.updatedAt);
    expect(check).toMatchObject({ status: 'completed', conclusion: 'action_required', title: 'waiting for approval of approve: comment /conveyor approve' });
    expect(check.summary.startsWith('> ✋ **Waiting for approval**')).toBe(true);
  });

  it('for a retry of a failed step: its reason, `/conveyor retry test` and `/conveyor cancel`; the summary action_required, not in progress', () => {
    let run = repairing();
    run = step(run, at(current(run, 'test', 'success', { mode: 'repair' }), 200)).run;
    run = step(run, at(current(run, 'test', 'failure', { error: { code: 'gate-failed', message: 'npm test exited 1' } }), 230)).run;
    expect(run.status).toBe('waiting');
    const text = renderTrackingComment(run, {}, run.updatedAt);
    expect(text).toContain('> ❌ **`test` failed**: gate failed after 1 repair \\(max-attempts 1\\): gate-failed: npm test exited 1\n');
    expect(text).toContain(
      "> To run it again, comment `/conveyor retry test` on this issue or on one of the run's pull requests; to stop the run, `/conveyor cancel`. Counted: people with write permission on acme/web.",
    );
    expect(renderSummaryCheck(run, {}, run.updatedAt)).toMatchObject({
      status: 'completed',
      conclusion: 'action_required',
      title: 'test failed: comment /conveyor retry test',
    });
  });
});

describe('a run that ended', () => {
  it('succeeded: success, with how long it took', () => {
    let run = start(planOf([{ id: 'implement', kind: 'code' }])).run;
    run = step(run, at(current(run, 'implement', 'success'), 723)).run;
    expect(renderTrackingComment(run, {}, run.updatedAt)).toContain('> ✅ **Succeeded**: 1 of 1 steps in 12m 3s.');
    expect(renderSummaryCheck(run, {}, run.updatedAt)).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      title: 'succeeded: 1 of 1 steps in 12m 3s',
    });
  });

  it('cancelled after a failure: failure; cancelled with nothing failed: cancelled', () => {
    let run = repairing();
    run = step(run, at(current(run, 'test', 'failure', { mode: 'repair', error: { code: 'agent-failed', message: 'exit 1' } }), 200)).run;
    const failedThenCancelled = step(run, { type: 'cancel', at: later(300), by: 'bob' }).run;
    expect(renderSummaryCheck(failedThenCancelled, {}, failedThenCancelled.updatedAt)).toMatchObject({ status: 'completed', conclusion: 'failure' });
    const cancelled = step(repairing(), { type: 'cancel', at: later(300), by: 'bob' }).run;
    expect(renderSummaryCheck(cancelled, {}, cancelled.updatedAt)).toMatchObject({
      status: 'completed',
      conclusion: 'cancelled',
      title: 'cancelled: cancelled by bob',
    });
  });
});

describe('usage', () => {
  /** A run whose code step cost `costUsd`; `more`: a gate follows, so the run goes on. */
  const withCost = (budgetUsd: number | undefined, costUsd: number, more = false): Run => {
    const steps = more
      ? ([
          { id: 'implement', kind: 'code' },
          { id: 'test', kind: 'gate' },
        ] as const)
      : ([{ id: 'implement', kind: 'code' }] as const);
    let run = start({ ...planOf([...steps]), ...(budgetUsd !== undefined ? { budgetUsd } : {}) }).run;
    run = step(run, at(current(run, 'implement', 'success', { usage: { costUsd, inputTokens: 12_000, outputTokens: 2_000 } }), 60)).run;
    return run;
  };

  it('shows the cost of a finished run with its budget, and a budget spent or overrun in bold, with by how much', () => {
    expect(usageLine(withCost(20, 1.23))).toBe('$1.23 · 12,000 tokens in, 2,000 out · budget $20.00');
    expect(renderRunTable(withCost(undefined, 1.23), {}, AT)).toContain('**Usage:** $1.23 · 12,000 tokens in, 2,000 out');
    expect(usageLine(withCost(20, 21.3))).toBe('$21.30 · 12,000 tokens in, 2,000 out · **budget $20.00 spent, $1.30 over**');
    // While the run goes on, what the spent budget means for it.
    expect(usageLine(withCost(20, 21.3, true))).toBe(
      '$21.30 · 12,000 tokens in, 2,000 out · **budget $20.00 spent, $1.30 over: no more agent attempts start**',
    );
    expect(usageLine(withCost(20, 20, true))).toBe('$20.00 · 12,000 tokens in, 2,000 out · **budget $20.00 spent: no more agent attempts start**');
  });
});
