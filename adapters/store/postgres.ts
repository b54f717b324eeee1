// The PostgreSQL store, for several app replicas on one database: the same contract as the SQLite
// file (engine/ports/store.ts, adapters/github/links.ts). A run is its JSON with a version column for
// compare-and-swap (`UPDATE … WHERE id = $1 AND version = $2`, which READ COMMITTED makes wait
// for a concurrent writer of the row and then fail); its effects are rows written in the same
// transaction with their claim; one active run per issue and pipeline is a unique partial index.
// Leases and claims run on the database server's clock, so replicas' clocks need not agree.
import pg from 'pg';
import type { Run, RunEffect } from '../../core/run/types.ts';
import type { AttemptLink, CommentLink, LinkStore } from '../github/links.ts';
import { StoreError, type EffectClaim, type Lease, type RunFilter, type RunStore, type StoredEffect, type Written } from '../../engine/ports/store.ts';
import { describeDatabase, explain, migrate, NOW_MS, uniqueViolation } from './postgres-schema.ts';

export { SCHEMA_VERSION } from './postgres-schema.ts';

/** How long opening a connection may take before the store says the server cannot be reached. */
const CONNECT_TIMEOUT_MS = 10_000;

/** bigint columns (GitHub's ids, ms timestamps) as numbers: all of them stay below 2^53. */
const TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PostgresStore extends RunStore {
  readonly links: LinkStore;
  /** The database as messages name it (database, host, user; never the password). */
  readonly where: string;
}

export interface PostgresOptions {
  /** Connections this handle keeps at most (default 10). */
  maxConnections?: number;
}

/** Opens a pool on the database, and brings its tables up to date before anything else. */
export async function openPostgresStore(url: string, options: PostgresOptions = {}): Promise<PostgresStore> {
  const { where, password } = describeDatabase(url);
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, max: options.maxConnections ?? 10, types: TYPES });
  // An idle connection the server drops emits here; unheard, it would end the process. The next
  // query opens another connection, or fails as `unavailable`.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      await migrate(client, where);
    } finally {
      client.release();
    }
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw explain(e, where, password);
  }
  return new Postgres(pool, where, password);
}

interface EffectRow {
  seq: number;
  run_id: string;
  body: string;
  claimed_by: string | null;
  claimed_until: number | null;
}

const EFFECT_COLUMNS = 'seq, run_id, body, claimed_by, claimed_until';

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<pg.QueryResult<R>>;

class Postgres implements PostgresStore {
  readonly links: LinkStore;
  private closed = false;
  private readonly query: Query;

  constructor(
    private readonly pool: pg.Pool,
    readonly where: string,
    private readonly password: string,
  ) {
    this.query = (text, values) => this.guard(() => this.pool.query(text, values));
    this.links = new PostgresLinks(this.query);
  }

  async create(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written> {
    if (run.version !== 0) throw new StoreError('conflict', `A new run must have version 0 (run "${run.id}" has ${run.version}).`);
    const stored = { ...run, version: 1 };
    try {
      return await this.transaction(async (q) => {
        await q(
          'INSERT INTO runs (id, version, status, issue_repo, issue_number, pipeline, created_at, updated_at, body) VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8)',
          [run.id, run.status, run.issue.repo, run.issue.number, run.plan.pipeline, run.createdAt, run.updatedAt, JSON.stringify(stored)],
        );
        await savePrs(q, stored);
        return addEffects(q, run.id, effects, claim);
      });
    } catch (e) {
      if (uniqueViolation(e) === undefined) throw e;
      // The id taken wins over the issue's active run, whichever index the server checked first.
      if ((await this.query('SELECT 1 FROM runs WHERE id = $1', [run.id])).rowCount)
        throw new StoreError('duplicate-run', `A run "${run.id}" already exists in the PostgreSQL ${this.where}.`, { cause: e });
      throw await this.activeRun(run, e);
    }
  }

  async get(id: string): Promise<Run | undefined> {
    const row = (await this.query<{ id: string; version: number; body: string }>('SELECT id, version, body FROM runs WHERE id = $1', [id])).rows[0];
    return row ? this.parseRun(row) : undefined;
  }

  async list(filter: RunFilter = {}): Promise<Run[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (v: unknown) => `$${args.push(v)}`;
    if (filter.status) {
      if (filter.status.length === 0) return [];
      where.push(`status = ANY(${arg(filter.status)}::text[])`);
    }
    if (filter.issue) where.push(`issue_repo = ${arg(filter.issue.repo)} AND issue_number = ${arg(filter.issue.number)}`);
    if (filter.pipeline !== undefined) where.push(`pipeline = ${arg(filter.pipeline)}`);
    if (filter.pr) where.push(`id IN (SELECT run_id FROM run_prs WHERE repo = ${arg(filter.pr.repo)} AND number = ${arg(filter.pr.number)})`);
    const sql = `SELECT id, version, body FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`;
    return (await this.query<{ id: string; version: number; body: string }>(sql, args)).rows.map((r) => this.parseRun(r));
  }

  async commit(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written | false> {
    const next = { ...run, version: run.version + 1 };
    try {
      return await this.transaction(async (q) => {
        const updated = await q('UPDATE runs SET version = version + 1, status = $1, updated_at = $2, body = $3 WHERE id = $4 AND version = $5', [
          run.status,
          run.updatedAt,
          JSON.stringify(next),
          run.id,
          run.version,
        ]);
        if (updated.rowCount !== 1) return false;
        await savePrs(q, next);
        return addEffects(q, run.id, effects, claim);
      });
    } catch (e) {
      // A run made active again (a retry) while the issue has another active run.
      if (uniqueViolation(e) === 'runs_one_active') throw await this.activeRun(run, e);
      throw e;
    }
  }

  async pendingEffects(runId?: string): Promise<StoredEffect[]> {
    const rows = (
      await this.query<EffectRow>(`SELECT ${EFFECT_COLUMNS} FROM effects WHERE NOT done AND ($1::text IS NULL OR run_id = $1) ORDER BY seq`, [runId ?? null])
    ).rows;
    return rows.map((r) => this.effectOf(r));
  }

  async claimEffects(claim: EffectClaim, scope: { runId?: string; takeOver?: boolean } = {}): Promise<StoredEffect[]> {
    // SKIP LOCKED: an effect another replica is claiming, renewing or marking done this instant is
    // that replica's; two replicas claiming at once never wait on each other nor share an effect.
    const rows = (
      await this.query<EffectRow>(
        `UPDATE effects SET claimed_by = $1, claimed_until = ${NOW_MS} + $2
         WHERE seq IN (
           SELECT seq FROM effects
           WHERE NOT done AND ($3::text IS NULL OR run_id = $3)
             AND (claimed_by IS NULL OR claimed_until < ${NOW_MS} OR $4)
           ORDER BY seq FOR UPDATE SKIP LOCKED)
         RETURNING ${EFFECT_COLUMNS}`,
        [claim.holder, claim.ttlMs, scope.runId ?? null, scope.takeOver === true],
      )
    ).rows;
    return rows.sort((a, b) => a.seq - b.seq).map((r) => this.effectOf(r));
  }

  async renewClaims(claim: EffectClaim, effects: ReadonlyArray<{ runId: string; key: string }>): Promise<void> {
    if (effects.length === 0) return;
    await this.query(
      `UPDATE effects SET claimed_until = ${NOW_MS} + $2
       WHERE claimed_by = $1 AND NOT done AND (run_id, key) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
      [claim.holder, claim.ttlMs, effects.map((e) => e.runId), effects.map((e) => e.key)],
    );
  }

  async markEffectDone(runId: string, key: string): Promise<void> {
    await this.query('UPDATE effects SET done = true WHERE run_id = $1 AND key = $2', [runId, key]);
  }

  async seenDelivery(id: string): Promise<boolean> {
    return (await this.query('INSERT INTO deliveries (id) VALUES ($1) ON CONFLICT DO NOTHING', [id])).rowCount === 0;
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<Lease> {
    // Taken when free, expired or the holder's own; else the lease as it stands says who holds it
    // (read again when it was given up in between).
    for (;;) {
      const taken = (
        await this.query<{ name: string; holder: string; expires_at: number }>(
          `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, ${NOW_MS} + $3)
           ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE leases.holder = excluded.holder OR leases.expires_at < ${NOW_MS}
           RETURNING name, holder, expires_at`,
          [name, holder, ttlMs],
        )
      ).rows[0];
      const lease = taken ? { name: taken.name, holder: taken.holder, expiresAt: taken.expires_at } : await this.lease(name);
      if (lease) return lease;
    }
  }

  async lease(name: string): Promise<Lease | undefined> {
    const row = (await this.query<{ name: string; holder: string; expires_at: number }>('SELECT name, holder, expires_at FROM leases WHERE name = $1', [name]))
      .rows[0];
    return row ? { name: row.name, holder: row.holder, expiresAt: row.expires_at } : undefined;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.query('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** One transaction on one connection; rolled back whole on any error. */
  private transaction<T>(fn: (q: Query) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn((text, values) => client.query(text, values));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch((rollback: unknown) => (broken = rollback as Error));
        throw e;
      } finally {
        // A connection that could not even roll back is dropped, not handed to the next caller.
        client.release(broken);
      }
    });
  }

  private async activeRun(run: Run, cause: unknown): Promise<StoreError> {
    const active = (
      await this.query<{ id: string }>(
        "SELECT id FROM runs WHERE issue_repo = $1 AND issue_number = $2 AND pipeline = $3 AND status IN ('running', 'waiting')",
        [run.issue.repo, run.issue.number, run.plan.pipeline],
      )
    ).rows[0];
    return new StoreError(
      'active-run',
      `Run "${active?.id ?? '(another)'}" of pipeline ${run.plan.pipeline} is already active for ${run.issue.repo}#${run.issue.number}.`,
      { cause },
    );
  }

  private parseRun(row: { id: string; version: number; body: string }): Run {
    const run = this.parseJson(row.body, `Run "${row.id}"`) as Run;
    // The column is the truth (a compare-and-swap bumps it).
    run.version = row.version;
    return run;
  }

  private effectOf(r: EffectRow): StoredEffect {
    const effect = this.parseJson(r.body, `A pending effect of run "${r.run_id}"`) as RunEffect;
    return { ...effect, runId: r.run_id, ...(r.claimed_by !== null ? { claim: { holder: r.claimed_by, until: r.claimed_until ?? 0 } } : {}) };
  }

  private parseJson(text: string, what: string): unknown {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new StoreError(
        'corrupt',
        `${what} in the PostgreSQL ${this.where} is not valid JSON (${(e as Error).message}). Restore the database from a backup (pg_dump), or delete that row.`,
        { cause: e },
      );
    }
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError('unavailable', `The store on the PostgreSQL ${this.where} was closed (this process is stopping).`);
    try {
      return await fn();
    } catch (e) {
      throw explain(e, this.where, this.password);
    }
  }
}

async function savePrs(q: Query, run: Run): Promise<void> {
  await q('DELETE FROM run_prs WHERE run_id = $1', [run.id]);
  if (run.prs.length === 0) return;
  await q('INSERT INTO run_prs (run_id, repo, number) SELECT $1::text, * FROM unnest($2::text[], $3::int[]) ON CONFLICT DO NOTHING', [
    run.id,
    run.prs.map((p) => p.repo),
    run.prs.map((p) => p.number),
  ]);
}

/** Stores the effects whose keys are new, in their order, claimed with `claim`; returns the keys it claimed. */
async function addEffects(q: Query, runId: string, effects: readonly RunEffect[], claim: EffectClaim | undefined): Promise<Written> {
  if (effects.length === 0) return { claimed: [] };
  const stored = await q<{ key: string }>(
    `INSERT INTO effects (run_id, key, body, claimed_by, claimed_until)
     SELECT $1::text, e.key, e.body, $4::text, CASE WHEN $4::text IS NULL THEN NULL ELSE ${NOW_MS} + $5::bigint END
     FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS e(key, body, i) ORDER BY e.i
     ON CONFLICT (run_id, key) DO NOTHING
     RETURNING key`,
    [runId, effects.map((e) => e.key), effects.map((e) => JSON.stringify(e)), claim?.holder ?? null, claim?.ttlMs ?? 0],
  );
  return { claimed: claim ? effects.map((e) => e.key).filter((k) => stored.rows.some((r) => r.key === k)) : [] };
}

class PostgresLinks implements LinkStore {
  constructor(private readonly query: Query) {}

  async attempt(externalId: string): Promise<AttemptLink | undefined> {
    return this.one('SELECT body FROM github_attempts WHERE external_id = $1', [externalId]);
  }

  async attemptsOfRun(runId: string): Promise<AttemptLink[]> {
    return (await this.query<{ body: string }>('SELECT body FROM github_attempts WHERE run_id = $1 ORDER BY external_id COLLATE "C"', [runId])).rows.map(
      (r) => JSON.parse(r.body) as AttemptLink,
    );
  }

  async attemptByCheckRun(repo: string, checkRunId: number): Promise<AttemptLink | undefined> {
    return this.one('SELECT body FROM github_attempts WHERE repo = $1 AND check_run_id = $2', [repo, checkRunId]);
  }

  async attemptByWorkflowRun(repo: string, workflowRunId: number): Promise<AttemptLink | undefined> {
    return this.one('SELECT body FROM github_attempts WHERE repo = $1 AND workflow_run_id = $2', [repo, workflowRunId]);
  }

  async saveAttempt(link: AttemptLink): Promise<void> {
    await this.query(
      `INSERT INTO github_attempts (external_id, run_id, repo, check_run_id, workflow_run_id, body) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (external_id) DO UPDATE SET repo = excluded.repo, check_run_id = excluded.check_run_id, workflow_run_id = excluded.workflow_run_id, body = excluded.body`,
      [link.externalId, link.runId, link.repo, link.checkRunId ?? null, link.workflowRunId ?? null, JSON.stringify(link)],
    );
  }

  async comment(runId: string): Promise<CommentLink | undefined> {
    const row = (await this.query<CommentLink>('SELECT id, url FROM github_comments WHERE run_id = $1', [runId])).rows[0];
    return row ? { id: row.id, url: row.url } : undefined;
  }

  async saveComment(runId: string, comment: CommentLink): Promise<void> {
    await this.query(
      'INSERT INTO github_comments (run_id, id, url) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO UPDATE SET id = excluded.id, url = excluded.url',
      [runId, comment.id, comment.url],
    );
  }

  async summary(runId: string, head: string): Promise<number | undefined> {
    return (await this.query<{ id: number }>('SELECT check_run_id AS id FROM github_summaries WHERE run_id = $1 AND head = $2', [runId, head])).rows[0]?.id;
  }

  async saveSummary(runId: string, head: string, checkRunId: number): Promise<void> {
    await this.query(
      'INSERT INTO github_summaries (run_id, head, check_run_id) VALUES ($1, $2, $3) ON CONFLICT (run_id, head) DO UPDATE SET check_run_id = excluded.check_run_id',
      [runId, head, checkRunId],
    );
  }

  private async one(sql: string, values: unknown[]): Promise<AttemptLink | undefined> {
    const row = (await this.query<{ body: string }>(sql, values)).rows[0];
    return row ? (JSON.parse(row.body) as AttemptLink) : undefined;
  }
}
