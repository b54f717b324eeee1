// Opening a SQLite file in WAL mode from several processes at once. The first connections to a
// new file race to switch its journal mode, and SQLite answers the loser SQLITE_BUSY at once,
// without waiting on the busy timeout: that one statement is retried until the timeout.

interface PragmaDb {
  pragma(source: string): unknown;
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

/** Opening a store is synchronous (better-sqlite3): wait without an event loop. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
