// The store on PostgreSQL, for several app replicas on one database: a pool, its tables brought up
// to date when a replica starts (replicas starting together migrate once), and the server's and
// the driver's errors said with the database (never the password) and what to do.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { StoreError } from '../../engine/ports/store.ts';
import { migrate, type Tables } from './schema.ts';
import { SqlRunStore, type SqlStore } from './sql.ts';

export { SCHEMA_VERSION } from './schema.ts';

/** How long opening a connection may take before the store says the server cannot be reached. */
const CONNECT_TIMEOUT_MS = 10_000;

/** bigint columns (GitHub's ids, ms timestamps, the order keys) as numbers: all of them stay below 2^53. */
const TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PostgresOptions {
  /** Connections this handle keeps at most (default 10). */
  maxConnections?: number;
}

/** Opens a pool on the database, and brings its tables up to date before anything else. */
export async function openPostgresStore(url: string, options: PostgresOptions = {}): Promise<SqlStore> {
  const { where, password } = describeDatabase(url);
  const explainHere = (e: unknown) => explain(e, where, password);
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, max: options.maxConnections ?? 10, types: TYPES });
  // An idle connection the server drops emits here; unheard, it would end the process. The next
  // query opens another connection, or fails as `unavailable`.
  pool.on('error', () => undefined);
  // A connection lost while a query holds it fails that query (said as `unavailable`); its error
  // event, unheard, would end the process as well.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  try {
    const schema = (await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema;
    if (!schema)
      throw new StoreError(
        'not-a-store',
        `${capital(where)} has no schema to make Conveyor's tables in (its search_path names none that exists): create one (CREATE SCHEMA conveyor), or fix the URL's search_path.`,
      );
    await migrate(db, {
      dialect: 'postgres',
      where,
      schema,
      advice: {
        foreign:
          "Give Conveyor a database of its own (CREATE DATABASE conveyor), or a schema of its own through the URL's options (?options=-c%20search_path%3Dconveyor).",
        older: 'Give this Conveyor a new database (or schema), or drop the old tables to start afresh; or keep using the older Conveyor for it.',
        newer: 'Upgrade this replica to the same Conveyor as the others.',
      },
    });
  } catch (e) {
    await db.destroy().catch(() => undefined);
    throw explainHere(e);
  }
  return new SqlRunStore(db, {
    where,
    restore: 'Restore the database from a backup (pg_dump), or delete that row.',
    now: sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`,
    skipLocked: true,
    uniqueViolation: (e) => e instanceof pg.DatabaseError && e.code === '23505',
    explain: explainHere,
  });
}

const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);

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
  return { where: `the PostgreSQL database "${database}" on ${host}${user ? ` (user ${user})` : ''}`, password: decodeURIComponent(parsed.password) };
}

/** A URL as it may be shown: its password replaced. */
export function maskPassword(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}

/** Errors of the network, not of the database: the server cannot be reached or went away. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOENT']);

/** Turns the driver's and the server's errors into one that names the database and what to do. */
function explain(e: unknown, where: string, password: string): unknown {
  if (e instanceof StoreError || !(e instanceof Error)) return e;
  const code = (e as { code?: unknown }).code;
  const said = password ? e.message.split(password).join('***') : e.message;
  const Where = capital(where);
  const unavailable = (what: string) => new StoreError('unavailable', `${Where} ${what} (PostgreSQL: ${said}).`, { cause: e });
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
      `${Where} does not let its user do this (PostgreSQL: ${said}): grant the user CREATE on the database's schema, or give Conveyor a database it owns.`,
      { cause: e },
    );
  return e;
}
