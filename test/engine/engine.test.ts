// The engine over a real SQLite store: every effect is carried out once and marked done once
// carried out, and a process that dies before that leaves the effects pending for recovery, which
// carries them out without running any attempt twice: at once by a sole driver (the command line,
// holding the run's lease), by a replica beside it once the dead one's claims run out.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../engine/ports/dispatcher.ts';
import { Engine } from '../../engine/engine.ts';
import { attemptKey } from '../../core/contract/attempt-ref.ts';
import type { RunStore } from '../../engine/ports/store.ts';
import { openSqliteStore } from '../../adapters/store/sqlite.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { planOf, resultOf, successFor, TEST_ORIGIN } from '../helpers/plans.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { loggerOf } from '../../lib/logger.ts';

const AT = '2025-01-01T00:00:00.000Z';
const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate' },
  { id: 'review', kind: 'review', needs: ['implement'] },
  { id: 'ship', kind: 'merge', needs: ['test', 'review'] },
]);
const issue = { repo: 'acme/web', number: 7, title: 'Make it better', body: 'Please.' };

const attemptOf = (p: StepPayload): string => `${p.step.id}#${p.attempt}.${p.epoch}`;

let dir: string;
let path: string;
let handles: RunStore[];
beforeEach(() => {
  dir = tempDir('conveyor-engine-');
  path = join(dir, 'state.db');
  handles = [];
});
afterEach(async () => {
  for (const h of handles) await h.close();
  removeDir(dir);
});
async function open(): Promise<RunStore> {
  const s = await openSqliteStore(path);
  handles.push(s);
  return s;
}

describe('the engine over a real store', () => {
  it('carries out every effect once, marks each done once carried out, and leaves none pending once idle', async () => {
    const store = await open();
    const ran: string[] = [];
    const reports: number[] = [];
    const engine = new Engine({
      store,
      dispatcher: {
        run: (payload) => {
          ran.push(attemptOf(payload));
          return Promise.resolve({ kind: 'result', result: successFor(payload) });
        },
        recover: () => Promise.resolve(undefined),
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: (run, { ref }) => Promise.resolve(resultOf(run.id, ref.step, ref.attempt, ref.epoch, 'success')),
      report: (run) => void reports.push(run.version),
    });
    await engine.start({ id: 'web-7', plan, issue, requester: 'alice', origin: TEST_ORIGIN });
    await engine.idle();
    expect(ran.sort()).toEqual(['implement#1.0', 'review#1.0', 'test#1.0']);
    const run = await engine.get('web-7');
    expect(run.status).toBe('succeeded');
    expect(await store.pendingEffects()).toEqual([]);
    // A report for every transition, each of a committed version.
    expect(reports.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...reports)).toBe(run.version);
  });

  it('says an effect that failed with the run, the effect and its attempt as fields', async () => {
    const store = await open();
    const logged: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const engine = new Engine({
      store,
      dispatcher: {
        run: (payload) => Promise.resolve({ kind: 'result', result: successFor(payload) }),
        recover: () => Promise.resolve(undefined),
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: () => Promise.reject(new Error('the merge broke')),
      log: loggerOf((level, message, fields) => void logged.push({ level, message, fields })),
    });
    await engine.start({ id: 'web-7', plan, issue, requester: 'alice', origin: TEST_ORIGIN });
    await engine.idle();
    expect(logged).toEqual([
      {
        level: 'error',
        message: expect.stringMatching(/^Error: the merge broke\n/),
        fields: { run: 'web-7', effect: 'merge', step: 'ship', attempt: 1, epoch: 0, mode: 'run' },
      },
    ]);
  });

  it("where the forge runs no CI (the embedded mode's), a ci step passes at once, saying there was nothing to wait for", async () => {
    const store = await open();
    const engine = new Engine({
      store,
      dispatcher: {
        run: (payload) => Promise.resolve({ kind: 'result', result: successFor(payload) }),
        recover: () => Promise.resolve(undefined),
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: (run, { ref }) => Promise.resolve(resultOf(run.id, ref.step, ref.attempt, ref.epoch, 'success')),
    });
    const withCi = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'ci', kind: 'ci', repair: 1 },
      { id: 'ship', kind: 'merge' },
    ]);
    await engine.start({ id: 'web-7', plan: withCi, issue, requester: 'alice', origin: TEST_ORIGIN });
    await engine.idle();
    const run = await engine.get('web-7');
    expect(run.status).toBe('succeeded');
    expect(run.steps.ci).toMatchObject({ status: 'succeeded', repairs: 0 });
    expect(run.steps.ci?.result?.summary).toMatch(/^The local forge runs no CI, so there are no required checks to wait for/);
  });

  it('a run that cannot be stored starts nothing and leaves nothing behind', async () => {
    const store = await open();
    const ran: string[] = [];
    const engine = new Engine({
      store,
      dispatcher: {
        run: (p) => (ran.push(attemptOf(p)), new Promise<AttemptOutcome>(() => {})),
        recover: () => Promise.resolve(undefined),
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: () => Promise.reject(new Error('not reached')),
    });
    await engine.start({ id: 'web-7', plan, issue, requester: 'alice', origin: TEST_ORIGIN });
    // The same issue and pipeline: refused as a second active run.
    await expect(engine.start({ id: 'web-7-2', plan, issue, requester: 'alice', origin: TEST_ORIGIN })).rejects.toMatchObject({ code: 'active-run' });
    expect(ran).toEqual(['implement#1.0']);
    expect((await store.list()).map((r) => r.id)).toEqual(['web-7']);
  });

  it('a process that dies before writing its marks leaves the effects pending; recovery runs no attempt twice', async () => {
    // The first process: its `implement` attempt never reports before it dies.
    const first = await open();
    const ranFirst: string[] = [];
    const dying = new Engine({
      store: first,
      dispatcher: {
        run: (payload) => {
          ranFirst.push(attemptOf(payload));
          return new Promise<AttemptOutcome>(() => {});
        },
        recover: () => Promise.resolve(undefined),
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: () => Promise.reject(new Error('not reached')),
    });
    await dying.start({ id: 'web-7', plan, issue, requester: 'alice', origin: TEST_ORIGIN });
    expect(ranFirst).toEqual(['implement#1.0']);
    // Its dispatch is under way (not done until the attempt ends), and its report is done.
    expect((await first.pendingEffects('web-7')).map((e) => e.key)).toEqual(['web-7:implement:1:0:dispatch']);

    // The next process: the attempt's result was written after the first one died.
    const second = await open();
    const ranSecond: string[] = [];
    const recovered: string[] = [];
    const engine = new Engine({
      store: second,
      soleDriver: true,
      dispatcher: {
        run: (payload) => {
          ranSecond.push(attemptOf(payload));
          return Promise.resolve({ kind: 'result', result: successFor(payload) });
        },
        recover: (payload) => {
          recovered.push(attemptOf(payload));
          return Promise.resolve({ kind: 'result', result: successFor(payload) });
        },
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: (run, { ref }) => Promise.resolve(resultOf(run.id, ref.step, ref.attempt, ref.epoch, 'success')),
    });
    await engine.recover('web-7');
    await engine.idle();
    expect(recovered).toEqual(['implement#1.0']);
    // The left-over dispatch of implement was moot (its attempt had settled): it did not run again.
    expect(ranSecond.sort()).toEqual(['review#1.0', 'test#1.0']);
    const run = await engine.get('web-7');
    expect(run.status).toBe('succeeded');
    expect(run.steps.implement?.attempts).toHaveLength(1);
    expect(await second.pendingEffects()).toEqual([]);
  });

  it('a replica beside a live one leaves its effects alone, and takes them once their claims run out (it died), carrying each out once', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const ranA: string[] = [];
    const a = new Engine({
      store: await open(),
      holder: 'replica A',
      claimTtlMs: 150,
      dispatcher: {
        run: (p) => (ranA.push(attemptOf(p)), new Promise<AttemptOutcome>(() => {})),
        recover: () => Promise.resolve(undefined),
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: () => Promise.reject(new Error('not reached')),
    });
    await a.start({ id: 'web-7', plan, issue, requester: 'alice', origin: TEST_ORIGIN });
    expect(ranA).toEqual(['implement#1.0']);
    const ranB: string[] = [];
    const b = new Engine({
      store: await open(),
      holder: 'replica B',
      dispatcher: {
        run: (p) => (ranB.push(attemptOf(p)), Promise.resolve({ kind: 'result', result: successFor(p) })),
        recover: () => Promise.resolve(undefined),
        stop: () => Promise.resolve(),
      },
      now: () => AT,
      merge: (run, { ref }) => Promise.resolve(resultOf(run.id, ref.step, ref.attempt, ref.epoch, 'success')),
    });
    // A is alive: well past its claims' time, it keeps renewing them while its dispatch is under way.
    await sleep(400);
    expect(await b.carryOutAbandoned()).toEqual([]);
    await b.carryOutPending('web-7');
    await b.idle();
    expect(ranB).toEqual([]);
    // A dies (stops renewing): once its claim runs out, B takes the dispatch and carries it out.
    a.close();
    let taken: string[] = [];
    for (let tries = 0; tries < 200 && taken.length === 0; tries++) {
      await sleep(50);
      taken = await b.carryOutAbandoned();
    }
    expect(taken).toEqual(['web-7/web-7:implement:1:0:dispatch']);
    await b.idle();
    expect(ranB.sort()).toEqual(['implement#1.0', 'review#1.0', 'test#1.0']);
    expect((await b.get('web-7')).status).toBe('succeeded');
    expect(await handles[1]!.pendingEffects()).toEqual([]);
  });

  it("carries a cancel's stops out first, each for its attempt and with the cancel's reason, and the rest of the cancel once they are done", async () => {
    const store = await open();
    const stops: Array<{ key: string; reason: string }> = [];
    let stopped!: () => void;
    const stopping = new Promise<void>((resolve) => (stopped = resolve));
    const reports: string[] = [];
    const engine = new Engine({
      store,
      dispatcher: {
        // Every attempt runs until it is stopped.
        run: () => new Promise<AttemptOutcome>(() => {}),
        recover: () => Promise.resolve(undefined),
        stop: (ref, reason) => {
          stops.push({ key: attemptKey(ref), reason });
          return stopping;
        },
      },
      now: () => AT,
      merge: (run, { ref }) => Promise.resolve(resultOf(run.id, ref.step, ref.attempt, ref.epoch, 'success')),
      report: (run) => void reports.push(run.status),
    });
    // Two gates under way at once, and a merge the engine would carry out itself.
    const parallel = planOf([
      { id: 'unit', kind: 'gate', needs: [] },
      { id: 'lint', kind: 'gate', needs: [] },
      { id: 'ship', kind: 'merge', needs: ['unit', 'lint'] },
    ]);
    await engine.start({ id: 'web-7', plan: parallel, issue, origin: TEST_ORIGIN });
    await engine.apply('web-7', { type: 'cancel', at: AT, by: 'alice', reason: 'wrong approach' });
    await new Promise((r) => setTimeout(r, 50));
    const reason = 'cancelled by alice: wrong approach';
    expect(stops).toEqual([
      { key: 'web-7:unit:1:0', reason },
      { key: 'web-7:lint:1:0', reason },
    ]);
    // The cancel's report waits for its stops.
    expect(reports).not.toContain('cancelled');
    expect((await store.pendingEffects('web-7')).map((e) => e.key)).toContain('web-7:unit:1:0:stop');
    stopped();
    await new Promise((r) => setTimeout(r, 50));
    expect(reports).toContain('cancelled');
    expect((await store.pendingEffects('web-7')).map((e) => e.key).filter((k) => k.endsWith(':stop') || k.includes(':report:'))).toEqual([]);
  });
});
