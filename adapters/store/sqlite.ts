// The embedded store: one SQLite file (better-sqlite3, WAL), safe to share between processes on
// one machine. Runs are JSON text with a version column for compare-and-swap; each run's outbox
// (its pending effects and the keys of those carried out) lives in columns of its own row, written
// by the same UPDATE as the run (see outbox.ts).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { sha256 } from '../../core/canonical.ts';
import type { Plan } from '../../core/plan/types.ts';
import type { Run, RunEffect } from '../../core/run/types.ts';
import { deepFreeze, freezeRun, serializeRun } from './json.ts';
import { Outbox, parsePending, type OutboxColumns } from './outbox.ts';
import { StoreError } from '../../engine/ports/store.ts';
import type { EffectRef, RunFilter, RunStore, StoredEffect } from '../../engine/ports/store.ts';
import { useWal } from '../../lib/sqlite.ts';
import { Riders, type Rider } from './riders.ts';
import { explain, migrate } from './sqlite-schema.ts';

export { SCHEMA_VERSION } from './sqlite-schema.ts';

/** How long a writer waits for another process's write to finish before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

/** Parsed runs kept per handle (the runs being driven right now). */
const RECENT_RUNS = 256;

type Db = Database.Database;

/**
 * The SQLite store, with its connection: tables of the same file that are written beside the runs
 * (the GitHub app's links) use this connection rather than a second one, whose every write would
 * make this one read its cached pages again.
 */
export interface SqliteRunStore extends RunStore {
  readonly database: Db;
  /**
   * Runs `write` (statements on `database`) in a transaction of its own, which also carries the
   * queued riders: for a record that must be durable before the caller goes on.
   */
  write<T>(write: () => T): T;
  /** Queues a write to run inside this store's next transaction, or on its own within a second (see riders.ts). */
  ride(rider: Rider): void;
}

export function openSqliteStore(path: string): SqliteRunStore {
  if (path !== ':memory:') {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (e) {
      throw new StoreError('not-a-store', `Cannot create the folder of the state database ${path}: ${(e as Error).message}`, { cause: e });
    }
  }
  let db: Db;
  try {
    db = new Database(path);
  } catch (e) {
    throw new StoreError('not-a-store', `Cannot open the state database ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    useWal(db, BUSY_TIMEOUT_MS);
    // With WAL, NORMAL survives a killed process (only a power loss may drop the last commits).
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -32000');
    migrate(db, path);
    return new SqliteStore(db, path);
  } catch (e) {
    db.close();
    throw explain(e, path);
  }
}

interface RunRow {
  version: number;
  plan_key: string;
  body: string;
}

/** A plan not yet known to be stored: written in the same transaction as the run that uses it. */
interface PlanWrite {
  key: string;
  body: string;
}

class SqliteStore implements SqliteRunStore {
  private readonly insertRun;
  private readonly selectRun;
  private readonly updateRun;
  private readonly insertPlan;
  private readonly selectPlan;
  private readonly updateRunOnly;
  private readonly selectOutbox;
  private readonly updateOutbox;
  private readonly updateRunFlag;
  private readonly updateOutboxFlag;
  private readonly selectVersion;
  private readonly selectPending;
  private readonly selectPendingOf;
  private readonly insertDelivery;
  /** Every transaction: `write`, after the queued riders (they were asked for before it). */
  private readonly transaction;
  private readonly riders = new Riders(() => this.flushRiders());
  /**
   * A run's plan never changes while it runs, so it is stored once (by a digest of its JSON) and
   * not re-serialized on every transition. Plans read back are frozen and shared between runs.
   */
  private readonly planKeys = new WeakMap<Plan, string>();
  private readonly plans = new Map<string, Plan>();
  /**
   * The latest run this handle wrote or read, by id: a read whose stored version still matches
   * skips parsing the JSON again. Cached runs are deeply frozen, so sharing them is safe.
   */
  private readonly recent = new Map<string, Run>();
  private readonly listings = new Map<string, Database.Statement<unknown[], RunRow & { id: string }>>();

  constructor(
    private readonly db: Db,
    private readonly path: string,
  ) {
    this.insertRun = db.prepare(
      `INSERT INTO runs (id, version, status, issue_repo, issue_number, pipeline, plan_key, created_at, updated_at, has_pending, pending, done, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectRun = db.prepare<[string], RunRow>('SELECT version, plan_key, body FROM runs WHERE id = ?');
    this.selectVersion = db.prepare<[string], number>('SELECT version FROM runs WHERE id = ?').pluck();
    this.updateRun = db.prepare(
      'UPDATE runs SET version = version + 1, status = ?, plan_key = ?, updated_at = ?, pending = ?, done = ?, body = ? WHERE id = ? AND version = ?',
    );
    this.updateRunOnly = db.prepare('UPDATE runs SET version = version + 1, status = ?, plan_key = ?, updated_at = ?, body = ? WHERE id = ? AND version = ?');
    this.selectOutbox = db.prepare<[string], OutboxColumns & { version: number }>('SELECT version, pending, done FROM runs WHERE id = ?');
    this.updateOutbox = db.prepare('UPDATE runs SET pending = ?, done = ? WHERE id = ?');
    this.updateRunFlag = db.prepare(
      'UPDATE runs SET version = version + 1, status = ?, plan_key = ?, updated_at = ?, pending = ?, done = ?, body = ?, has_pending = ? WHERE id = ? AND version = ?',
    );
    this.updateOutboxFlag = db.prepare('UPDATE runs SET pending = ?, done = ?, has_pending = ? WHERE id = ?');
    this.insertPlan = db.prepare('INSERT INTO plans (key, body) VALUES (?, ?) ON CONFLICT DO NOTHING');
    this.selectPlan = db.prepare<[string], string>('SELECT body FROM plans WHERE key = ?').pluck();
    this.selectPending = db.prepare<[], { id: string; pending: string }>('SELECT id, pending FROM runs WHERE has_pending = 1 ORDER BY rowid');
    this.selectPendingOf = db.prepare<[string], { id: string; pending: string }>("SELECT id, pending FROM runs WHERE id = ? AND pending <> ''");
    this.insertDelivery = db.prepare('INSERT INTO deliveries (id, seen_at) VALUES (?, ?) ON CONFLICT DO NOTHING');
    this.transaction = db.transaction(<T>(write: () => T, riders: readonly Rider[]): T => {
      Riders.run(riders, db);
      return write();
    });
  }

  create(run: Run, effects: RunEffect[], done?: readonly EffectRef[]): void {
    const [planKey, plan] = this.planOf(run.plan);
    const body = serializeRun(freezeRun(run));
    try {
      this.write(() => {
        if (done?.length) this.markAll(done);
        if (plan) this.insertPlan.run(plan.key, plan.body);
        const box = new Outbox(run.id, { pending: '', done: '' }, this.whose(run.id));
        box.add(effects);
        const { pending, done: doneKeys } = box.columnsToWrite();
        this.insertRun.run(run.id, run.version + 1, run.status, run.issue.repo, run.issue.number, run.plan.pipeline, planKey, run.createdAt, run.updatedAt, pending ? 1 : 0, pending, doneKeys, body);
      });
    } catch (e) {
      if ((e as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new StoreError('duplicate-run', `A run "${run.id}" already exists in ${this.path}.`, { cause: e });
      }
      throw e;
    }
    this.planWritten(run.plan, plan);
    this.remember(Object.freeze({ ...run, version: run.version + 1 }));
  }

  get(id: string): Run | undefined {
    const cached = this.recent.get(id);
    if (cached && this.guard(() => this.selectVersion.get(id)) === cached.version) return cached;
    const row = this.guard(() => this.selectRun.get(id));
    if (!row) return undefined;
    return this.remember(deepFreeze(this.parse(id, row)));
  }

  peek(id: string): Run | undefined {
    return this.recent.get(id);
  }

  list(filter: RunFilter = {}): Run[] {
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
    const sql = `SELECT id, version, plan_key, body FROM runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY rowid`;
    const rows = this.guard(() => this.listing(sql).all(...args));
    return rows.map((r) => this.parse(r.id, r));
  }

  commit(run: Run, effects: RunEffect[], done?: readonly EffectRef[]): boolean {
    const [planKey, plan] = this.planOf(run.plan);
    // Frozen: the store keeps the run as its latest and shares it with readers (see port.ts).
    const body = serializeRun(freezeRun(run));
    const ok = this.write(() => {
      // This run's marks are written by the same UPDATE as the run; other runs' on their own.
      const mine = done?.length ? this.markAll(done, run.id) : [];
      if (plan) this.insertPlan.run(plan.key, plan.body);
      if (effects.length === 0 && mine.length === 0) return this.updateRunOnly.run(run.status, planKey, run.updatedAt, body, run.id, run.version).changes === 1;
      // Under the write lock (an immediate transaction), so no other writer changes the row meanwhile.
      const row = this.selectOutbox.get(run.id);
      if (!row) return false;
      const box = new Outbox(run.id, row, this.whose(run.id));
      box.markDone(mine);
      if (row.version !== run.version) {
        // A conflict: the run and its effects are not written, the marks are (they are true either way).
        if (box.dirty) this.writeOutbox(run.id, box, row);
        return false;
      }
      box.add(effects);
      const c = box.columnsToWrite();
      const changes =
        (c.pending === '') === (row.pending === '')
          ? this.updateRun.run(run.status, planKey, run.updatedAt, c.pending, c.done, body, run.id, run.version).changes
          : this.updateRunFlag.run(run.status, planKey, run.updatedAt, c.pending, c.done, body, c.pending ? 1 : 0, run.id, run.version).changes;
      return changes === 1;
    });
    // Committed, even when the compare-and-swap failed: the plan was written either way.
    this.planWritten(run.plan, plan);
    if (ok) this.remember(Object.freeze({ ...run, version: run.version + 1 }));
    return ok;
  }

  pendingEffects(runId?: string): StoredEffect[] {
    return this.guard(() => {
      const rows = runId === undefined ? this.selectPending.all() : this.selectPendingOf.all(runId);
      return rows.flatMap((r) => parsePending(r.pending, this.whose(r.id)).map((e) => ({ ...e, runId: r.id })));
    });
  }

  markEffectDone(runId: string, key: string): void {
    this.markEffectsDone([{ runId, key }]);
  }

  markEffectsDone(refs: readonly EffectRef[]): void {
    if (refs.length === 0) return;
    this.write(() => this.markAll(refs));
  }

  write<T>(write: () => T): T {
    return this.guard(() => this.withRiders((riders) => this.transaction.immediate(write, riders) as T));
  }

  ride(rider: Rider): void {
    this.riders.add(rider);
  }

  /** Writes the queued riders in a transaction of their own (none came to carry them). */
  private flushRiders(): void {
    if (this.riders.size === 0 || !this.db.open) return;
    try {
      this.write(() => undefined);
    } catch (e) {
      process.stderr.write(`conveyor: deferred records could not be written: ${(e as Error).message}\n`);
    }
  }

  /** Runs a transaction with the queued riders; if it fails they wait for the next one. */
  private withRiders<T>(transaction: (riders: readonly Rider[]) => T): T {
    const riders = this.riders.take();
    try {
      const out = transaction(riders);
      Riders.written(riders);
      return out;
    } catch (e) {
      this.riders.putBack(riders);
      throw e;
    }
  }

  /**
   * Marks effects done, one read and at most one write per run; the marks of `except` (the run
   * being committed) are returned instead, for its own UPDATE.
   */
  private markAll(refs: readonly EffectRef[], except?: string): string[] {
    const mine: string[] = [];
    const byRun = new Map<string, string[]>();
    for (const r of refs) {
      if (r.runId === except) mine.push(r.key);
      else {
        const keys = byRun.get(r.runId);
        if (keys) keys.push(r.key);
        else byRun.set(r.runId, [r.key]);
      }
    }
    for (const [runId, keys] of byRun) {
      const row = this.selectOutbox.get(runId);
      if (!row || row.pending === '') continue;
      const box = new Outbox(runId, row, this.whose(runId));
      box.markDone(keys);
      if (box.dirty) this.writeOutbox(runId, box, row);
    }
    return mine;
  }

  /** A prepared listing query, kept: the app lists an issue's active runs on every label or command. */
  private listing(sql: string): Database.Statement<unknown[], RunRow & { id: string }> {
    let statement = this.listings.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown[], RunRow & { id: string }>(sql);
      // A few filter shapes exist (status, issue, pipeline, combined): the map stays small.
      this.listings.set(sql, statement);
    }
    return statement;
  }

  private writeOutbox(runId: string, box: Outbox, before: OutboxColumns): void {
    const { pending, done } = box.columnsToWrite();
    if ((pending === '') === (before.pending === '')) this.updateOutbox.run(pending, done, runId);
    else this.updateOutboxFlag.run(pending, done, pending ? 1 : 0, runId);
  }

  /** Names a run in the messages of a damaged outbox. */
  private whose(runId: string): string {
    return `run "${runId}" in the state database ${this.path}`;
  }

  seenDelivery(id: string): boolean {
    return this.guard(() => this.insertDelivery.run(id, new Date().toISOString()).changes === 0);
  }

  get database(): Db {
    return this.db;
  }

  close(): void {
    this.flushRiders();
    this.db.close();
  }

  private remember(run: Run): Run {
    this.recent.delete(run.id);
    this.recent.set(run.id, run);
    // Oldest first: a Map iterates in insertion order.
    if (this.recent.size > RECENT_RUNS) this.recent.delete(this.recent.keys().next().value!);
    return run;
  }

  /**
   * The plan's key, and its text when it may not be stored yet: it is known stored (see
   * `planWritten`) only once a transaction that wrote it committed.
   */
  private planOf(plan: Plan): [string, PlanWrite | undefined] {
    const known = this.planKeys.get(plan);
    if (known) return [known, undefined];
    const body = JSON.stringify(plan);
    const key = sha256(body);
    return [key, { key, body }];
  }

  /** A transaction that wrote the plan (if it had to) committed: the next ones need not. */
  private planWritten(plan: Plan, write: PlanWrite | undefined): void {
    if (write) this.planKeys.set(plan, write.key);
  }

  private loadPlan(key: string): Plan {
    const cached = this.plans.get(key);
    if (cached) return cached;
    const body = this.guard(() => this.selectPlan.get(key));
    if (body === undefined) throw new StoreError('corrupt', `The state database ${this.path} has no plan ${key} (a run refers to it).`);
    const plan = deepFreeze(this.parseJson(`Plan ${key}`, body) as Plan);
    this.plans.set(key, plan);
    this.planKeys.set(plan, key);
    return plan;
  }

  private parse(id: string, row: RunRow): Run {
    const run = this.parseJson(`Run "${id}"`, row.body) as Run;
    run.plan = this.loadPlan(row.plan_key);
    // The column is the truth: the body was serialized before the version was bumped.
    run.version = row.version;
    return run;
  }

  private parseJson(what: string, text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new StoreError('corrupt', `${what} in the state database ${this.path} is not valid JSON (${(e as Error).message}).`, { cause: e });
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
