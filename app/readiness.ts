// `GET /readyz`: whether this replica can do its work, for a load balancer — its store answers and
// GitHub's API is reachable. Each check is a function that resolves when its part is fine; its
// outcome is kept for a while, so a load balancer asking every few seconds does not become a
// stream of calls to GitHub.
export interface Readiness {
  ok: boolean;
  /** Each check's outcome: `ok`, or what is wrong. */
  checks: Record<string, string>;
}

export type ReadinessCheck = () => unknown;

/** How long a check's outcome is kept (default 15 s). */
const KEEP_MS = 15_000;

export function readinessOf(checks: Record<string, ReadinessCheck>, options: { keepMs?: number; now?: () => number } = {}): () => Promise<Readiness> {
  const keepMs = options.keepMs ?? KEEP_MS;
  const now = options.now ?? Date.now;
  const kept = new Map<string, { at: number; outcome: Promise<string> }>();
  const outcomeOf = (name: string, check: ReadinessCheck): Promise<string> => {
    const last = kept.get(name);
    if (last && now() - last.at < keepMs) return last.outcome;
    const outcome = (async () => {
      try {
        await check();
        return 'ok';
      } catch (e) {
        return `down: ${(e as Error).message}`;
      }
    })();
    kept.set(name, { at: now(), outcome });
    return outcome;
  };
  return async () => {
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await outcomeOf(name, check)] as const));
    const results = Object.fromEntries(entries);
    return { ok: entries.every(([, outcome]) => outcome === 'ok'), checks: results };
  };
}
