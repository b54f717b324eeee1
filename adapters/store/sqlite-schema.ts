// The state database's tables, how an older file is brought up to date, and how SQLite's own
// errors are turned into messages that name the file and what to do.
import type Database from 'better-sqlite3';
import type { RunEffect } from '../../core/run/types.ts';
import { Outbox, OutboxError } from './outbox.ts';
import { StoreError } from '../../engine/ports/store.ts';

type Db = Database.Database;

/**
 * Bump with a migration in `migrate` whenever the tables change. 1: effects in a table of their
 * own, a row per (run, key); 2: each run's outbox in columns of its row (outbox.ts).
 */
export const SCHEMA_VERSION = 2;

/** The runs table, as `name` (a migration builds it beside the old one). */
const runsTable = (name: string): string => `
CREATE TABLE ${name} (
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
);`;

const RUNS_INDEXES = `
CREATE INDEX runs_issue ON runs (issue_repo, issue_number);
CREATE INDEX runs_pending ON runs (has_pending) WHERE has_pending = 1;`;

const SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE plans (key TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
${runsTable('runs')}
${RUNS_INDEXES}
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
    // Migrations from older versions, one step at a time.
    if (version < 2) outboxIntoRunRows(db, path);
  }).immediate();
}

/**
 * Version 1 to 2: each run's effects move from the `effects` table into its row (pending ones as
 * its pending list, in the order they were committed; the keys of done ones as its done keys),
 * and the runs table is rebuilt with the outbox columns before the body (keeping each run's rowid,
 * which is the order runs are listed in).
 */
function outboxIntoRunRows(db: Db, path: string): void {
  const columns = 'id, version, status, issue_repo, issue_number, pipeline, plan_key, created_at, updated_at, body';
  db.exec(`${runsTable('runs_v2')}
    INSERT INTO runs_v2 (rowid, ${columns}) SELECT rowid, ${columns} FROM runs;`);
  const effects = db
    .prepare<[], { run_id: string; key: string; body: string; done: number }>(
      'SELECT runs.id AS run_id, effects.key, effects.body, effects.done FROM effects JOIN runs ON runs.rowid = effects.run ORDER BY effects.run, effects.version, effects.idx',
    )
    .all();
  const byRun = new Map<string, typeof effects>();
  for (const e of effects) {
    const list = byRun.get(e.run_id);
    if (list) list.push(e);
    else byRun.set(e.run_id, [e]);
  }
  const update = db.prepare('UPDATE runs_v2 SET has_pending = ?, pending = ?, done = ? WHERE id = ?');
  for (const [runId, list] of byRun) {
    const what = `run "${runId}" in the state database ${path}`;
    const box = new Outbox(runId, { pending: '', done: '' }, what);
    box.add(list.map((e) => parseEffect(e.body, what)));
    box.markDone(list.filter((e) => e.done).map((e) => e.key));
    const { pending, done } = box.columnsToWrite();
    update.run(pending ? 1 : 0, pending, done, runId);
  }
  db.exec(`DROP TABLE effects;
    DROP TABLE runs;
    ALTER TABLE runs_v2 RENAME TO runs;
    ${RUNS_INDEXES}
    UPDATE schema_version SET version = 2;`);
}

function parseEffect(text: string, what: string): RunEffect {
  try {
    return JSON.parse(text) as RunEffect;
  } catch (e) {
    throw new OutboxError(`An effect of ${what} is not valid JSON (${(e as Error).message}).`, e);
  }
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
