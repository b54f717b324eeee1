// The counts behind /metrics that come from the engine's transitions: an attempt counted once when
// its end is recorded (whatever redelivery shows the same end again), a result the reducer ignores
// counted not at all, and a run's end counted once per end.
import { describe, expect, it } from 'vitest';
import { createAppMetrics } from '../../app/metrics.ts';
import { createRun, reduce } from '../../core/run/reducer.ts';
import type { Run, RunEvent } from '../../core/run/types.ts';
import { completionOf, planOf, TEST_ORIGIN } from '../helpers/plans.ts';

const AT = '2025-03-01T09:00:00.000Z';

async function value(metrics: ReturnType<typeof createAppMetrics>, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe('metrics of transitions', () => {
  it('counts an attempt once by kind, mode and outcome, a lost one too, and a run once when it ends', async () => {
    const metrics = createAppMetrics({ processMetrics: false });
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'check', kind: 'gate' },
    ]);
    let run: Run = reduce(createRun({ id: 'r1', plan, issue: { repo: 'acme/web', number: 1, title: 't', body: '' }, origin: TEST_ORIGIN, at: AT }), {
      type: 'started',
      at: AT,
    }).run;
    const apply = (event: RunEvent) => {
      run = reduce(run, event).run;
      metrics.observe(run, event);
    };
    const lost: RunEvent = { type: 'step-lost', at: AT, step: 'implement', attempt: 1, epoch: 0, reason: 'no runner' };
    apply(lost);
    // Redelivered: the same loss is not a second one.
    apply(lost);
    const done = completionOf(run, 'implement', 'success');
    apply(done);
    apply(done);
    // A result for an attempt that is not current is ignored by the reducer: nothing is counted.
    const current = completionOf(run, 'check', 'success') as Extract<RunEvent, { type: 'step-completed' }>;
    apply({ ...current, result: { ...current.result, attempt: 9 } });
    apply(completionOf(run, 'check', 'success'));
    apply({ type: 'cancel', at: AT, by: 'alice' });
    expect(run.status).toBe('succeeded');
    expect(await value(metrics, 'conveyor_attempts_total', { kind: 'code', mode: 'run', outcome: 'lost' })).toBe(1);
    expect(await value(metrics, 'conveyor_attempts_total', { kind: 'code', mode: 'run', outcome: 'success' })).toBe(1);
    expect(await value(metrics, 'conveyor_attempts_total', { kind: 'gate', mode: 'run', outcome: 'success' })).toBe(1);
    expect(await value(metrics, 'conveyor_runs_finished_total', { state: 'succeeded' })).toBe(1);
    expect(await value(metrics, 'conveyor_runs_finished_total', { state: 'cancelled' })).toBeUndefined();
  });
});
