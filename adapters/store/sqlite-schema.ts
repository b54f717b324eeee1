// The state database's tables, how an older file is brought up to date, and how SQLite's own
// errors are turned into messages that name the file and what to do.
import type Database from 'better-sqlite3';
import { StoreError } from '../../engine/ports/store.ts';

type Db = Database.Database;

/**
 * Bump with a migration in `migrate` whenever the tables change. 1: effects in a table of their
 * own; 2: each run's outbox in columns of its row, plans stored apart; 3: runs whole (plan
 * included), effects in a table again, leases, the runs' pull requests, and the GitHub App's
 * links in the same file; 4: effects claimed by the process that carries them out.
 */
export const SCHEMA_VERSION = 4;

/** The GitHub App's records (engine/ports/links.ts); IF NOT EXISTS: a migrated file keeps its comments and summaries. */
const LINK_TABLES = `
CREATE TABLE github_attempts (
  external_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, repo TEXT NOT NULL, check_run_id INTEGER, workflow_run_id INTEGER, body TEXT NOT NULL
);
CREATE INDEX github_attempts_run ON github_attempts (run_id);
CREATE INDEX github_attempts_check_run ON github_attempts (repo, check_run_id) WHERE check_run_id IS NOT NULL;
CREATE INDEX github_attempts_workflow_run ON github_attempts (repo, workflow_run_id) WHERE workflow_run_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS github_comments (run_id TEXT PRIMARY KEY, id INTEGER NOT NULL, url TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS github_summaries (run_id TEXT NOT NULL, head TEXT NOT NULL, check_run_id INTEGER NOT NULL, PRIMARY KEY (run_id, head));`;

const SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
-- seq: creation order (runs are listed in it).
CREATE TABLE runs (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  version INTEGER NOT NULL,
  status TEXT NOT NULL,
  issue_repo TEXT NOT NULL,
  issue_number INTEGER NOT NULL,
  pipeline TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  body TEXT NOT NULL
);
-- One active run per issue and pipeline, whoever starts one at the same time.
CREATE UNIQUE INDEX runs_one_active ON runs (issue_repo, issue_number, pipeline) WHERE status IN ('running', 'waiting');
CREATE INDEX runs_status ON runs (status);
-- The pull requests of each run, so that a PR's events find their runs without reading every run.
CREATE TABLE run_prs (run_id TEXT NOT NULL, repo TEXT NOT NULL, number INTEGER NOT NULL, PRIMARY KEY (run_id, repo, number));
CREATE INDEX run_prs_pr ON run_prs (repo, number);
-- The outbox: effects in commit order (rowid); a key once stored, pending or done, is not stored again.
-- claimed_by carries a pending effect out until claimed_until (ms since the epoch), renewing it as it works.
CREATE TABLE effects (run_id TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, claimed_by TEXT, claimed_until INTEGER, UNIQUE (run_id, key));
CREATE INDEX effects_pending ON effects (done) WHERE done = 0;
-- IF NOT EXISTS: a migrated file keeps its deliveries (the table's shape never changed).
CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, seen_at TEXT NOT NULL);
CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
${LINK_TABLES}
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
    // Version 1 and 2 files are rebuilt into the current tables; a version 3 file gains columns.
    if (version < 3) toVersion3(db, path, version, tables);
    else if (version < 4) toVersion4(db);
  }).immediate();
}

/** Version 3 to 4: effects gain their claim (none: a restart's recovery claims them). */
function toVersion4(db: Db): void {
  db.exec('ALTER TABLE effects ADD COLUMN claimed_by TEXT; ALTER TABLE effects ADD COLUMN claimed_until INTEGER;');
  db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION);
}

interface OldRun {
  rowid: number;
  id: string;
  version: number;
  status: string;
  issue_repo: string;
  issue_number: number;
  pipeline: string;
  plan_key: string;
  created_at: string;
  updated_at: string;
  body: string;
  pending?: string;
  done?: string;
}

interface OldEffect {
  key: string;
  body: string;
  done: boolean;
}

/**
 * Versions 1 and 2 to 3 (and on to the current tables): each run is stored whole again (its plan put back into it), its effects
 * become rows (pending ones in the order they were committed, done ones as done keys), and the
 * app's attempt records gain their repository (read from the record itself).
 */
function toVersion3(db: Db, path: string, version: number, tables: string[]): void {
  const runs = db.prepare<[], OldRun>(`SELECT rowid, * FROM runs ORDER BY rowid`).all();
  const plans = new Map(
    db
      .prepare<[], { key: string; body: string }>('SELECT key, body FROM plans')
      .all()
      .map((p) => [p.key, p.body]),
  );
  const effectsOf = version === 1 ? v1Effects(db) : new Map<string, OldEffect[]>();
  db.exec('DROP TABLE runs; DROP TABLE plans; DROP TABLE IF EXISTS effects; DROP TABLE schema_version;');
  const attempts = tables.includes('github_attempts');
  if (attempts)
    db.exec(
      'ALTER TABLE github_attempts RENAME TO github_attempts_v2; DROP INDEX IF EXISTS github_attempts_check_run; DROP INDEX IF EXISTS github_attempts_workflow_run; DROP INDEX IF EXISTS github_attempts_check; DROP INDEX IF EXISTS github_attempts_workflow;',
    );
  db.exec(SCHEMA);
  db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
  const insertRun = db.prepare(
    'INSERT INTO runs (seq, id, version, status, issue_repo, issue_number, pipeline, created_at, updated_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertPr = db.prepare('INSERT OR IGNORE INTO run_prs (run_id, repo, number) VALUES (?, ?, ?)');
  const insertEffect = db.prepare('INSERT OR IGNORE INTO effects (run_id, key, body, done) VALUES (?, ?, ?, ?)');
  for (const r of runs) {
    const what = `run "${r.id}" in the state database ${path}`;
    const planText = plans.get(r.plan_key);
    if (planText === undefined)
      throw new StoreError(
        'corrupt',
        `The state database ${path} has no plan ${r.plan_key} (${what} refers to it). Restore it from a backup, or move it away to start afresh.`,
      );
    const run: Record<string, unknown> & { prs?: Array<{ repo: string; number: number }> } = {
      ...(parseJson(r.body, what) as object),
      plan: parseJson(planText, `the plan of ${what}`),
      version: r.version,
    };
    insertRun.run(r.rowid, r.id, r.version, r.status, r.issue_repo, r.issue_number, r.pipeline, r.created_at, r.updated_at, JSON.stringify(run));
    for (const pr of run.prs ?? []) insertPr.run(r.id, pr.repo, pr.number);
    const effects = version === 1 ? (effectsOf.get(String(r.rowid)) ?? []) : v2Effects(r, what);
    for (const e of effects) insertEffect.run(r.id, e.key, e.body, e.done ? 1 : 0);
  }
  if (attempts) {
    const old = db
      .prepare<[], { external_id: string; run_id: string; check_run_id: number | null; workflow_run_id: number | null; body: string }>(
        'SELECT * FROM github_attempts_v2',
      )
      .all();
    const insert = db.prepare('INSERT INTO github_attempts (external_id, run_id, repo, check_run_id, workflow_run_id, body) VALUES (?, ?, ?, ?, ?, ?)');
    for (const a of old) {
      const link = parseJson(a.body, `the GitHub record of attempt ${a.external_id}`) as { repo: string; state: string };
      // 'dispatching' (a check run made, the dispatch under way) makes the next try look on GitHub, as 'creating-check' does.
      const body = link.state === 'dispatching' ? JSON.stringify({ ...link, state: 'creating-check' }) : a.body;
      insert.run(a.external_id, a.run_id, link.repo, a.check_run_id, a.workflow_run_id, body);
    }
    db.exec('DROP TABLE github_attempts_v2');
  }
}

/** Version 1 kept effects in a table keyed by the run's rowid, ordered by the version that committed them. */
function v1Effects(db: Db): Map<string, OldEffect[]> {
  const rows = db
    .prepare<[], { run: number; key: string; body: string; done: number }>('SELECT run, key, body, done FROM effects ORDER BY run, version, idx')
    .all();
  const out = new Map<string, OldEffect[]>();
  for (const r of rows) {
    const list = out.get(String(r.run)) ?? [];
    list.push({ key: r.key, body: r.body, done: r.done === 1 });
    out.set(String(r.run), list);
  }
  return out;
}

/**
 * Version 2 kept a run's pending effects as a JSON list and the keys of done ones a line each:
 * `~rest` for `<run id>:rest`, `=key` for another key, a JSON string for a key with a line break.
 */
function v2Effects(r: OldRun, what: string): OldEffect[] {
  const out: OldEffect[] = [];
  for (const line of (r.done ?? '').split('\n')) {
    if (line === '') continue;
    const key = line.startsWith('~') ? `${r.id}:${line.slice(1)}` : line.startsWith('=') ? line.slice(1) : String(parseJson(line, `a done key of ${what}`));
    // A done key carries no effect: it only keeps the same key from being stored again.
    out.push({ key, body: 'null', done: true });
  }
  if (r.pending) {
    const pending = parseJson(r.pending, `the pending effects of ${what}`);
    if (!Array.isArray(pending))
      throw new StoreError('corrupt', `The pending effects of ${what} are not a list. Restore it from a backup, or move it away to start afresh.`);
    for (const e of pending as Array<{ key: string }>) out.push({ key: e.key, body: JSON.stringify(e), done: false });
  }
  return out;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new StoreError(
      'corrupt',
      `${what[0]!.toUpperCase()}${what.slice(1)} is not valid JSON (${(e as Error).message}). Restore it from a backup, or move it away to start afresh.`,
      { cause: e },
    );
  }
}

/** Turns SQLite's own errors into one that names the file and what to do about it. */
export function explain(e: unknown, path: string): unknown {
  if (e instanceof StoreError) return e;
  const code = (e as { code?: unknown }).code;
  const said = (e as Error).message;
  if (code === 'SQLITE_NOTADB') {
    return new StoreError('not-a-store', `The state database ${path} is not a SQLite database (SQLite: ${said}). Move it away or pass another state file.`, {
      cause: e,
    });
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')) {
    return new StoreError('corrupt', `The state database ${path} is corrupted (SQLite: ${said}). Restore it from a backup, or move it away to start afresh.`, {
      cause: e,
    });
  }
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR'))) {
    return new StoreError(
      'unavailable',
      `The state database ${path} could not be written (SQLite: ${said}): free some disk space or check the disk, then run the command again. Nothing was half-written: the write was rolled back.`,
      { cause: e },
    );
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
    return new StoreError('not-a-store', `The state database ${path} cannot be opened for writing (SQLite: ${said}). Pass a file in a folder you can write.`, {
      cause: e,
    });
  }
  return e;
}
