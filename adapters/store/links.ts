// What the app knows about a run on GitHub that the run itself does not hold: the check run and
// workflow run of each attempt (and how far its dispatch got, so a dispatch interrupted by a crash
// is looked up before it is done again), the tracking comment, and the summary check run of each
// head. Kept in tables of their own beside the store's, in the same SQLite file.
import Database from 'better-sqlite3';
import { useWal } from '../../lib/sqlite.ts';
import type { Rider } from './riders.ts';

/**
 * How far the dispatch of an attempt got. `creating-check` is written before the check run is
 * created and stays until the dispatch is done: a try that finds it looks on GitHub for the check
 * run, then for the workflow run, before making either. `dispatched` is written after, with the
 * store's next write (a crash before it leaves `creating-check`, so the next try looks).
 * `dispatching` (a check run made, the dispatch under way) is no longer written, but is still read.
 */
export type DispatchState = 'creating-check' | 'dispatching' | 'dispatched';

export interface AttemptLink {
  externalId: string;
  runId: string;
  repo: string;
  state: DispatchState;
  head?: string;
  checkRunId?: number;
  checkRunUrl?: string;
  workflowRunId?: number;
  workflowRunUrl?: string;
  /** When the state last changed (ISO). */
  at: string;
}

export interface LinkStore {
  attempt(externalId: string): AttemptLink | undefined;
  /**
   * Every attempt of a run (all steps, attempts and epochs), by external id. Read once per run and
   * then kept up to date by this handle's saves (the reporter asks on every transition); the app is
   * the only writer of its link tables (one replica).
   */
  attemptsOfRun(runId: string): AttemptLink[];
  attemptByCheckRun(checkRunId: number): AttemptLink | undefined;
  attemptByWorkflowRun(workflowRunId: number): AttemptLink | undefined;
  /**
   * Writes an attempt's record. `before` is the record as the caller last read or wrote it (null:
   * it knows there is none): with it the write is one statement instead of a try and a fallback.
   * `later`: the record rides on the store's next write (reads here see it at once): for records
   * whose loss in a crash only makes the next try look on GitHub (see DispatchState). `written`:
   * called once the record is in the database (at once, or when the transaction carrying it commits).
   */
  saveAttempt(link: AttemptLink, before?: AttemptLink | null, options?: { later?: boolean; written?: () => void }): void;
  comment(runId: string): { id: number; url: string } | undefined;
  /** `later`: as for saveAttempt (the reporter looks for a comment it has no record of). */
  saveComment(runId: string, comment: { id: number; url: string }, options?: { later?: boolean }): void;
  summary(runId: string, head: string): number | undefined;
  saveSummary(runId: string, head: string, checkRunId: number, options?: { later?: boolean }): void;
  close(): void;
}

/** Runs whose attempts are kept in memory: far more than run at once. */
const KEPT_RUNS = 256;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS github_attempts (
  external_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, check_run_id INTEGER, workflow_run_id INTEGER, body TEXT NOT NULL
) WITHOUT ROWID;
-- Partial: an attempt without a check run or workflow run yet (most writes) costs no index write.
-- (Replaces the full indexes of the first version, which indexed every NULL too.)
DROP INDEX IF EXISTS github_attempts_check;
DROP INDEX IF EXISTS github_attempts_workflow;
CREATE INDEX IF NOT EXISTS github_attempts_check_run ON github_attempts (check_run_id) WHERE check_run_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS github_attempts_workflow_run ON github_attempts (workflow_run_id) WHERE workflow_run_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS github_comments (run_id TEXT PRIMARY KEY, id INTEGER NOT NULL, url TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS github_summaries (run_id TEXT NOT NULL, head TEXT NOT NULL, check_run_id INTEGER NOT NULL, PRIMARY KEY (run_id, head)) WITHOUT ROWID;
`;

/** The store whose connection the link tables share, and how it writes (see SqliteRunStore). */
export interface SharedConnection {
  readonly database: Database.Database;
  write<T>(write: () => T): T;
  ride(rider: Rider): void;
}

/**
 * Opens the link tables: on the store's own connection (the app's way: one connection, whose page
 * cache no second writer keeps invalidating, and whose transactions carry the records saved
 * `later`; closing the store closes it), or in a file of their own (every record written at once).
 */
export function openLinkStore(where: string | SharedConnection): LinkStore {
  const owned = typeof where === 'string';
  const db = owned ? new Database(where) : where.database;
  const now = owned ? <T>(write: () => T): T => write() : <T>(write: () => T): T => where.write(write);
  const later = owned ? (write: () => void, written: () => void) => (write(), written()) : (write: () => void, written: () => void) => where.ride({ write, written });
  if (owned) {
    if (where === ':memory:') db.pragma('busy_timeout = 10000');
    else useWal(db, 10_000);
    // As the store: with WAL, NORMAL survives a killed process and does not fsync every write.
    db.pragma('synchronous = NORMAL');
  }
  db.exec(SCHEMA);
  const byId = db.prepare<[string], string>('SELECT body FROM github_attempts WHERE external_id = ?').pluck();
  // External ids start with `<run id>:` and run ids never hold `:` (core/check-run.ts), so one
  // range of the primary key holds exactly one run's attempts (`;` sorts right after `:`).
  const ofRun = db.prepare<[string, string, string], string>('SELECT body FROM github_attempts WHERE external_id > ? AND external_id < ? AND run_id = ?').pluck();
  const byCheck = db.prepare<[number], string>('SELECT body FROM github_attempts WHERE check_run_id = ?').pluck();
  const byWorkflow = db.prepare<[number], string>('SELECT body FROM github_attempts WHERE workflow_run_id = ?').pluck();
  const upsert = db.prepare(
    `INSERT INTO github_attempts (external_id, run_id, check_run_id, workflow_run_id, body) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (external_id) DO UPDATE SET check_run_id = excluded.check_run_id, workflow_run_id = excluded.workflow_run_id, body = excluded.body`,
  );
  const updateBody = db.prepare('UPDATE github_attempts SET body = ? WHERE external_id = ? AND check_run_id IS ? AND workflow_run_id IS ?');
  const getComment = db.prepare<[string], { id: number; url: string }>('SELECT id, url FROM github_comments WHERE run_id = ?');
  const putComment = db.prepare('INSERT INTO github_comments (run_id, id, url) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET id = excluded.id, url = excluded.url');
  const getSummary = db.prepare<[string, string], number>('SELECT check_run_id FROM github_summaries WHERE run_id = ? AND head = ?').pluck();
  const putSummary = db.prepare('INSERT INTO github_summaries (run_id, head, check_run_id) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET check_run_id = excluded.check_run_id');
  const parse = (body: string | undefined): AttemptLink | undefined => (body === undefined ? undefined : (JSON.parse(body) as AttemptLink));
  /** Records saved `later` and not written yet, by external id: reads look here first. */
  const unwritten = new Map<string, AttemptLink>();
  /** The attempts of the runs the reporter asked for lately, kept up to date by saves. */
  const ofRuns = new Map<string, Map<string, AttemptLink>>();
  /** Comments and summary check runs saved `later` and not written yet. */
  const comments = new Map<string, { id: number; url: string }>();
  const summaries = new Map<string, number>();
  /** Writes a record now, or with the store's next write (`later`: kept in `unwrittenOf` until then). */
  const keep = <V>(unwrittenOf: Map<string, V>, key: string, value: V, write: () => void, { later: deferred = false, written }: { later?: boolean; written?: () => void } = {}): void => {
    if (!deferred) {
      unwrittenOf.delete(key);
      now(write);
      written?.();
      return;
    }
    unwrittenOf.set(key, value);
    later(write, () => {
      // A newer record saved meanwhile stays unwritten until its own turn.
      if (unwrittenOf.get(key) === value) unwrittenOf.delete(key);
      written?.();
    });
  };
  const find = (match: (l: AttemptLink) => boolean): AttemptLink | undefined => {
    for (const l of unwritten.values()) if (match(l)) return l;
    return undefined;
  };
  const writeAttempt = (link: AttemptLink, before?: AttemptLink | null): void => {
    const body = JSON.stringify(link);
    const checkRunId = link.checkRunId ?? null;
    const workflowRunId = link.workflowRunId ?? null;
    // A new record, or new ids: straight to the upsert (an update would only miss first).
    const idsChange = before === null || (before !== undefined && ((before.checkRunId ?? null) !== checkRunId || (before.workflowRunId ?? null) !== workflowRunId));
    // Most saves change only the body: then the indexes are not rewritten (fewer pages to the log).
    // The update is tried first where the ids may be unchanged; it misses when they changed (or
    // the caller's knowledge was stale), and the upsert writes them.
    if (idsChange || updateBody.run(body, link.externalId, checkRunId, workflowRunId).changes === 0) upsert.run(link.externalId, link.runId, checkRunId, workflowRunId, body);
  };

  return {
    attempt: (id) => unwritten.get(id) ?? parse(byId.get(id)),
    attemptsOfRun: (runId) => {
      let kept = ofRuns.get(runId);
      if (kept) ofRuns.delete(runId);
      else {
        kept = new Map<string, AttemptLink>();
        for (const body of ofRun.all(`${runId}:`, `${runId};`, runId)) {
          const l = JSON.parse(body) as AttemptLink;
          kept.set(l.externalId, l);
        }
        for (const l of unwritten.values()) if (l.runId === runId) kept.set(l.externalId, l);
      }
      // The most recently asked-for runs are kept: the oldest goes.
      ofRuns.set(runId, kept);
      if (ofRuns.size > KEPT_RUNS) ofRuns.delete(ofRuns.keys().next().value!);
      return [...kept.values()].sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
    },
    attemptByCheckRun: (id) => find((l) => l.checkRunId === id) ?? parse(byCheck.get(id)),
    attemptByWorkflowRun: (id) => find((l) => l.workflowRunId === id) ?? parse(byWorkflow.get(id)),
    saveAttempt(link, before, options) {
      ofRuns.get(link.runId)?.set(link.externalId, link);
      keep(unwritten, link.externalId, link, () => writeAttempt(link, before), options);
    },
    comment: (runId) => comments.get(runId) ?? getComment.get(runId),
    saveComment(runId, c, options) {
      keep(comments, runId, c, () => putComment.run(runId, c.id, c.url), options);
    },
    summary: (runId, head) => summaries.get(`${runId}\u0000${head}`) ?? getSummary.get(runId, head),
    saveSummary(runId, head, id, options) {
      keep(summaries, `${runId}\u0000${head}`, id, () => putSummary.run(runId, head, id), options);
    },
    // A borrowed connection is closed by the store that lent it.
    close: () => {
      if (owned) db.close();
    },
  };
}
