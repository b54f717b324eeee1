// The SQLite store: the shared store contract, then what only a file has (its folder, WAL, older
// files brought up to date, bad files and a full disk named with what to do).
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../engine/ports/store.ts';
import { openSqliteStore, SCHEMA_VERSION, type SqliteStore } from '../../../adapters/store/sqlite.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';
import { report, runOf, storeContract } from './contract.ts';

let contractDir: string | undefined;
storeContract('sqlite', {
  async open() {
    contractDir = tempDir('conveyor-store-');
    return openSqliteStore(join(contractDir, 'state.db'));
  },
  async another() {
    return openSqliteStore(join(contractDir!, 'state.db'));
  },
  async cleanup() {
    if (contractDir) removeDir(contractDir);
    contractDir = undefined;
  },
});

const AT = '2025-01-01T00:00:00.000Z';
let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = tempDir('conveyor-store-');
  store = openSqliteStore(join(dir, 'nested', 'state.db'));
});
afterEach(async () => {
  await store.close();
  removeDir(dir);
});

describe('sqlite store: the file', () => {
  it('creates its folder, and keeps what it stores across handles, in WAL mode', async () => {
    const path = join(dir, 'nested', 'state.db');
    await store.create(runOf('r1'), [report('k')]);
    expect(existsSync(path)).toBe(true);
    const other = openSqliteStore(path);
    try {
      expect((await other.get('r1'))?.version).toBe(1);
    } finally {
      await other.close();
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

/** The tables of a version 2 file (the outbox in run rows, plans apart), and of the app's records then. */
const V2_TABLES = `
  CREATE TABLE schema_version (version INTEGER NOT NULL);
  INSERT INTO schema_version (version) VALUES (2);
  CREATE TABLE plans (key TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE runs (id TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL, issue_repo TEXT NOT NULL, issue_number INTEGER NOT NULL,
    pipeline TEXT NOT NULL, plan_key TEXT NOT NULL REFERENCES plans (key), created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    has_pending INTEGER NOT NULL DEFAULT 0, pending TEXT NOT NULL DEFAULT '', done TEXT NOT NULL DEFAULT '', body TEXT NOT NULL);
  CREATE INDEX runs_issue ON runs (issue_repo, issue_number);
  CREATE INDEX runs_pending ON runs (has_pending) WHERE has_pending = 1;
  CREATE TABLE deliveries (id TEXT PRIMARY KEY, seen_at TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE github_attempts (external_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, check_run_id INTEGER, workflow_run_id INTEGER, body TEXT NOT NULL) WITHOUT ROWID;
  CREATE INDEX github_attempts_check_run ON github_attempts (check_run_id) WHERE check_run_id IS NOT NULL;
  CREATE TABLE github_comments (run_id TEXT PRIMARY KEY, id INTEGER NOT NULL, url TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE github_summaries (run_id TEXT NOT NULL, head TEXT NOT NULL, check_run_id INTEGER NOT NULL, PRIMARY KEY (run_id, head)) WITHOUT ROWID;
`;

/** A run as versions 1 and 2 stored it: without its plan (stored apart) and its version. */
const bodyOf = (id: string) => {
  const { plan: _plan, ...rest } = runOf(id);
  return JSON.stringify(rest);
};

describe('sqlite store: older files', () => {
  it('brings a version 1 file (effects in a table of their own) up to date, keeping runs, their order and their outbox', async () => {
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
      INSERT INTO deliveries VALUES ('d-old', '${AT}');
    `);
    raw.prepare('INSERT INTO plans (key, body) VALUES (?, ?)').run('p1', JSON.stringify(runOf('x').plan));
    const insertRun = raw.prepare(
      "INSERT INTO runs (rowid, id, version, status, issue_repo, issue_number, pipeline, plan_key, created_at, updated_at, body) VALUES (?, ?, ?, 'running', 'acme/web', ?, 'default', 'p1', ?, ?, ?)",
    );
    const insertEffect = raw.prepare('INSERT INTO effects (run, key, version, idx, body, done) VALUES (?, ?, ?, ?, ?, ?)');
    // Created first: `b` (rowid 1), then `a` (rowid 2); `a`'s effects were committed out of key order.
    insertRun.run(1, 'b', 1, 6, AT, AT, bodyOf('b'));
    insertRun.run(2, 'a', 3, 7, AT, AT, bodyOf('a'));
    insertEffect.run(1, 'b:report:1', 1, 0, JSON.stringify(report('b:report:1')), 1);
    insertEffect.run(2, 'a:report:3', 3, 0, JSON.stringify(report('a:report:3')), 0);
    insertEffect.run(2, 'a:report:2', 2, 1, JSON.stringify(report('a:report:2')), 0);
    insertEffect.run(2, 'a:report:1', 2, 0, JSON.stringify(report('a:report:1')), 1);
    raw.close();

    const migrated = openSqliteStore(path);
    try {
      expect((await migrated.list()).map((r) => r.id)).toEqual(['b', 'a']);
      expect(await migrated.get('a')).toEqual({ ...runOf('a'), version: 3 });
      expect((await migrated.pendingEffects()).map((e) => `${e.runId}/${e.key}`)).toEqual(['a/a:report:2', 'a/a:report:3']);
      // A done effect committed again stays done; a pending one is stored once.
      expect(await migrated.commit((await migrated.get('a'))!, [report('a:report:1'), report('a:report:2'), report('a:report:4')])).toEqual({ claimed: [] });
      expect((await migrated.pendingEffects('a')).map((e) => e.key)).toEqual(['a:report:2', 'a:report:3', 'a:report:4']);
      expect(await migrated.seenDelivery('d-old')).toBe(true);
    } finally {
      await migrated.close();
    }
    expect(tablesOf(path)).toContain('effects');
    expect(tablesOf(path)).not.toContain('plans');
  });

  it("brings a version 2 file (the outbox in the run rows) up to date, keeping every run, its effects' order and done keys, and the app's records", async () => {
    const path = join(dir, 'v2.db');
    const raw = new Database(path);
    raw.exec(V2_TABLES);
    raw.prepare('INSERT INTO plans (key, body) VALUES (?, ?)').run('p1', JSON.stringify(runOf('x').plan));
    const insertRun = raw.prepare(
      "INSERT INTO runs (rowid, id, version, status, issue_repo, issue_number, pipeline, plan_key, created_at, updated_at, has_pending, pending, done, body) VALUES (?, ?, ?, 'waiting', 'acme/web', ?, 'default', 'p1', ?, ?, ?, ?, ?, ?)",
    );
    // Done keys as version 2 wrote them: `~rest` for `<run>:rest`, `=key` for another, JSON for a key with a line break.
    insertRun.run(1, 'b', 2, 6, AT, AT, 0, '', '~report:1\n', bodyOf('b'));
    insertRun.run(
      2,
      'a',
      4,
      7,
      AT,
      AT,
      1,
      JSON.stringify([report('a:report:3'), report('a:report:2')]),
      `~report:1\n=other:key\n${JSON.stringify('line\nbreak')}\n`,
      bodyOf('a'),
    );
    raw
      .prepare('INSERT INTO github_attempts (external_id, run_id, check_run_id, workflow_run_id, body) VALUES (?, ?, ?, ?, ?)')
      .run(
        'a:implement:1:0',
        'a',
        42,
        null,
        JSON.stringify({ externalId: 'a:implement:1:0', runId: 'a', repo: 'acme/web', state: 'dispatching', checkRunId: 42, at: AT }),
      );
    raw.prepare('INSERT INTO github_comments (run_id, id, url) VALUES (?, ?, ?)').run('a', 9, 'https://c');
    raw.close();

    const migrated = openSqliteStore(path);
    try {
      expect((await migrated.list()).map((r) => `${r.id}@${r.version}`)).toEqual(['b@2', 'a@4']);
      expect((await migrated.get('a'))?.plan).toEqual(runOf('x').plan);
      expect((await migrated.pendingEffects()).map((e) => `${e.runId}/${e.key}`)).toEqual(['a/a:report:3', 'a/a:report:2']);
      // Done keys stay done: committing them again stores nothing.
      expect(
        await migrated.commit((await migrated.get('a'))!, [report('a:report:1'), report('other:key'), report('line\nbreak'), report('a:report:5')]),
      ).toEqual({ claimed: [] });
      expect((await migrated.pendingEffects('a')).map((e) => e.key)).toEqual(['a:report:3', 'a:report:2', 'a:report:5']);
      expect(await migrated.commit((await migrated.get('b'))!, [report('b:report:1')])).toEqual({ claimed: [] });
      expect(await migrated.pendingEffects('b')).toEqual([]);
      // The app's records: the attempt's repository comes from the record; a dispatch caught half-way is looked up again.
      expect(await migrated.links.attemptByCheckRun('acme/web', 42)).toMatchObject({ externalId: 'a:implement:1:0', state: 'creating-check' });
      expect(await migrated.links.comment('a')).toEqual({ id: 9, url: 'https://c' });
    } finally {
      await migrated.close();
    }
  });

  it('brings a version 3 file (effects without claims) up to date: its pending effects are free for the next recovery to claim', async () => {
    const path = join(dir, 'v3.db');
    const old = openSqliteStore(path);
    await old.create(runOf('r1'), [report('r1:report:1')]);
    await old.close();
    // What version 3 had: the same tables, but effects without their claim.
    const raw = new Database(path);
    raw.exec('ALTER TABLE effects DROP COLUMN claimed_by; ALTER TABLE effects DROP COLUMN claimed_until; UPDATE schema_version SET version = 3;');
    raw.close();
    const migrated = openSqliteStore(path);
    try {
      expect(await migrated.pendingEffects()).toEqual([{ ...report('r1:report:1'), runId: 'r1' }]);
      expect(await migrated.claimEffects({ holder: 'me', ttlMs: 60_000 })).toMatchObject([{ key: 'r1:report:1', claim: { holder: 'me' } }]);
    } finally {
      await migrated.close();
    }
    const after = new Database(path, { readonly: true });
    try {
      expect(after.prepare('SELECT version FROM schema_version').pluck().get()).toBe(SCHEMA_VERSION);
    } finally {
      after.close();
    }
  });

  it('a version 2 file that names a plan it does not have is refused, left as it was', () => {
    const path = join(dir, 'v2-broken.db');
    const raw = new Database(path);
    raw.exec(V2_TABLES);
    // A file damaged outside Conveyor: the plan the run names was deleted.
    raw.pragma('foreign_keys = OFF');
    raw
      .prepare(
        "INSERT INTO runs (id, version, status, issue_repo, issue_number, pipeline, plan_key, created_at, updated_at, body) VALUES ('a', 1, 'running', 'acme/web', 1, 'default', 'gone', ?, ?, ?)",
      )
      .run(AT, AT, bodyOf('a'));
    raw.close();
    expect(() => openSqliteStore(path)).toThrow(`The state database ${path} has no plan gone (run "a" in the state database ${path} refers to it)`);
    // Rolled back whole: still version 2, runs untouched.
    const after = new Database(path, { readonly: true });
    try {
      expect(after.prepare('SELECT version FROM schema_version').pluck().get()).toBe(2);
      expect(after.prepare('SELECT count(*) FROM runs').pluck().get()).toBe(1);
    } finally {
      after.close();
    }
  });
});

function tablesOf(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all();
  } finally {
    db.close();
  }
}

describe('sqlite store: bad files and a full disk', () => {
  it('a file that is not SQLite gets an error naming it, and is left alone', () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    expect(() => openSqliteStore(path)).toThrow(StoreError);
    expect(() => openSqliteStore(path)).toThrow(`The state database ${path} is not a SQLite database`);
    expect(readFileSync(path, 'utf8')).toContain('these are my notes');
  });

  it('a folder, or a path under a file, is named with what would be right', () => {
    mkdirSync(join(dir, 'a-folder'));
    expect(() => openSqliteStore(join(dir, 'a-folder'))).toThrow(`The state database ${join(dir, 'a-folder')} is a folder; pass a file path`);
    writeFileSync(join(dir, 'a-file'), 'x');
    expect(() => openSqliteStore(join(dir, 'a-file', 'state.db'))).toThrow(
      `Cannot create the folder of the state database ${join(dir, 'a-file', 'state.db')}: a part of that path is a file, not a folder`,
    );
  });

  it("another application's SQLite database is refused", () => {
    const path = join(dir, 'other.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE users (id INTEGER)');
    raw.close();
    expect(() => openSqliteStore(path)).toThrow(`${path} is a SQLite database but not a Conveyor state database (it has tables users and no schema_version)`);
  });

  it('a database from a newer Conveyor is refused with the versions', async () => {
    const path = join(dir, 'nested', 'state.db');
    await store.close();
    const raw = new Database(path);
    raw.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION + 1);
    raw.close();
    store = openSqliteStore(join(dir, 'fresh.db'));
    expect(() => openSqliteStore(path)).toThrow(
      `The state database ${path} has schema version ${SCHEMA_VERSION + 1}, but this Conveyor knows versions up to ${SCHEMA_VERSION}`,
    );
  });

  it('a corrupted database gets an error naming it', async () => {
    const path = join(dir, 'broken.db');
    const s = openSqliteStore(path);
    for (let i = 0; i < 50; i++) await s.create(runOf(`r${i}`, i), [report(`k${i}`)]);
    await s.close();
    // Keep the header, scribble over the pages that hold the schema and the tables.
    const bytes = readFileSync(path);
    for (let i = 100; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
    writeFileSync(path, bytes);
    const open = async (): Promise<void> => {
      const again = openSqliteStore(path);
      try {
        await again.list();
      } finally {
        await again.close();
      }
    };
    await expect(open()).rejects.toThrow(StoreError);
    await expect(open()).rejects.toThrow(`The state database ${path} is`);
  });

  it('a run whose stored JSON was damaged by hand is reported with its id and the file', async () => {
    const path = join(dir, 'nested', 'state.db');
    await store.create(runOf('r1'), []);
    const raw = new Database(path);
    raw.prepare("UPDATE runs SET body = '{not json' WHERE id = 'r1'").run();
    raw.close();
    await expect(store.get('r1')).rejects.toThrow(`Run "r1" in the state database ${path} is not valid JSON`);
  });

  it('a full disk during a write is named with what to do, and nothing is half-written', async () => {
    const path = join(dir, 'nested', 'state.db');
    await store.create(runOf('r1'), []);
    await store.close();
    // SQLite's page limit stands in for the disk: a write that needs more pages fails as a full disk does (SQLITE_FULL).
    const raw = new Database(path);
    const pages = raw.pragma('page_count', { simple: true }) as number;
    raw.close();
    store = openSqliteStore(path);
    (store as unknown as { db: Database.Database }).db.pragma(`max_page_count = ${pages}`);
    const big = { ...runOf('r2', 8), issue: { ...runOf('r2', 8).issue, body: 'x'.repeat(200_000) } };
    const error = await store.create(big, [report('r2:report:1')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('unavailable');
    expect((error as Error).message).toContain(`The state database ${path} could not be written`);
    expect((error as Error).message).toContain('free some disk space');
    expect(await store.get('r2')).toBeUndefined();
    expect((await store.pendingEffects()).map((e) => e.key)).toEqual([]);
    expect((await store.get('r1'))?.version).toBe(1);
  });
});
