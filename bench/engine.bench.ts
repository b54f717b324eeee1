// Drives 1,000 runs of 6 steps through the run state machine and the SQLite store, with an
// instant in-process dispatcher (every dispatch or merge effect is answered at once with a
// successful result), and compares the cost of one engine transition (read + reduce +
// compare-and-swap commit with its effects) with one bare compare-and-swap write of the same row
// (the floor). Also prints the peak resident memory.
//   npx tsx bench/engine.bench.ts [runs]
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { applyEvent } from '../app/store/apply.ts';
import { openSqliteStore } from '../app/store/sqlite.ts';
import { createRun, reduce } from '../core/run/reducer.ts';
import type { RunEvent } from '../core/run/types.ts';
import { planOf, resultOf } from '../test/helpers/plans.ts';
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
const store = openSqliteStore(path);

let transitions = 0;
let transitionMs = 0;
function timedApply(runId: string, event: RunEvent): void {
  const t0 = performance.now();
  applyEvent(store, runId, event, reduce);
  transitionMs += performance.now() - t0;
  transitions++;
}

// The floor: bare compare-and-swap writes of the same row with the same body, through a second
// connection with the same settings. They are interleaved with the runs (each run's right after
// it ends), so that a busy machine weighs on both measurements alike.
const raw = new Database(path);
raw.pragma('busy_timeout = 10000');
raw.pragma('synchronous = NORMAL');
const read = raw.prepare<[string], { version: number; body: string }>('SELECT version, body FROM runs WHERE id = ?');
const cas = raw.prepare('UPDATE runs SET version = version + 1, body = ? WHERE id = ? AND version = ?');
// For the record, a second floor: the same write plus one outbox row in one transaction, which
// is the least a transition must write (the run and its effects, atomically).
const rowid = raw.prepare<[string], number>('SELECT rowid FROM runs WHERE id = ?').pluck();
const outbox = raw.prepare('INSERT INTO effects (run, key, version, idx, body, done) VALUES (?, ?, ?, 0, ?, 1)');
const casWithOutbox = raw.transaction((body: string, id: string, version: number, run: number) => {
  if (cas.run(body, id, version).changes !== 1) throw new Error('bare compare-and-swap write did not apply');
  outbox.run(run, `${id}:floor:${version}`, version + 1, `{"type":"report","key":"${id}:floor:${version}"}`);
});
let bareWrites = 0;
let bareMs = 0;
let outboxMs = 0;
function bareWritesOf(id: string, count: number): void {
  const row = read.get(id);
  const run = rowid.get(id);
  if (!row || run === undefined) throw new Error(`run ${id} missing`);
  let version = row.version;
  for (let k = 0; k < count; k++) {
    let t0 = performance.now();
    const changed = cas.run(row.body, id, version++).changes;
    bareMs += performance.now() - t0;
    if (changed !== 1) throw new Error('bare compare-and-swap write did not apply');
    t0 = performance.now();
    casWithOutbox.immediate(row.body, id, version++, run);
    outboxMs += performance.now() - t0;
    bareWrites++;
  }
}

const pr = { repo: 'acme/web', number: 1, url: 'https://github.com/acme/web/pull/1', branch: 'conveyor/web-1', head: 'a'.repeat(40) };
const wall0 = performance.now();
for (let i = 0; i < RUNS; i++) {
  const id = `web-${i}`;
  const before = transitions;
  store.create(
    createRun({ id, plan, issue: { repo: 'acme/web', number: i + 1, title: `Issue ${i}`, body: 'Make the thing better.' }, requester: 'alice', options: {}, at: AT }),
    [],
  );
  timedApply(id, { type: 'started', at: AT });
  // The instant dispatcher: carry out pending effects until the run has none left.
  for (let effects = store.pendingEffects(id); effects.length > 0; effects = store.pendingEffects(id)) {
    for (const e of effects) {
      if (e.type === 'dispatch' || e.type === 'merge') {
        const extra = e.step === 'implement' ? { prs: [pr], commits: { 'acme/web': pr.head } } : {};
        const result = resultOf(id, e.step, e.attempt, e.epoch, 'success', { mode: e.type === 'dispatch' ? e.mode : 'run', ...extra });
        timedApply(id, { type: 'step-completed', at: AT, result });
      }
      store.markEffectDone(id, e.key);
    }
  }
  const run = store.get(id);
  if (run?.status !== 'succeeded') throw new Error(`run ${id} ended ${run?.status ?? 'missing'}`);
  bareWritesOf(id, transitions - before);
}
const wallMs = performance.now() - wall0;
raw.close();
store.close();
rmSync(dir, { recursive: true, force: true });

const perTransition = transitionMs / transitions;
const perBare = bareMs / bareWrites;
const perOutbox = outboxMs / bareWrites;
const ratio = perTransition / perBare;
const rssMb = process.resourceUsage().maxRSS / 1024;
const verdict = (ok: boolean): string => (ok ? '' : '  OVER TARGET');
console.log(`${RUNS} runs x 6 steps: ${transitions} transitions, ${bareWrites} bare writes, ${wallMs.toFixed(0)} ms in all`);
console.log(`one transition (read + reduce + CAS commit + effects) = ${(perTransition * 1000).toFixed(1)} us`);
console.log(`one bare CAS write of the same row = ${(perBare * 1000).toFixed(1)} us`);
console.log(`one bare CAS write + one outbox row, one transaction = ${(perOutbox * 1000).toFixed(1)} us`);
console.log(`transition / bare CAS write = ${ratio.toFixed(2)}x (target <= 3)${verdict(ratio <= 3)}`);
console.log(`transition / (bare CAS write + outbox row) = ${(perTransition / perOutbox).toFixed(2)}x`);
console.log(`peak RSS = ${rssMb.toFixed(0)} MB (target < 300 MB)${verdict(rssMb < 300)}`);
