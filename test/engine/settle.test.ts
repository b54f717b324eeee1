// Engine.settle, the one way an attempt's end reaches its run, however it was learned (a dispatch's
// answer, a recovery, a webhook, the sweeper): over a real SQLite store, the dispatcher a stand-in
// that records what it is asked to close. A result counts only for the current attempt and when
// its receipt verifies; a loss counts once, and only a loss that counted is closed where it ran.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.ts';
import type { AttemptOutcome } from '../../engine/ports/dispatcher.ts';
import type { RunStore } from '../../engine/ports/store.ts';
import { openSqliteStore } from '../../adapters/store/sqlite.ts';
import { attemptKey, type AttemptRef } from '../../core/contract/attempt-ref.ts';
import { planOf, resultOf, sealedFor, TEST_ORIGIN } from '../helpers/plans.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'preview', kind: 'deploy' },
]);
const IMPLEMENT: AttemptRef = { runId: 'web-7', step: 'implement', attempt: 1, epoch: 0, mode: 'run' };
const env = { service: 'web', envId: 'web-7-web', state: 'ready' as const, url: 'http://web' };

let dir: string;
let store: RunStore;
let engine: Engine;
let closed: Array<{ key: string; reason: string; close?: string; after: string }>;
beforeEach(async () => {
  dir = tempDir('conveyor-settle-');
  store = await openSqliteStore(join(dir, 'state.db'));
  closed = [];
  engine = new Engine({
    store,
    // Every attempt is started elsewhere and reports later (as on GitHub).
    dispatcher: {
      run: () => Promise.resolve<AttemptOutcome>({ kind: 'dispatched' }),
      recover: () => Promise.resolve(undefined),
      stop: () => Promise.resolve(),
      closeLost: (ref, loss, after) => {
        const s = after.steps[ref.step]!;
        closed.push({ key: attemptKey(ref), reason: loss.reason, ...(loss.close ? { close: loss.close } : {}), after: `${s.status} ${s.attempt}.${s.epoch}` });
        return Promise.resolve();
      },
    },
    now: () => AT,
    merge: () => Promise.reject(new Error('no merge here')),
  });
  await engine.start({ id: 'web-7', plan, issue: { repo: 'acme/web', number: 7, title: 'T', body: 'B' }, origin: TEST_ORIGIN });
  await engine.idle();
});
afterEach(async () => {
  await engine.idle();
  await store.close();
  removeDir(dir);
});

describe('Engine.settle', () => {
  it('counts a loss once, closing it where it ran only when it counted and asked to be closed', async () => {
    expect(await engine.settle(IMPLEMENT, { kind: 'lost', reason: 'its workflow run ended', close: 'lost' })).toBe(true);
    expect(closed).toEqual([{ key: 'web-7:implement:1:0', reason: 'its workflow run ended', close: 'lost', after: 'queued 1.1' }]);
    // The same end told again (a redelivery, the sweeper after the webhook): the attempt is no longer current.
    expect(await engine.settle(IMPLEMENT, { kind: 'lost', reason: 'its workflow run ended', close: 'lost' })).toBe(false);
    // The next dispatch's loss that needs no closing (its check run was completed by someone else).
    const again = { ...IMPLEMENT, epoch: 1 };
    expect(await engine.settle(again, { kind: 'lost', reason: 'completed without a result' })).toBe(true);
    expect(closed).toHaveLength(1);
    expect((await engine.get('web-7')).steps.implement).toMatchObject({ status: 'queued', attempt: 1, epoch: 2 });
  });

  it('takes a sealed result of the current attempt, and nothing of another attempt or an unsealed one', async () => {
    const before = await engine.get('web-7');
    // Another attempt's (a dispatch that never was): nothing changes.
    expect(await engine.settle({ ...IMPLEMENT, epoch: 5 }, { kind: 'result', result: resultOf('web-7', 'implement', 1, 5, 'success') })).toBe(false);
    expect((await engine.get('web-7')).version).toBe(before.version);
    // The current attempt's, unsealed: the attempt is not trusted (lost), and dispatched again.
    expect(await engine.settle(IMPLEMENT, { kind: 'result', result: resultOf('web-7', 'implement', 1, 0, 'success') })).toBe(false);
    expect((await engine.get('web-7')).steps.implement).toMatchObject({ status: 'queued', epoch: 1 });
    const now = await engine.get('web-7');
    const sealed = sealedFor(now, resultOf('web-7', 'implement', 1, 1, 'success'));
    expect(await engine.settle({ ...IMPLEMENT, epoch: 1 }, { kind: 'result', result: sealed })).toBe(true);
    expect((await engine.get('web-7')).steps.implement?.status).toBe('succeeded');
    expect(closed).toEqual([]);
  });

  it("records what a teardown removed of the run's ready environments, and what it did not with why", async () => {
    let run = await engine.get('web-7');
    await engine.settle(IMPLEMENT, { kind: 'result', result: sealedFor(run, resultOf('web-7', 'implement', 1, 0, 'success')) });
    run = await engine.get('web-7');
    const preview = { ...IMPLEMENT, step: 'preview' };
    const deployed = sealedFor(run, resultOf('web-7', 'preview', 1, 0, 'success', { environments: [env, { ...env, service: 'api', envId: 'web-7-api' }] }));
    await engine.apply('web-7', { type: 'cancel', at: AT });
    await engine.settle(preview, { kind: 'result', result: deployed });
    run = await engine.get('web-7');
    expect(run.environments.map((e) => e.service).sort()).toEqual(['api', 'web']);
    const teardown: AttemptRef = { runId: 'web-7', step: 'preview', attempt: run.version, epoch: 0, mode: 'teardown' };
    const removed = resultOf('web-7', 'preview', run.version, 0, 'failure', {
      mode: 'teardown',
      environments: [env],
      error: { code: 'teardown-failed', message: 'api would not go' },
    });
    expect(await engine.settle(teardown, { kind: 'result', result: removed })).toBe(true);
    run = await engine.get('web-7');
    expect(run.removedEnvironments?.map((e) => e.service)).toEqual(['web']);
    expect(run.environments).toEqual([expect.objectContaining({ service: 'api', error: expect.stringContaining('api would not go') })]);
  });
});
