// A lean REST requester for the app's own GitHub calls. Octokit's request path (hooks, endpoint
// parsing, plugins, logging) costs ~45 µs of CPU per call even when GitHub answers at once, which
// is most of a webhook's cost when it makes four or five calls; this one builds the URL itself,
// sends JSON and parses JSON (~10 µs). It is taken from an installation's Octokit so everything
// that configures GitHub stays in one place: the base URL (GitHub Enterprise Server included), the
// user agent, the `fetch` it was given (else the global one, looked up per call so interceptors
// such as nock see it) and the authorization its auth hook gives (read again every 30 s).
//
// Errors carry what retry.ts reads from Octokit's: `status`, `message` (GitHub's own) and
// `response.headers`. It does not go through Octokit's plugins (Probot's throttling and retry):
// retrying, and waiting out rate limits (retry-after, a spent quota), is retry.ts's job.
import type { ProbotOctokit } from 'probot';

/** An installation's Octokit, as Probot makes it. */
export type Octokit = InstanceType<typeof ProbotOctokit>;
type Fetch = typeof globalThis.fetch;
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RestResponse<T> {
  status: number;
  /** Copied for failures only (what retry.ts reads: retry-after, x-ratelimit-remaining). */
  headers: Record<string, string>;
  data: T;
}

export interface RestRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** The caller needs no answer: a successful one's body is let go unread (an error's is still read). */
  discard?: boolean;
}

/** An HTTP answer of 400 or more (or 304), shaped as Octokit's RequestError is where it matters. */
export class GitHubHttpError extends Error {
  override readonly name = 'GitHubHttpError';
  constructor(
    message: string,
    readonly status: number,
    readonly request: { method: string; url: string },
    readonly response: RestResponse<unknown>,
  ) {
    super(message);
  }
}

/**
 * The installation's credentials could not be had (asking for its token failed): the call itself
 * got no answer, so a 404 here is a missing installation, never a missing thing the call asked for.
 * It keeps the failed ask's status and headers, which retry.ts reads (none: the network).
 */
export class GitHubCredentialsError extends Error {
  override readonly name = 'GitHubCredentialsError';
  readonly status: number | undefined;
  readonly response: { headers: Record<string, string | undefined> } | undefined;
  constructor(cause: unknown) {
    const e = cause as { status?: unknown; message?: unknown; response?: { headers?: Record<string, string | undefined> } } | undefined;
    super(`the installation's credentials could not be had: ${String(e?.message ?? cause)}`, { cause });
    this.status = typeof e?.status === 'number' ? e.status : undefined;
    this.response = e?.response?.headers ? { headers: e.response.headers } : undefined;
  }
}

export interface Token {
  /** The Authorization header's value (`token ghs_...`). */
  authorization: string;
  /** Used until then (ms since the epoch), then asked for again. */
  until: number;
}

export interface RestOptions {
  baseUrl: string;
  userAgent: string;
  /** Undefined: the global fetch, read at each call. */
  fetch?: Fetch;
  /** The installation's credentials, asked for again when they are due or were refused. */
  token(): Promise<Token>;
  /** ms since the epoch (tests move it). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** How long a refused call waits before its one more try with credentials read anew. */
export const REFUSED_WAIT_MS = 1000;

/** As Octokit encodes a path parameter: encodeURIComponent, and !'()* too. */
export function enc(value: string | number): string {
  return encodeURIComponent(String(value)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function errorMessage(data: unknown, statusText: string): string {
  if (typeof data === 'string') return data || statusText;
  if (data && typeof data === 'object' && 'message' in data) {
    const d = data as { message: unknown; errors?: unknown; documentation_url?: unknown };
    const suffix = d.documentation_url !== undefined ? ` - ${String(d.documentation_url)}` : '';
    return Array.isArray(d.errors) ? `${String(d.message)}: ${d.errors.map((v) => JSON.stringify(v)).join(', ')}${suffix}` : `${String(d.message)}${suffix}`;
  }
  return `Unknown error: ${JSON.stringify(data)}`;
}

export class GitHubRest {
  private readonly baseUrl: string;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private cached: { token: Promise<Token>; until: number } | undefined;

  constructor(private readonly options: RestOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  }

  /** The installation's credentials, shared by concurrent calls and asked for again when due. */
  private token(): Promise<Token> {
    const c = this.cached;
    if (c && this.now() < c.until) return c.token;
    const token = this.options.token().catch((e: unknown) => {
      throw new GitHubCredentialsError(e);
    });
    // Until it is known, concurrent calls wait for this one; a failed ask is not kept.
    const entry = { token, until: Number.POSITIVE_INFINITY };
    this.cached = entry;
    token.then(
      (t) => void (entry.until = t.until),
      () => {
        if (this.cached === entry) this.cached = undefined;
      },
    );
    return token;
  }

  async request<T>(method: Method, path: string, req: RestRequest = {}): Promise<RestResponse<T>> {
    let url = this.baseUrl + path;
    if (req.query) {
      const parts: string[] = [];
      for (const [k, v] of Object.entries(req.query)) if (v !== undefined) parts.push(`${k}=${encodeURIComponent(String(v))}`);
      if (parts.length > 0) url += `?${parts.join('&')}`;
    }
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const discard = req.discard === true;
    let res = await this.send<T>(method, url, body, await this.token(), discard);
    if (res.status === 401) {
      // A token minted a moment ago may not have reached every GitHub server yet (Octokit's app
      // auth retries those too): one more try, a second later, with the credentials read anew
      // (Octokit's auth usually hands back the same token: it drops one only when it expires).
      this.cached = undefined;
      await this.sleep(REFUSED_WAIT_MS);
      res = await this.send<T>(method, url, body, await this.token(), discard);
      if (res.status === 401) this.cached = undefined;
    }
    return this.settle(method, url, res);
  }

  private async send<T>(method: Method, url: string, body: string | undefined, token: Token, discard: boolean): Promise<RestResponse<T> & { statusText: string }> {
    const headers: Record<string, string> = {
      accept: 'application/vnd.github.v3+json',
      'user-agent': this.options.userAgent,
      authorization: token.authorization,
    };
    if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    const fetch = this.options.fetch ?? globalThis.fetch;
    // A network failure propagates without a status: retry.ts treats it as retryable.
    const res = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    // The headers are copied only for a failure (retry.ts reads them); an answer needs none.
    const failed = res.status >= 400 || res.status === 304;
    const out: Record<string, string> = {};
    if (failed) res.headers.forEach((v, k) => (out[k] = v));
    let data: unknown = undefined;
    // Cancelling frees the connection without reading what nobody will look at.
    if (discard && !failed) await res.body?.cancel();
    else if (res.status !== 204 && res.status !== 205) {
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      if (/^application\/(?:[\w.+-]*\+)?json\b/i.test(type) && text !== '') {
        try {
          data = JSON.parse(text);
        } catch {
          data = text;
        }
      } else data = text;
    }
    return { status: res.status, statusText: res.statusText, headers: out, data: data as T };
  }

  private settle<T>(method: Method, url: string, res: RestResponse<T> & { statusText: string }): RestResponse<T> {
    const { statusText, ...response } = res;
    if (res.status >= 400 || res.status === 304) {
      throw new GitHubHttpError(res.status === 304 ? 'Not modified' : errorMessage(res.data, statusText), res.status, { method, url }, response);
    }
    return response;
  }
}

/** How long a token read from the Octokit is used before it is read again (its auth caches tokens
 * for 59 of their 60 minutes, so a token held this long past that read is still valid). */
export const TOKEN_HOLD_MS = 30_000;

/**
 * The requester of an installation's Octokit: its base URL, user agent and fetch, and the
 * authorization its own auth hook would put on a request. That header is read by sending one
 * request through the Octokit whose fetch, given for that request alone, answers at once without
 * the network: the auth hook mints or reuses the installation token exactly as for any call
 * (against the Octokit's base URL and fetch, which `octokit.auth()` called directly does not use).
 */
export function restOf(octokit: Octokit, options: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {}): GitHubRest {
  const now = options.now ?? Date.now;
  const defaults = octokit.request.endpoint.DEFAULTS;
  const fetch = (defaults.request as { fetch?: Fetch } | undefined)?.fetch;
  return new GitHubRest({
    baseUrl: defaults.baseUrl,
    userAgent: String(defaults.headers['user-agent'] ?? 'conveyor'),
    ...(fetch ? { fetch } : {}),
    now,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    async token() {
      let authorization: string | undefined;
      const capture: Fetch = async (_url, init) => {
        authorization = new Headers(init?.headers).get('authorization') ?? undefined;
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      };
      await octokit.request('GET /', { request: { fetch: capture } });
      if (!authorization) throw new Error('the GitHub client has no credentials (is the app authenticated as an installation?)');
      return { authorization, until: now() + TOKEN_HOLD_MS };
    },
  });
}
