// The step's installation token from the app, without any key in the workflow: the runner gives
// the job an OIDC token (`permissions: id-token: write`, audience `conveyor`), the app's token
// broker (`POST <app>/conveyor/token`) checks it came from the job the app started for this
// attempt and answers with an installation token scoped to the change set (app/token-broker.ts).
//
// Where the app is comes from the workflow alone (the input `app-url`, or CONVEYOR_PUBLIC_URL from
// a repository or organisation variable), never from the payload: anyone who may dispatch the
// workflow writes the payload, and the OIDC token is as good as the installation token to whoever
// receives it.
//
// The token lives an hour; an attempt may run six. So the source renews it before it expires
// (5 minutes before, by default) for as long as the attempt runs: when asked for it and by a timer
// of its own. The app refuses a renewal once the attempt is no longer current: then the attempt
// must stop (`onStopped`), and every later ask fails with the same typed error. An answer of "not
// now" (425: the app is still recording the dispatch; 429: too many refusals in the repository)
// is no refusal: the first exchange asks again a few times, a renewal keeps the token it holds.
import * as core from '@actions/core';
import { ConveyorError, type ErrorCode } from '../../core/errors.ts';
import {
  OIDC_AUDIENCE,
  TOKEN_EXCHANGE_PATH,
  tokenGrantSchema,
  tokenRefusalSchema,
  tokenUrlProblem,
  type TokenGrant,
  type TokenRequest,
} from '../../core/contract/token-exchange.ts';
import type { AttemptRef } from '../../core/contract/attempt-ref.ts';
import { silentLogger, type Logger } from '../../lib/logger.ts';

/** The app's "not now": the dispatch is still being recorded (425), or the repository had too many refusals lately (429). */
const NOT_NOW = new Set([425, 429]);

/** The exchange failed: `reason` is the app's code (or what failed before it answered), `status` its HTTP status when it answered. */
export class TokenExchangeError extends ConveyorError {
  readonly status: number | undefined;
  /** How long the app asked to wait before asking again (its Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  constructor(
    readonly reason: string,
    message: string,
    options: { status?: number; code?: ErrorCode; retryAfterMs?: number } = {},
  ) {
    const { status } = options;
    // The app judged the attempt retired: the step is stale. Another refusal is the workflow's
    // setup (its branch, its permissions); no answer at all, or "not now", is the app's or the network's.
    const refusal = status !== undefined && status < 500 && !NOT_NOW.has(status);
    super(options.code ?? (status === 409 ? 'stale-attempt' : refusal ? 'bad-input' : 'forge-failed'), message);
    this.name = 'TokenExchangeError';
    this.status = status;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** A refusal stands (asking again gets the same answer); no answer, a 5xx, or "not now" may pass. */
  get refused(): boolean {
    return this.status !== undefined && this.status < 500 && !NOT_NOW.has(this.status);
  }

  /** The app said "not now" (425, 429): worth asking again after a while. */
  get notNow(): boolean {
    return this.status !== undefined && NOT_NOW.has(this.status);
  }
}

/**
 * Where the app is, as the workflow says: the input `app-url`, else CONVEYOR_PUBLIC_URL in the
 * step's environment (the template fills it from the repository or organisation variable);
 * undefined when neither says. Never an address from the payload (the app sends none): whoever
 * may dispatch the workflow writes the payload. Throws a ConveyorError for a URL tokens must not travel to.
 */
export function appUrlOf(env: NodeJS.ProcessEnv, getInput: (name: string) => string = () => ''): string | undefined {
  const input = getInput('app-url').trim();
  const [url, from] = input ? [input, 'the input `app-url`'] : [env.CONVEYOR_PUBLIC_URL?.trim() ?? '', 'CONVEYOR_PUBLIC_URL'];
  if (!url) return undefined;
  const problem = tokenUrlProblem(url);
  if (problem)
    throw new ConveyorError('bad-input', `${from} (${url}) ${problem}: the OIDC token is sent there, so it must be the Conveyor app's public https URL`);
  return url.replace(/\/+$/, '');
}

/** Why a step on GitHub cannot trade its OIDC token: the workflow names no app. */
export function noAppUrl(): ConveyorError {
  return new ConveyorError(
    'bad-input',
    "CONVEYOR_PUBLIC_URL is not set, so the action does not know where the Conveyor app is and sends the runner's OIDC token nowhere: " +
      "set a repository or organisation variable CONVEYOR_PUBLIC_URL to the app's public https URL (Settings → Secrets and variables → Actions → Variables; " +
      '`gh variable set CONVEYOR_PUBLIC_URL --body https://conveyor.example.com`), which the workflow passes as `env: CONVEYOR_PUBLIC_URL: ${{ vars.CONVEYOR_PUBLIC_URL }}` ' +
      '(see workflows/conveyor.yml), or give the action the input `app-url`. The payload cannot say where: anyone who may dispatch the workflow writes it',
  );
}

export interface TokenSourceOptions {
  /** The app's public URL (appUrlOf). */
  appUrl: string;
  /** The attempt the token is for: the app gives one only to the workflow run it dispatched for it. */
  attempt: AttemptRef;
  /** The runner's OIDC token for an audience (default @actions/core's getIDToken). */
  getIdToken?: (audience: string) => Promise<string>;
  /** Milliseconds before expiry at which the token is renewed (default 5 minutes). */
  renewBeforeMs?: number;
  now?: () => number;
  /** Each token as it arrives (the first and every renewal): to mask it in logs and scrub it from output. */
  onToken?: (token: string) => void;
  /** The app refused a renewal: the attempt must stop. Called once. */
  onStopped?: (error: TokenExchangeError) => void;
  log?: Logger;
  /** Waits between the first exchange's tries after a "not now" (tests record them instead). */
  sleep?: (ms: number) => Promise<void>;
}

/** The installation token of the attempt, renewed while the attempt runs. */
export interface InstallationTokenSource {
  /** A token valid for a while yet (renewed first when due); rejects once the app refused. */
  current(): Promise<string>;
  /** When the current token expires (ms since the epoch). */
  expiresAt(): number;
  /** Stops renewing (the attempt is done). */
  close(): void;
}

const FIVE_MINUTES = 5 * 60_000;
/** A token with less than this left is not handed out when renewing it failed. */
const LAST_MINUTE = 60_000;
/** After a renewal that got no answer, the timer tries again this much later. */
const RETRY_MS = 30_000;
/**
 * The first exchange's waits after a "not now", each at least what the app asked (its
 * Retry-After), at most 30 s: about half a minute in all when the app asks for 2 s, which is far
 * longer than the app takes to record a dispatch, and then the step fails saying why.
 */
const NOT_NOW_BACKOFF_MS = [1_000, 2_000, 4_000, 8_000, 16_000];
const NOT_NOW_MAX_MS = 30_000;

async function askRunner(getIdToken: (audience: string) => Promise<string>): Promise<string> {
  try {
    return await getIdToken(OIDC_AUDIENCE);
  } catch (e) {
    throw new TokenExchangeError(
      'no-oidc-token',
      `the runner gives this job no OIDC token (${(e as Error).message}); the workflow must grant \`permissions: id-token: write\` (see workflows/conveyor.yml)`,
      { code: 'bad-input' },
    );
  }
}

/** One exchange at the app: the grant, or a TokenExchangeError saying why not. */
async function exchange(url: string, body: TokenRequest): Promise<TokenGrant> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (e) {
    throw new TokenExchangeError('unreachable', `cannot reach the Conveyor app at ${url}: ${(e as Error).message}`);
  }
  const json: unknown = await response.json().catch(() => undefined);
  if (response.ok) {
    const grant = tokenGrantSchema.safeParse(json);
    if (grant.success) return grant.data;
    throw new TokenExchangeError('bad-answer', `the Conveyor app at ${url} answered ${response.status} without a token`, { status: 502 });
  }
  const refusal = tokenRefusalSchema.safeParse(json);
  const [reason, message] = refusal.success ? [refusal.data.error, refusal.data.message] : ['http-error', `HTTP ${response.status}`];
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new TokenExchangeError(reason, `the Conveyor app refused the installation token (${response.status} ${reason}): ${message}`, {
    status: response.status,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
  });
}

/** Exchanges the runner's OIDC token for the attempt's first installation token, then keeps it fresh. */
export async function startTokenSource(options: TokenSourceOptions): Promise<InstallationTokenSource> {
  const url = `${options.appUrl.replace(/\/+$/, '')}${TOKEN_EXCHANGE_PATH}`;
  const getIdToken = options.getIdToken ?? ((audience: string) => core.getIDToken(audience));
  const renewBefore = options.renewBeforeMs ?? FIVE_MINUTES;
  const now = options.now ?? Date.now;
  const log = options.log ?? silentLogger;

  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const fetchGrant = async () => {
    const grant = await exchange(url, { token: await askRunner(getIdToken), ...options.attempt });
    options.onToken?.(grant.token);
    return { token: grant.token, expiresAt: Date.parse(grant.expires_at) };
  };

  /** The first grant: a "not now" is asked again a bounded number of times, each wait longer. */
  const firstGrant = async () => {
    for (let tried = 0; ; tried++) {
      try {
        return await fetchGrant();
      } catch (e) {
        const backoff = NOT_NOW_BACKOFF_MS[tried];
        if (!(e instanceof TokenExchangeError) || !e.notNow || backoff === undefined) throw e;
        const wait = Math.min(NOT_NOW_MAX_MS, Math.max(backoff, e.retryAfterMs ?? 0));
        log.info(`${e.message}; asking again in ${Math.round(wait / 1000)} s`);
        await sleep(wait);
      }
    }
  };

  let held = await firstGrant();
  let stopped: TokenExchangeError | undefined;
  let renewing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const stop = (e: TokenExchangeError) => {
    if (stopped) return;
    stopped = e;
    if (timer) clearTimeout(timer);
    log.error(`${e.message}; the attempt stops`);
    options.onStopped?.(e);
  };

  /** Renews once (concurrent asks share it); a refusal stops the source, a failure keeps the old token. */
  const renew = (): Promise<void> => {
    renewing ??= fetchGrant()
      .then((grant) => {
        held = grant;
        log.info(`renewed the installation token (valid until ${new Date(grant.expiresAt).toISOString()})`);
        schedule();
      })
      .catch((e: unknown) => {
        if (!(e instanceof TokenExchangeError)) throw e;
        if (e.refused) return stop(e);
        log.warn(`could not renew the installation token yet: ${e.message}`);
        // Tried again soon, while the token held still serves.
        schedule(RETRY_MS);
        throw e;
      })
      .finally(() => {
        renewing = undefined;
      });
    return renewing;
  };

  /** The timer: renews when due (or after `inMs`), unless closed or stopped. It never keeps the process alive. */
  function schedule(inMs = Math.max(0, held.expiresAt - renewBefore - now())): void {
    if (closed || stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void renew().catch(() => undefined), inMs);
    timer.unref();
  }
  schedule();

  return {
    async current() {
      if (stopped) throw stopped;
      if (now() >= held.expiresAt - renewBefore) {
        try {
          await renew();
        } catch (e) {
          // Not renewed, but not refused: the token held serves while it has a minute left.
          if (now() >= held.expiresAt - LAST_MINUTE) throw e;
        }
        if (stopped) throw stopped;
      }
      return held.token;
    },
    expiresAt: () => held.expiresAt,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
