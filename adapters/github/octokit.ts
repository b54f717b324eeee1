// The Octokit each host talks to GitHub with, configured once. The app's is Probot's Octokit (it
// has @octokit/plugin-retry and @octokit/plugin-throttling already); the action's is @octokit/rest
// with the same two plugins, on the global fetch (nock sees it; @actions/github's undici fetch it
// does not). Both get the same policy, which follows GitHub's documented rules
// (docs.github.com: "Best practices for using the REST API", "Rate limits for the REST API"):
// - a secondary limit (403/429, "secondary rate limit") waits out `retry-after` exactly, or at
//   least a minute without it (plugin-throttling's fallbackSecondaryRateRetryAfter: 60 s);
// - a spent primary limit (403/429 with x-ratelimit-remaining: 0) waits until x-ratelimit-reset;
// - either is retried at most RATE_LIMIT_RETRIES times, then the call fails (Probot alone would
//   retry a primary limit twice and a secondary one never; Octokit's own examples, forever);
// - content-creating requests are paced: plugin-throttling's write group (one write at a time, a
//   second apart) and notification group (comments, issues, PRs, merges: three seconds apart);
// - server errors and network failures are retried by plugin-retry (3 times, after 1, 4, 9 s).
// 429 is left to plugin-throttling alone: plugin-retry would retry it again on its own backoff,
// sooner than GitHub asked and past the bound above.
import { Octokit as RestOctokit } from '@octokit/rest';
import { retry, type RetryOptions } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import type { Octokit as CoreOctokit, OctokitOptions } from '@octokit/core';
import { gitHubErrors } from './errors.ts';
import type { Logger } from '../../lib/logger.ts';

/** What the GitHub adapter calls: Octokit's REST methods, `request` and `paginate`. */
export type GitHubOctokit = Pick<RestOctokit, 'rest' | 'request' | 'paginate' | 'log' | 'graphql'>;

export const RATE_LIMIT_RETRIES = 3;

/** A rate limit met by a call, as the policy judged it. */
export interface RateLimitEvent {
  kind: 'primary' | 'secondary';
  /** Seconds to wait before the retry, as plugin-throttling computed them from GitHub's headers. */
  retryAfter: number;
  /** `METHOD /path` of the call. */
  route: string;
  /** Retries of this call so far. */
  retryCount: number;
  retrying: boolean;
}

export interface GitHubPolicy {
  /** Retries of a rate-limited call before it fails (default RATE_LIMIT_RETRIES). */
  rateLimitRetries?: number;
  /**
   * Milliseconds per second of every wait GitHub asks for (retry-after, the reset) and of
   * plugin-retry's backoff: 1000, as GitHub documents; tests and the embedded mode shrink it.
   */
  msPerSecond?: number;
  /** Pace content-creating requests (default true); tests that do not control the clock turn it off. */
  paceWrites?: boolean;
  /** Told of every rate limit, besides the warning in the Octokit's log. */
  onRateLimit?: (event: RateLimitEvent) => void;
  /** Told of every call once it ended (after the retries the policy made), for metrics. */
  onCall?: (call: GitHubCall) => void;
}

/** A call as it ended: what it was, GitHub's answer, and what is left of the rate limit it counted against. */
export interface GitHubCall {
  /** `METHOD /route/{template}` (a later page of a list: `GET (next page)`), never a URL with ids. */
  route: string;
  /** GitHub's status; undefined when no answer came. */
  status: number | undefined;
  /** The installation whose token made it; undefined for the app's own (JWT) calls. */
  installation: number | undefined;
  /** `x-ratelimit-remaining` of the answer, when it had one. */
  rateLimitRemaining: number | undefined;
}

type ThrottleHandler = (retryAfter: number, options: { method: string; url: string }, octokit: CoreOctokit, retryCount: number) => boolean;
type Group = NonNullable<Extract<ThrottlingOptions, { onRateLimit: unknown }>['write']>;

/**
 * What plugin-throttling asks of a Bottleneck group (`key(id).schedule(options, job)`), pacing
 * nothing: the write and notification groups when pacing is off.
 */
const UNPACED = { key: () => ({ schedule: (_options: unknown, job: () => Promise<unknown>) => job() }) } as unknown as Group;

/** The options of plugin-throttling and plugin-retry that make the policy above. */
export function policyOptions(policy: GitHubPolicy = {}): { throttle: ThrottlingOptions; retry: RetryOptions } {
  const retries = policy.rateLimitRetries ?? RATE_LIMIT_RETRIES;
  const msPerSecond = policy.msPerSecond ?? 1000;
  const handler =
    (kind: RateLimitEvent['kind']): ThrottleHandler =>
    (retryAfter, options, octokit, retryCount) => {
      const route = `${options.method} ${options.url}`;
      const retrying = retryCount < retries;
      octokit.log.warn(
        `GitHub ${kind} rate limit on ${route}: ${retrying ? `retry ${retryCount + 1} of ${retries} in ${retryAfter} s` : `given up after ${retries} retries`}`,
      );
      policy.onRateLimit?.({ kind, retryAfter, route, retryCount, retrying });
      return retrying;
    };
  return {
    throttle: {
      enabled: true,
      onRateLimit: handler('primary'),
      onSecondaryRateLimit: handler('secondary'),
      retryAfterBaseValue: msPerSecond,
      ...(policy.paceWrites === false ? { write: UNPACED, notifications: UNPACED } : {}),
    },
    // 409 is GitHub's word on the state of the thing (a completed workflow run cannot be cancelled,
    // a merge's head moved): asking again the same moment gets the same answer. 413: a body too
    // large (a blob of a big file) is as large the next time.
    retry: { retryAfterBaseValue: msPerSecond, doNotRetry: [400, 401, 403, 404, 409, 410, 413, 422, 429, 451] },
  };
}

/** Octokit's options with the policy on top (the function form of `defaults` has the last word over Probot's). */
function withPolicyOptions(options: OctokitOptions, policy: GitHubPolicy): OctokitOptions {
  const own = policyOptions(policy);
  return { ...options, throttle: { ...options.throttle, ...own.throttle } as ThrottlingOptions, retry: { ...options.retry, ...own.retry } };
}

type OctokitClass = typeof CoreOctokit;

interface Answer {
  status?: unknown;
  headers?: Record<string, unknown>;
  response?: { status?: unknown; headers?: Record<string, unknown> };
}

/**
 * An Octokit plugin telling `onCall` of each call as it ended: its route template (Octokit's
 * `url` before expansion), the status and the rate limit left, and the installation of the
 * Octokit's token (Probot puts it in the auth options of an installation's Octokit).
 */
function callObserver(onCall: (call: GitHubCall) => void) {
  return (octokit: CoreOctokit, options: OctokitOptions): Record<string, never> => {
    const installation = (options.auth as { installationId?: unknown } | undefined)?.installationId;
    const report = (request: { method?: string; url?: string }, answer: Answer | undefined) => {
      const method = (request.method ?? 'GET').toUpperCase();
      const url = request.url ?? '';
      const headers = answer?.headers ?? answer?.response?.headers;
      const remaining = Number(headers?.['x-ratelimit-remaining']);
      const status = answer?.response ? answer.response.status : answer?.status;
      onCall({
        route: /^https?:\/\//i.test(url) ? `${method} (next page)` : `${method} ${url}`,
        status: typeof status === 'number' ? status : undefined,
        installation: typeof installation === 'number' ? installation : installation !== undefined ? Number(installation) : undefined,
        rateLimitRemaining: headers && Number.isFinite(remaining) ? remaining : undefined,
      });
    };
    octokit.hook.wrap('request', async (request, requestOptions) => {
      try {
        const response = await request(requestOptions);
        report(requestOptions, response as Answer);
        return response;
      } catch (e) {
        report(requestOptions, e as Answer);
        throw e;
      }
    });
    return {};
  };
}

/**
 * An Octokit class (Probot's, for the app) with the policy and the typed errors: give it to Probot
 * (`Octokit` of `run` or `new Probot`), and every installation Octokit `probot.auth(id)` makes has them.
 * The class must have the retry and throttling plugins already (Probot's has).
 */
export function withGitHubPolicy<C extends OctokitClass>(Base: C, policy: GitHubPolicy = {}): C {
  const plugins = policy.onCall ? [callObserver(policy.onCall), gitHubErrors] : [gitHubErrors];
  return Base.plugin(...plugins).defaults((options: OctokitOptions) => withPolicyOptions(options, policy)) as unknown as C;
}

/** @octokit/rest with retry, throttling and the typed errors, in the order they must wrap a request. */
const ActionOctokit = RestOctokit.plugin(throttling, retry, gitHubErrors);

export interface GitHubOctokitOptions extends GitHubPolicy {
  /**
   * The installation token, or where to get it for each request: a step's token is renewed while
   * the step runs (action/src/oidc-token.ts), so it is asked for every time.
   */
  token: string | (() => Promise<string>);
  /** The REST API's base URL: GITHUB_API_URL (GitHub Enterprise Server's `https://HOST/api/v3`). */
  baseUrl?: string;
  userAgent?: string;
  /** Where the plugins' warnings go (default: the console). */
  log?: { debug(m: string): void; info(m: string): void; warn(m: string): void; error(m: string): void };
}

/** An Octokit log that writes warnings and errors (rate limits, failed tries) to `log`, and drops the chatter. */
export function octokitLog(log: Logger): NonNullable<GitHubOctokitOptions['log']> {
  return { debug: () => undefined, info: () => undefined, warn: (m) => log.warn(`GitHub: ${m}`), error: (m) => log.error(`GitHub: ${m}`) };
}

/** The action's Octokit: a token, the policy, the global fetch (looked up at each call). */
export function createGitHubOctokit(options: GitHubOctokitOptions): GitHubOctokit {
  const { token, baseUrl, userAgent, log, ...policy } = options;
  const octokit = new ActionOctokit({
    ...(typeof token === 'string' ? { auth: token } : {}),
    baseUrl: (baseUrl || 'https://api.github.com').replace(/\/+$/, ''),
    userAgent: userAgent ?? 'conveyor',
    ...(log ? { log } : {}),
    ...policyOptions(policy),
  });
  // A renewed token: asked for before each request (a retry included), so none goes out expired.
  if (typeof token === 'function') {
    octokit.hook.before('request', async (request) => {
      request.headers.authorization = `token ${await token()}`;
    });
  }
  return octokit;
}
