// The SQLite store: the shared store contract, then what only a file has (its folder, WAL, an older
// Conveyor's file refused, bad files and a full disk named with what to do).
import Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../engine/ports/store.ts';
import { openSqliteStore, SCHEMA_VERSION } from '../../../adapters/store/sqlite.ts';
import type { SqlStore } from '../../../adapters/store/sql.ts';
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

let dir: string;
let store: SqlStore;
beforeEach(async () => {
  dir = tempDir('conveyor-store-');
  store = await openSqliteStore(join(dir, 'nested', 'state.db'));
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
    const other = await openSqliteStore(path);
    try {
      expect((await other.get('r1'))?.version).toBe(1);
    } finally {
      await other.close();
    }
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.prepare('SELECT name FROM conveyor_migrations').pluck().all()).toEqual(['0001', '0002']);
      expect(SCHEMA_VERSION).toBe(2);
    } finally {
      raw.close();
    }
  });
});

/** The tables of an older Conveyor's file: a schema_version table (versions 1 to 4), runs beside it. */
const OLDER_TABLES = (version: number) => `
  CREATE TABLE schema_version (version INTEGER NOT NULL);
  INSERT INTO schema_version (version) VALUES (${version});
  CREATE TABLE runs (id TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL, body TEXT NOT NULL);
  INSERT INTO runs VALUES ('web-7', 3, 'running', '{}');
  CREATE TABLE deliveries (id TEXT PRIMARY KEY, seen_at TEXT NOT NULL);
`;

describe("sqlite store: an older Conveyor's file", () => {
  it('is refused, naming the file and what to do (delete it, or keep the older Conveyor), and left as it was', async () => {
    for (const version of [1, 2, 3, 4]) {
      const path = join(dir, `v${version}.db`);
      const raw = new Database(path);
      // As the older Conveyor left it: in WAL mode (opening it changes nothing then).
      raw.pragma('journal_mode = WAL');
      raw.exec(OLDER_TABLES(version));
      raw.close();
      const before = readFileSync(path);
      const error = await openSqliteStore(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ code: 'older-schema' });
      expect((error as Error).message).toBe(
        `The state database ${path} is an older Conveyor's (schema version ${version}), which this Conveyor does not read. Delete ${path} (with its -wal and -shm files, if any) to start afresh, or keep using the older Conveyor for it.`,
      );
      expect(tablesOf(path)).toEqual(['deliveries', 'runs', 'schema_version']);
      expect(readFileSync(path).equals(before)).toBe(true);
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
  it('a file that is not SQLite gets an error naming it, and is left alone', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    await expect(openSqliteStore(path)).rejects.toThrow(StoreError);
    await expect(openSqliteStore(path)).rejects.toThrow(`The state database ${path} is not a SQLite database`);
    expect(readFileSync(path, 'utf8')).toContain('these are my notes');
  });

  it('a folder, or a path under a file, is named with what would be right', async () => {
    mkdirSync(join(dir, 'a-folder'));
    await expect(openSqliteStore(join(dir, 'a-folder'))).rejects.toThrow(`The state database ${join(dir, 'a-folder')} is a folder; pass a file path`);
    writeFileSync(join(dir, 'a-file'), 'x');
    await expect(openSqliteStore(join(dir, 'a-file', 'state.db'))).rejects.toThrow(
      `Cannot create the folder of the state database ${join(dir, 'a-file', 'state.db')}: a part of that path is a file, not a folder`,
    );
  });

  it("another application's SQLite database is refused, and left as it was", async () => {
    const path = join(dir, 'other.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE users (id INTEGER)');
    raw.close();
    await expect(openSqliteStore(path)).rejects.toMatchObject({
      code: 'not-a-store',
      message: `The state database ${path} is not Conveyor's: it has tables users and no conveyor_migrations. Pass another state file.`,
    });
    expect(tablesOf(path)).toEqual(['users']);
  });

  it("brings a database of the Conveyor before run origins (schema version 1) up to date: each run's options become its origin and settings", async () => {
    const path = join(dir, 'v1.db');
    const v1 = await openSqliteStore(path);
    await v1.create(runOf('r1'), []);
    await v1.create(runOf('r2', 8), []);
    await v1.close();
    // As the Conveyor before wrote them: `options`, and only migration 0001 done.
    const raw = new Database(path);
    const bodyOf = (id: string) => JSON.parse(raw.prepare('SELECT body FROM runs WHERE id = ?').pluck().get(id) as string) as Record<string, unknown>;
    const old = (id: string, options: Record<string, unknown>) => {
      const { origin: _o, settings: _s, ...rest } = bodyOf(id);
      raw.prepare('UPDATE runs SET body = ? WHERE id = ?').run(JSON.stringify({ ...rest, options }), id);
    };
    old('r1', { installationId: 42, defaultBranch: 'trunk', payloadLimit: 60000 });
    old('r2', { configPath: '/org/conveyor.yml', remotes: '/org/remotes', approve: true, keepEnvs: true, json: false, repo: 'acme/web' });
    raw.prepare("DELETE FROM conveyor_migrations WHERE name = '0002'").run();
    raw.close();
    const migrated = await openSqliteStore(path);
    try {
      expect(await migrated.get('r1')).toMatchObject({
        origin: { kind: 'github', installationId: 42, defaultBranch: 'trunk' },
        settings: { payloadLimit: 60000 },
      });
      expect(await migrated.get('r2')).toMatchObject({
        origin: { kind: 'embedded', configPath: '/org/conveyor.yml', remotes: '/org/remotes', approve: true, json: false, repo: 'acme/web' },
        settings: { keepEnvs: true },
      });
      expect(await migrated.get('r1')).not.toHaveProperty('options');
    } finally {
      await migrated.close();
    }
  });

  it('a database from a newer Conveyor is refused with the versions, and left as it was', async () => {
    const path = join(dir, 'nested', 'state.db');
    await store.close();
    const raw = new Database(path);
    raw.prepare('INSERT INTO conveyor_migrations (name, timestamp) VALUES (?, ?)').run('0003', new Date().toISOString());
    raw.close();
    store = await openSqliteStore(join(dir, 'fresh.db'));
    await expect(openSqliteStore(path)).rejects.toMatchObject({
      code: 'newer-schema',
      message: `The state database ${path} has schema version ${SCHEMA_VERSION + 1}, but this Conveyor knows versions up to ${SCHEMA_VERSION}: a newer Conveyor migrated it. Upgrade Conveyor, or use another state file.`,
    });
    const after = new Database(path, { readonly: true });
    try {
      expect(after.prepare('SELECT name FROM conveyor_migrations ORDER BY name').pluck().all()).toEqual(['0001', '0002', '0003']);
    } finally {
      after.close();
    }
  });

  it('a corrupted database gets an error naming it', async () => {
    const path = join(dir, 'broken.db');
    const s = await openSqliteStore(path);
    for (let i = 0; i < 50; i++) await s.create(runOf(`r${i}`, i), [report(`k${i}`)]);
    await s.close();
    // Keep the header, scribble over the pages that hold the schema and the tables.
    const bytes = readFileSync(path);
    for (let i = 100; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
    writeFileSync(path, bytes);
    const open = async (): Promise<void> => {
      const again = await openSqliteStore(path);
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
    store = await openSqliteStore(path);
    await sql.raw(`PRAGMA max_page_count = ${pages}`).execute((store as unknown as { db: Kysely<unknown> }).db);
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
