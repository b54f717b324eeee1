// The engine over the SQLite store's outbox: every effect is carried out once and marked done,
// the done marks ride on the engine's next commit (or are written when it goes idle, is closed,
// or a moment after its work drained), and a
// process that dies before writing them leaves the effects pending for recovery, which carries
// them out without running any attempt twice.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptOutcome, Dispatcher } from '../../../engine/ports/dispatcher.ts';
import { Engine, FLUSH_AFTER_MS } from '../../../engine/engine.ts';
import type { EffectRef, RunStore } from '../../../engine/ports/store.ts';
import { openSqliteStore } from '../../../adapters/store/sqlite.ts';
import type { StepPayload } from '../../../core/contract/wire.ts';
import { planOf, resultOf, successFor } from '../../helpers/plans.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate' },
  { id: 'review', kind: 'review', needs: ['implement'] },
  { id: 'ship', kind: 'merge', needs: ['test', 'review'] },
]);
const issue = { repo: 'acme/web', number: 7, title: 'Make it better', body: 'Please.' };

const attemptOf = (p: StepPayload): string => `${p.step.id}#${p.attempt}.${p.epoch}`;

/** Counts what the store is asked to write, passing everything through. */
function counting(store: RunStore): { store: RunStore; commitsWithMarks: number; marks: EffectRef[]; separateMarkWrites: number } {
  const seen = { commitsWithMarks: 0, marks: [] as EffectRef[], separateMarkWrites: 0 };
  const wrapped: RunStore = Object.create(store) as RunStore;
  wrapped.commit = (run, effects, done) => {
    if (done?.length) {
      seen.commitsWithMarks++;
      seen.marks.push(...done);
    }
    return store.commit(run, effects, done);
  };
  wrapped.markEffectsDone = (refs) => {
    if (refs.length) seen.separateMarkWrites++;
    seen.marks.push(...refs);
    store.markEffectsDone(refs);
  };
  return Object.assign(seen, { store: wrapped });
}

let dir: string;
let path: string;
let handles: RunStore[];
beforeEach(() => {
  dir = tempDir('conveyor-outbox-');
  path = join(dir, 'state.db');
  handles = [];
});
afterEach(() => {
  for (const h of handles) h.close();
  removeDir(dir);
});
function open(): RunStore {
  const s = openSqliteStore(path);
  handles.push(s);
  return s;
}

describe('the engine over the outbox', () => {
  it('carries out every effect once and leaves none pending once idle; done marks ride on the next commit', async () => {
    const counted = counting(open());
    const runs: string[] = [];
    const reports: number[] = [];
    const dispatcher: Dispatcher = {
      run: (payload) => {
        runs.push(attemptOf(payload));
        return Promise.resolve({ kind: 'result', result: successFor(payload) });
      },
      recover: () => Promise.resolve(undefined),
    };
    const engine = new Engine({
      store: counted.store,
      dispatcher,
      now: () => AT,
      merge: (run, effect) => Promise.resolve(resultOf(run.id, effect.step, effect.attempt, effect.epoch, 'success')),
      report: (run) => {
        reports.push(run.version);
      },
    });
    const started = await engine.start({ id: 'web-7', plan, issue, requester: 'alice', options: {} });
    expect(started.version).toBe(1); // created and started in one write
    await engine.idle();
    const run = engine.get('web-7');
    expect(run.status).toBe('succeeded');
    expect(runs.sort()).toEqual(['implement#1.0', 'review#1.0', 'test#1.0']);
    // One report per stored version, each once.
    expect(reports).toEqual(Array.from({ length: run.version }, (_, i) => i + 1));
    expect(counted.store.pendingEffects()).toEqual([]);
    // Every effect was marked done exactly once, and mostly inside the commits of later transitions.
    const keys = counted.marks.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('web-7:ship:1:0:merge');
    expect(counted.commitsWithMarks).toBeGreaterThanOrEqual(run.version - 1);
    expect(counted.separateMarkWrites).toBe(1); // the last report's mark, when the engine went idle
  });

  it('a long-lived process holds its marks for its next commit, of any run, and writes them a moment after its work drained', async () => {
    const counted = counting(open());
    const engine = new Engine({
      store: counted.store,
      dispatcher: { run: (payload) => Promise.resolve({ kind: 'result', result: successFor(payload) }), recover: () => Promise.resolve(undefined) },
      now: () => AT,
      merge: (run, effect) => Promise.resolve(resultOf(run.id, effect.step, effect.attempt, effect.epoch, 'success')),
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await engine.start({ id: 'web-7', plan, issue, requester: 'alice', options: {} });
      await engine.settled();
      expect(engine.get('web-7').status).toBe('succeeded');
      // Nothing written apart: the last marks wait for a commit.
      expect(counted.separateMarkWrites).toBe(0);
      const held = counted.store.pendingEffects().map((e) => `${e.runId}/${e.key}`);
      expect(held.length).toBeGreaterThan(0);
      // Another run's first commit carries them.
      await engine.start({ id: 'web-8', plan, issue: { ...issue, number: 8 }, requester: 'alice', options: {} });
      await engine.settled();
      expect(counted.store.pendingEffects('web-7')).toEqual([]);
      expect(counted.separateMarkWrites).toBe(0);
      // With no commit coming, the timer writes them on their own.
      expect(counted.store.pendingEffects('web-8')).not.toEqual([]);
      vi.advanceTimersByTime(FLUSH_AFTER_MS);
      expect(counted.store.pendingEffects()).toEqual([]);
      expect(counted.separateMarkWrites).toBe(1);
      // close() writes what is held at once (nothing is, now) and leaves no timer behind.
      engine.close();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('marks held for a new run whose write failed are kept for the next write, not lost', async () => {
    const counted = counting(open());
    let refuse = false;
    const create = counted.store.create.bind(counted.store);
    counted.store.create = (run, effects, done) => {
      if (refuse) throw new Error('disk full');
      create(run, effects, done);
    };
    const engine = new Engine({
      store: counted.store,
      dispatcher: { run: (payload) => Promise.resolve({ kind: 'result', result: successFor(payload) }), recover: () => Promise.resolve(undefined) },
      now: () => AT,
      merge: (run, effect) => Promise.resolve(resultOf(run.id, effect.step, effect.attempt, effect.epoch, 'success')),
    });
    await engine.start({ id: 'web-7', plan, issue, requester: 'alice', options: {} });
    await engine.settled();
    expect(counted.store.pendingEffects('web-7')).not.toEqual([]);
    refuse = true;
    await expect(engine.start({ id: 'web-8', plan, issue: { ...issue, number: 8 }, requester: 'alice', options: {} })).rejects.toThrow('disk full');
    await engine.idle();
    expect(counted.store.pendingEffects()).toEqual([]);
    expect(counted.separateMarkWrites).toBe(1);
  });

  it('a process that dies before writing its marks leaves the effects pending; recovery runs no attempt twice', async () => {
    // The first process: its `implement` attempt never reports before it dies.
    const first = open();
    const ranFirst: string[] = [];
    const dying = new Engine({
      store: first,
      dispatcher: {
        run: (payload) => {
          ranFirst.push(attemptOf(payload));
          return new Promise<AttemptOutcome>(() => {});
        },
        recover: () => Promise.resolve(undefined),
      },
      now: () => AT,
      merge: () => Promise.reject(new Error('not reached')),
    });
    await dying.start({ id: 'web-7', plan, issue, requester: 'alice', options: {} });
    expect(ranFirst).toEqual(['implement#1.0']);
    // Its dispatch was carried out, but its mark is held while the attempt runs: still pending.
    expect(first.pendingEffects('web-7').map((e) => e.key)).toEqual(['web-7:implement:1:0:dispatch', 'web-7:report:1']);

    // The next process: the attempt's result was written after the first one died.
    const second = open();
    const ranSecond: string[] = [];
    const recovered: string[] = [];
    const engine = new Engine({
      store: second,
      dispatcher: {
        run: (payload) => {
          ranSecond.push(attemptOf(payload));
          return Promise.resolve({ kind: 'result', result: successFor(payload) });
        },
        recover: (payload) => {
          recovered.push(attemptOf(payload));
          return Promise.resolve({ kind: 'result', result: successFor(payload) });
        },
      },
      now: () => AT,
      merge: (run, effect) => Promise.resolve(resultOf(run.id, effect.step, effect.attempt, effect.epoch, 'success')),
    });
    await engine.recover('web-7');
    await engine.idle();
    expect(recovered).toEqual(['implement#1.0']);
    // The left-over dispatch of implement was moot (its attempt had settled): it did not run again.
    expect(ranSecond.sort()).toEqual(['review#1.0', 'test#1.0']);
    const run = engine.get('web-7');
    expect(run.status).toBe('succeeded');
    expect(run.steps.implement?.attempts).toHaveLength(1);
    expect(second.pendingEffects()).toEqual([]);
  });
});
