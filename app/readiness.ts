// `GET /readyz`: whether this replica can do its work, for a load balancer — its store answers and
// GitHub's API is reachable. Each check is a function that resolves when its part is fine; its
// outcome is kept for a while, so a load balancer asking every few seconds does not become a
// stream of calls to GitHub.
//
// The endpoint has no credentials, so its answer says only up or down: a check's error can name
// what a stranger should not learn (the store's names its database, host and user). What is wrong
// goes to the app's log when a check changes (not at every poll), and /metrics has a gauge per
// check; there is no other way to read it over HTTP.
export interface Readiness {
  ok: boolean;
  /** Each check's outcome: `ok`, or `down: ` and what is wrong (for the log, never the answer). */
  checks: Record<string, string>;
}

export type ReadinessCheck = () => unknown;

export interface ReadinessOptions {
  /** How long a check's outcome is kept (default 15 s). */
  keepMs?: number;
  now?: () => number;
  /** Told when a check goes down, with what is wrong, and when it is up again: once per change. */
  onChange?: (line: string, up: boolean) => void;
}

const KEEP_MS = 15_000;

export function readinessOf(checks: Record<string, ReadinessCheck>, options: ReadinessOptions = {}): () => Promise<Readiness> {
  const keepMs = options.keepMs ?? KEEP_MS;
  const now = options.now ?? Date.now;
  const kept = new Map<string, { at: number; outcome: Promise<string> }>();
  // Up until a check says otherwise: a replica that starts well says nothing.
  const wasUp = new Map<string, boolean>();
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
    })().then((said) => {
      const up = said === 'ok';
      if ((wasUp.get(name) ?? true) !== up) options.onChange?.(up ? `${name} is up again` : `${name} is ${said}`, up);
      wasUp.set(name, up);
      return said;
    });
    kept.set(name, { at: now(), outcome });
    return outcome;
  };
  return async () => {
    const entries = await Promise.all(Object.entries(checks).map(async ([name, check]) => [name, await outcomeOf(name, check)] as const));
    const results = Object.fromEntries(entries);
    return { ok: entries.every(([, outcome]) => outcome === 'ok'), checks: results };
  };
}

/** What `/readyz` answers anyone: up or down, nothing of why. */
export function readyAnswer(readiness: Readiness): { status: 200 | 503; body: { status: 'ok' | 'down' } } {
  return readiness.ok ? { status: 200, body: { status: 'ok' } } : { status: 503, body: { status: 'down' } };
}
