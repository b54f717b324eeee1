// The outbox kept in the run's row: pending effects and done keys survive other handles' writes,
// keys of any shape are stored once, the run's own marks ride on its UPDATE, and a damaged outbox
// column is reported with the run and the file.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStore } from '../../../engine/ports/store.ts';
import { openSqliteStore } from '../../../adapters/store/sqlite.ts';
import { createRun } from '../../../core/run/reducer.ts';
import type { Run, RunEffect } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

const plan = planOf([{ id: 'implement', kind: 'code' }]);
const runOf = (id: string): Run => createRun({ id, plan, issue: { repo: 'acme/web', number: 7, title: 't', body: 'b' }, options: {}, at: 'x' });
const report = (key: string): RunEffect => ({ type: 'report', key });

let dir: string;
let path: string;
let store: RunStore;
beforeEach(() => {
  dir = tempDir('conveyor-outbox-columns-');
  path = join(dir, 'state.db');
  store = openSqliteStore(path);
});
afterEach(() => {
  store.close();
  removeDir(dir);
});

describe('the outbox in the run row', () => {
  it('stores keys of any shape once, even after they are done (a line break, another run id, a prefix of the id)', () => {
    const keys = ['r1:report:2', 'line\nbreak', 'r10:report:2', 'r1', '~report:2', '=r1:report:2', '"quoted"'];
    store.create(runOf('r1'), keys.map(report));
    expect(store.pendingEffects('r1').map((e) => e.key)).toEqual(keys);
    store.markEffectsDone(keys.map((key) => ({ runId: 'r1', key })));
    expect(store.pendingEffects()).toEqual([]);
    // Committed again: each is known done, none is stored again.
    expect(store.commit(store.get('r1')!, keys.map(report))).toBe(true);
    expect(store.pendingEffects()).toEqual([]);
    // A key that was never stored is still new.
    expect(store.commit(store.get('r1')!, [report('r1:report:3')])).toBe(true);
    expect(store.pendingEffects().map((e) => e.key)).toEqual(['r1:report:3']);
  });

  it('a commit keeps what another handle marked done meanwhile, and lists runs with pending effects in creation order', () => {
    store.create(runOf('a'), [report('a:1'), report('a:2')]);
    store.create(runOf('b'), [report('b:1')]);
    const other = openSqliteStore(path);
    try {
      other.markEffectsDone([{ runId: 'a', key: 'a:1' }, { runId: 'b', key: 'b:1' }]);
    } finally {
      other.close();
    }
    // This handle's cached run is still current (marks do not change the version): the commit reads the outbox afresh.
    expect(store.commit(store.peek!('a')!, [report('a:3')], [{ runId: 'a', key: 'a:2' }])).toBe(true);
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['a/a:3']);
    store.create(runOf('c'), [report('c:1')]);
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['a/a:3', 'c/c:1']);
    store.markEffectDone('a', 'a:3');
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['c/c:1']);
    expect(store.commit(store.get('a')!, [report('a:1'), report('a:2'), report('a:3')])).toBe(true);
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['c/c:1']);
  });

  it('a damaged pending column is reported with the run and the file', () => {
    store.create(runOf('r1'), [report('k')]);
    const raw = new Database(path);
    raw.prepare("UPDATE runs SET pending = '[{not json' WHERE id = 'r1'").run();
    raw.close();
    expect(() => store.pendingEffects('r1')).toThrow(`The pending effects of run "r1" in the state database ${path} are not valid JSON`);
    expect(() => store.commit(store.get('r1')!, [report('k2')])).toThrow('Restore it from a backup');
  });

  it('a pending column that is JSON but not a list of keyed effects is reported too, by every reader and writer of it', () => {
    store.create(runOf('r1'), [report('k')]);
    store.create(runOf('r2'), [report('r2:k')]);
    for (const damaged of ['{"key":"k"}', '[1]', '[{"type":"report"}]', 'null']) {
      const raw = new Database(path);
      raw.prepare("UPDATE runs SET pending = ? WHERE id = 'r1'").run(damaged);
      raw.close();
      const notAList = `The pending effects of run "r1" in the state database ${path} are not a list of effects with keys.`;
      expect(() => store.pendingEffects('r1'), damaged).toThrow(notAList);
      // Listing every run's effects, and marking done (alone or beside a commit of another run), name it as well.
      expect(() => store.pendingEffects(), damaged).toThrow(notAList);
      expect(() => store.markEffectDone('r1', 'k'), damaged).toThrow(notAList);
      expect(() => store.commit(store.get('r2')!, [], [{ runId: 'r1', key: 'k' }]), damaged).toThrow(`${notAList} Restore it from a backup`);
      // The run that is not damaged was not written either: the transaction rolled back whole.
      expect(store.get('r2')?.version).toBe(1);
    }
  });
});
