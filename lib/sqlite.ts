// Opening a SQLite file in WAL mode from several processes at once. The first connections to a
// new file race to switch its journal mode, and SQLite answers the loser SQLITE_BUSY at once,
// without waiting on the busy timeout: that one statement is retried until the timeout.
import type BetterSqlite3 from 'better-sqlite3';

interface PragmaDb {
  pragma(source: string): unknown;
}

/**
 * Opens (creating it when needed) a SQLite file in WAL mode, whose writers wait up to
 * `busyTimeoutMs` for another process's write. better-sqlite3 is a native module, loaded here by
 * dynamic import only: the action's bundle runs on GitHub's runners, which have none.
 */
export async function openSqliteFile(path: string, busyTimeoutMs: number): Promise<BetterSqlite3.Database> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path);
  try {
    useWal(db, busyTimeoutMs);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

export function useWal(db: PragmaDb, busyTimeoutMs: number): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      if (!isBusy(e) || Date.now() > deadline) throw e;
      sleepSync(20);
    }
  }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || /database is locked/.test(String((e as Error).message));
}

/** better-sqlite3 is synchronous: wait without an event loop. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
