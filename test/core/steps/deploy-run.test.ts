// The run state machine's rules for preview environments: recorded as they settle, carried over a
// lost attempt into its re-dispatch, torn down when the run ends (and not while it waits), late
// arrivals after the end torn down at once, teardown failures kept visible.
import { describe, expect, it } from 'vitest';
import { buildPayload } from '../../../core/run/payload.ts';
import type { Run } from '../../../core/run/types.ts';
import type { Environment } from '../../../core/contract/wire.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, step, succeed, types } from '../run/drive.ts';

const plan = planOf([
  { id: 'preview', kind: 'deploy' },
  { id: 'check', kind: 'gate' },
  { id: 'approve', kind: 'approval' },
]);
const api: Environment = { service: 'api', envId: 'r1-api', state: 'ready', url: 'http://api' };
const web: Environment = { service: 'web', envId: 'r1-web', state: 'ready', url: 'http://web' };

function settled(run: Run, environments: Environment[], epoch = run.steps.preview!.epoch) {
  return step(run, { type: 'environments-settled', at: AT, step: 'preview', attempt: run.steps.preview!.attempt, epoch, environments });
}

describe('environments of a run', () => {
  it('records outcomes of the current deploy attempt as they settle, and ignores other attempts and repeats', () => {
    const run = start(plan).run;
    const t = settled(run, [api]);
    expect(t.run.environments).toEqual([api]);
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.preview?.status).toBe('queued');
    expect(settled(t.run, [api]).run).toBe(t.run);
    expect(settled(run, [api], 5).run).toBe(run);
  });

  it('keeps what a lost attempt settled, so its re-dispatch carries it in the payload', () => {
    const run = start(plan).run;
    const lost = step(run, { type: 'step-lost', at: AT, step: 'preview', attempt: 1, epoch: 0, reason: 'killed', environments: [api] });
    expect(types(lost.effects)).toEqual(['dispatch:preview:1:1', 'report']);
    expect(lost.run.environments).toEqual([api]);
    const payload = buildPayload(lost.run, { step: 'preview', attempt: 1, epoch: 1, mode: 'run' });
    expect(payload.environments).toEqual([api]);
    expect(payload.service).toBe('web');
  });

  it('keeps environments while the run waits and tears every ready one down when it succeeds', () => {
    let run = start(plan).run;
    run = step(run, current(run, 'preview', 'success', { environments: [api, web, { service: 'docs', envId: 'r1-docs', state: 'skipped' }] })).run;
    run = succeed(run, 'check');
    expect(run.status).toBe('waiting');
    const done = step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' });
    expect(done.run.status).toBe('succeeded');
    const teardown = done.effects.find((e) => e.type === 'teardown');
    expect(teardown).toMatchObject({ environments: [api, web] });
    const gone = step(done.run, { type: 'torn-down', at: AT, environments: [api, web] });
    expect(gone.run.environments.map((e) => e.service)).toEqual(['docs']);
    expect(gone.run.removedEnvironments).toEqual([api, web]);
  });

  it('keeps them past the end with keepEnvs', () => {
    let run = start(plan, { keepEnvs: true }).run;
    run = step(run, current(run, 'preview', 'success', { environments: [api] })).run;
    run = succeed(run, 'check');
    const done = step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' });
    expect(done.run.status).toBe('succeeded');
    expect(done.effects.some((e) => e.type === 'teardown')).toBe(false);
  });

  it('tears down what a deploy still running at cancel brings up afterwards', () => {
    let run = start(plan).run;
    run = settled(run, [api]).run;
    const cancelled = step(run, { type: 'cancel', at: AT, by: 'bob' });
    expect(cancelled.effects.find((e) => e.type === 'teardown')).toMatchObject({ environments: [api] });
    const late = step(cancelled.run, { type: 'environments-settled', at: AT, step: 'preview', attempt: 1, epoch: 0, environments: [api, web] });
    expect(late.effects.find((e) => e.type === 'teardown')).toMatchObject({ environments: [web] });
    expect(late.run.status).toBe('cancelled');
    const result = step(late.run, current(run, 'preview', 'success', { environments: [api, web] }));
    expect(result.run).toBe(late.run);
  });

  it('keeps an environment whose teardown failed, with the reason, and removes it on a later success', () => {
    let run = start(plan).run;
    run = step(run, current(run, 'preview', 'success', { environments: [api, web] })).run;
    run = step(run, { type: 'cancel', at: AT }).run;
    const failed = step(run, { type: 'torn-down', at: '2025-01-02T00:00:00.000Z', environments: [web], failed: [{ ...api, error: 'exited with 1' }] });
    expect(failed.run.environments).toEqual([{ ...api, error: 'teardown failed (2025-01-02T00:00:00.000Z): exited with 1' }]);
    expect(failed.run.removedEnvironments).toEqual([web]);
    const again = step(failed.run, { type: 'torn-down', at: AT, environments: [api] });
    expect(again.run.environments).toEqual([]);
  });
});
