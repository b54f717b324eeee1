// Drives 1,000 runs of 6 steps through the Engine (app/engine/engine.ts) and the SQLite store,
// with an instant in-process dispatcher (every attempt resolves at once with a successful result,
// sealed as the action seals it) and an instant merge, and compares the cost of one engine
// transition with one bare compare-and-swap write of the same row (the floor). Also prints the
// peak resident memory.
//
// One engine transition costs the engine's whole time for a run (creating it, then from `start`
// until `idle`: reading, reducing, verifying receipts, building payloads, the CAS commit with its
// outbox (in the run's row), carrying the effects out and marking them done), divided by the
// transitions it committed. The time the dispatcher and the merge spend standing in for the
// action and the forge (making and sealing the result) is not the engine's and is taken out; it
// is printed too.
//
// Before the measured runs, a few warm-up runs (not counted) also count the pages each side
// writes to the write-ahead log: a bare write of an unchanged body rewrites one page, while a
// transition changes the run (and writes its outbox), which no write of the same row avoids.
//   npx tsx bench/engine.bench.ts [runs]
import Database from 'better-sqlite3';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AttemptOutcome, Dispatcher } from '../engine/ports/dispatcher.ts';
import { Engine } from '../engine/engine.ts';
import { serializeRun } from '../adapters/store/json.ts';
import { openSqliteStore } from '../adapters/store/sqlite.ts';
import type { RunStore } from '../engine/ports/store.ts';
import { inputsDigest, verifyReceipt } from '../core/contract/receipt.ts';
import type { StepPayload, StepResult } from '../core/contract/wire.ts';
import { planOf, resultOf, successFor } from '../test/helpers/plans.ts';
import { tempDir } from '../test/helpers/repos.ts';

const RUNS = Number(process.argv[2] ?? 1000);
const AT = '2025-01-01T00:00:00.000Z';

const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate', repair: 2 },
  { id: 'review', kind: 'review', repair: 1, needs: ['implement'] },
  { id: 'preview', kind: 'deploy', needs: ['implement'] },
  { id: 'accept', kind: 'gate', needs: ['test', 'review', 'preview'] },
  { id: 'ship', kind: 'merge' },
]);

const dir = tempDir('conveyor-bench-');
const path = join(dir, 'state.db');
const sqlite = openSqliteStore(path);

/** Time the engine spends inside the store's writes (create, commit, marking done), for the breakdown. */
let storeWriteMs = 0;
function timed<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    const t0 = performance.now();
    try {
      return fn(...args);
    } finally {
      storeWriteMs += performance.now() - t0;
    }
  };
}
const store: RunStore = {
  ...Object.fromEntries((['get', 'peek', 'list', 'pendingEffects', 'markEffectDone', 'seenDelivery', 'close'] as const).map((m) => [m, sqlite[m]!.bind(sqlite)])),
  create: timed(sqlite.create.bind(sqlite)),
  commit: timed(sqlite.commit.bind(sqlite)),
  markEffectsDone: timed(sqlite.markEffectsDone.bind(sqlite)),
} as RunStore;

const pr = { repo: 'acme/web', number: 1, url: 'https://github.com/acme/web/pull/1', branch: 'conveyor/web-1', head: 'a'.repeat(40) };

/** Payloads and their results, to time apart the receipt work the engine must do for each (issue #6). */
const SAMPLES = 3000;
const sampled: { payload: StepPayload; result: StepResult }[] = [];

/** Time spent standing in for the action and the forge, or on the bench's own bookkeeping: not the engine's. */
let outsideMs = 0;
let bookkeepingMs = 0;
let attempts = 0;

/** The action, instantly: a successful result sealed against the payload it was given. */
const dispatcher: Dispatcher = {
  run(payload: StepPayload): Promise<AttemptOutcome> {
    const t0 = performance.now();
    attempts++;
    const extra = payload.step.id === 'implement' ? { prs: [pr], commits: { 'acme/web': pr.head } } : {};
    const result = successFor(payload, extra);
    if (sampled.length < SAMPLES) sampled.push({ payload, result });
    outsideMs += performance.now() - t0;
    return Promise.resolve({ kind: 'result', result });
  },
  recover: () => Promise.resolve(undefined),
};

let reports = 0;
/** The body of each version of the run being driven, for the second floor (kept outside the engine's time). */
let bodies: string[] = [];
const engine = new Engine({
  store,
  dispatcher,
  now: () => AT,
  observe: (run) => {
    const t0 = performance.now();
    bodies.push(serializeRun(run));
    const ms = performance.now() - t0;
    outsideMs += ms;
    bookkeepingMs += ms;
  },
  // The forge, instantly: the engine seals a merge's result itself.
  merge: (run, effect) => {
    const t0 = performance.now();
    attempts++;
    const result = resultOf(run.id, effect.step, effect.attempt, effect.epoch, 'success');
    outsideMs += performance.now() - t0;
    return Promise.resolve(result);
  },
  report: () => {
    reports++;
  },
});

// The floor: bare compare-and-swap writes of the same row with the same body, through a second
// connection with the same settings. They are interleaved with the runs (each run's right after
// it ends), so that a busy machine weighs on both measurements alike.
const raw = new Database(path);
raw.pragma('busy_timeout = 10000');
raw.pragma('synchronous = NORMAL');
raw.pragma('cache_size = -32000');
const read = raw.prepare<[string], { version: number; body: string }>('SELECT version, body FROM runs WHERE id = ?');
const cas = raw.prepare('UPDATE runs SET version = version + 1, body = ? WHERE id = ? AND version = ?');
let bareWrites = 0;
let bareMs = 0;
/** The bare writes of one run; returns their time. */
function bareWritesOf(id: string, count: number): number {
  const row = read.get(id);
  if (!row) throw new Error(`run ${id} missing`);
  let version = row.version;
  let ms = 0;
  for (let k = 0; k < count; k++) {
    const t0 = performance.now();
    const changed = cas.run(row.body, id, version++).changes;
    ms += performance.now() - t0;
    if (changed !== 1) throw new Error('bare compare-and-swap write did not apply');
  }
  return ms;
}

/**
 * A second floor, for context: bare writes of the same row with the body each transition wrote
 * (a body that changes rewrites the pages the change touches, as a transition must).
 */
let changingMs = 0;
function changingWritesOf(id: string, written: string[]): void {
  let version = read.get(id)!.version;
  for (const body of written) {
    const t0 = performance.now();
    const changed = cas.run(body, id, version++).changes;
    changingMs += performance.now() - t0;
    if (changed !== 1) throw new Error('bare compare-and-swap write did not apply');
  }
}

/** Drives one run through the engine; returns the engine's time and the transitions it committed. */
async function driveRun(id: string, number: number): Promise<{ ms: number; transitions: number }> {
  const outside0 = outsideMs;
  const t0 = performance.now();
  await engine.start({ id, plan, issue: { repo: 'acme/web', number, title: `Issue ${number}`, body: 'Make the thing better.' }, requester: 'alice', options: {} });
  await engine.idle();
  const ms = performance.now() - t0 - (outsideMs - outside0);
  const run = engine.get(id);
  if (run.status !== 'succeeded') throw new Error(`run ${id} ended ${run.status}: ${run.waitingFor ?? run.reason ?? ''}`);
  // Every stored version is one committed transition (version 1: the run as it started).
  return { ms, transitions: run.version };
}

// Warm-up, and the pages written to the write-ahead log by each side (the log is emptied first
// and stays under the automatic checkpoint's 1,000 pages).
const WARM_UP = 20;
const pageSize = raw.pragma('page_size', { simple: true }) as number;
const walFrames = (): number => (existsSync(`${path}-wal`) ? Math.max(0, (statSync(`${path}-wal`).size - 32) / (pageSize + 24)) : 0);
raw.pragma('wal_checkpoint(TRUNCATE)');
let warmTransitions = 0;
for (let i = 0; i < WARM_UP; i++) warmTransitions += (await driveRun(`warm-${i}`, RUNS + i + 1)).transitions;
const engineFrames = walFrames();
raw.pragma('wal_checkpoint(TRUNCATE)');
for (let i = 0; i < WARM_UP; i++) bareWritesOf(`warm-${i}`, 7);
const bareFrames = walFrames();
raw.pragma('wal_checkpoint(TRUNCATE)');
attempts = 0;
storeWriteMs = 0;
outsideMs = 0;
bookkeepingMs = 0;
reports = 0;

let transitions = 0;
let engineMs = 0;
const perRun: number[] = [];
const wall0 = performance.now();
for (let i = 0; i < RUNS; i++) {
  const id = `web-${i}`;
  bodies = [];
  const driven = await driveRun(id, i + 1);
  transitions += driven.transitions;
  engineMs += driven.ms;
  const ms = bareWritesOf(id, driven.transitions);
  bareMs += ms;
  bareWrites += driven.transitions;
  perRun.push(driven.ms / ms);
  if (bodies.length !== driven.transitions) throw new Error(`run ${id}: ${bodies.length} bodies for ${driven.transitions} transitions`);
  changingWritesOf(id, bodies);
}
const wallMs = performance.now() - wall0;
perRun.sort((a, b) => a - b);

// What no engine can skip, timed apart on the same data: for each attempt, the digest of the
// payload it sends (the inputs a receipt is checked against) and the check of the result's receipt.
const r0 = performance.now();
for (const { payload, result } of sampled) if (!verifyReceipt(result, inputsDigest(payload))) throw new Error('a sampled receipt does not verify');
const receiptUsPerAttempt = ((performance.now() - r0) * 1000) / sampled.length;

// Nothing is left behind: every effect of every run was carried out and marked done.
const left = store.pendingEffects();
raw.close();
store.close();
rmSync(dir, { recursive: true, force: true });
if (left.length > 0) throw new Error(`${left.length} effects were left pending, e.g. ${left[0]!.key}`);
if (attempts !== RUNS * 6) throw new Error(`expected ${RUNS * 6} attempts, the dispatcher and merge saw ${attempts}`);

const perTransition = engineMs / transitions;
const perBare = bareMs / bareWrites;
const ratio = perTransition / perBare;
const rssMb = process.resourceUsage().maxRSS / 1024;
const verdict = (ok: boolean): string => (ok ? '' : '  OVER TARGET');
console.log(`${RUNS} runs x 6 steps through the engine: ${transitions} transitions, ${attempts} attempts, ${reports} reports, ${bareWrites} bare writes, ${wallMs.toFixed(0)} ms in all`);
console.log(
  `not counted: ${(((outsideMs - bookkeepingMs) / attempts) * 1000).toFixed(1)} us per attempt standing in for the action and the forge, ${((bookkeepingMs / transitions) * 1000).toFixed(1)} us per transition of the bench's own bookkeeping`,
);
console.log(`one engine transition (read + reduce + verify + CAS commit with outbox + carry out + mark done) = ${(perTransition * 1000).toFixed(1)} us`);
console.log(`one bare CAS write of the same row = ${(perBare * 1000).toFixed(1)} us`);
console.log(`engine transition / bare CAS write = ${ratio.toFixed(2)}x (target <= 3)${verdict(ratio <= 3)}`);
console.log(`  median of the same ratio run by run = ${perRun[perRun.length >> 1]!.toFixed(2)}x (less sensitive to a busy machine)`);
console.log(`  for context: a bare CAS write of the same row with the body each transition wrote = ${((changingMs / bareWrites) * 1000).toFixed(1)} us; transition / that = ${(perTransition / (changingMs / bareWrites)).toFixed(2)}x`);
console.log(
  `  of one transition, the store's writes (create, compare-and-swap commit with its outbox, marking done) take ${((storeWriteMs / transitions) * 1000).toFixed(1)} us = ${(storeWriteMs / transitions / perBare).toFixed(2)} bare writes; everything else (reduce, receipts, payloads, carrying out) ${(((engineMs - storeWriteMs) / transitions) * 1000).toFixed(1)} us`,
);
{
  const changingUs = (changingMs / bareWrites) * 1000;
  const receiptsUs = (receiptUsPerAttempt * attempts) / transitions;
  console.log(
    `  what no transition can skip: writing the changed run (${changingUs.toFixed(1)} us) and the receipt work of its attempts (inputs digest and receipt check: ${receiptsUs.toFixed(1)} us) = ${((changingUs + receiptsUs) / (perBare * 1000)).toFixed(2)} bare writes`,
  );
}
console.log(`  pages written to the WAL: ${(engineFrames / warmTransitions).toFixed(2)} per transition, ${(bareFrames / (WARM_UP * 7)).toFixed(2)} per bare write`);
console.log(`peak RSS = ${rssMb.toFixed(0)} MB (target < 300 MB)${verdict(rssMb < 300)}`);
