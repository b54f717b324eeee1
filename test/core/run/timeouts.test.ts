// How long an attempt may run before it counts as lost: the step's timeout, or for a repair the
// repairing agent's.
import { describe, expect, it } from 'vitest';
import { attemptTimeoutMinutes } from '../../../core/run/draft.ts';
import { createRun, reduce } from '../../../core/run/reducer.ts';
import type { Plan } from '../../../core/plan/types.ts';
import { planOf, TEST_ORIGIN } from '../../helpers/plans.ts';
import { current } from './drive.ts';

const AT = '2025-01-01T00:00:00.000Z';

function withCoderTimeout(plan: Plan, minutes: number): Plan {
  return { ...plan, agents: { ...plan.agents, coder: { ...plan.agents.coder!, timeoutMinutes: minutes } } };
}

describe('attemptTimeoutMinutes', () => {
  const plan = withCoderTimeout(
    planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate', repair: 2 },
    ]),
    45,
  );
  let run = reduce(createRun({ id: 'r', plan, issue: { repo: 'acme/web', number: 1, title: 't', body: '' }, origin: TEST_ORIGIN, at: AT }), {
    type: 'started',
    at: AT,
  }).run;
  run = reduce(run, current(run, 'implement', 'success')).run;

  it("is the step's own timeout for a run attempt", () => {
    expect(run.steps.test).toMatchObject({ status: 'queued', mode: 'run' });
    expect(attemptTimeoutMinutes(run, 'test')).toBe(30);
  });

  it("is the repairing agent's timeout when that is longer, for a repair attempt", () => {
    const repairing = reduce(run, current(run, 'test', 'failure', { findings: 'boom' })).run;
    expect(repairing.steps.test).toMatchObject({ status: 'queued', mode: 'repair' });
    expect(attemptTimeoutMinutes(repairing, 'test')).toBe(45);
    const quick = { ...repairing, plan: withCoderTimeout(repairing.plan, 5) };
    expect(attemptTimeoutMinutes(quick, 'test')).toBe(30);
  });

  it("is the code step's agent's timeout for a merge's conflict repair (the merge step names no agent)", () => {
    const merging = withCoderTimeout(
      planOf([
        { id: 'implement', kind: 'code' },
        { id: 'ship', kind: 'merge' },
      ]),
      45,
    );
    let m = reduce(createRun({ id: 'm', plan: merging, issue: { repo: 'acme/web', number: 1, title: 't', body: '' }, origin: TEST_ORIGIN, at: AT }), {
      type: 'started',
      at: AT,
    }).run;
    m = reduce(m, current(m, 'implement', 'success')).run;
    expect(attemptTimeoutMinutes(m, 'ship')).toBe(30);
    const conflict = { error: { code: 'merge-conflict' as const, message: 'acme/web#1 conflicts' }, findings: 'resolve acme/web#1' };
    m = reduce(m, current(m, 'ship', 'failure', conflict)).run;
    expect(m.steps.ship).toMatchObject({ status: 'queued', mode: 'repair' });
    expect(attemptTimeoutMinutes(m, 'ship')).toBe(45);
  });

  it('is 0 for a step the plan does not have', () => {
    expect(attemptTimeoutMinutes(run, 'nope')).toBe(0);
  });
});
