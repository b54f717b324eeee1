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

/**
 * Runs are immutable values: the reducer makes new ones. An adapter may share (and freeze) the
 * runs it returns and the runs it is given, so never change a run in place.
 */
export interface RunStore {
  /** Stores a new run (its version must be 0; it is stored as 1) with its first effects. Throws if the id exists. */
  create(run: Run, effects: RunEffect[]): void;
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
   * (nothing written). An effect whose (run, key) is already stored is not stored again.
   */
  commit(run: Run, effects: RunEffect[]): boolean;
  /** Effects not yet marked done, in the order they were committed within each run. */
  pendingEffects(runId?: string): StoredEffect[];
  markEffectDone(runId: string, key: string): void;
  /** Records a delivery id; true if it had been seen before (atomic). */
  seenDelivery(id: string): boolean;
  close(): void;
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
