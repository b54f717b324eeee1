// Applying events to a stored run: read, reduce, compare-and-swap, again on a conflict. Two
// handles of one store, and two processes, interleave their writes: every event counts once.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEvent } from '../../engine/apply.ts';
import type { RunStore } from '../../engine/ports/store.ts';
import { openSqliteStore } from '../../adapters/store/sqlite.ts';
import { createRun, reduce } from '../../core/run/reducer.ts';
import type { Run, RunEvent } from '../../core/run/types.ts';
import { planOf, TEST_ORIGIN } from '../helpers/plans.ts';
import type { LoggedRun } from '../fixtures/store/apply-child.ts';
import { current } from '../core/run/drive.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const CHILD = join(import.meta.dirname, '../fixtures/store/apply-child.ts');

function newRun(id: string, minApprovals = 1): Run {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'approve', kind: 'approval', minApprovals },
    { id: 'ship', kind: 'merge' },
  ]);
  return createRun({ id, plan, issue: { repo: 'acme/web', number: 1, title: 't', body: '' }, requester: 'alice', origin: TEST_ORIGIN, at: AT });
}

/** Brings the run to its approval step (waiting for decisions). */
async function toApproval(store: RunStore, id: string): Promise<void> {
  await applyEvent(store, id, { type: 'started', at: AT }, reduce);
  const run = (await store.get(id))!;
  await applyEvent(store, id, current(run, 'implement', 'success'), reduce);
}

let dir: string;
let a: RunStore;
let b: RunStore;
beforeEach(async () => {
  dir = tempDir('conveyor-apply-');
  a = await openSqliteStore(join(dir, 'state.db'));
  b = await openSqliteStore(join(dir, 'state.db'));
});
afterEach(async () => {
  await a.close();
  await b.close();
  removeDir(dir);
});

describe('applyEvent', () => {
  it('reads, reduces and commits; returns the stored version; writes nothing when nothing changes', async () => {
    await a.create(newRun('r1'), []);
    const started = await applyEvent(a, 'r1', { type: 'started', at: AT }, reduce);
    expect(started.committed).toBe(true);
    expect(started.run.version).toBe(2);
    expect((await a.get('r1'))?.version).toBe(2);
    const dup = await applyEvent(a, 'r1', { type: 'started', at: AT }, reduce);
    expect(dup.committed).toBe(false);
    expect((await a.get('r1'))?.version).toBe(2);
  });

  it('a refusal (no change, one reply) is still stored, once per event', async () => {
    await a.create(newRun('r1'), []);
    await toApproval(a, 'r1');
    const refused: RunEvent = { type: 'decision', at: AT, decision: 'approve', by: 'alice' };
    await applyEvent(a, 'r1', refused, reduce);
    await applyEvent(a, 'r1', refused, reduce);
    expect((await a.pendingEffects('r1')).filter((e) => e.type === 'reply').map((e) => e.type === 'reply' && e.text)).toEqual([
      'alice started this run, so their approval does not count for step "approve" (it does not allow the requester).',
    ]);
  });

  it('names a run that does not exist', async () => {
    await expect(applyEvent(a, 'ghost', { type: 'started', at: AT }, reduce)).rejects.toThrow('There is no run "ghost" in the store.');
  });

  it('on a conflict with another handle, reads again and applies again: nothing lost, nothing twice', async () => {
    await a.create(newRun('r1', 3), []);
    await toApproval(a, 'r1');
    // Handle B commits another approval between A's read and A's commit: A's first commit must fail.
    let commits = 0;
    const racing: RunStore = Object.create(a, {
      commit: {
        value: async (run: Run, effects: Parameters<RunStore['commit']>[1]) => {
          if (commits++ === 0) await applyEvent(b, 'r1', { type: 'decision', at: AT, decision: 'approve', by: 'bob' }, reduce);
          return a.commit(run, effects);
        },
      },
    });
    let calls = 0;
    const t = await applyEvent(racing, 'r1', { type: 'decision', at: AT, decision: 'approve', by: 'carol' } as RunEvent, (run, event: RunEvent) => {
      calls++;
      return reduce(run, event);
    });
    expect(calls).toBe(2);
    expect(t.run.approvals.map((x) => x.by)).toEqual(['bob', 'carol']);
    expect(await b.get('r1')).toEqual(t.run);
    expect(t.run.version).toBe(5); // create 1, started 2, implement 3, bob 4, carol 5
    expect((await a.pendingEffects('r1')).filter((e) => e.type === 'report').map((e) => e.key)).toEqual([
      'r1:report:2',
      'r1:report:3',
      'r1:report:4',
      'r1:report:5',
    ]);
  });

  it('two handles interleaving many writes keep every event exactly once', async () => {
    await a.create(newRun('r1', 1000), []);
    await toApproval(a, 'r1');
    const handles = [a, b];
    // Forty approvals from each handle, all in flight at once.
    await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        applyEvent(handles[i % 2]!, 'r1', { type: 'decision', at: AT, decision: 'approve', by: `p${i}` } as RunEvent, reduce),
      ),
    );
    const run = (await a.get('r1'))!;
    const by = run.approvals.map((x) => x.by);
    expect(new Set(by).size).toBe(80);
    expect(by.sort()).toEqual(Array.from({ length: 80 }, (_, i) => `p${i}`).sort());
    expect(run.version).toBe(3 + 80);
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
    await a.create(newRun('raw'), []);
    await children(join(dir, 'state.db'), 'raw', 'raw', N);
    const run = (await a.get('raw'))!;
    const log = (run as LoggedRun).log!;
    expect(log).toHaveLength(2 * N);
    expect(new Set(log).size).toBe(2 * N);
    // Each process's own events stay in its order.
    for (const p of ['A', 'B']) expect(log.filter((x) => x.startsWith(`${p}-`))).toEqual(Array.from({ length: N }, (_, i) => `${p}-${i}`));
    expect(run.version).toBe(1 + 2 * N);
    expect(await a.pendingEffects('raw')).toHaveLength(2 * N);
  });

  it('two processes approving through the real reducer: every approval recorded once', async () => {
    const N = 100;
    await a.create(newRun('real', 10_000), []);
    await toApproval(a, 'real');
    await children(join(dir, 'state.db'), 'real', 'real', N);
    const run = (await a.get('real'))!;
    const by = run.approvals.map((x) => x.by);
    expect(by).toHaveLength(2 * N);
    expect(new Set(by).size).toBe(2 * N);
    expect(run.version).toBe(3 + 2 * N);
    expect(run.steps.approve?.reason).toBe(`waiting for approvals: ${2 * N} of 10000`);
  });
});
