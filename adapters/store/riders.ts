// Writes that may wait for the store's next transaction ("riders"). Each transaction SQLite
// commits costs far more than the statements in it (the WAL frames and the commit record), so a
// record whose loss in a crash costs a lookup rather than a guarantee (that an attempt was
// dispatched and which workflow run it got, a run's tracking comment and summary check run)
// is written with whatever the store writes next: the next transition, usually a few
// milliseconds later, or on its own after RIDE_AT_MOST_MS when nothing else is written.

/** How long a rider waits for a transaction to carry it before it is written on its own. */
export const RIDE_AT_MOST_MS = 1000;

/** A write, and what to do once the transaction it rode on is committed. */
export interface Rider {
  write(): void;
  written?(): void;
}

/** Riders that failed and were dropped: they were not written, whatever became of their transaction. */
const dropped = new WeakSet<Rider>();

export class Riders {
  private queue: Rider[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** `flush` writes whatever is queued in a transaction of its own (called by the timer). */
  constructor(private readonly flush: () => void) {}

  get size(): number {
    return this.queue.length;
  }

  add(rider: Rider): void {
    this.queue.push(rider);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), RIDE_AT_MOST_MS);
      // A process with nothing else to do exits without waiting (its riders are lost, by design).
      this.timer.unref();
    }
  }

  /** Takes the queue, for a transaction about to begin: pass it to `run` inside the transaction. */
  take(): Rider[] {
    const taken = this.queue;
    if (taken.length > 0) this.queue = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return taken;
  }

  /** The transaction that took them failed (rolled back): they ride on the next one. */
  putBack(taken: readonly Rider[]): void {
    if (taken.length === 0) return;
    const later = this.queue;
    this.queue = [];
    // One dropped inside it would only fail again.
    for (const r of [...taken, ...later]) if (!dropped.has(r)) this.add(r);
  }

  /**
   * Runs taken riders inside the caller's transaction (`db`). One that throws is reported and
   * dropped, never allowed to abort the transaction it rides on (a transition must not fail for a
   * record that is only a shortcut), unless SQLite itself rolled that transaction back (a full
   * disk, an I/O error): then the error goes on, or the caller's statements would each commit alone.
   */
  static run(taken: readonly Rider[], db: { readonly inTransaction: boolean }): void {
    for (const rider of taken) {
      try {
        rider.write();
      } catch (e) {
        if (!db.inTransaction) throw e;
        dropped.add(rider);
        process.stderr.write(`conveyor: a deferred record could not be written and was dropped: ${(e as Error).message}\n`);
      }
    }
  }

  /**
   * The transaction that carried them committed: each one written says so. A callback that throws
   * is reported and must not reach the caller, which would put the committed riders back (writing
   * them twice) and report a committed transaction as failed.
   */
  static written(taken: readonly Rider[]): void {
    for (const rider of taken) {
      if (dropped.has(rider)) continue;
      try {
        rider.written?.();
      } catch (e) {
        process.stderr.write(`conveyor: a deferred record was written, but what follows its write failed: ${(e as Error).message}\n`);
      }
    }
  }
}
