// The one error of a GitHub call. Octokit's RequestError is turned into it in one place, an error
// hook that sits outside Octokit's retry and throttling plugins (gitHubErrors below), so a caller
// sees it only once the call was given up on: with the status, the route it called and GitHub's
// own message, in a sentence a user can act on.
import type { Octokit } from '@octokit/core';
import { ConveyorError } from '../../core/errors.ts';

/** Where an installation token is minted: a failure there is the credentials', not the call's. */
const TOKEN_PATH = /\/app\/installations\/[^/]+\/access_tokens$/;

export class GitHubApiError extends ConveyorError {
  override readonly name = 'GitHubApiError';
  constructor(
    /** GitHub's answer's status; undefined when no answer came (the network). */
    readonly status: number | undefined,
    /** `METHOD /path` as a template (`POST /repos/{owner}/{repo}/pulls`). */
    readonly route: string,
    /** GitHub's message (or the network's), as GitHub wrote it. */
    readonly githubMessage: string,
    /** The installation's token could not be had: the call itself was never sent. */
    readonly credentials: boolean,
    options?: { cause?: unknown },
  ) {
    super('forge-failed', describe(status, route, githubMessage, credentials), options);
  }

  /** GitHub answered 404 for the thing asked for (not for the token): it is not there. */
  get absent(): boolean {
    return this.status === 404 && !this.credentials;
  }
}

function describe(status: number | undefined, route: string, message: string, credentials: boolean): string {
  const answer = status === undefined ? 'no answer' : `HTTP ${status}`;
  if (credentials) {
    return `GitHub ${route} was not sent: the installation's token could not be had (${answer}): ${message}. Is the app still installed on the repository, with the permissions it asks for?`;
  }
  return `GitHub ${route} failed (${answer}): ${message}`;
}

interface RequestErrorLike {
  status?: unknown;
  message?: unknown;
  response?: unknown;
  request?: { method?: string; url?: string };
}

/** The route of a call: its template when Octokit has one, else the path of its URL (a later page). */
function routeOf(options: { method?: string; url?: string; baseUrl?: string }): string {
  const method = (options.method ?? 'GET').toUpperCase();
  let path = options.url ?? '';
  if (/^https?:\/\//i.test(path)) {
    const base = options.baseUrl ? new URL(options.baseUrl).pathname.replace(/\/+$/, '') : '';
    path = new URL(path).pathname;
    if (base && path.startsWith(base)) path = path.slice(base.length);
  }
  return `${method} ${path}`;
}

/**
 * GitHub's message from an error's body: its `message`, then what each of its `errors` says (a
 * 422's reason is there: "A pull request already exists for acme:conveyor/web-12."). Undefined for
 * a body that is not GitHub's JSON (a proxy's HTML page): Octokit's message is used then, cut short.
 */
function messageOf(data: unknown): string | undefined {
  if (!data || typeof data !== 'object' || typeof (data as { message?: unknown }).message !== 'string') return undefined;
  const { message, errors } = data as { message: string; errors?: unknown };
  const details = (Array.isArray(errors) ? errors : []).map((x: unknown) => {
    if (typeof x === 'string') return x;
    const d = (x ?? {}) as { message?: unknown; resource?: unknown; field?: unknown; code?: unknown };
    return typeof d.message === 'string' ? d.message : [d.resource, d.field, d.code].filter((v) => typeof v === 'string').join(' ');
  });
  return details.length > 0 ? `${message}: ${details.join('; ')}` : message;
}

/** Any failure of a call (`options`: the call's request options) as the one typed error. */
export function toGitHubApiError(error: unknown, options: { method?: string; url?: string; baseUrl?: string }): GitHubApiError {
  const route = routeOf(options);
  if (error instanceof GitHubApiError) {
    // Probot mints an installation's token through the app's own Octokit, which typed the failure
    // already: for this call, it is the credentials that failed.
    if (!error.credentials && TOKEN_PATH.test(error.route) && !TOKEN_PATH.test(route))
      return new GitHubApiError(error.status, route, error.githubMessage, true, { cause: error });
    return error;
  }
  const e = (error ?? {}) as RequestErrorLike;
  // Octokit's request sets status 500 on a network failure, without a response: that is no answer.
  const answered = e.response !== undefined && typeof e.status === 'number';
  const status = answered ? (e.status as number) : undefined;
  const failedUrl = e.request?.url ? new URL(e.request.url, 'http://github.invalid').pathname : '';
  const credentials = TOKEN_PATH.test(failedUrl) && !TOKEN_PATH.test(route);
  const fallback = typeof e.message === 'string' && e.message ? e.message.slice(0, 300) : String(error);
  const message = (answered ? messageOf((e.response as { data?: unknown }).data) : undefined) ?? fallback;
  return new GitHubApiError(status, route, message, credentials, { cause: error });
}

/** An Octokit plugin: every failed request leaves as a GitHubApiError (register it after retry and throttling). */
export function gitHubErrors(octokit: Octokit): Record<string, never> {
  octokit.hook.error('request', (error, options) => {
    throw toGitHubApiError(error, options as { method?: string; url?: string; baseUrl?: string });
  });
  return {};
}

/** `undefined` when GitHub says the thing asked for is not there (404); any other failure as it was. */
export async function unlessAbsent<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (e) {
    if (e instanceof GitHubApiError && e.absent) return undefined;
    throw e;
  }
}

/**
 * What GitHub said when a GraphQL call failed: its `errors` (a refusal comes as an answer with
 * them, HTTP 200), else the error's own message.
 */
export function graphqlRefusal(e: unknown): string {
  const errors = (e as { errors?: Array<{ message?: string }> }).errors;
  return (
    errors
      ?.map((x) => x.message)
      .filter(Boolean)
      .join('; ') || (e as Error).message
  );
}
