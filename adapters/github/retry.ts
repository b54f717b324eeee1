// Retrying GitHub calls with exponential backoff on what a retry can fix: server errors, rate
// limits (429, or 403 with no remaining quota) and network failures. Anything else (404, 422,
// permissions) fails at once with a message that names the call.
import { ConveyorError } from '../../core/errors.ts';

export interface RetryOptions {
  /** Tries after the first (default 3). */
  retries?: number;
  /** First backoff; doubled per retry (default 500 ms). */
  baseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface HttpError {
  status?: number;
  response?: { headers?: Record<string, string | undefined> };
  message?: string;
}

export function isRetryable(e: unknown): boolean {
  const err = e as HttpError;
  if (typeof err?.status !== 'number') return true; // no HTTP answer at all: the network
  if (err.status >= 500 || err.status === 429) return true;
  if (err.status === 403) {
    const remaining = err.response?.headers?.['x-ratelimit-remaining'];
    return remaining === '0' || /rate limit/i.test(err.message ?? '');
  }
  return false;
}

/** How long GitHub asked us to wait, if it did (retry-after seconds). */
function retryAfterMs(e: unknown): number | undefined {
  const v = (e as HttpError)?.response?.headers?.['retry-after'];
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) ? n * 1000 : undefined;
}

export async function withRetry<T>(what: string, fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const retries = options.retries ?? 3;
  const base = options.baseMs ?? 500;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let tries = 0; ; tries++) {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ConveyorError) throw e;
      const status = (e as HttpError)?.status;
      if (tries >= retries || !isRetryable(e)) {
        const after = tries > 0 ? ` after ${tries + 1} tries` : '';
        throw new ConveyorError('forge-failed', `GitHub ${what} failed${after}${status ? ` (HTTP ${status})` : ''}: ${(e as Error).message}`, { cause: e });
      }
      await sleep(Math.min(60_000, retryAfterMs(e) ?? base * 2 ** tries));
    }
  }
}
