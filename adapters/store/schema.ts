// The store's tables, one migration list for SQLite and PostgreSQL (Kysely's migrator), and what a
// database must hold before Conveyor touches it: nothing, Conveyor's own tables at a version it
// knows, or else it is refused and left as it was (another application's tables, an older
// Conveyor's, a newer one's).
import { Migrator, sql, type ColumnDefinitionBuilder, type Generated, type Kysely, type Migration } from 'kysely';
import { StoreError } from '../../engine/ports/store.ts';

/** The rows of each table, as Kysely types its queries. */
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
  /** The GitHub App's records (engine/ports/links.ts); GitHub's ids outgrow 32 bits. */
  github_attempts: { external_id: string; run_id: string; repo: string; check_run_id: number | null; workflow_run_id: number | null; body: string };
  github_comments: { run_id: string; id: number; url: string };
  github_summaries: { run_id: string; head: string; check_run_id: number };
}

export type Dialect = 'sqlite' | 'postgres';

/** Kysely's record of the migrations done, and its lock: named as Conveyor's, beside Conveyor's tables. */
export const MIGRATION_TABLE = 'conveyor_migrations';
const MIGRATION_LOCK_TABLE = 'conveyor_migrations_lock';

/** The one table of Conveyor before 0.2 that this one has not: its stores are refused, not read. */
const OLD_VERSION_TABLE = 'schema_version';

/**
 * The one difference between the dialects' tables: a key numbered in insertion order, which orders
 * runs and the outbox (SQLite's rowid; an identity column on PostgreSQL).
 */
function orderKey(dialect: Dialect): ['integer' | 'bigint', (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder] {
  return dialect === 'postgres' ? ['bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity()] : ['integer', (c) => c.primaryKey()];
}

/** The migrations, named by their number; the schema version is the number of the last one done. Add, never change. */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001': {
      async up(db: Kysely<unknown>) {
        const s = db.schema;
        await s
          .createTable('runs')
          .addColumn('seq', ...orderKey(dialect))
          .addColumn('id', 'text', (c) => c.notNull().unique())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('issue_repo', 'text', (c) => c.notNull())
          .addColumn('issue_number', 'integer', (c) => c.notNull())
          .addColumn('pipeline', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('body', 'text', (c) => c.notNull())
          .execute();
        // One active run per issue and pipeline, whoever starts one at the same time.
        await s
          .createIndex('runs_one_active')
          .unique()
          .on('runs')
          .columns(['issue_repo', 'issue_number', 'pipeline'])
          .where(sql.ref('status'), 'in', ['running', 'waiting'])
          .execute();
        await s.createIndex('runs_status').on('runs').column('status').execute();
        await s
          .createTable('run_prs')
          .addColumn('run_id', 'text', (c) => c.notNull())
          .addColumn('repo', 'text', (c) => c.notNull())
          .addColumn('number', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('run_prs_key', ['run_id', 'repo', 'number'])
          .execute();
        await s.createIndex('run_prs_pr').on('run_prs').columns(['repo', 'number']).execute();
        await s
          .createTable('effects')
          .addColumn('seq', ...orderKey(dialect))
          .addColumn('run_id', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('claimed_by', 'text')
          .addColumn('claimed_until', 'bigint')
          // A key once stored, pending or done, is not stored again.
          .addUniqueConstraint('effects_key', ['run_id', 'key'])
          .execute();
        await s.createIndex('effects_pending').on('effects').column('seq').where(sql.ref('done'), '=', 0).execute();
        await s
          .createTable('deliveries')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('seen_at', 'text', (c) => c.notNull())
          .execute();
        await s
          .createTable('leases')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('holder', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await s
          .createTable('github_attempts')
          .addColumn('external_id', 'text', (c) => c.primaryKey())
          .addColumn('run_id', 'text', (c) => c.notNull())
          .addColumn('repo', 'text', (c) => c.notNull())
          .addColumn('check_run_id', 'bigint')
          .addColumn('workflow_run_id', 'bigint')
          .addColumn('body', 'text', (c) => c.notNull())
          .execute();
        await s.createIndex('github_attempts_run').on('github_attempts').column('run_id').execute();
        for (const column of ['check_run_id', 'workflow_run_id'])
          await s
            .createIndex(`github_attempts_${column.replace(/_id$/, '')}`)
            .on('github_attempts')
            .columns(['repo', column])
            .where(sql.ref(column), 'is not', null)
            .execute();
        await s
          .createTable('github_comments')
          .addColumn('run_id', 'text', (c) => c.primaryKey())
          .addColumn('id', 'bigint', (c) => c.notNull())
          .addColumn('url', 'text', (c) => c.notNull())
          .execute();
        await s
          .createTable('github_summaries')
          .addColumn('run_id', 'text', (c) => c.notNull())
          .addColumn('head', 'text', (c) => c.notNull())
          .addColumn('check_run_id', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('github_summaries_key', ['run_id', 'head'])
          .execute();
      },
    },
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
  OLD_VERSION_TABLE,
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
  if (tables.includes(OLD_VERSION_TABLE)) {
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
