// The app's store from CONVEYOR_DATABASE_URL: a SQLite file (the default; one replica), named as a
// path, `sqlite:PATH` or `file:PATH`, or a PostgreSQL database (`postgres://` or `postgresql://`),
// which any number of replicas share.
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { LinkStore } from '../adapters/github/links.ts';
import type { RunStore } from '../engine/ports/store.ts';
import { openSqliteStore } from '../adapters/store/sqlite.ts';
import { maskPassword, openPostgresStore } from '../adapters/store/postgres.ts';

export const DEFAULT_DATABASE = '.conveyor/app.db';

/** The store of runs and of the app's GitHub records (its `links`). */
export type AppStore = RunStore & { links: LinkStore };

export type Database = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

const POSTGRES_FORM = 'give postgres://USER:PASSWORD@HOST:PORT/DATABASE';

/**
 * What keeps a PostgreSQL URL from being used, said before anything starts: one the URL parser
 * refuses (a bad port, a space, user and password with no host) or whose user, password or
 * database does not percent-decode (a stray `%`), which would otherwise end in a stack trace.
 */
function postgresProblem(value: string): string | undefined {
  const shown = `CONVEYOR_DATABASE_URL: "${maskPassword(value)}"`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${shown} is not a URL PostgreSQL can take; ${POSTGRES_FORM}`;
  }
  try {
    for (const part of [url.username, url.password, url.pathname]) decodeURIComponent(part);
  } catch {
    return `${shown} is not a URL PostgreSQL can take (a user or password with a stray %: percent-encode special characters, % as %25); ${POSTGRES_FORM}`;
  }
  return undefined;
}

/** The database a URL names; a UsageError for anything else. */
export function databaseOf(url: string | undefined): Database {
  const value = (url ?? '').trim();
  if (!value) return { kind: 'sqlite', path: resolve(DEFAULT_DATABASE) };
  if (/^postgres(ql)?:\/\//i.test(value)) {
    const problem = postgresProblem(value);
    if (problem) throw new UsageError(problem);
    return { kind: 'postgres', url: value };
  }
  if (/^(?:sqlite|file):(?:\/\/)?$/i.test(value))
    throw new UsageError(`CONVEYOR_DATABASE_URL: "${value}" names no file; give sqlite:PATH, e.g. sqlite:/var/lib/conveyor/app.db`);
  const m = /^(?:sqlite|file):(?:\/\/)?(.+)$/i.exec(value);
  if (m) return { kind: 'sqlite', path: m[1] === ':memory:' ? ':memory:' : resolve(m[1]!) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new UsageError(
      `CONVEYOR_DATABASE_URL: "${maskPassword(value)}" is not a database Conveyor knows; give a SQLite file path, sqlite:PATH or file:PATH (one replica), or postgres://USER:PASSWORD@HOST:PORT/DATABASE (any number of replicas)`,
    );
  }
  return { kind: 'sqlite', path: resolve(value) };
}

/** Opens the store CONVEYOR_DATABASE_URL names; a PostgreSQL database is brought up to date first. */
export async function openAppStore(env: NodeJS.ProcessEnv): Promise<AppStore> {
  const database = databaseOf(env.CONVEYOR_DATABASE_URL);
  return database.kind === 'sqlite' ? openSqliteStore(database.path) : openPostgresStore(database.url);
}
