// The state database's tables, how an older file is brought up to date, and how SQLite's own
// errors are turned into messages that name the file and what to do.
import type Database from 'better-sqlite3';
import { OutboxError } from './outbox.ts';
import { StoreError } from './port.ts';

type Db = Database.Database;

/** Bump with a migration in `migrate` whenever the tables change. */
export const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE plans (key TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  status TEXT NOT NULL,
  issue_repo TEXT NOT NULL,
  issue_number INTEGER NOT NULL,
  pipeline TEXT NOT NULL,
  plan_key TEXT NOT NULL REFERENCES plans (key),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- The outbox (outbox.ts): pending effects as a JSON list ('' when none), and the keys of the
  -- effects carried out, one a line. Before the body, so reading them never walks the body.
  -- has_pending: 1 while pending is not empty. Set only when it flips: SQLite rewrites the entry
  -- of an index whose columns an UPDATE sets, even to the same value.
  has_pending INTEGER NOT NULL DEFAULT 0,
  pending TEXT NOT NULL DEFAULT '',
  done TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL
);
CREATE INDEX runs_issue ON runs (issue_repo, issue_number);
CREATE INDEX runs_pending ON runs (has_pending) WHERE has_pending = 1;
CREATE TABLE deliveries (id TEXT PRIMARY KEY, seen_at TEXT NOT NULL) WITHOUT ROWID;
`;

export function migrate(db: Db, path: string): void {
  db.transaction(() => {
    const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all();
    if (tables.length === 0) {
      db.exec(SCHEMA);
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
      return;
    }
    if (!tables.includes('schema_version')) {
      throw new StoreError(
        'not-a-store',
        `${path} is a SQLite database but not a Conveyor state database (it has tables ${tables.join(', ')} and no schema_version). Pass another state file.`,
      );
    }
    const version = db.prepare<[], number>('SELECT max(version) FROM schema_version').pluck().get();
    if (typeof version !== 'number' || version > SCHEMA_VERSION) {
      throw new StoreError(
        'newer-schema',
        `The state database ${path} has schema version ${String(version)}, but this Conveyor knows versions up to ${SCHEMA_VERSION}. Upgrade Conveyor, or use another state file.`,
      );
    }
    // Migrations from older versions go here, one step at a time, when there are any.
  }).immediate();
}

/** Turns SQLite's own errors into one that names the file and what to do about it. */
export function explain(e: unknown, path: string): unknown {
  if (e instanceof StoreError) return e;
  if (e instanceof OutboxError) return new StoreError('corrupt', `${e.message} Restore it from a backup, or move it away to start afresh.`, { cause: e });
  const code = (e as { code?: unknown }).code;
  const said = (e as Error).message;
  if (code === 'SQLITE_NOTADB') {
    return new StoreError('not-a-store', `The state database ${path} is not a SQLite database (SQLite: ${said}). Move it away or pass another state file.`, { cause: e });
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')) {
    return new StoreError('corrupt', `The state database ${path} is corrupted (SQLite: ${said}). Restore it from a backup, or move it away to start afresh.`, { cause: e });
  }
  return e;
}
