// The store port: runs with a version number (every write is compare-and-swap on it), the
// pending effects of each write (the outbox, written in the same transaction), and the webhook
// delivery ids already seen. Methods are synchronous (better-sqlite3 is); an adapter over an
// asynchronous database would wrap the engine's calls instead.
import type { Run, RunEffect, RunStatus } from '../../core/run/types.ts';

export interface RunFilter {
  status?: RunStatus[];
  issue?: { repo: string; number: number };
  pipeline?: string;
}

export type StoredEffect = RunEffect & { runId: string };

/** Names one stored effect: the run it belongs to and its key. */
export interface EffectRef {
  runId: string;
  key: string;
}

/**
 * Runs are immutable values: the reducer makes new ones. An adapter may share (and freeze) the
 * runs it returns and the runs it is given, so never change a run in place. (The SQLite adapter
 * freezes them whole under tests, where a change in place then throws, and shallowly elsewhere.)
 */
export interface RunStore {
  /**
   * Stores a new run (its version must be 0; it is stored as 1) with its first effects. Throws if
   * the id exists. `done`: as for `commit`, written in the same transaction.
   */
  create(run: Run, effects: RunEffect[], done?: readonly EffectRef[]): void;
  /** The stored run with its stored version, or undefined. */
  get(id: string): Run | undefined;
  /**
   * Optional: the run as this handle last wrote or read it, without asking the database, so it
   * may be stale. For optimistic transitions: a commit based on a stale run fails like any other
   * conflict, and the caller reads again with `get`.
   */
  peek?(id: string): Run | undefined;
  /** Runs in the order they were created. */
  list(filter?: RunFilter): Run[];
  /**
   * Compare-and-swap: writes the run with version run.version + 1 iff the stored version equals
   * run.version, and stores its effects in the same transaction. Returns false on a conflict
   * (neither the run nor its effects written). An effect whose (run, key) is already stored is
   * not stored again.
   *
   * `done` (optional): effects of any run already carried out, marked done in the same
   * transaction, whether or not the compare-and-swap succeeds (they were carried out either way).
   * This saves a write per effect: a caller may hold its done marks until its next commit, as
   * long as it writes them with `markEffectsDone` when it has nothing more to commit. Until they
   * are written those effects stay pending, so a crash leaves them for recovery to carry out
   * again: only effects that are idempotent may be held back.
   */
  commit(run: Run, effects: RunEffect[], done?: readonly EffectRef[]): boolean;
  /**
   * Effects not yet marked done, in the order they were committed within each run. A live engine
   * holds the marks of idempotent effects it carried out until its next commit or until it goes
   * idle (see app/engine/engine.ts), so an effect listed here may be under way in such a process:
   * carry pending effects out when taking over a run (recovery), not beside a live engine.
   */
  pendingEffects(runId?: string): StoredEffect[];
  /** Marks one effect done (a key that is not stored, or already done, changes nothing). */
  markEffectDone(runId: string, key: string): void;
  /** Marks several effects done in one transaction (as `markEffectDone` does each). */
  markEffectsDone(refs: readonly EffectRef[]): void;
  /** Records a delivery id; true if it had been seen before (atomic). */
  seenDelivery(id: string): boolean;
  close(): void;
}

/**
 * The run as this handle last wrote or read it, without a read when it has it, else as stored.
 * For the only writer of a store (the GitHub app: one replica) that is the stored run; the hot
 * paths that follow a commit (dispatching, reporting) read it this way.
 */
export function latestRun(store: RunStore, id: string): Run | undefined {
  return store.peek?.(id) ?? store.get(id);
}

export type StoreErrorCode = 'not-a-store' | 'corrupt' | 'newer-schema' | 'duplicate-run' | 'no-such-run' | 'conflict';

/** A store problem a person can act on: the message names the database and what would be right. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}
