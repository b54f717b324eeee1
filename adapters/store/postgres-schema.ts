// The PostgreSQL store's tables, the migrations that bring a database up to date when a replica
// starts (serialized by an advisory lock, so that replicas starting together migrate once), and
// how the server's and the driver's errors are turned into messages that name the database
// (never the password) and what to do.
import pg from 'pg';
import { StoreError } from '../../engine/ports/store.ts';

/** Bump with a migration in MIGRATIONS whenever the tables change. 1: the tables of SQLite's version 4. */
export const SCHEMA_VERSION = 1;

/** Milliseconds since the epoch by the database server's clock: every replica's leases and claims on one clock. */
export const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** Conveyor's tables: a database that has some of them but no schema_version is not Conveyor's to change. */
const TABLES = ['schema_version', 'runs', 'run_prs', 'effects', 'deliveries', 'leases', 'github_attempts', 'github_comments', 'github_summaries'];

/** MIGRATIONS[v] takes a database from version v to v + 1. */
const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE schema_version (version integer NOT NULL);
-- seq: creation order (runs are listed in it).
CREATE TABLE runs (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL,
  version integer NOT NULL,
  status text NOT NULL,
  issue_repo text NOT NULL,
  issue_number integer NOT NULL,
  pipeline text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  body text NOT NULL,
  CONSTRAINT runs_id UNIQUE (id)
);
-- One active run per issue and pipeline, whichever replica starts one at the same time.
CREATE UNIQUE INDEX runs_one_active ON runs (issue_repo, issue_number, pipeline) WHERE status IN ('running', 'waiting');
CREATE INDEX runs_status ON runs (status);
-- The pull requests of each run, so that a PR's events find their runs without reading every run.
CREATE TABLE run_prs (run_id text NOT NULL, repo text NOT NULL, number integer NOT NULL, PRIMARY KEY (run_id, repo, number));
CREATE INDEX run_prs_pr ON run_prs (repo, number);
-- The outbox: effects in commit order (seq); a key once stored, pending or done, is not stored again.
-- claimed_by carries a pending effect out until claimed_until (ms, the server's clock), renewing it as it works.
CREATE TABLE effects (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id text NOT NULL,
  key text NOT NULL,
  body text NOT NULL,
  done boolean NOT NULL DEFAULT false,
  claimed_by text,
  claimed_until bigint,
  CONSTRAINT effects_key UNIQUE (run_id, key)
);
CREATE INDEX effects_pending ON effects (seq) WHERE NOT done;
CREATE TABLE deliveries (id text PRIMARY KEY, seen_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, expires_at bigint NOT NULL);
-- The GitHub App's records (engine/ports/links.ts). GitHub's ids outgrow 32 bits: bigint.
CREATE TABLE github_attempts (
  external_id text PRIMARY KEY, run_id text NOT NULL, repo text NOT NULL, check_run_id bigint, workflow_run_id bigint, body text NOT NULL
);
CREATE INDEX github_attempts_run ON github_attempts (run_id);
CREATE INDEX github_attempts_check_run ON github_attempts (repo, check_run_id) WHERE check_run_id IS NOT NULL;
CREATE INDEX github_attempts_workflow_run ON github_attempts (repo, workflow_run_id) WHERE workflow_run_id IS NOT NULL;
CREATE TABLE github_comments (run_id text PRIMARY KEY, id bigint NOT NULL, url text NOT NULL);
CREATE TABLE github_summaries (run_id text NOT NULL, head text NOT NULL, check_run_id bigint NOT NULL, PRIMARY KEY (run_id, head));
`,
];

/** Any number that names the migration lock: every Conveyor replica takes the same one. */
const MIGRATION_LOCK = 0x636f6e76; // "conv"

/**
 * Brings the database up to date in one transaction, under a transaction-scoped advisory lock: a
 * replica starting while another migrates waits for it, then finds the tables current. A database
 * from a newer Conveyor, or one with tables of the same names that are not Conveyor's, is refused
 * and left as it was.
 */
export async function migrate(client: pg.PoolClient, where: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const present = (
      await client.query<{ name: string }>(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY($1)',
        [TABLES],
      )
    ).rows.map((r) => r.name);
    let version = 0;
    if (present.includes('schema_version')) {
      version = Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version')).rows[0]?.v ?? 0);
    } else if (present.length > 0) {
      throw new StoreError(
        'not-a-store',
        `The PostgreSQL ${where} has tables named as Conveyor's (${present.sort().join(', ')}) but no schema_version: they are not Conveyor's. Give Conveyor a database of its own (CREATE DATABASE conveyor), or a schema of its own through the URL's options (?options=-c%20search_path%3Dconveyor).`,
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new StoreError(
        'newer-schema',
        `The PostgreSQL ${where} has schema version ${version}, but this Conveyor knows versions up to ${SCHEMA_VERSION}: a newer Conveyor migrated it. Upgrade this replica to the same Conveyor as the others.`,
      );
    }
    for (let v = version; v < SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!);
    if (version < SCHEMA_VERSION) {
      await client.query('DELETE FROM schema_version');
      await client.query('INSERT INTO schema_version (version) VALUES ($1)', [SCHEMA_VERSION]);
    }
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** How the store names its database in messages: database, host and user, never the password. */
export function describeDatabase(url: string): { where: string; password: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError(
      'not-a-store',
      `CONVEYOR_DATABASE_URL ${maskPassword(url)} is not a URL: give postgres://USER:PASSWORD@HOST:PORT/DATABASE (a password's special characters percent-encoded).`,
    );
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || decodeURIComponent(parsed.username) || 'postgres';
  const socket = parsed.searchParams.get('host');
  const host = parsed.hostname ? `${parsed.hostname}:${parsed.port || '5432'}` : (socket ?? 'localhost:5432');
  const user = decodeURIComponent(parsed.username);
  return { where: `database "${database}" on ${host}${user ? ` (user ${user})` : ''}`, password: decodeURIComponent(parsed.password) };
}

/** A URL as it may be shown: its password replaced. */
export function maskPassword(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}

/** Errors of the network, not of the database: the server cannot be reached or went away. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOENT']);

/** Turns the driver's and the server's errors into one that names the database and what to do. */
export function explain(e: unknown, where: string, password: string): unknown {
  if (e instanceof StoreError || !(e instanceof Error)) return e;
  const code = (e as { code?: unknown }).code;
  const said = password ? e.message.split(password).join('***') : e.message;
  const unavailable = (what: string) => new StoreError('unavailable', `The PostgreSQL ${where} ${what} (PostgreSQL: ${said}).`, { cause: e });
  const wentAway = () =>
    unavailable(
      'went away (it stopped, restarts, or the connection dropped): check that the server is running and reachable; a write under way was stored whole or not at all',
    );
  if (typeof code === 'string' && NETWORK.has(code))
    return unavailable('cannot be reached: check that the server is running and that CONVEYOR_DATABASE_URL names its host and port; nothing was written');
  if (/Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message))
    return wentAway();
  if (typeof code !== 'string') return e;
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return wentAway();
  if (code === '28P01' || code === '28000') return unavailable('refused the login: check the user and password in CONVEYOR_DATABASE_URL');
  if (code === '3D000') return unavailable('does not exist: create it (CREATE DATABASE), or fix the database name in CONVEYOR_DATABASE_URL');
  if (code === '53300') return unavailable('has no connection left: raise its max_connections, or run fewer replicas');
  if (code === '53100') return unavailable('could not be written: its disk is full; free some space, then try again (the write was rolled back)');
  if (code === '42501')
    return new StoreError(
      'not-a-store',
      `The PostgreSQL ${where} does not let its user do this (PostgreSQL: ${said}): grant the user CREATE on the database's schema, or give Conveyor a database it owns.`,
      { cause: e },
    );
  return e;
}

/** A unique violation, with the constraint or index it broke. */
export function uniqueViolation(e: unknown): string | undefined {
  return e instanceof pg.DatabaseError && e.code === '23505' ? (e.constraint ?? '') : undefined;
}
