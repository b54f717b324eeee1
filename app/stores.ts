// The app's store from CONVEYOR_DATABASE_URL: a SQLite file (the default), `sqlite:PATH` or
// `file:PATH`. PostgreSQL (several replicas) is not in this version.
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { openSqliteStore, type SqliteStore } from '../adapters/store/sqlite.ts';

export const DEFAULT_DATABASE = '.conveyor/app.db';

/** The SQLite path a database URL names; a UsageError for anything else. */
export function sqlitePathOf(url: string | undefined): string {
  const value = (url ?? '').trim();
  if (!value) return resolve(DEFAULT_DATABASE);
  if (/^postgres(ql)?:\/\//i.test(value)) {
    throw new UsageError(
      `CONVEYOR_DATABASE_URL is a PostgreSQL URL, which is not supported in this version of Conveyor; use a SQLite file (e.g. CONVEYOR_DATABASE_URL=sqlite:/var/lib/conveyor/app.db, or leave it unset for ${DEFAULT_DATABASE}) and run one replica`,
    );
  }
  const m = /^(?:sqlite|file):(?:\/\/)?(.+)$/i.exec(value);
  if (m) return m[1] === ':memory:' ? ':memory:' : resolve(m[1]!);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new UsageError(`CONVEYOR_DATABASE_URL "${value}" is not a database Conveyor knows; give a SQLite file path, sqlite:PATH or file:PATH`);
  }
  return resolve(value);
}

/** The app's store: its runs, and its GitHub records (`links`). */
export type AppStore = SqliteStore;

/** The store of runs and of the app's GitHub records (its `links`). */
export function openAppStore(env: NodeJS.ProcessEnv): AppStore {
  return openSqliteStore(sqlitePathOf(env.CONVEYOR_DATABASE_URL));
}
