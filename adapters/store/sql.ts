// The store over SQL, one implementation for SQLite (the embedded default, one machine) and
// PostgreSQL (several app replicas), written with Kysely. A run is its JSON with a version column
// for compare-and-swap (`UPDATE … WHERE id = ? AND version = ?`); its effects are rows of the
// outbox written in the same transaction, each with the claim of the process that carries it
// out; one active run per issue and pipeline is a unique partial index; leases and claims run on
// the database's clock, so processes' clocks need not agree. The GitHub App's records (links)
// live in the same database. What differs between the dialects is in `SqlDialect`, and small.
import { z } from 'zod';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Run, RunEffect } from '../../core/run/types.ts';
import type { LinkStore } from '../github/links.ts';
import { StoreError, type EffectClaim, type Lease, type RunFilter, type RunStore, type StoredEffect, type Written } from '../../engine/ports/store.ts';
import { SqlLinks } from './links.ts';
import { runOriginSchema, runSettingsSchema } from '../../core/run/origin.ts';
import type { Tables } from './schema.ts';

/** What the store needs to know of its database beyond standard SQL. */
export interface SqlDialect {
  /** How messages name the database: "the state database PATH", "the PostgreSQL database … on HOST (user …)". */
  where: string;
  /** What to do about a row that is not valid JSON. */
  restore: string;
  /** Milliseconds since the epoch by the database's clock. */
  now: RawBuilder<number>;
  /**
   * Whether a claim skips the effects another transaction is claiming this instant
   * (PostgreSQL's FOR UPDATE SKIP LOCKED); SQLite runs one write at a time and needs none.
   */
  skipLocked: boolean;
  uniqueViolation(e: unknown): boolean;
  /** The driver's or server's error as one that names the database and what to do; others as they are. */
  explain(e: unknown): unknown;
}

/** The store of runs, and of the GitHub App's records beside them. */
export interface SqlStore extends RunStore {
  readonly links: LinkStore;
  /** The database as messages name it (never a password). */
  readonly where: string;
}

type Db = Kysely<Tables> | Transaction<Tables>;

/** What the store checks of a run it reads: an object, with the origin and settings of its mode (the rest is the reducer's). */
const storedRunSchema = z.looseObject({ origin: runOriginSchema, settings: runSettingsSchema });

const EFFECT_COLUMNS = ['seq', 'run_id', 'key', 'body', 'claimed_by', 'claimed_until'] as const;
interface EffectRow {
  seq: number;
  run_id: string;
  body: string;
  claimed_by: string | null;
  claimed_until: number | null;
}

export class SqlRunStore implements SqlStore {
  readonly links: LinkStore;
  readonly where: string;
  private closed = false;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly dialect: SqlDialect,
  ) {
    this.where = dialect.where;
    this.links = new SqlLinks(db, (fn) => this.guard(fn));
  }

  async create(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written> {
    if (run.version !== 0) throw new StoreError('conflict', `A new run must have version 0 (run "${run.id}" has ${run.version}).`);
    const stored = { ...run, version: 1 };
    try {
      return await this.transaction(async (trx) => {
        await trx
          .insertInto('runs')
          .values({
            id: run.id,
            version: 1,
            status: run.status,
            issue_repo: run.issue.repo,
            issue_number: run.issue.number,
            pipeline: run.plan.pipeline,
            created_at: run.createdAt,
            updated_at: run.updatedAt,
            body: JSON.stringify(stored),
          })
          .execute();
        await savePrs(trx, stored);
        return this.addEffects(trx, run.id, effects, claim);
      });
    } catch (e) {
      if (!this.dialect.uniqueViolation(e)) throw e;
      // The id taken wins over the issue's active run, whichever index the database checked first.
      if (await this.guard(() => this.db.selectFrom('runs').select('id').where('id', '=', run.id).executeTakeFirst()))
        throw new StoreError('duplicate-run', `A run "${run.id}" already exists in ${this.where}.`, { cause: e });
      throw await this.activeRun(run, e);
    }
  }

  async get(id: string): Promise<Run | undefined> {
    const row = await this.guard(() => this.db.selectFrom('runs').select(['id', 'version', 'body']).where('id', '=', id).executeTakeFirst());
    return row ? this.parseRun(row) : undefined;
  }

  async list(filter: RunFilter = {}): Promise<Run[]> {
    const { status, issue, pipeline, pr, repo } = filter;
    if (status?.length === 0) return [];
    const rows = await this.guard(() =>
      this.db
        .selectFrom('runs')
        .select(['id', 'version', 'body'])
        .$if(status !== undefined, (q) => q.where('status', 'in', status!))
        .$if(issue !== undefined, (q) => q.where('issue_repo', '=', issue!.repo).where('issue_number', '=', issue!.number))
        .$if(pipeline !== undefined, (q) => q.where('pipeline', '=', pipeline!))
        .$if(pr !== undefined, (q) =>
          q.where('id', 'in', (eb) => eb.selectFrom('run_prs').select('run_id').where('repo', '=', pr!.repo).where('number', '=', pr!.number)),
        )
        // run_prs_pr's (repo, number) serves this by its first column.
        .$if(repo !== undefined, (q) => q.where('id', 'in', (eb) => eb.selectFrom('run_prs').select('run_id').where('repo', '=', repo!)))
        .orderBy('seq')
        .execute(),
    );
    return rows.map((r) => this.parseRun(r));
  }

  async commit(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written | false> {
    const next = { ...run, version: run.version + 1 };
    try {
      return await this.transaction(async (trx) => {
        const updated = await trx
          .updateTable('runs')
          .set({ version: sql`version + 1`, status: run.status, updated_at: run.updatedAt, body: JSON.stringify(next) })
          .where('id', '=', run.id)
          .where('version', '=', run.version)
          .executeTakeFirst();
        if (updated.numUpdatedRows !== 1n) return false;
        await savePrs(trx, next);
        return this.addEffects(trx, run.id, effects, claim);
      });
    } catch (e) {
      // A run made active again (a retry) while the issue has another active run.
      if (this.dialect.uniqueViolation(e)) throw await this.activeRun(run, e);
      throw e;
    }
  }

  async pendingEffects(runId?: string): Promise<StoredEffect[]> {
    const rows = await this.guard(() =>
      this.db
        .selectFrom('effects')
        .select(EFFECT_COLUMNS)
        .where('done', '=', 0)
        .$if(runId !== undefined, (q) => q.where('run_id', '=', runId!))
        .orderBy('seq')
        .execute(),
    );
    return rows.map((r) => this.effectOf(r));
  }

  async claimEffects(claim: EffectClaim, scope: { runId?: string; takeOver?: boolean } = {}): Promise<StoredEffect[]> {
    const { now } = this.dialect;
    // One statement: two processes claiming at once never share an effect. SKIP LOCKED (PostgreSQL):
    // an effect another replica is claiming, renewing or marking done this instant is that replica's.
    const rows = await this.guard(() =>
      this.db
        .updateTable('effects')
        .set({ claimed_by: claim.holder, claimed_until: sql<number>`${now} + ${claim.ttlMs}` })
        .where('seq', 'in', (eb) =>
          eb
            .selectFrom('effects')
            .select('seq')
            .where('done', '=', 0)
            .$if(scope.runId !== undefined, (q) => q.where('run_id', '=', scope.runId!))
            // Free: never claimed, or its claim ran out; with takeOver, whoever holds it.
            .$if(!scope.takeOver, (q) => q.where((w) => w.or([w('claimed_by', 'is', null), w('claimed_until', '<', now)])))
            .orderBy('seq')
            .$if(this.dialect.skipLocked, (q) => q.forUpdate().skipLocked()),
        )
        .returning(EFFECT_COLUMNS)
        .execute(),
    );
    return rows.sort((a, b) => a.seq - b.seq).map((r) => this.effectOf(r));
  }

  async renewClaims(claim: EffectClaim, effects: ReadonlyArray<{ runId: string; key: string }>): Promise<void> {
    if (effects.length === 0) return;
    await this.guard(() =>
      this.db
        .updateTable('effects')
        .set({ claimed_until: sql<number>`${this.dialect.now} + ${claim.ttlMs}` })
        .where('claimed_by', '=', claim.holder)
        .where('done', '=', 0)
        .where((eb) =>
          eb(
            eb.refTuple('run_id', 'key'),
            'in',
            effects.map((e) => eb.tuple(e.runId, e.key)),
          ),
        )
        .execute(),
    );
  }

  async markEffectDone(runId: string, key: string): Promise<void> {
    await this.guard(() => this.db.updateTable('effects').set({ done: 1 }).where('run_id', '=', runId).where('key', '=', key).execute());
  }

  async deliveryHandled(id: string): Promise<boolean> {
    const row = await this.guard(() => this.db.selectFrom('deliveries').select('id').where('id', '=', id).executeTakeFirst());
    return row !== undefined;
  }

  async recordDelivery(id: string): Promise<void> {
    await this.guard(() =>
      this.db
        .insertInto('deliveries')
        .values({ id, seen_at: new Date().toISOString() })
        .onConflict((oc) => oc.doNothing())
        .execute(),
    );
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<Lease> {
    const { now } = this.dialect;
    // Taken when free, expired or the holder's own; else the lease as it stands says who holds it
    // (read again when it was given up in between).
    for (;;) {
      const taken = await this.guard(() =>
        this.db
          .insertInto('leases')
          .values({ name, holder, expires_at: sql<number>`${now} + ${ttlMs}` })
          .onConflict((oc) =>
            oc
              .column('name')
              .doUpdateSet({ holder: (eb) => eb.ref('excluded.holder'), expires_at: (eb) => eb.ref('excluded.expires_at') })
              .where((eb) => eb.or([eb('leases.holder', '=', eb.ref('excluded.holder')), eb('leases.expires_at', '<', now)])),
          )
          .returning(['name', 'holder', 'expires_at'])
          .executeTakeFirst(),
      );
      const lease = taken ? leaseOf(taken) : await this.lease(name);
      if (lease) return lease;
    }
  }

  async lease(name: string): Promise<Lease | undefined> {
    const row = await this.guard(() => this.db.selectFrom('leases').select(['name', 'holder', 'expires_at']).where('name', '=', name).executeTakeFirst());
    return row ? leaseOf(row) : undefined;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.guard(() => this.db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.destroy();
  }

  /** One transaction on one connection, rolled back whole on any error. */
  private transaction<T>(fn: (trx: Transaction<Tables>) => Promise<T>): Promise<T> {
    return this.guard(() => this.db.transaction().execute(fn));
  }

  /** Stores the effects whose keys are new, in their order, claimed with `claim`; returns the keys it claimed. */
  private async addEffects(trx: Db, runId: string, effects: readonly RunEffect[], claim: EffectClaim | undefined): Promise<Written> {
    if (effects.length === 0) return { claimed: [] };
    const until = claim ? sql<number>`${this.dialect.now} + ${claim.ttlMs}` : null;
    const stored = await trx
      .insertInto('effects')
      .values(effects.map((e) => ({ run_id: runId, key: e.key, body: JSON.stringify(e), claimed_by: claim?.holder ?? null, claimed_until: until })))
      .onConflict((oc) => oc.columns(['run_id', 'key']).doNothing())
      .returning('key')
      .execute();
    const keys = new Set(stored.map((r) => r.key));
    return { claimed: claim ? effects.map((e) => e.key).filter((k) => keys.has(k)) : [] };
  }

  private async activeRun(run: Run, cause: unknown): Promise<StoreError> {
    const active = await this.guard(() =>
      this.db
        .selectFrom('runs')
        .select('id')
        .where('issue_repo', '=', run.issue.repo)
        .where('issue_number', '=', run.issue.number)
        .where('pipeline', '=', run.plan.pipeline)
        .where('status', 'in', ['running', 'waiting'])
        .executeTakeFirst(),
    );
    return new StoreError(
      'active-run',
      `Run "${active?.id ?? '(another)'}" of pipeline ${run.plan.pipeline} is already active for ${run.issue.repo}#${run.issue.number}.`,
      { cause },
    );
  }

  /**
   * A run as stored, its origin and settings parsed: a row that does not hold them as this
   * Conveyor writes them (edited by hand, or written by another version) is named here, not
   * met later as an undefined installation or branch halfway through a handler.
   */
  private parseRun(row: { id: string; version: number; body: string }): Run {
    const what = `Run "${row.id}"`;
    const run = this.parseJson(row.body, what) as Run;
    const parsed = storedRunSchema.safeParse(run);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'its JSON'}: ${i.message}`).join('; ');
      throw new StoreError('corrupt', `${what} in ${this.where} does not hold a run this Conveyor reads (${why}). ${this.dialect.restore}`);
    }
    // The column is the truth (a compare-and-swap bumps it).
    return { ...run, origin: parsed.data.origin, settings: parsed.data.settings, version: row.version };
  }

  private effectOf(r: EffectRow): StoredEffect {
    const effect = this.parseJson(r.body, `A pending effect of run "${r.run_id}"`) as RunEffect;
    return { ...effect, runId: r.run_id, ...(r.claimed_by !== null ? { claim: { holder: r.claimed_by, until: r.claimed_until ?? 0 } } : {}) };
  }

  private parseJson(text: string, what: string): unknown {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new StoreError('corrupt', `${what} in ${this.where} is not valid JSON (${(e as Error).message}). ${this.dialect.restore}`, { cause: e });
    }
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreError('unavailable', `The store on ${this.where} was closed (this process is stopping).`);
    try {
      return await fn();
    } catch (e) {
      throw this.dialect.explain(e);
    }
  }
}

async function savePrs(trx: Db, run: Run): Promise<void> {
  await trx.deleteFrom('run_prs').where('run_id', '=', run.id).execute();
  if (run.prs.length === 0) return;
  await trx
    .insertInto('run_prs')
    .values(run.prs.map((p) => ({ run_id: run.id, repo: p.repo, number: p.number })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

const leaseOf = (row: { name: string; holder: string; expires_at: number }): Lease => ({ name: row.name, holder: row.holder, expiresAt: row.expires_at });
