// The embedded store: one SQLite file (better-sqlite3, WAL), safe to share between processes on
// one machine. A run is its JSON with a version column for compare-and-swap; its effects are rows
// of the outbox table written in the same transaction, each with the claim of the process that
// carries it out; the GitHub App's records (links) live in the same file. better-sqlite3 is
// synchronous: the port's promises resolve at once.
import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Run, RunEffect } from '../../core/run/types.ts';
import type { AttemptLink, CommentLink, LinkStore } from '../github/links.ts';
import { StoreError, type EffectClaim, type Lease, type RunFilter, type RunStore, type StoredEffect, type Written } from '../../engine/ports/store.ts';
import { useWal } from '../../lib/sqlite.ts';
import { explain, migrate } from './sqlite-schema.ts';

export { SCHEMA_VERSION } from './sqlite-schema.ts';

/** How long a writer waits for another process's write to finish before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

type Db = Database.Database;

/** The SQLite store: the runs, and the GitHub App's records beside them. */
export interface SqliteStore extends RunStore {
  readonly links: LinkStore;
  readonly path: string;
}

export function openSqliteStore(path: string): SqliteStore {
  if (path !== ':memory:') checkPath(path);
  let db: Db;
  try {
    db = new Database(path);
  } catch (e) {
    throw explain(new StoreError('not-a-store', `Cannot open the state database ${path}: ${(e as Error).message}`, { cause: e }), path);
  }
  try {
    useWal(db, BUSY_TIMEOUT_MS);
    // With WAL, NORMAL survives a killed process (only a power loss may drop the last commits).
    db.pragma('synchronous = NORMAL');
    migrate(db, path);
    return new Sqlite(db, path);
  } catch (e) {
    db.close();
    throw explain(e, path);
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

interface RunRow {
  id: string;
  version: number;
  body: string;
}

interface EffectRow {
  run_id: string;
  body: string;
  claimed_by: string | null;
  claimed_until: number | null;
}

const EFFECT_COLUMNS = 'run_id, body, claimed_by, claimed_until';

class Sqlite implements SqliteStore {
  readonly links: LinkStore;
  private readonly sql;

  constructor(
    private readonly db: Db,
    readonly path: string,
  ) {
    this.sql = {
      insertRun: db.prepare(
        'INSERT INTO runs (id, version, status, issue_repo, issue_number, pipeline, created_at, updated_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      selectRun: db.prepare<[string], RunRow>('SELECT id, version, body FROM runs WHERE id = ?'),
      updateRun: db.prepare('UPDATE runs SET version = version + 1, status = ?, updated_at = ?, body = ? WHERE id = ? AND version = ?'),
      activeOf: db
        .prepare<[string, number, string], string>(
          "SELECT id FROM runs WHERE issue_repo = ? AND issue_number = ? AND pipeline = ? AND status IN ('running', 'waiting')",
        )
        .pluck(),
      deletePrs: db.prepare('DELETE FROM run_prs WHERE run_id = ?'),
      insertPr: db.prepare('INSERT OR IGNORE INTO run_prs (run_id, repo, number) VALUES (?, ?, ?)'),
      insertEffect: db.prepare('INSERT OR IGNORE INTO effects (run_id, key, body, claimed_by, claimed_until) VALUES (?, ?, ?, ?, ?)'),
      pending: db.prepare<[], EffectRow>(`SELECT ${EFFECT_COLUMNS} FROM effects WHERE done = 0 ORDER BY rowid`),
      pendingOf: db.prepare<[string], EffectRow>(`SELECT ${EFFECT_COLUMNS} FROM effects WHERE done = 0 AND run_id = ? ORDER BY rowid`),
      markDone: db.prepare('UPDATE effects SET done = 1 WHERE run_id = ? AND key = ?'),
      // Free: never claimed, or its claim ran out; @takeOver: whoever holds it.
      free: db.prepare<{ now: number; runId: string | null; takeOver: number }, EffectRow & { key: string }>(
        `SELECT key, ${EFFECT_COLUMNS} FROM effects WHERE done = 0 AND (@runId IS NULL OR run_id = @runId) AND (claimed_by IS NULL OR claimed_until < @now OR @takeOver = 1) ORDER BY rowid`,
      ),
      take: db.prepare('UPDATE effects SET claimed_by = ?, claimed_until = ? WHERE run_id = ? AND key = ?'),
      renew: db.prepare('UPDATE effects SET claimed_until = ? WHERE run_id = ? AND key = ? AND claimed_by = ? AND done = 0'),
      insertDelivery: db.prepare('INSERT INTO deliveries (id, seen_at) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      takeLease: db.prepare(
        'INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at WHERE leases.holder = excluded.holder OR leases.expires_at < ?',
      ),
      selectLease: db.prepare<[string], { name: string; holder: string; expires_at: number }>('SELECT name, holder, expires_at FROM leases WHERE name = ?'),
      releaseLease: db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?'),
    };
    this.links = new SqliteLinks(db, (fn) => this.guard(fn));
  }

  async create(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written> {
    if (run.version !== 0) throw new StoreError('conflict', `A new run must have version 0 (run "${run.id}" has ${run.version}).`);
    const stored = { ...run, version: 1 };
    return this.write(() => {
      if (this.sql.selectRun.get(run.id)) throw new StoreError('duplicate-run', `A run "${run.id}" already exists in ${this.path}.`);
      if (run.status === 'running' || run.status === 'waiting') {
        const active = this.sql.activeOf.get(run.issue.repo, run.issue.number, run.plan.pipeline);
        if (active)
          throw new StoreError('active-run', `Run "${active}" of pipeline ${run.plan.pipeline} is already active for ${run.issue.repo}#${run.issue.number}.`);
      }
      this.sql.insertRun.run(run.id, 1, run.status, run.issue.repo, run.issue.number, run.plan.pipeline, run.createdAt, run.updatedAt, JSON.stringify(stored));
      this.savePrs(stored);
      return this.addEffects(run.id, effects, claim);
    });
  }

  async get(id: string): Promise<Run | undefined> {
    const row = this.guard(() => this.sql.selectRun.get(id));
    return row ? this.parse(row) : undefined;
  }

  async list(filter: RunFilter = {}): Promise<Run[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.status) {
      if (filter.status.length === 0) return [];
      where.push(`status IN (${filter.status.map(() => '?').join(', ')})`);
      args.push(...filter.status);
    }
    if (filter.issue) {
      where.push('issue_repo = ? AND issue_number = ?');
      args.push(filter.issue.repo, filter.issue.number);
    }
    if (filter.pipeline !== undefined) {
      where.push('pipeline = ?');
      args.push(filter.pipeline);
    }
    if (filter.pr) {
      where.push('id IN (SELECT run_id FROM run_prs WHERE repo = ? AND number = ?)');
      args.push(filter.pr.repo, filter.pr.number);
    }
    const sql = `SELECT id, version, body FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`;
    return this.guard(() => this.db.prepare<unknown[], RunRow>(sql).all(...args)).map((r) => this.parse(r));
  }

  async commit(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written | false> {
    const next = { ...run, version: run.version + 1 };
    return this.write(() => {
      const changed = this.sql.updateRun.run(run.status, run.updatedAt, JSON.stringify(next), run.id, run.version).changes === 1;
      if (!changed) return false;
      this.savePrs(next);
      return this.addEffects(run.id, effects, claim);
    });
  }

  async pendingEffects(runId?: string): Promise<StoredEffect[]> {
    const rows = this.guard(() => (runId === undefined ? this.sql.pending.all() : this.sql.pendingOf.all(runId)));
    return rows.map((r) => this.effectOf(r));
  }

  async claimEffects(claim: EffectClaim, scope: { runId?: string; takeOver?: boolean } = {}): Promise<StoredEffect[]> {
    const now = Date.now();
    const until = now + claim.ttlMs;
    const rows = this.write(() => {
      const free = this.sql.free.all({ now, runId: scope.runId ?? null, takeOver: scope.takeOver ? 1 : 0 });
      for (const r of free) this.sql.take.run(claim.holder, until, r.run_id, r.key);
      return free.map((r) => ({ ...r, claimed_by: claim.holder, claimed_until: until }));
    });
    return rows.map((r) => this.effectOf(r));
  }

  async renewClaims(claim: EffectClaim, effects: ReadonlyArray<{ runId: string; key: string }>): Promise<void> {
    const until = Date.now() + claim.ttlMs;
    this.write(() => {
      for (const e of effects) this.sql.renew.run(until, e.runId, e.key, claim.holder);
    });
  }

  async markEffectDone(runId: string, key: string): Promise<void> {
    this.write(() => this.sql.markDone.run(runId, key));
  }

  async seenDelivery(id: string): Promise<boolean> {
    return this.write(() => this.sql.insertDelivery.run(id, new Date().toISOString()).changes === 0);
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<Lease> {
    const now = Date.now();
    return this.write(() => {
      this.sql.takeLease.run(name, holder, now + ttlMs, now);
      const row = this.sql.selectLease.get(name)!;
      return { name: row.name, holder: row.holder, expiresAt: row.expires_at };
    });
  }

  async lease(name: string): Promise<Lease | undefined> {
    const row = this.guard(() => this.sql.selectLease.get(name));
    return row ? { name: row.name, holder: row.holder, expiresAt: row.expires_at } : undefined;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    this.write(() => this.sql.releaseLease.run(name, holder));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /** A transaction that takes the write lock first (IMMEDIATE), so a read inside it stays true until it commits. */
  private write<T>(fn: () => T): T {
    return this.guard(() => this.db.transaction(fn).immediate());
  }

  private savePrs(run: Run): void {
    this.sql.deletePrs.run(run.id);
    for (const pr of run.prs) this.sql.insertPr.run(run.id, pr.repo, pr.number);
  }

  /** Stores the effects whose keys are new, claimed with `claim`; returns the keys it claimed. */
  private addEffects(runId: string, effects: readonly RunEffect[], claim: EffectClaim | undefined): Written {
    const until = claim ? Date.now() + claim.ttlMs : null;
    const claimed: string[] = [];
    for (const e of effects) {
      const stored = this.sql.insertEffect.run(runId, e.key, JSON.stringify(e), claim?.holder ?? null, until).changes === 1;
      if (stored && claim) claimed.push(e.key);
    }
    return { claimed };
  }

  private effectOf(r: EffectRow): StoredEffect {
    const effect = this.parseJson(r.body, `A pending effect of run "${r.run_id}"`) as RunEffect;
    return { ...effect, runId: r.run_id, ...(r.claimed_by !== null ? { claim: { holder: r.claimed_by, until: r.claimed_until ?? 0 } } : {}) };
  }

  private parse(row: RunRow): Run {
    const run = this.parseJson(row.body, `Run "${row.id}"`) as Run;
    // The column is the truth (a compare-and-swap bumps it).
    run.version = row.version;
    return run;
  }

  private parseJson(text: string, what: string): unknown {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new StoreError(
        'corrupt',
        `${what} in the state database ${this.path} is not valid JSON (${(e as Error).message}). Restore it from a backup, or move it away to start afresh.`,
        { cause: e },
      );
    }
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw explain(e, this.path);
    }
  }
}

class SqliteLinks implements LinkStore {
  private readonly sql;

  constructor(
    db: Db,
    private readonly guard: <T>(fn: () => T) => T,
  ) {
    this.sql = {
      byId: db.prepare<[string], string>('SELECT body FROM github_attempts WHERE external_id = ?').pluck(),
      ofRun: db.prepare<[string], string>('SELECT body FROM github_attempts WHERE run_id = ? ORDER BY external_id').pluck(),
      byCheck: db.prepare<[string, number], string>('SELECT body FROM github_attempts WHERE repo = ? AND check_run_id = ?').pluck(),
      byWorkflow: db.prepare<[string, number], string>('SELECT body FROM github_attempts WHERE repo = ? AND workflow_run_id = ?').pluck(),
      upsert: db.prepare(
        `INSERT INTO github_attempts (external_id, run_id, repo, check_run_id, workflow_run_id, body) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (external_id) DO UPDATE SET repo = excluded.repo, check_run_id = excluded.check_run_id, workflow_run_id = excluded.workflow_run_id, body = excluded.body`,
      ),
      getComment: db.prepare<[string], CommentLink>('SELECT id, url FROM github_comments WHERE run_id = ?'),
      putComment: db.prepare(
        'INSERT INTO github_comments (run_id, id, url) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET id = excluded.id, url = excluded.url',
      ),
      getSummary: db.prepare<[string, string], number>('SELECT check_run_id FROM github_summaries WHERE run_id = ? AND head = ?').pluck(),
      putSummary: db.prepare(
        'INSERT INTO github_summaries (run_id, head, check_run_id) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET check_run_id = excluded.check_run_id',
      ),
    };
  }

  async attempt(externalId: string): Promise<AttemptLink | undefined> {
    return parseLink(this.guard(() => this.sql.byId.get(externalId)));
  }

  async attemptsOfRun(runId: string): Promise<AttemptLink[]> {
    return this.guard(() => this.sql.ofRun.all(runId)).map((b) => parseLink(b)!);
  }

  async attemptByCheckRun(repo: string, checkRunId: number): Promise<AttemptLink | undefined> {
    return parseLink(this.guard(() => this.sql.byCheck.get(repo, checkRunId)));
  }

  async attemptByWorkflowRun(repo: string, workflowRunId: number): Promise<AttemptLink | undefined> {
    return parseLink(this.guard(() => this.sql.byWorkflow.get(repo, workflowRunId)));
  }

  async saveAttempt(link: AttemptLink): Promise<void> {
    this.guard(() => this.sql.upsert.run(link.externalId, link.runId, link.repo, link.checkRunId ?? null, link.workflowRunId ?? null, JSON.stringify(link)));
  }

  async comment(runId: string): Promise<CommentLink | undefined> {
    const row = this.guard(() => this.sql.getComment.get(runId));
    return row ? { id: row.id, url: row.url } : undefined;
  }

  async saveComment(runId: string, comment: CommentLink): Promise<void> {
    this.guard(() => this.sql.putComment.run(runId, comment.id, comment.url));
  }

  async summary(runId: string, head: string): Promise<number | undefined> {
    return this.guard(() => this.sql.getSummary.get(runId, head));
  }

  async saveSummary(runId: string, head: string, checkRunId: number): Promise<void> {
    this.guard(() => this.sql.putSummary.run(runId, head, checkRunId));
  }
}

function parseLink(body: string | undefined): AttemptLink | undefined {
  return body === undefined ? undefined : (JSON.parse(body) as AttemptLink);
}
