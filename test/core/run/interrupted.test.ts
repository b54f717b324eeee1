// Ctrl-C on the command that drives a run: the attempt under way is stopped and recorded as
// interrupted, never dispatched again on its own as a lost one is; the run waits for a retry.
import { describe, expect, it } from 'vitest';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, statuses, step, types } from './drive.ts';

describe('an interrupted run', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate', repair: 2 },
  ]);
  const interrupt = { type: 'interrupted', at: AT, reason: 'Ctrl-C; `conveyor retry r1` resumes it' } as const;

  it('records the attempt under way as interrupted, stops it, and waits for a retry', () => {
    const running = start(plan).run;
    const t = step(running, interrupt);
    expect(statuses(t.run)).toEqual({ implement: 'failed', test: 'pending' });
    expect(t.run.steps.implement!.attempts.map((a) => a.conclusion)).toEqual(['interrupted']);
    expect(t.run.steps.implement!.reason).toBe('attempt 1 was interrupted: Ctrl-C; `conveyor retry r1` resumes it');
    expect(t.run.status).toBe('waiting');
    expect(types(t.effects)).toEqual(['stop', 'report']);

    // The stopped attempt's end, told later as a loss, dispatches nothing.
    const late = step(t.run, { type: 'step-lost', at: AT, step: 'implement', attempt: 1, epoch: 0, reason: 'the step process was killed' });
    expect(late.run).toBe(t.run);

    // A retry runs the step again, as a new attempt.
    const retried = step(t.run, { type: 'retry', at: AT });
    expect(types(retried.effects)).toContain('dispatch:implement:2:0');
  });

  it('names a repair as one, and changes nothing on a run with nothing under way', () => {
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success')).run;
    run = step(run, current(run, 'test', 'failure', { findings: 'boom' })).run;
    expect(step(run, interrupt).run.steps.test!.reason).toMatch(/^repair attempt 2 was interrupted/);
    const waiting = step(run, interrupt).run;
    expect(step(waiting, interrupt).run).toBe(waiting);
  });

  it('sends no stop for an attempt the engine runs itself (a ci step waiting for the checks): nothing was dispatched', () => {
    const withCi = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'ci', kind: 'ci', repair: 1 },
    ]);
    let run = start(withCi).run;
    run = step(run, current(run, 'implement', 'success')).run;
    expect(run.steps.ci?.status).toBe('queued');
    const t = step(run, interrupt);
    expect(t.run.steps.ci!.attempts.map((a) => a.conclusion)).toEqual(['interrupted']);
    expect(types(t.effects)).toEqual(['report']);
  });
});
