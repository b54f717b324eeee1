// Results that say nothing about the work are never answered with a repair: a reviewer that gave
// no verdict, a setup that failed, a sandbox that could not be made fail the step as they are; an
// agent that stalled is a lost attempt, dispatched again with the next epoch (bounded like a loss).
import { describe, expect, it } from 'vitest';
import { MAX_LOSSES } from '../../../core/run/reducer.ts';
import type { Run } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { current, start, step, succeed, types } from './drive.ts';

const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate', repair: 2 },
  { id: 'review', kind: 'review', repair: 2 },
]);

const reviewing = (): Run => succeed(start(plan).run, 'implement', 'test');

describe('a result that is no judgment of the work', () => {
  it('reviewer-no-verdict fails the review without a repair, its repairs untouched', () => {
    const run = reviewing();
    const t = step(
      run,
      current(run, 'review', 'failure', { error: { code: 'reviewer-no-verdict', message: 'The reviewer exited with 2 before giving a verdict' } }),
    );
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.review).toMatchObject({ status: 'failed', repairs: 0, attempt: 1, mode: 'run' });
    expect(t.run.steps.review?.reason).toBe(
      'review failed after 0 repairs (max-attempts 2): reviewer-no-verdict: The reviewer exited with 2 before giving a verdict',
    );
    expect(t.run.status).toBe('waiting');
  });

  it('a review that failed without a verdict (it timed out, changed files, crashed) is not repaired either; a failing verdict is', () => {
    for (const code of ['agent-timeout', 'reviewer-changed-files', 'agent-failed']) {
      const run = reviewing();
      const t = step(run, current(run, 'review', 'failure', { error: { code: code as 'agent-timeout', message: 'x' } }));
      expect(t.run.steps.review, code).toMatchObject({ status: 'failed', repairs: 0 });
    }
    const run = reviewing();
    const review = { verdict: 'fail' as const, findings: ['rename it'], scores: { complexity: 0, risk: 0, impact: 0 }, agent: 'reviewer', independent: true };
    const t = step(run, current(run, 'review', 'failure', { review }));
    expect(types(t.effects)).toEqual(['dispatch:review:2:0:repair', 'report']);
    expect(t.run.steps.review).toMatchObject({ repairs: 1, mode: 'repair' });
  });

  it('setup-failed fails a gate without a repair', () => {
    let run = succeed(start(plan).run, 'implement');
    const t = step(run, current(run, 'test', 'failure', { error: { code: 'setup-failed', message: 'the setup of service "web", `npm ci`, exited with 1' } }));
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.test).toMatchObject({ status: 'failed', repairs: 0 });
    // A failing gate still gets its repair.
    run = succeed(start(plan).run, 'implement');
    const gate = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: '1 failing' }, findings: 'F' }));
    expect(types(gate.effects)).toEqual(['dispatch:test:2:0:repair', 'report']);
  });
});

describe('an agent stopped by what is not its work', () => {
  it('agent-network-refused and agent-vendor-unavailable fail a gate (its author) without a repair', () => {
    for (const code of ['agent-network-refused', 'agent-vendor-unavailable'] as const) {
      const run = succeed(start(plan).run, 'implement');
      const t = step(run, current(run, 'test', 'failure', { error: { code, message: 'The author was stopped' }, findings: 'F' }));
      expect(types(t.effects), code).toEqual(['report']);
      expect(t.run.steps.test, code).toMatchObject({ status: 'failed', repairs: 0 });
      expect(t.run.steps.test?.reason, code).toContain(`${code}: The author was stopped`);
    }
  });
});

describe('an agent that stalled', () => {
  const stalled = { error: { code: 'agent-stalled' as const, message: 'The agent printed nothing and changed nothing in the workspace for 15 minute(s)' } };

  it('is dispatched again as the same attempt with the next epoch, spending no repair, at most MAX_LOSSES times', () => {
    let run = start(plan).run;
    let t = step(run, current(run, 'implement', 'failure', stalled));
    expect(types(t.effects)).toEqual(['dispatch:implement:1:1', 'report']);
    expect(t.run.steps.implement).toMatchObject({ status: 'queued', attempt: 1, epoch: 1, losses: 1, repairs: 0 });
    // The stalled attempt's record keeps what it said.
    expect(t.run.steps.implement?.attempts[0]).toMatchObject({ attempt: 1, epoch: 0, conclusion: 'failure', error: stalled.error });
    for (let i = 2; i <= MAX_LOSSES; i++) {
      run = t.run;
      t = step(run, current(run, 'implement', 'failure', stalled));
      expect(t.run.steps.implement).toMatchObject({ epoch: i, losses: i });
    }
    run = t.run;
    t = step(run, current(run, 'implement', 'failure', stalled));
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.implement).toMatchObject({ status: 'failed', repairs: 0 });
    expect(t.run.steps.implement?.reason).toMatch(/^attempt 1 was lost 3 times \(last: the agent stalled \(The agent printed nothing/);
  });

  it('a stalled repair runs again as the same repair, with its findings', () => {
    let run = succeed(start(plan).run, 'implement');
    run = step(run, current(run, 'test', 'failure', { error: { code: 'gate-failed', message: '1 failing' }, findings: 'F' })).run;
    expect(run.steps.test).toMatchObject({ mode: 'repair', attempt: 2, repairs: 1 });
    const t = step(run, current(run, 'test', 'failure', stalled));
    expect(t.effects[0]).toMatchObject({ type: 'dispatch', ref: { mode: 'repair', attempt: 2, epoch: 1 }, findings: 'F' });
    expect(t.run.steps.test).toMatchObject({ repairs: 1, losses: 1 });
  });

  it('a stalled reviewer is reviewed again, not repaired', () => {
    const run = reviewing();
    const t = step(run, current(run, 'review', 'failure', stalled));
    expect(types(t.effects)).toEqual(['dispatch:review:1:1', 'report']);
    expect(t.run.steps.review).toMatchObject({ mode: 'run', repairs: 0, losses: 1 });
  });
});
