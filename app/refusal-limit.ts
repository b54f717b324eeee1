// How many refusals the token broker takes from one repository's workflows before it stops judging
// them for a while: a token bucket per repository, in memory. Each refusal of a genuine GitHub
// token (a job the app did not dispatch, an attempt id that does not exist) takes one token; one
// comes back every `refillMs`. An empty bucket means 429 without looking anything up, so someone
// polling attempt ids from their own workflow runs costs the app (and GitHub) almost nothing.
//
// Kept per replica and lost on restart: it slows a prober down, it does not need to be exact. The
// map is bounded (the repositories refused least recently are forgotten first), so a flood of
// repositories cannot grow it without end.

export interface RefusalLimitOptions {
  /** Refusals a repository may collect before it is answered 429 (default 10). */
  capacity?: number;
  /** One refusal is forgiven every this many milliseconds (default 60 s). */
  refillMs?: number;
  /** Repositories remembered at most (default 10,000). */
  maxRepositories?: number;
}

export interface RefusalLimit {
  readonly capacity: number;
  readonly refillMs: number;
  /** Milliseconds until a request from `repo` is judged again; 0 when it is judged now. */
  waitMs(repo: string, now: number): number;
  /** Counts one refusal of a request from `repo`. */
  refused(repo: string, now: number): void;
}

export function createRefusalLimit(options: RefusalLimitOptions = {}): RefusalLimit {
  const capacity = Math.max(1, options.capacity ?? 10);
  const refillMs = Math.max(1, options.refillMs ?? 60_000);
  const maxRepositories = Math.max(1, options.maxRepositories ?? 10_000);
  /** Tokens left at `at` (ms since the epoch); a repository that is absent has a full bucket. */
  const buckets = new Map<string, { left: number; at: number }>();
  // Repository names are case-insensitive on GitHub.
  const keyOf = (repo: string) => repo.toLowerCase();
  const level = (key: string, now: number): number => {
    const b = buckets.get(key);
    return b ? Math.min(capacity, b.left + Math.max(0, now - b.at) / refillMs) : capacity;
  };
  return {
    capacity,
    refillMs,
    waitMs(repo, now) {
      const left = level(keyOf(repo), now);
      return left >= 1 ? 0 : Math.ceil((1 - left) * refillMs);
    },
    refused(repo, now) {
      const key = keyOf(repo);
      const left = Math.max(0, level(key, now) - 1);
      // Re-inserted: the map's order is then the order of last refusal, oldest first.
      buckets.delete(key);
      buckets.set(key, { left, at: now });
      if (buckets.size <= maxRepositories) return;
      for (const [k] of buckets) {
        if (buckets.size <= maxRepositories) break;
        buckets.delete(k);
      }
    },
  };
}
