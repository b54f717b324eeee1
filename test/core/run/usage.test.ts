// The run's usage and budget in the reducer: every attempt's usage (failed ones and repairs too)
// is summed per step and per run; a spent budget stops exactly the attempts that would run an agent
// (a gate without an author, a deploy and a merge still run); a retry takes the budget it carries,
// outside the plan hash; feedback waits for a budget; the trailers and the tracking comment show it.
import { describe, expect, it } from 'vitest';
import { mergeTrailers } from '../../../core/github/trailers.ts';
import { renderTrackingComment } from '../../../core/github/tracking.ts';
import { hashPlan } from '../../../core/plan/hash.ts';
import type { Plan } from '../../../core/plan/types.ts';
import { buildPayload } from '../../../core/run/payload.ts';
import { MAX_USD } from '../../../core/contract/usage.ts';
import { budgetBlocks, describeRunUsage, runsAgent, runUsage, spentUsd, stepUsage } from '../../../core/run/usage.ts';
import type { Run } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, statuses, step, types } from './drive.ts';

const withBudget = (plan: Plan, usd: number): Plan => ({ ...plan, budgetUsd: usd });
const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate', repair: 2 },
  { id: 'preview', kind: 'deploy' },
  { id: 'review', kind: 'review' },
  { id: 'ship', kind: 'merge' },
]);
const usd = (costUsd: number, more: object = {}) => ({ usage: { costUsd, ...more } });

describe('usage of a run', () => {
  it('sums every attempt of a step (a failed one and its repair too) and every step of the run', () => {
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', usd(0.4, { inputTokens: 100, models: ['m1'] }))).run;
    run = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: 'no' } })).run;
    expect(run.steps.test).toMatchObject({ status: 'queued', mode: 'repair' });
    run = step(run, current(run, 'test', 'success', usd(0.25, { inputTokens: 50, outputTokens: 5, models: ['m2'] }))).run;
    expect(stepUsage(run.steps.test)).toEqual({ costUsd: 0.25, inputTokens: 50, outputTokens: 5, models: ['m2'] });
    expect(runUsage(run)).toEqual({ costUsd: 0.65, inputTokens: 150, outputTokens: 5, models: ['m1', 'm2'] });
    expect(spentUsd(run)).toBe(0.65);
    // The next attempt is told what was spent before it (and a run with no budget says none).
    const payload = buildPayload(run, { step: 'test', attempt: 3, epoch: 0, mode: 'run' });
    expect(payload.usageSoFar).toEqual({
      step: { costUsd: 0.25, inputTokens: 50, outputTokens: 5, models: ['m2'] },
      run: { costUsd: 0.65, inputTokens: 150, outputTokens: 5, models: ['m1', 'm2'] },
    });
  });

  it('shows on the tracking comment and, with a known cost, as the merge trailer Conveyor-Cost', () => {
    let run = start(plan).run;
    expect(renderTrackingComment(run, {}, AT)).not.toContain('usage');
    run = step(run, current(run, 'implement', 'success', usd(1.235, { inputTokens: 12_000, outputTokens: 800 }))).run;
    const comment = renderTrackingComment(run, {}, AT);
    expect(comment).toContain('| step | kind | state | attempt | duration | usage | links |');
    expect(comment).toContain('| `implement` | code | ✅ succeeded | 1 | 0s | $1.24 · 12.8k tokens |  |');
    expect(comment).toContain('**Usage:** $1.24 · 12,000 tokens in, 800 out');
    const pr = { repo: 'acme/web', number: 3, url: 'u', branch: 'b', head: 'a'.repeat(40) };
    expect(mergeTrailers(run, pr)).toContain('Conveyor-Cost: $1.24');
    // Tokens without a cost: no trailer.
    let tokensOnly = start(plan).run;
    tokensOnly = step(tokensOnly, current(tokensOnly, 'implement', 'success', { usage: { inputTokens: 5 } })).run;
    expect(mergeTrailers(tokensOnly, pr)).not.toContain('Conveyor-Cost');
  });
});

describe('a budget', () => {
  it('stops what would run an agent once spent, and lets the rest run', () => {
    const p = plan.steps;
    expect(p.map((s) => [s.id, runsAgent(s, 'run'), runsAgent(s, 'repair')])).toEqual([
      ['implement', true, true],
      ['test', false, true],
      ['preview', false, true],
      ['review', true, true],
      ['ship', false, true],
    ]);
    let run = start(withBudget(plan, 1)).run;
    run = step(run, current(run, 'implement', 'success', usd(1))).run;
    // Spent exactly: the gate (no agent) still runs ...
    expect(run.steps.test?.status).toBe('queued');
    expect(budgetBlocks(run, 'test', 'run')).toBeUndefined();
    // ... and its repair does not: the step fails saying what was spent on what, nothing is dispatched.
    const t = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: 'no' } }));
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.test?.status).toBe('failed');
    expect(t.run.steps.test?.attempts).toHaveLength(1);
    expect(t.run.steps.test?.reason).toBe(
      'budget-exhausted: the run has spent $1.00 of its $1.00 budget ("implement" $1.00), so no more agent attempts start; raise pipelines.default.budget-usd and retry to go on',
    );
    expect(t.run.status).toBe('waiting');
    expect(t.run.waitingFor).toContain('budget-exhausted');
  });

  it('a retry takes the budget it carries (outside the plan hash); one that carries none keeps the run’s', () => {
    let run = start(withBudget(plan, 0.5)).run;
    run = step(run, current(run, 'implement', 'success', usd(0.6))).run;
    run = step(run, current(run, 'test', 'success')).run;
    run = step(run, current(run, 'preview', 'success')).run;
    expect(statuses(run)).toMatchObject({ review: 'failed' });

    // Without a budget in the event: stopped again, nothing dispatched.
    const same = step(run, { type: 'retry', at: AT });
    expect(types(same.effects)).toEqual(['report']);
    expect(same.run.steps.review?.reason).toContain('budget-exhausted');

    const raised = step(run, { type: 'retry', at: AT, budgetUsd: 2 });
    expect(types(raised.effects)).toEqual(['dispatch:review:1:0', 'report']);
    expect(raised.run.plan.budgetUsd).toBe(2);
    expect(raised.run.plan.hash).toBe(run.plan.hash);
    expect(hashPlan(raised.run.plan)).toBe(hashPlan(plan));
    // The plan the run started with is shared, not edited.
    expect(run.plan.budgetUsd).toBe(0.5);
    const dispatch = raised.effects[0];
    expect(dispatch?.type === 'dispatch' && dispatch.payload?.usageSoFar).toEqual({ run: { costUsd: 0.6 }, budgetUsd: 2 });

    // A budget taken out of the configuration: no budget any more.
    const removed = step(run, { type: 'retry', at: AT, budgetUsd: null });
    expect(removed.run.plan.budgetUsd).toBeUndefined();
    expect(types(removed.effects)).toEqual(['dispatch:review:1:0', 'report']);
  });

  it('feedback that finds the budget spent stops the code step; it goes to the coder after a retry with more', () => {
    const small = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate' },
    ]);
    let run: Run = start(withBudget(small, 0.5)).run;
    run = step(run, current(run, 'implement', 'success', usd(0.5))).run;
    run = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: 'no' } })).run;
    const fed = step(run, { type: 'feedback', at: AT, id: 'cli:1', by: 'bob', source: 'command-line', text: 'rename it' });
    expect(types(fed.effects)).toEqual(['reply', 'report']);
    expect(fed.run.steps.implement?.status).toBe('failed');
    expect(fed.run.steps.implement?.reason).toContain('budget-exhausted: the run has spent $0.50 of its $0.50 budget');
    expect(fed.run.feedback?.[0]?.taken).toBeUndefined();

    const retried = step(fed.run, { type: 'retry', at: AT, budgetUsd: 1 });
    expect(types(retried.effects)).toEqual(['dispatch:implement:2:0:repair', 'report']);
    expect(retried.run.feedback?.[0]?.taken).toEqual({ step: 'implement', attempt: 2 });
  });

  it('is not defeated by figures that sum past what a number holds: the sum stops at the ceiling and says so', () => {
    let run = start(withBudget(plan, 20)).run;
    run = step(run, current(run, 'implement', 'success', usd(1.5e308))).run;
    run = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: 'no' }, ...usd(1e308) })).run;
    expect(runUsage(run)?.costUsd).toBe(MAX_USD);
    expect(spentUsd(run)).toBe(MAX_USD);
    // What the store keeps is still a number (an Infinity would be stored as null).
    expect(JSON.parse(JSON.stringify(runUsage(run)))).toEqual({ costUsd: MAX_USD });
    expect(describeRunUsage(run)).toBe("$1000000000.00 · cost at Conveyor's ceiling · budget $20.00");
    expect(run.steps.test?.status).toBe('failed');
    expect(run.steps.test?.reason).toContain("budget-exhausted: the run has spent $1000000000.00 (Conveyor's ceiling: at least that) of its $20.00 budget");
  });

  it('a cost at the ceiling exhausts even a budget above it: the ceiling means "at least this much"', () => {
    let run = start(withBudget(plan, 5e9)).run;
    run = step(run, current(run, 'implement', 'success', usd(MAX_USD))).run;
    run = step(run, current(run, 'test', 'success', usd(1))).run;
    run = step(run, current(run, 'preview', 'success')).run;
    expect(spentUsd(run)).toBe(MAX_USD);
    expect(run.steps.review?.status).toBe('failed');
    expect(run.steps.review?.reason).toContain(
      "budget-exhausted: the run has spent $1000000000.00 (Conveyor's ceiling: at least that) of its $5000000000.00 budget",
    );
  });

  it.each([
    ['null (how JSON stores an Infinity)', null],
    ['negative', -100],
  ])('counts a stored cost that is %s as spending the budget, not as nothing', (_what, bad) => {
    let run = start(withBudget(plan, 20)).run;
    run = step(run, current(run, 'implement', 'success', usd(5))).run;
    // A record written before figures were bounded, read back from the store.
    const stored: Run = JSON.parse(JSON.stringify(run)) as Run;
    stored.steps.implement!.attempts[0]!.usage = { costUsd: bad as unknown as number };
    expect(spentUsd(stored)).toBe(MAX_USD);
    expect(budgetBlocks(stored, 'review', 'run')).toContain('budget-exhausted');
  });
});
