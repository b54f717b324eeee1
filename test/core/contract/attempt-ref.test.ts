import { describe, expect, it } from 'vitest';
import {
  attemptFolder,
  attemptKey,
  attemptKeyFor,
  attemptName,
  describeAttempt,
  isCurrent,
  parseAttemptKey,
  refOf,
  type AttemptRef,
  type RunState,
} from '../../../core/contract/attempt-ref.ts';
import { tokenRequestSchema } from '../../../core/contract/token-exchange.ts';
import { makePayload } from '../../helpers/payload.ts';

const REF: AttemptRef = { runId: 'acme-web-7', step: 'test', attempt: 2, epoch: 1, mode: 'run' };

describe('the key of an attempt', () => {
  it('is the format GitHub keeps as check runs’ external ids today, and reads back', () => {
    // Written by every Conveyor so far: an app of either version reads the other's check runs.
    expect(attemptKey(REF)).toBe('acme-web-7:test:2:1');
    expect(attemptKey({ ...REF, mode: 'teardown', step: 'preview', attempt: 9, epoch: 0 })).toBe('acme-web-7:preview:9:0:teardown');
    expect(parseAttemptKey('acme-web-7:test:2:1')).toEqual(REF);
    expect(parseAttemptKey('r:preview:9:0:teardown')).toEqual({ runId: 'r', step: 'preview', attempt: 9, epoch: 0, mode: 'teardown' });
    // An approval step's check run is no attempt: number 0.
    expect(parseAttemptKey('r:approve:0:0')).toMatchObject({ step: 'approve', attempt: 0 });
  });

  it('leaves a repair’s mode out: its number is its own, so it is the same attempt as the key says', () => {
    const repair = { ...REF, mode: 'repair' as const };
    expect(attemptKey(repair)).toBe(attemptKey(REF));
    expect(parseAttemptKey(attemptKey(repair))).toEqual(REF);
  });

  it('refuses anything that is not a key', () => {
    for (const bad of ['', null, undefined, 'r:test:2', 'r:Test:1:0', 'r:test:x:0', 'a:b:c:1:0', ':test:1:0', 'r:test:1:0:repair']) {
      expect(parseAttemptKey(bad), String(bad)).toBeUndefined();
    }
  });

  it('names what concerns one attempt after it', () => {
    expect(attemptKeyFor(REF, 'dispatch')).toBe('acme-web-7:test:2:1:dispatch');
    expect(attemptKeyFor({ ...REF, step: 'ship', attempt: 1, epoch: 0 }, 'merge')).toBe('acme-web-7:ship:1:0:merge');
  });
});

describe('the other names of an attempt', () => {
  it('has a folder per run, and in it one per step, mode, attempt and epoch', () => {
    expect(attemptFolder(REF)).toBe('acme-web-7/test.run.2.1');
    expect(attemptFolder({ ...REF, mode: 'repair' })).toBe('acme-web-7/test.repair.2.1');
  });

  it('names each attempt apart, without a character GitHub refuses in an artifact name', () => {
    const base: AttemptRef = { runId: 'acme-web-7', step: 'implement', mode: 'run', attempt: 1, epoch: 0 };
    expect(attemptName(base, 'conveyor-transcript')).toBe('conveyor-transcript-acme-web-7-implement.run.1.0');
    expect(attemptName({ ...base, mode: 'repair', attempt: 2, epoch: 1 }, 'conveyor-transcript')).toBe('conveyor-transcript-acme-web-7-implement.repair.2.1');
    expect(attemptName({ ...base, runId: 'acme/web:7 "x" <a|b*?>\\' }, 'conveyor-transcript')).toBe(
      'conveyor-transcript-acme-web-7 -x- -a-b-----implement.run.1.0',
    );
  });

  it('says it in words', () => {
    expect(describeAttempt(REF)).toBe('run acme-web-7 step test attempt 2 dispatch 2');
    expect(describeAttempt({ ...REF, mode: 'teardown' })).toBe('run acme-web-7 step test attempt 2 dispatch 2 (teardown)');
  });

  it('is what a payload and a token request name, with nothing else', () => {
    const payload = makePayload({ repos: [{ repo: 'acme/web' }] });
    expect(refOf(payload)).toEqual({ runId: payload.runId, step: payload.step.id, attempt: payload.attempt, epoch: payload.epoch, mode: payload.mode });
    expect(refOf({ ...REF, extra: 1 } as AttemptRef)).toEqual(REF);
    const { token, ...ref } = tokenRequestSchema.parse({ token: 'jwt', runId: 'acme-web-7', step: 'test', attempt: 2, epoch: 1 });
    expect(token).toBe('jwt');
    expect(ref).toEqual(REF);
  });
});

describe('isCurrent', () => {
  const run = (status: string, attempt: number, epoch: number, environments: Array<{ state: string }> = []): RunState => ({
    steps: { test: { status, attempt, epoch }, preview: { status: 'succeeded', attempt: 1, epoch: 0 } },
    plan: {
      steps: [
        { id: 'test', kind: 'gate' },
        { id: 'preview', kind: 'deploy' },
      ],
    },
    environments,
  });

  it('is the queued attempt of its step, and no other', () => {
    expect(isCurrent(run('queued', 2, 1), REF)).toBe(true);
    // The key says `run` for a repair too: the judgement is by number, as the key's.
    expect(isCurrent(run('queued', 2, 1), { ...REF, mode: 'repair' })).toBe(true);
    expect(isCurrent(run('queued', 2, 2), REF)).toBe(false);
    expect(isCurrent(run('queued', 3, 0), REF)).toBe(false);
    for (const status of ['succeeded', 'failed', 'cancelled', 'pending']) expect(isCurrent(run(status, 2, 1), REF), status).toBe(false);
    expect(isCurrent(run('queued', 2, 1), { ...REF, step: 'nope' })).toBe(false);
    expect(isCurrent(undefined, REF)).toBe(false);
  });

  it('is a teardown of the deploy step while an environment is still up', () => {
    const teardown: AttemptRef = { runId: 'acme-web-7', step: 'preview', attempt: 14, epoch: 0, mode: 'teardown' };
    expect(isCurrent(run('succeeded', 1, 0, [{ state: 'ready' }]), teardown)).toBe(true);
    expect(isCurrent(run('succeeded', 1, 0, [{ state: 'failed' }]), teardown)).toBe(false);
    expect(isCurrent(run('succeeded', 1, 0, [{ state: 'ready' }]), { ...teardown, step: 'test' })).toBe(false);
  });
});
