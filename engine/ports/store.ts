// The store port: runs with a version number (every write is compare-and-swap on it), the
// pending effects of each write (the outbox, written in the same transaction) and who has claimed
// each to carry it out, the webhook delivery ids already handled, and leases (one holder of a name at
// a time: the driver of a run, the sweeper among replicas). Asynchronous, so that a database
// server can sit behind it.
import type { Run, RunEffect, RunStatus } from '../../core/run/types.ts';

export interface RunFilter {
  status?: RunStatus[];
  issue?: { repo: string; number: number };
  pipeline?: string;
  /** Runs one of whose PRs is this one. */
  pr?: { repo: string; number: number };
  /** Runs one of whose PRs is in this repository (a commit status names no PR, only its repository and commit). */
  repo?: string;
}

/**
 * Who carries an effect out: several processes (app replicas) share one store, and each pending
 * effect is carried out only by the holder of its claim. The write that stores an effect claims it
 * for its writer in the same transaction; the holder renews the claim while it works; a claim
 * that ran out (its holder died) can be taken by another.
 */
export interface EffectClaim {
  holder: string;
  ttlMs: number;
}

export type StoredEffect = RunEffect & {
  runId: string;
  /** Who holds the effect, until when (ms since the epoch, the store's clock); absent when no one does. */
  claim?: { holder: string; until: number };
};

/** What a write stored: the keys of its effects that its claim now holds (none without a claim). */
export interface Written {
  claimed: string[];
}

/** Who holds a lease, and until when (ms since the epoch). */
export interface Lease {
  name: string;
  holder: string;
  expiresAt: number;
}

/**
 * Runs are immutable values: the reducer makes new ones, and a store may share the runs it
 * returns. Never change a run in place.
 */
export interface RunStore {
  /**
   * Stores a new run (its version must be 0; it is stored as 1) with its first effects. Throws a
   * StoreError `duplicate-run` if the id exists, and `active-run` if the issue already has an
   * active run (running or waiting) of the same pipeline: one active run per issue and pipeline,
   * whoever tries at the same time. With a claim, its effects are claimed for its holder.
   */
  create(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written>;
  /** The stored run with its stored version, or undefined. */
  get(id: string): Promise<Run | undefined>;
  /** Runs in the order they were created. */
  list(filter?: RunFilter): Promise<Run[]>;
  /**
   * Compare-and-swap: writes the run with version run.version + 1 iff the stored version equals
   * run.version, and stores its effects in the same transaction; false on a conflict (nothing
   * written). An effect whose (run, key) is already stored, pending or done, is not stored again
   * (and keeps its claim). With a claim, the effects it stores are claimed for its holder.
   */
  commit(run: Run, effects: readonly RunEffect[], claim?: EffectClaim): Promise<Written | false>;
  /** Effects not yet marked done, in the order they were committed within each run. */
  pendingEffects(runId?: string): Promise<StoredEffect[]>;
  /**
   * Claims pending effects (of one run, or of all) for `claim.holder` until now + ttlMs: those no
   * one holds (never claimed, or claimed by a holder that let the claim run out: it died, or the
   * effect failed), and with `takeOver` those of any holder (the caller knows theirs is gone: it
   * took the run's lease from a dead driver). Returns the effects it claimed, in the order of
   * pendingEffects. Two callers at once never claim the same effect.
   */
  claimEffects(claim: EffectClaim, scope?: { runId?: string; takeOver?: boolean }): Promise<StoredEffect[]>;
  /** Extends the holder's claims on these pending effects to now + ttlMs (one another holder took is left alone). */
  renewClaims(claim: EffectClaim, effects: ReadonlyArray<{ runId: string; key: string }>): Promise<void>;
  /** Marks one effect done (a key that is not stored, or already done, changes nothing). */
  markEffectDone(runId: string, key: string): Promise<void>;
  /** Whether a webhook delivery id was recorded as handled. */
  deliveryHandled(id: string): Promise<boolean>;
  /** Records a delivery id as handled, once its handler succeeded (recording it again changes nothing). */
  recordDelivery(id: string): Promise<void>;
  /**
   * Takes or renews the lease `name` for `holder` until now + ttlMs, when it is free, expired or
   * already the holder's. Returns the lease as it stands after the call: the holder's on success,
   * the other holder's when refused.
   */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<Lease>;
  /** The lease as it stands, if anyone holds it (expired ones included: `expiresAt` tells). */
  lease(name: string): Promise<Lease | undefined>;
  /** Gives a lease up (only its holder can). */
  releaseLease(name: string, holder: string): Promise<void>;
  close(): Promise<void>;
}

/** `older-schema`: a database of a Conveyor before the store started afresh, which this one does not read. */
export type StoreErrorCode =
  'not-a-store' | 'corrupt' | 'older-schema' | 'newer-schema' | 'duplicate-run' | 'active-run' | 'no-such-run' | 'conflict' | 'unavailable';

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
