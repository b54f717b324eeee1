// The store's tables, one migration list for SQLite and PostgreSQL (Kysely's migrator), and what a
// database must hold before Conveyor touches it: nothing, Conveyor's own tables at a version it
// knows, or else it is refused and left as it was (another application's tables, an older
// Conveyor's, a newer one's).
import { Migrator, sql, type Generated, type Kysely, type Migration } from 'kysely';
import { StoreError } from '../../engine/ports/store.ts';

/** The rows of each table, as Kysely types its queries (the tables themselves: FIRST_TABLES below). */
export interface Tables {
  /** seq: creation order (runs are listed in it); body: the run's JSON, its version the `version` column's. */
  runs: {
    seq: Generated<number>;
    id: string;
    version: number;
    status: string;
    issue_repo: string;
    issue_number: number;
    pipeline: string;
    created_at: string;
    updated_at: string;
    body: string;
  };
  /** The pull requests of each run, so that a PR's events find their runs without reading every run. */
  run_prs: { run_id: string; repo: string; number: number };
  /** The outbox, in commit order (seq); a pending effect is carried out by `claimed_by` until `claimed_until` (ms, the database's clock). */
  effects: {
    seq: Generated<number>;
    run_id: string;
    key: string;
    body: string;
    done: Generated<number>;
    claimed_by: string | null;
    claimed_until: number | null;
  };
  deliveries: { id: string; seen_at: string };
  leases: { name: string; holder: string; expires_at: number };
  /** The GitHub App's records (adapters/github/links.ts); GitHub's ids outgrow 32 bits. */
  github_attempts: { external_id: string; run_id: string; repo: string; check_run_id: number | null; workflow_run_id: number | null; body: string };
  github_comments: { run_id: string; id: number; url: string };
  github_summaries: { run_id: string; head: string; check_run_id: number };
}

export type Dialect = 'sqlite' | 'postgres';

/** Kysely's record of the migrations done, and its lock: named as Conveyor's, beside Conveyor's tables. */
export const MIGRATION_TABLE = 'conveyor_migrations';
const MIGRATION_LOCK_TABLE = 'conveyor_migrations_lock';

/** Where an older Conveyor kept its schema version (beside its runs): its stores are refused, not read. */
const OLD_VERSION_TABLE = 'schema_version';

/**
 * The one difference between the dialects' tables: a key numbered in insertion order, which orders
 * runs and the outbox (SQLite's rowid; an identity column on PostgreSQL).
 */
const ORDER_KEY: Record<Dialect, string> = {
  sqlite: 'integer PRIMARY KEY',
  postgres: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
};

/** The first tables (the columns of `Tables`), in SQL both dialects read alike. */
const FIRST_TABLES = (dialect: Dialect) => `
CREATE TABLE runs (
  seq ${ORDER_KEY[dialect]},
  id text NOT NULL UNIQUE,
  version integer NOT NULL,
  status text NOT NULL,
  issue_repo text NOT NULL,
  issue_number integer NOT NULL,
  pipeline text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  body text NOT NULL
);
-- One active run per issue and pipeline, whoever starts one at the same time.
CREATE UNIQUE INDEX runs_one_active ON runs (issue_repo, issue_number, pipeline) WHERE status IN ('running', 'waiting');
CREATE INDEX runs_status ON runs (status);
CREATE TABLE run_prs (run_id text NOT NULL, repo text NOT NULL, number integer NOT NULL, PRIMARY KEY (run_id, repo, number));
CREATE INDEX run_prs_pr ON run_prs (repo, number);
-- A key once stored, pending or done, is not stored again.
CREATE TABLE effects (
  seq ${ORDER_KEY[dialect]},
  run_id text NOT NULL,
  key text NOT NULL,
  body text NOT NULL,
  done integer NOT NULL DEFAULT 0,
  claimed_by text,
  claimed_until bigint,
  UNIQUE (run_id, key)
);
CREATE INDEX effects_pending ON effects (seq) WHERE done = 0;
CREATE TABLE deliveries (id text PRIMARY KEY, seen_at text NOT NULL);
CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, expires_at bigint NOT NULL);
CREATE TABLE github_attempts (
  external_id text PRIMARY KEY, run_id text NOT NULL, repo text NOT NULL, check_run_id bigint, workflow_run_id bigint, body text NOT NULL
);
CREATE INDEX github_attempts_run ON github_attempts (run_id);
CREATE INDEX github_attempts_check_run ON github_attempts (repo, check_run_id) WHERE check_run_id IS NOT NULL;
CREATE INDEX github_attempts_workflow_run ON github_attempts (repo, workflow_run_id) WHERE workflow_run_id IS NOT NULL;
CREATE TABLE github_comments (run_id text PRIMARY KEY, id bigint NOT NULL, url text NOT NULL);
CREATE TABLE github_summaries (run_id text NOT NULL, head text NOT NULL, check_run_id bigint NOT NULL, PRIMARY KEY (run_id, head));
`;

/**
 * 0002: a run's untyped `options` became its `origin` (where it came from: the app's installation
 * and default branch, or the command line's configuration and remotes) and its `settings` (payload
 * limit, keep-envs), as core/run/origin.ts types them. A run whose options name neither origin is
 * left as it was: reading it says what it lacks.
 */
async function runsWithOrigin(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: string; body: string }>`SELECT id, body FROM runs`.execute(db);
  for (const row of rows) {
    const body = withOrigin(JSON.parse(row.body) as Record<string, unknown>);
    if (body) await sql`UPDATE runs SET body = ${JSON.stringify(body)} WHERE id = ${row.id}`.execute(db);
  }
}

/** A run's body with `origin` and `settings` in place of its `options`, or undefined when there is nothing to convert. */
export function withOrigin(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const options = body.options as Record<string, unknown> | undefined;
  if (!options || typeof options !== 'object' || 'origin' in body) return undefined;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const origin =
    typeof options.installationId === 'number'
      ? { kind: 'github', installationId: options.installationId, defaultBranch: text(options.defaultBranch) ?? 'main' }
      : text(options.configPath) && text(options.remotes)
        ? {
            kind: 'embedded',
            configPath: options.configPath,
            remotes: options.remotes,
            approve: options.approve === true,
            json: options.json === true,
            ...(text(options.repo) ? { repo: options.repo } : {}),
          }
        : undefined;
  if (!origin) return undefined;
  const settings = {
    ...(typeof options.payloadLimit === 'number' ? { payloadLimit: options.payloadLimit } : {}),
    ...(typeof options.keepEnvs === 'boolean' ? { keepEnvs: options.keepEnvs } : {}),
  };
  const { options: _options, ...rest } = body;
  return { ...rest, origin, settings };
}

/** Runs SQL statements one by one (a driver runs one statement a call); `--` comments are the reader's. */
async function run(db: Kysely<unknown>, statements: string): Promise<void> {
  const lines = statements.split('\n').filter((l) => !l.startsWith('--'));
  for (const statement of lines.join('\n').split(';')) if (statement.trim()) await sql.raw(statement).execute(db);
}

/**
 * The migrations, named by their number: the schema version is the number of the last one done.
 * Add one for each change of the tables (and of `Tables`); never change one that was released.
 */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001': { up: (db) => run(db, FIRST_TABLES(dialect)) },
    '0002': { up: (db) => runsWithOrigin(db) },
  };
}

/** The schema version this Conveyor brings a database to. */
export const SCHEMA_VERSION = Object.keys(migrations('sqlite')).length;

const TABLES: readonly string[] = [
  'runs',
  'run_prs',
  'effects',
  'deliveries',
  'leases',
  'github_attempts',
  'github_comments',
  'github_summaries',
  MIGRATION_TABLE,
  MIGRATION_LOCK_TABLE,
];

export interface MigrateOptions {
  dialect: Dialect;
  /** How messages name the database: "the state database PATH", "the PostgreSQL database …". */
  where: string;
  /** The schema Conveyor's tables are in (PostgreSQL's current schema); SQLite has none. */
  schema?: string;
  /** What a person does about another application's tables, an older Conveyor's, a newer one's. */
  advice: { foreign: string; older: string; newer: string };
}

/**
 * Brings the database to SCHEMA_VERSION with Kysely's migrator, which runs the migrations still to
 * do in one transaction under a lock (PostgreSQL: an advisory lock; SQLite: the write lock its
 * transactions take first), so that processes opening one database together migrate it once. A
 * database that is not Conveyor's, or is an older or a newer Conveyor's, is refused untouched.
 */
export async function migrate(db: Kysely<Tables>, options: MigrateOptions): Promise<void> {
  await check(db, options);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(options.dialect) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(options.schema !== undefined ? { migrationTableSchema: options.schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error === undefined) return;
  // A newer Conveyor that migrated in between is named as such; anything else as it was said.
  await check(db, options);
  throw error;
}

async function check(db: Kysely<Tables>, options: MigrateOptions): Promise<void> {
  const Where = options.where[0]!.toUpperCase() + options.where.slice(1);
  const tables = (await db.introspection.getTables()).filter((t) => options.schema === undefined || t.schema === options.schema).map((t) => t.name);
  if (tables.includes(MIGRATION_TABLE)) {
    const done = (
      await db
        .selectFrom(sql.table(qualified(MIGRATION_TABLE, options.schema)).as('m'))
        .select(sql<string>`name`.as('name'))
        .execute()
    ).map((r) => r.name);
    const known = Object.keys(migrations(options.dialect));
    const unknown = done.filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      const version = Math.max(...unknown.map(Number).filter(Number.isFinite), known.length + 1);
      throw new StoreError(
        'newer-schema',
        `${Where} has schema version ${version}, but this Conveyor knows versions up to ${SCHEMA_VERSION}: a newer Conveyor migrated it. ${options.advice.newer}`,
      );
    }
    return;
  }
  if (tables.includes(OLD_VERSION_TABLE) && tables.includes('runs')) {
    const old = await sql<{ v: number | null }>`SELECT max(version) AS v FROM ${sql.table(qualified(OLD_VERSION_TABLE, options.schema))}`.execute(db);
    throw new StoreError(
      'older-schema',
      `${Where} is an older Conveyor's (schema version ${String(old.rows[0]?.v ?? '?')}), which this Conveyor does not read. ${options.advice.older}`,
    );
  }
  // A SQLite file is Conveyor's alone; a PostgreSQL database may hold other applications' tables, as long as none has Conveyor's names.
  const clashing = options.dialect === 'sqlite' ? tables : tables.filter((t) => TABLES.includes(t));
  if (clashing.length > 0)
    throw new StoreError(
      'not-a-store',
      `${Where} is not Conveyor's: it has tables ${clashing.sort().join(', ')} and no ${MIGRATION_TABLE}. ${options.advice.foreign}`,
    );
}

const qualified = (table: string, schema: string | undefined) => (schema === undefined ? table : `${schema}.${table}`);
