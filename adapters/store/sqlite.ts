// The store in one SQLite file (the embedded default; the app's with one replica), safe to share
// between processes on one machine: WAL, writers waiting on each other, each transaction taking
// the write lock first. SQLite's own errors are said with the file and what to do about them.
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteAdapter, SqliteDialect, SqliteDriver, sql, type DatabaseConnection } from 'kysely';
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreError } from '../../engine/ports/store.ts';
import { openSqliteFile } from '../../lib/sqlite.ts';
import { migrate, type Tables } from './schema.ts';
import { SqlRunStore, type SqlStore } from './sql.ts';

export { SCHEMA_VERSION } from './schema.ts';

/** How long a writer waits for another process's write to finish before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

/** Opens the state database at `path` (creating it and its folder when needed), its tables brought up to date. */
export async function openSqliteStore(path: string): Promise<SqlStore> {
  if (path !== ':memory:') checkPath(path);
  const where = `the state database ${path}`;
  const explainHere = (e: unknown) => explain(e, path);
  let file;
  try {
    file = await openSqliteFile(path, BUSY_TIMEOUT_MS);
    // With WAL, NORMAL survives a killed process (only a power loss may drop the last commits).
    file.pragma('synchronous = NORMAL');
  } catch (e) {
    file?.close();
    const explained = explain(e, path);
    throw explained instanceof StoreError
      ? explained
      : new StoreError('not-a-store', `Cannot open the state database ${path}: ${(e as Error).message}`, { cause: e });
  }
  const db = new Kysely<Tables>({ dialect: new ImmediateSqliteDialect(file, path === ':memory:' ? Symbol(path) : fileId(path)) });
  try {
    await migrate(db, {
      dialect: 'sqlite',
      where,
      advice: {
        foreign: 'Pass another state file.',
        older: `Delete ${path} (with its -wal and -shm files, if any) to start afresh, or keep using the older Conveyor for it.`,
        newer: 'Upgrade Conveyor, or use another state file.',
      },
    });
  } catch (e) {
    await db.destroy();
    throw explainHere(e);
  }
  return new SqlRunStore(db, {
    where,
    restore: 'Restore it from a backup, or move it away to start afresh.',
    now: sql<number>`CAST(unixepoch('subsec') * 1000 AS INTEGER)`,
    skipLocked: false,
    uniqueViolation: (e) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(String((e as { code?: unknown }).code)),
    explain: explainHere,
  });
}

/**
 * Kysely's SQLite dialect with SQLite's transactions made explicit: each takes the write lock as it
 * begins (BEGIN IMMEDIATE), so that what it reads stays true until it commits and it waits for
 * another process's write rather than fail half-way; the migrations run in one such transaction
 * (SQLite's DDL is transactional), so processes opening a new file together migrate it once; and
 * a transaction SQLite already rolled back by itself (a full disk, an I/O error) is not rolled
 * back again, which would fail and hide the error that says what happened.
 *
 * Handles of one file in one process take turns, each query or whole transaction at a time:
 * better-sqlite3 waits for another connection's lock without yielding, so a handle waiting for
 * the lock of another handle's transaction, which awaits between its statements, would block the
 * only thread that could finish it.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly file: BetterSqlite3.Database,
    private readonly id: FileId,
  ) {
    super({ database: file });
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.file, this.id);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  private turns: Turns | undefined;

  constructor(
    private readonly file: BetterSqlite3.Database,
    private readonly id: FileId,
  ) {
    super({ database: file });
  }

  override async init(): Promise<void> {
    this.turns = Turns.of(this.id);
    await super.init();
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.turns!.take();
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    this.turns!.give();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN IMMEDIATE'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.file.inTransaction) await super.rollbackTransaction(connection);
  }

  override async destroy(): Promise<void> {
    Turns.leave(this.id);
    await super.destroy();
  }
}

/** A file as the system knows it (device and inode: two paths to one file are one), or one handle's own in-memory database. */
type FileId = string | symbol;

function fileId(path: string): FileId {
  const { dev, ino } = statSync(path);
  return `${dev}:${ino}`;
}

/** One turn at a time among the handles of one file in this process, kept while any handle is open. */
class Turns {
  private static readonly files = new Map<FileId, { turns: Turns; handles: number }>();
  private last: Promise<void> = Promise.resolve();
  private done: (() => void) | undefined;

  static of(id: FileId): Turns {
    const entry = Turns.files.get(id) ?? { turns: new Turns(), handles: 0 };
    entry.handles++;
    Turns.files.set(id, entry);
    return entry.turns;
  }

  static leave(id: FileId): void {
    const entry = Turns.files.get(id);
    if (entry && --entry.handles === 0) Turns.files.delete(id);
  }

  async take(): Promise<void> {
    const before = this.last;
    let done!: () => void;
    this.last = new Promise((r) => (done = r));
    await before;
    this.done = done;
  }

  give(): void {
    const done = this.done;
    this.done = undefined;
    done?.();
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** A state path must be a file (or nothing yet) in a folder that exists or can be made. */
function checkPath(path: string): void {
  const isDir = (p: string): boolean | undefined => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return undefined;
    }
  };
  if (isDir(path)) throw new StoreError('not-a-store', `The state database ${path} is a folder; pass a file path (e.g. ${path.replace(/\/+$/, '')}/state.db).`);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOTDIR' || code === 'EEXIST' ? 'a part of that path is a file, not a folder' : (e as Error).message;
    throw new StoreError('not-a-store', `Cannot create the folder of the state database ${path}: ${why}. Pass a path under a folder you can write.`, {
      cause: e,
    });
  }
}

/** Turns SQLite's own errors into one that names the file and what to do about it. */
function explain(e: unknown, path: string): unknown {
  if (e instanceof StoreError) return e;
  const code = (e as { code?: unknown }).code;
  const said = (e as Error).message;
  const error = (kind: StoreError['code'], message: string) => new StoreError(kind, message, { cause: e });
  if (code === 'SQLITE_NOTADB')
    return error('not-a-store', `The state database ${path} is not a SQLite database (SQLite: ${said}). Move it away or pass another state file.`);
  if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))
    return error('corrupt', `The state database ${path} is corrupted (SQLite: ${said}). Restore it from a backup, or move it away to start afresh.`);
  if (code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR')))
    return error(
      'unavailable',
      `The state database ${path} could not be written (SQLite: ${said}): free some disk space or check the disk, then run the command again. Nothing was half-written: the write was rolled back.`,
    );
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY')
    return error('not-a-store', `The state database ${path} cannot be opened for writing (SQLite: ${said}). Pass a file in a folder you can write.`);
  return e;
}
