import Database from 'better-sqlite3';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRun } from '../../../core/run/reducer.ts';
import type { Run, RunEffect } from '../../../core/run/types.ts';
import { StoreError } from '../../../engine/ports/store.ts';
import type { RunStore } from '../../../engine/ports/store.ts';
import { serializeRun } from '../../../adapters/store/json.ts';
import { openSqliteStore, SCHEMA_VERSION } from '../../../adapters/store/sqlite.ts';
import { planOf } from '../../helpers/plans.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

const AT = '2025-01-01T00:00:00.000Z';
const plan = planOf([{ id: 'implement', kind: 'code' }, { id: 'ship', kind: 'merge' }]);
const runOf = (id: string, issue = 7, pipeline = 'default'): Run =>
  createRun({ id, plan: { ...plan, pipeline }, issue: { repo: 'acme/web', number: issue, title: 't', body: 'b' }, options: { keepEnvs: true }, at: AT });
const report = (key: string): RunEffect => ({ type: 'report', key });

let dir: string;
let store: RunStore;
beforeEach(() => {
  dir = tempDir('conveyor-store-');
  store = openSqliteStore(join(dir, 'nested', 'state.db'));
});
afterEach(() => {
  store.close();
  removeDir(dir);
});

describe('sqlite store', () => {
  it('creates its folder, stores a new run as version 1 and reads it back', () => {
    const run = runOf('r1');
    store.create(run, [report('r1:report:1')]);
    expect(existsSync(join(dir, 'nested', 'state.db'))).toBe(true);
    const got = store.get('r1');
    expect(got).toEqual({ ...run, version: 1 });
    expect(store.get('nope')).toBeUndefined();
    expect(store.pendingEffects()).toEqual([{ type: 'report', key: 'r1:report:1', runId: 'r1' }]);
  });

  it('refuses a second run with the same id', () => {
    store.create(runOf('r1'), []);
    expect(() => store.create(runOf('r1'), [])).toThrow(/A run "r1" already exists in .*state\.db/);
  });

  it('a plan whose first write failed is written again with the next run that uses it', () => {
    store.create(runOf('r1'), []);
    // A new plan, first seen with a run that cannot be stored: its transaction, plan included, rolls back.
    const refused = runOf('r1', 7, 'hotfix');
    expect(() => store.create(refused, [])).toThrow(/already exists/);
    store.create({ ...refused, id: 'r2' }, []);
    expect(store.get('r2')?.plan).toEqual(refused.plan);
  });

  it('commit is compare-and-swap: a stale version writes nothing, not even its effects', () => {
    store.create(runOf('r1'), []);
    const v1 = store.get('r1')!;
    expect(store.commit({ ...v1, status: 'waiting' }, [report('a')])).toBe(true);
    expect(store.get('r1')).toMatchObject({ version: 2, status: 'waiting' });
    expect(store.commit({ ...v1, status: 'cancelled' }, [report('b')])).toBe(false);
    expect(store.get('r1')).toMatchObject({ version: 2, status: 'waiting' });
    expect(store.pendingEffects('r1').map((e) => e.key)).toEqual(['a']);
    expect(store.commit({ ...v1, id: 'ghost' }, [])).toBe(false);
  });

  it('stores an effect key once, keeps order, and marks effects done', () => {
    store.create(runOf('r1'), []);
    store.create(runOf('r2'), [report('x')]);
    const effect: RunEffect = { type: 'dispatch', key: 'r1:implement:1:0:dispatch', step: 'implement', attempt: 1, epoch: 0, mode: 'run' };
    expect(store.commit(store.get('r1')!, [effect, report('r1:report:2')])).toBe(true);
    expect(store.commit(store.get('r1')!, [effect, report('r1:report:3')])).toBe(true);
    expect(store.pendingEffects('r1')).toEqual([{ ...effect, runId: 'r1' }, { ...report('r1:report:2'), runId: 'r1' }, { ...report('r1:report:3'), runId: 'r1' }]);
    // In order within each run.
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['r1/r1:implement:1:0:dispatch', 'r1/r1:report:2', 'r1/r1:report:3', 'r2/x']);
    store.markEffectDone('r1', effect.key);
    store.markEffectDone('r1', effect.key);
    store.markEffectDone('r2', 'r1:report:2'); // another run's key: nothing
    expect(store.pendingEffects('r1').map((e) => e.key)).toEqual(['r1:report:2', 'r1:report:3']);
    // A done effect committed again stays done.
    expect(store.commit(store.get('r1')!, [effect])).toBe(true);
    expect(store.pendingEffects('r1').map((e) => e.key)).toEqual(['r1:report:2', 'r1:report:3']);
  });

  it('writes done marks with a commit, in its transaction, even when the compare-and-swap fails', () => {
    const effect: RunEffect = { type: 'dispatch', key: 'r1:implement:1:0:dispatch', step: 'implement', attempt: 1, epoch: 0, mode: 'run' };
    store.create(runOf('r1'), [effect, report('r1:report:1')]);
    store.create(runOf('r2'), [report('r2:report:1')]);
    const v1 = store.get('r1')!;
    // Marks of this run and of another, with a key that was never stored (ignored).
    expect(store.commit({ ...v1, status: 'waiting' }, [report('r1:report:2')], [{ runId: 'r1', key: effect.key }, { runId: 'r2', key: 'r2:report:1' }, { runId: 'r2', key: 'nope' }])).toBe(true);
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['r1/r1:report:1', 'r1/r1:report:2']);
    // A stale commit writes neither the run nor its effects, but the marks were true either way.
    expect(store.commit({ ...v1, status: 'cancelled' }, [report('stale')], [{ runId: 'r1', key: 'r1:report:1' }])).toBe(false);
    expect(store.get('r1')).toMatchObject({ version: 2, status: 'waiting' });
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['r1/r1:report:2']);
    // A new run can carry marks too.
    store.create(runOf('r3'), [report('r3:report:1')], [{ runId: 'r1', key: 'r1:report:2' }]);
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['r3/r3:report:1']);
  });

  it('marks several effects done in one call, from another handle too', () => {
    store.create(runOf('r1'), [report('a'), report('b'), report('c')]);
    store.create(runOf('r2'), [report('a')]);
    const other = openSqliteStore(join(dir, 'nested', 'state.db'));
    try {
      other.markEffectsDone([{ runId: 'r1', key: 'a' }, { runId: 'r1', key: 'c' }, { runId: 'ghost', key: 'a' }]);
      other.markEffectsDone([]);
    } finally {
      other.close();
    }
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['r1/b', 'r2/a']);
    store.markEffectsDone([{ runId: 'r2', key: 'a' }]);
    expect(store.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['r1/b']);
  });

  it('lists runs in creation order, filtered by status, issue and pipeline', () => {
    store.create(runOf('b', 1), []);
    store.create(runOf('a', 2, 'hotfix'), []);
    store.create(runOf('c', 1), []);
    store.commit({ ...store.get('c')!, status: 'succeeded' }, []);
    expect(store.list().map((r) => r.id)).toEqual(['b', 'a', 'c']);
    expect(store.list({ status: ['succeeded', 'cancelled'] }).map((r) => r.id)).toEqual(['c']);
    expect(store.list({ status: [] })).toEqual([]);
    expect(store.list({ issue: { repo: 'acme/web', number: 1 } }).map((r) => r.id)).toEqual(['b', 'c']);
    expect(store.list({ issue: { repo: 'acme/api', number: 1 } })).toEqual([]);
    expect(store.list({ pipeline: 'hotfix' }).map((r) => r.id)).toEqual(['a']);
    expect(store.list({ status: ['running'], issue: { repo: 'acme/web', number: 1 } }).map((r) => `${r.id}@${r.version}`)).toEqual(['b@1']);
  });

  it('returns frozen runs, and reads a run changed by another handle afresh', () => {
    store.create(runOf('r1'), []);
    const mine = store.get('r1')!;
    expect(Object.isFrozen(mine) && Object.isFrozen(mine.steps.implement) && Object.isFrozen(mine.plan.steps)).toBe(true);
    expect(store.get('r1')).toBe(mine); // unchanged: not parsed again
    const other = openSqliteStore(join(dir, 'nested', 'state.db'));
    try {
      expect(other.commit({ ...other.get('r1')!, status: 'waiting' }, [])).toBe(true);
    } finally {
      other.close();
    }
    expect(store.get('r1')).toMatchObject({ version: 2, status: 'waiting' });
    expect(store.commit(mine, [])).toBe(false);
  });

  it('stores a plan once for the runs that share it', () => {
    for (const id of ['a', 'b', 'c']) store.create(runOf(id), []);
    store.commit(store.get('a')!, []);
    const raw = new Database(join(dir, 'nested', 'state.db'), { readonly: true });
    try {
      expect(raw.prepare('SELECT count(*) FROM plans').pluck().get()).toBe(1);
      expect(raw.prepare("SELECT body FROM runs WHERE id = 'a'").pluck().get()).not.toContain('"plan"');
    } finally {
      raw.close();
    }
    expect(store.get('b')?.plan).toEqual(plan);
  });

  it('remembers delivery ids', () => {
    expect(store.seenDelivery('d-1')).toBe(false);
    expect(store.seenDelivery('d-1')).toBe(true);
    expect(store.seenDelivery('d-2')).toBe(false);
  });

  it('persists across handles, in WAL mode', () => {
    const path = join(dir, 'nested', 'state.db');
    store.create(runOf('r1'), [report('k')]);
    const other = openSqliteStore(path);
    try {
      expect(other.get('r1')?.version).toBe(1);
      expect(other.seenDelivery('d')).toBe(false);
      expect(store.seenDelivery('d')).toBe(true);
    } finally {
      other.close();
    }
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.prepare('SELECT version FROM schema_version').pluck().get()).toBe(SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });
});

describe('sqlite store: older files', () => {
  it('brings a version 1 file (effects in a table of their own) up to date, keeping runs, their order and their outbox', () => {
    const path = join(dir, 'v1.db');
    const raw = new Database(path);
    raw.exec(`
      CREATE TABLE schema_version (version INTEGER NOT NULL);
      INSERT INTO schema_version (version) VALUES (1);
      CREATE TABLE plans (key TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE runs (id TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL, issue_repo TEXT NOT NULL, issue_number INTEGER NOT NULL,
        pipeline TEXT NOT NULL, plan_key TEXT NOT NULL REFERENCES plans (key), created_at TEXT NOT NULL, updated_at TEXT NOT NULL, body TEXT NOT NULL);
      CREATE INDEX runs_issue ON runs (issue_repo, issue_number);
      CREATE TABLE effects (run INTEGER NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL, idx INTEGER NOT NULL, body TEXT NOT NULL,
        done INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run, key)) WITHOUT ROWID;
      CREATE TABLE deliveries (id TEXT PRIMARY KEY, seen_at TEXT NOT NULL) WITHOUT ROWID;
    `);
    raw.prepare('INSERT INTO plans (key, body) VALUES (?, ?)').run('p1', JSON.stringify(plan));
    const insertRun = raw.prepare(
      "INSERT INTO runs (rowid, id, version, status, issue_repo, issue_number, pipeline, plan_key, created_at, updated_at, body) VALUES (?, ?, ?, 'running', 'acme/web', 7, 'default', 'p1', ?, ?, ?)",
    );
    const insertEffect = raw.prepare('INSERT INTO effects (run, key, version, idx, body, done) VALUES (?, ?, ?, ?, ?, ?)');
    // Created first: `b` (rowid 1), then `a` (rowid 2); `a`'s effects were committed out of key order.
    const b = runOf('b');
    const a = runOf('a');
    insertRun.run(1, 'b', 1, AT, AT, serializeRun(b));
    insertRun.run(2, 'a', 3, AT, AT, serializeRun(a));
    insertEffect.run(1, 'b:report:1', 1, 0, JSON.stringify(report('b:report:1')), 1);
    insertEffect.run(2, 'a:report:3', 3, 0, JSON.stringify(report('a:report:3')), 0);
    insertEffect.run(2, 'a:report:2', 2, 1, JSON.stringify(report('a:report:2')), 0);
    insertEffect.run(2, 'a:report:1', 2, 0, JSON.stringify(report('a:report:1')), 1);
    raw.close();

    const migrated = openSqliteStore(path);
    try {
      expect(migrated.list().map((r) => r.id)).toEqual(['b', 'a']);
      expect(migrated.get('a')).toEqual({ ...a, version: 3 });
      expect(migrated.pendingEffects().map((e) => `${e.runId}/${e.key}`)).toEqual(['a/a:report:2', 'a/a:report:3']);
      // A done effect committed again stays done; a pending one is stored once.
      expect(migrated.commit(migrated.get('a')!, [report('a:report:1'), report('a:report:2'), report('a:report:4')])).toBe(true);
      expect(migrated.pendingEffects('a').map((e) => e.key)).toEqual(['a:report:2', 'a:report:3', 'a:report:4']);
      migrated.markEffectsDone([{ runId: 'a', key: 'a:report:2' }, { runId: 'a', key: 'a:report:3' }, { runId: 'a', key: 'a:report:4' }]);
      expect(migrated.pendingEffects()).toEqual([]);
      expect(migrated.commit(migrated.get('b')!, [report('b:report:1')])).toBe(true);
      expect(migrated.pendingEffects()).toEqual([]);
    } finally {
      migrated.close();
    }
    const after = new Database(path, { readonly: true });
    try {
      expect(after.prepare('SELECT version FROM schema_version').pluck().get()).toBe(SCHEMA_VERSION);
      const tables = after.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all();
      expect(tables).toEqual(['deliveries', 'plans', 'runs', 'runs_issue', 'runs_pending', 'schema_version']);
    } finally {
      after.close();
    }
  });
});

describe('sqlite store: bad files', () => {
  it('a file that is not SQLite gets an error naming it', () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    expect(() => openSqliteStore(path)).toThrow(StoreError);
    expect(() => openSqliteStore(path)).toThrow(`The state database ${path} is not a SQLite database`);
    expect(readFileSync(path, 'utf8')).toContain('these are my notes'); // left alone
  });

  it("another application's SQLite database is refused", () => {
    const path = join(dir, 'other.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE users (id INTEGER)');
    raw.close();
    expect(() => openSqliteStore(path)).toThrow(`${path} is a SQLite database but not a Conveyor state database (it has tables users and no schema_version)`);
  });

  it('a database from a newer Conveyor is refused with the versions', () => {
    const path = join(dir, 'nested', 'state.db');
    store.close();
    const raw = new Database(path);
    raw.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION + 1);
    raw.close();
    store = openSqliteStore(join(dir, 'fresh.db'));
    expect(() => openSqliteStore(path)).toThrow(
      `The state database ${path} has schema version ${SCHEMA_VERSION + 1}, but this Conveyor knows versions up to ${SCHEMA_VERSION}`,
    );
  });

  it('a corrupted database gets an error naming it', () => {
    const path = join(dir, 'broken.db');
    const s = openSqliteStore(path);
    for (let i = 0; i < 50; i++) s.create(runOf(`r${i}`), [report(`k${i}`)]);
    s.close();
    // Keep the header, scribble over the pages that hold the schema and the tables.
    const bytes = readFileSync(path);
    for (let i = 100; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
    writeFileSync(path, bytes);
    const open = (): void => {
      const again = openSqliteStore(path);
      try {
        again.list();
      } finally {
        again.close();
      }
    };
    expect(open).toThrow(StoreError);
    expect(open).toThrow(`The state database ${path} is`);
  });

  it('a run whose stored JSON was damaged by hand is reported with its id and the file', () => {
    const path = join(dir, 'nested', 'state.db');
    store.create(runOf('r1'), []);
    const raw = new Database(path);
    raw.prepare("UPDATE runs SET body = '{not json' WHERE id = 'r1'").run();
    raw.close();
    const fresh = openSqliteStore(path);
    try {
      expect(() => fresh.get('r1')).toThrow(`Run "r1" in the state database ${path} is not valid JSON`);
    } finally {
      fresh.close();
    }
  });
});
