// A coalescing writer: the reporter's (report.ts) writes of one kind for each run, and the `ci`
// judgements webhooks ask for (ci.ts), each waiting out a window that the requests meanwhile join,
// one at a time per run.
/**
 * The writes of one kind for each run: coalesced (requests while one waits out its window join
 * it) and one at a time (one asked for while a write is under way makes the next).
 */
export class Writer<T> {
  /** A write waiting out its window (requests join it), per run. */
  private readonly scheduled = new Map<string, Promise<T>>();
  /** The write under way, per run. */
  private readonly writing = new Map<string, Promise<T>>();

  constructor(private readonly wait: () => Promise<void>) {}

  /** Resolves once the run as it stands now (or newer) is written by `write`. */
  request(runId: string, write: () => Promise<T>): Promise<T> {
    const pending = this.scheduled.get(runId);
    if (pending) return pending;
    const before = this.writing.get(runId);
    const work = (async () => {
      await this.wait();
      // One write of a run at a time: the one under way when this was asked finishes first.
      if (before) await before.catch(() => undefined);
      // From here on, a request schedules the next write: this one may read the run before its change.
      this.scheduled.delete(runId);
      const written = write();
      this.writing.set(runId, written);
      try {
        return await written;
      } finally {
        if (this.writing.get(runId) === written) this.writing.delete(runId);
      }
    })();
    this.scheduled.set(runId, work);
    return work;
  }

  /** What is waiting or being written now. */
  pending(): Array<Promise<T>> {
    return [...this.scheduled.values(), ...this.writing.values()];
  }

  /** The run's write waiting or under way, if any. */
  of(runId: string): Promise<T> | undefined {
    return this.scheduled.get(runId) ?? this.writing.get(runId);
  }
}
