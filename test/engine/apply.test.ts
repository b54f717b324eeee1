import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEvent } from '../../engine/apply.ts';
import type { RunStore } from '../../engine/ports/store.ts';
import { openSqliteStore } from '../../adapters/store/sqlite.ts';
import { createRun, reduce } from '../../core/run/reducer.ts';
import type { Run, RunEvent, Transition } from '../../core/run/types.ts';
import { planOf, resultOf } from '../helpers/plans.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const CHILD = join(import.meta.dirname, '../fixtures/store/apply-child.ts');

function newRun(id: string, minApprovals = 1): Run {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'approve', kind: 'approval', minApprovals },
    { id: 'ship', kind: 'merge' },
  ]);
  return createRun({ id, plan, issue: { repo: 'acme/web', number: 1, title: 't', body: '' }, requester: 'alice', options: {}, at: AT });
}

/** Brings the run to its approval step (waiting for decisions). */
function toApproval(store: RunStore, id: string): void {
  applyEvent(store, id, { type: 'started', at: AT }, reduce);
  applyEvent(store, id, { type: 'step-completed', at: AT, result: resultOf(id, 'implement', 1, 0, 'success') }, reduce);
}

let dir: string;
let a: RunStore;
let b: RunStore;
beforeEach(() => {
  dir = tempDir('conveyor-apply-');
  a = openSqliteStore(join(dir, 'state.db'));
  b = openSqliteStore(join(dir, 'state.db'));
});
afterEach(() => {
  a.close();
  b.close();
  removeDir(dir);
});

describe('applyEvent', () => {
  it('reads, reduces and commits; returns the stored version; skips writing when nothing changes', () => {
    a.create(newRun('r1'), []);
    const t = applyEvent(a, 'r1', { type: 'started', at: AT }, reduce);
    expect(t.run.version).toBe(2);
    expect(a.get('r1')).toEqual(t.run);
    expect(a.pendingEffects('r1').map((e) => e.key)).toEqual(['r1:implement:1:0:dispatch', 'r1:report:2']);
    const again = applyEvent(a, 'r1', { type: 'started', at: AT }, reduce);
    expect(again.effects).toEqual([]);
    expect(a.get('r1')?.version).toBe(2);
  });

  it('a refusal (no change, one reply) is still stored, once per event', () => {
    a.create(newRun('r1'), []);
    toApproval(a, 'r1');
    const refused: RunEvent = { type: 'decision', at: AT, decision: 'approve', by: 'alice' };
    applyEvent(a, 'r1', refused, reduce);
    applyEvent(a, 'r1', refused, reduce);
    expect(a.pendingEffects('r1').filter((e) => e.type === 'reply').map((e) => e.type === 'reply' && e.text)).toEqual([
      'alice started this run, so their approval does not count for step "approve" (it does not allow the requester).',
    ]);
  });

  it('writes the done marks it is given: with the commit, or on their own when nothing is committed', () => {
    a.create(newRun('r1'), []);
    const started = applyEvent(a, 'r1', { type: 'started', at: AT }, reduce);
    expect(started.committed).toBe(true);
    const [dispatch, report] = started.effects.map((e) => ({ runId: 'r1', key: e.key }));
    // A duplicate changes nothing and writes no run, but its marks are still written.
    const dup = applyEvent(a, 'r1', { type: 'started', at: AT }, reduce, [dispatch!]);
    expect(dup.committed).toBe(false);
    expect(a.get('r1')?.version).toBe(2);
    expect(a.pendingEffects('r1').map((e) => e.key)).toEqual(['r1:report:2']);
    const next = applyEvent(a, 'r1', { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 1, 0, 'success') }, reduce, [report!]);
    expect(next.committed).toBe(true);
    expect(a.pendingEffects('r1').map((e) => e.key)).toEqual(['r1:report:3']);
    // Even when applying fails, the marks are not lost.
    a.create(newRun('r2'), [{ type: 'report', key: 'r2:report:1' }]);
    expect(() => applyEvent(a, 'ghost', { type: 'started', at: AT }, reduce, [{ runId: 'r2', key: 'r2:report:1' }])).toThrow('There is no run "ghost"');
    expect(a.pendingEffects('r2')).toEqual([]);
  });

  it('names a run that does not exist', () => {
    expect(() => applyEvent(a, 'ghost', { type: 'started', at: AT }, reduce)).toThrow('There is no run "ghost" in the store.');
  });

  it('on a conflict with another handle, re-reads and re-applies: nothing lost, nothing twice', () => {
    a.create(newRun('r1', 3), []);
    toApproval(a, 'r1');
    let calls = 0;
    // While handle A reduces, handle B commits another approval: A's first commit must fail.
    const racing = (run: Run, event: RunEvent): Transition => {
      calls++;
      if (calls === 1) applyEvent(b, 'r1', { type: 'decision', at: AT, decision: 'approve', by: 'bob' }, reduce);
      return reduce(run, event);
    };
    const t = applyEvent(a, 'r1', { type: 'decision', at: AT, decision: 'approve', by: 'carol' }, racing);
    expect(calls).toBe(2);
    expect(t.run.approvals.map((x) => x.by)).toEqual(['bob', 'carol']);
    expect(b.get('r1')).toEqual(t.run);
    expect(t.run.version).toBe(5); // create 1, started 2, implement 3, bob 4, carol 5
    expect(a.pendingEffects('r1').filter((e) => e.type === 'report').map((e) => e.key)).toEqual([
      'r1:report:2',
      'r1:report:3',
      'r1:report:4',
      'r1:report:5',
    ]);
  });

  it('a stale run that would ignore an event is read again before the event is dropped', () => {
    a.create(newRun('r1'), []);
    applyEvent(a, 'r1', { type: 'started', at: AT }, reduce);
    const stale = a.peek!('r1')!;
    // Another handle moves the run on: implement succeeds, the approval waits.
    applyEvent(b, 'r1', { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 1, 0, 'success') }, reduce);
    expect(a.peek!('r1')).toBe(stale);
    // On the stale run, the approval step is pending: the decision would only be refused.
    const t = applyEvent(a, 'r1', { type: 'decision', at: AT, decision: 'approve', by: 'bob' }, reduce);
    expect(t.run.steps.approve?.status).toBe('succeeded');
    expect(a.get('r1')?.steps.ship?.status).toBe('queued');
    // A result that a stale run would silently ignore (its step is not queued there yet).
    a.create(newRun('r2'), []);
    expect(a.get('r2')?.steps.implement?.status).toBe('pending');
    applyEvent(b, 'r2', { type: 'started', at: AT }, reduce);
    const done = applyEvent(a, 'r2', { type: 'step-completed', at: AT, result: resultOf('r2', 'implement', 1, 0, 'success') }, reduce);
    expect(done.run.steps.implement?.status).toBe('succeeded');
    expect(done.run.version).toBe(3);
    // And a duplicate against a stale run is still a no-op once checked.
    const dup = applyEvent(b, 'r1', { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 1, 0, 'success') }, reduce);
    expect(dup.effects).toEqual([]);
    expect(b.get('r1')?.version).toBe(4);
  });

  it('two handles interleaving many writes keep every event exactly once', () => {
    a.create(newRun('r1', 1000), []);
    toApproval(a, 'r1');
    const handles = [a, b];
    let n = 0;
    // Each reduction on one handle lets the other handle commit first, every other time.
    const interleaved = (self: number) => (run: Run, event: RunEvent): Transition => {
      n++;
      if (n % 2 === 0 && n < 200) applyEvent(handles[1 - self]!, 'r1', { type: 'decision', at: AT, decision: 'approve', by: `x${n}` }, reduce);
      return reduce(run, event);
    };
    for (let i = 0; i < 40; i++) applyEvent(handles[i % 2]!, 'r1', { type: 'decision', at: AT, decision: 'approve', by: `p${i}` }, interleaved(i % 2));
    const run = a.get('r1')!;
    const by = run.approvals.map((x) => x.by);
    expect(new Set(by).size).toBe(by.length);
    expect(by.filter((x) => x.startsWith('p')).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `p${i}`).sort());
    expect(run.version).toBe(3 + by.length);
  });
});

describe('applyEvent across processes', () => {
  async function children(db: string, runId: string, mode: 'real' | 'raw', count: number): Promise<number[]> {
    const procs = ['A', 'B'].map((prefix) =>
      spawn(process.execPath, ['--import', 'tsx', CHILD, db, runId, prefix, String(count), mode], { stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    const lines = procs.map((p) => createInterface({ input: p.stdout! })[Symbol.asyncIterator]());
    for (const l of lines) expect((await l.next()).value).toBe('ready');
    for (const p of procs) p.stdin!.write('go\n');
    const reductions: number[] = [];
    for (const l of lines) {
      const line = String((await l.next()).value);
      expect(line).toMatch(/^done \d+$/);
      reductions.push(Number(line.split(' ')[1]));
    }
    const codes = await Promise.all(procs.map((p) => new Promise<number | null>((r) => (p.exitCode !== null ? r(p.exitCode) : p.on('exit', r)))));
    expect(codes).toEqual([0, 0]);
    return reductions;
  }

  it('two processes each applying N events to one run: all 2N applied exactly once (no dedupe in the reducer)', async () => {
    const N = 300;
    const db = join(dir, 'state.db');
    a.create(newRun('raw'), []);
    const reductions = await children(db, 'raw', 'raw', N);
    const run = a.get('raw')!;
    const log = run.options.log as string[];
    expect(log).toHaveLength(2 * N);
    expect(new Set(log).size).toBe(2 * N);
    // Each process's own events stay in its order.
    for (const p of ['A', 'B']) expect(log.filter((x) => x.startsWith(`${p}-`))).toEqual(Array.from({ length: N }, (_, i) => `${p}-${i}`));
    expect(run.version).toBe(1 + 2 * N);
    expect(a.pendingEffects('raw')).toHaveLength(2 * N);
    process.stdout.write(`two processes: ${reductions.join(' + ')} reductions for ${2 * N} events\n`);
  });

  it('two processes approving through the real reducer: every approval recorded once', async () => {
    const N = 100;
    a.create(newRun('real', 10_000), []);
    toApproval(a, 'real');
    await children(join(dir, 'state.db'), 'real', 'real', N);
    const run = a.get('real')!;
    const by = run.approvals.map((x) => x.by);
    expect(by).toHaveLength(2 * N);
    expect(new Set(by).size).toBe(2 * N);
    expect(run.version).toBe(3 + 2 * N);
    expect(run.steps.approve?.reason).toBe(`waiting for approvals: ${2 * N} of 10000`);
  });
});
