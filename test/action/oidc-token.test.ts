// The action's side of the token exchange, against the app's real token broker on 127.0.0.1: the
// runner's ID token endpoint (ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN, read by @actions/core) hands
// out real signed tokens, the broker verifies them and mints through Probot, GitHub's token
// endpoint is nock. Token lifetimes are short here (or the source's clock is moved on), so a
// renewal happens and its token is the one used; a renewal the app refuses stops the attempt with
// a typed error.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appUrlOf, startTokenSource, TokenExchangeError, type TokenSourceOptions } from '../../action/src/oidc-token.ts';
import type { AttemptRef } from '../../core/contract/attempt-ref.ts';
import { obtainToken } from '../../action/src/token.ts';
import type { AttemptFacts } from '../../app/token-broker.ts';
import { ConveyorError } from '../../core/errors.ts';
import { CODE_PERMISSIONS, startBroker, tokenEndpoint, type Broker } from '../helpers/broker.ts';
import { jobClaims, startIssuer, type TestIssuer } from '../helpers/oidc.ts';
import { INSTALLATION } from '../app/harness.ts';
import { makePayload } from '../helpers/payload.ts';
import { lineLogger, silentLogger } from '../../lib/logger.ts';

const ATTEMPT: AttemptRef = { runId: 'acme-web-7', step: 'implement', attempt: 1, epoch: 0, mode: 'run' };
const MINUTE = 60_000;

let issuer: TestIssuer;
let broker: Broker;
let facts: AttemptFacts;
let clock: number;
const saved = { url: process.env.ACTIONS_ID_TOKEN_REQUEST_URL, token: process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN };

beforeAll(async () => {
  issuer = await startIssuer();
  broker = await startBroker(issuer, { lookup: async () => facts });
});
afterAll(async () => {
  await broker.close();
  await issuer.close();
});

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  facts = {
    current: true,
    repo: 'acme/web',
    defaultBranch: 'main',
    dispatch: 'dispatched',
    workflowRunId: 9001,
    installationId: INSTALLATION,
    repositories: ['acme/web', 'acme/api'],
    stepKind: 'code',
  };
  issuer.runnerClaims = () => jobClaims();
  issuer.idTokenAudiences.length = 0;
  clock = Date.now();
  process.env.ACTIONS_ID_TOKEN_REQUEST_URL = issuer.idTokenUrl;
  process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN = issuer.idTokenBearer;
  // @actions/core announces each ID token to the runner (`::add-mask::`, `::debug::`): not this test's output.
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) =>
    String(chunk).startsWith('::') ? true : write(chunk, ...rest)) as typeof process.stdout.write);
});
afterEach(() => {
  vi.restoreAllMocks();
  nock.cleanAll();
  nock.enableNetConnect();
  for (const [name, value] of [
    ['ACTIONS_ID_TOKEN_REQUEST_URL', saved.url],
    ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', saved.token],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** GitHub minting the attempt's tokens, in order: each with its token and lifetime from now. */
function grants(...tokens: Array<[token: string, lifetimeMs: number]>): nock.Scope[] {
  return tokens.map(([token, lifetime]) => tokenEndpoint(['web', 'api'], CODE_PERMISSIONS, { token, expires_at: new Date(clock + lifetime).toISOString() }));
}

function source(over: Partial<TokenSourceOptions> = {}) {
  return startTokenSource({ appUrl: broker.base, attempt: ATTEMPT, now: () => clock, ...over });
}

const expectDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

/** A server on 127.0.0.1 that answers 200 to anything and keeps what it was asked (a payload's app.url). */
async function listening(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

describe('the token source', () => {
  it("exchanges the runner's OIDC token (audience conveyor), and renews the token when it is asked for it near its expiry", async () => {
    const scopes = grants(['ghs_first', 60 * MINUTE], ['ghs_second', 120 * MINUTE]);
    const seen: string[] = [];
    const tokens = await source({ onToken: (t) => seen.push(t) });
    try {
      expect(await tokens.current()).toBe('ghs_first');
      clock += 54 * MINUTE;
      expect(await tokens.current()).toBe('ghs_first');
      // Five minutes before it expires: renewed first.
      clock += 1 * MINUTE;
      expect(await tokens.current()).toBe('ghs_second');
      expect(tokens.expiresAt()).toBe(Date.parse(new Date(clock - 55 * MINUTE + 120 * MINUTE).toISOString()));
      expect(issuer.idTokenAudiences).toEqual(['conveyor', 'conveyor']);
      // Each token is told as it arrives (to be masked and scrubbed).
      expect(seen).toEqual(['ghs_first', 'ghs_second']);
      expectDone(scopes);
    } finally {
      tokens.close();
    }
  });

  it('renews by itself before the token expires, and the renewed token is the one used', async () => {
    // A first token that expires within the renewal margin: its timer renews at once.
    const scopes = grants(['ghs_short', 2 * MINUTE], ['ghs_renewed', 60 * MINUTE]);
    let renewed!: () => void;
    const done = new Promise<void>((resolve) => (renewed = resolve));
    const tokens = await source({ now: Date.now, log: lineLogger((_level, line) => line.includes('renewed the installation token') && renewed()) });
    try {
      await done;
      expectDone(scopes);
      // No further exchange (nock has none left): the token renewed by the timer is handed out.
      expect(await tokens.current()).toBe('ghs_renewed');
    } finally {
      tokens.close();
    }
  });

  it('stops the attempt when the app refuses a renewal: the attempt is no longer current', async () => {
    const scopes = grants(['ghs_first', 60 * MINUTE]);
    const stopped: TokenExchangeError[] = [];
    const tokens = await source({ onStopped: (e) => stopped.push(e) });
    try {
      expect(await tokens.current()).toBe('ghs_first');
      facts = { ...facts, current: false };
      clock += 56 * MINUTE;
      const refusal = await tokens.current().catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(TokenExchangeError);
      expect(refusal).toMatchObject({
        code: 'stale-attempt',
        status: 409,
        reason: 'attempt-retired',
        message: expect.stringMatching(/refused the installation token \(409 attempt-retired\): .*no longer current/),
      });
      expect(stopped).toEqual([refusal]);
      // Every later ask fails the same way, without asking the app again.
      await expect(tokens.current()).rejects.toBe(refusal);
      expectDone(scopes);
    } finally {
      tokens.close();
    }
  });

  it("stops the attempt by itself when its timer's renewal is refused", async () => {
    const scopes = grants(['ghs_short', 2 * MINUTE]);
    let stop!: (e: TokenExchangeError) => void;
    const stopped = new Promise<TokenExchangeError>((resolve) => (stop = resolve));
    // Retired as soon as its first token is out; the timer's renewal (due at once) is refused.
    const tokens = await source({ now: Date.now, onStopped: (e) => stop(e) }).finally(() => (facts = { ...facts, current: false }));
    try {
      expect((await stopped).code).toBe('stale-attempt');
      await expect(tokens.current()).rejects.toMatchObject({ reason: 'attempt-retired' });
      expectDone(scopes);
    } finally {
      tokens.close();
    }
  });

  it('fails to start with what the app refused: a workflow on another branch gets nothing', async () => {
    issuer.runnerClaims = () => jobClaims({ workflow_ref: 'acme/web/.github/workflows/conveyor.yml@refs/heads/feature' });
    const refusal = await source().catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TokenExchangeError);
    expect(refusal).toMatchObject({
      code: 'bad-input',
      status: 403,
      reason: 'workflow-mismatch',
      message: expect.stringContaining('conveyor.yml@refs/heads/feature'),
    });
  });

  it('says what the workflow lacks when the runner gives no OIDC token (no id-token: write)', async () => {
    delete process.env.ACTIONS_ID_TOKEN_REQUEST_URL;
    delete process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
    const refusal = await source().catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: 'bad-input', reason: 'no-oidc-token', message: expect.stringContaining('`permissions: id-token: write`') });
  });

  it('keeps using a token with time left when the app cannot be reached to renew it, and fails once it is nearly out', async () => {
    const own = await startBroker(issuer, { lookup: async () => facts });
    const scopes = grants(['ghs_first', 60 * MINUTE]);
    const tokens = await source({ appUrl: own.base });
    try {
      await own.close();
      clock += 56 * MINUTE;
      expect(await tokens.current()).toBe('ghs_first');
      clock += 3.5 * MINUTE;
      await expect(tokens.current()).rejects.toMatchObject({ code: 'forge-failed', reason: 'unreachable' });
      expectDone(scopes);
    } finally {
      tokens.close();
    }
  });
});

describe('an answer of "not now"', () => {
  it('asks again, a bounded number of times with growing waits, while the dispatch is under way (425); then takes the token', async () => {
    let asked = 0;
    const own = await startBroker(issuer, {
      lookup: async () => ({ ...facts, ...(++asked <= 2 ? { dispatch: 'creating-check' as const, workflowRunId: undefined } : {}) }),
    });
    const waits: number[] = [];
    const scopes = grants(['ghs_first', 60 * MINUTE]);
    const tokens = await source({ appUrl: own.base, sleep: async (ms) => void waits.push(ms) });
    try {
      expect(await tokens.current()).toBe('ghs_first');
      // The app's Retry-After (2 s) or the backoff, whichever is longer.
      expect(waits).toEqual([2000, 2000]);
      expectDone(scopes);
    } finally {
      tokens.close();
      await own.close();
    }
  });

  it('fails with the reason once the tries are spent', async () => {
    facts = { ...facts, dispatch: 'creating-check', workflowRunId: undefined };
    const waits: number[] = [];
    const refusal = await source({ sleep: async (ms) => void waits.push(ms) }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TokenExchangeError);
    expect(refusal).toMatchObject({ status: 425, reason: 'dispatch-under-way', message: expect.stringContaining('still being dispatched') });
    expect(waits).toEqual([2000, 2000, 4000, 8000, 16000]);
  });

  it('keeps the token it holds when a renewal is answered 429 (too many refusals in the repository), and does not stop', async () => {
    const own = await startBroker(issuer, { lookup: async () => facts }, { refusals: { capacity: 1, refillMs: 60 * MINUTE } });
    const scopes = grants(['ghs_first', 60 * MINUTE]);
    const stopped: unknown[] = [];
    const tokens = await source({ appUrl: own.base, onStopped: (e) => stopped.push(e) });
    try {
      // Someone's own run of the workflow is refused: acme/web is answered 429 for a while.
      const theirs = await issuer.sign(jobClaims({ actor: 'mallory', run_id: '5555' }));
      expect((await own.exchange({ token: theirs, ...ATTEMPT })).status).toBe(403);
      clock += 56 * MINUTE;
      expect(await tokens.current()).toBe('ghs_first');
      expect(own.logged).toContainEqual(expect.stringMatching(/refused \(429 too-many-refusals\)/));
      expect(stopped).toEqual([]);
      expectDone(scopes);
    } finally {
      tokens.close();
      await own.close();
    }
  });
});

describe("the app's URL", () => {
  const inputs = (appUrl: string) => (name: string) => (name === 'app-url' ? appUrl : '');

  it('comes from the workflow alone (the input `app-url`, else CONVEYOR_PUBLIC_URL), never from the payload; tokens never travel in the clear', () => {
    expect(appUrlOf({ CONVEYOR_PUBLIC_URL: 'https://pinned.example.com/' }, inputs(''))).toBe('https://pinned.example.com');
    expect(appUrlOf({ CONVEYOR_PUBLIC_URL: 'https://pinned.example.com' }, inputs('https://given.example.com'))).toBe('https://given.example.com');
    // An unset repository variable reaches the step as an empty string.
    expect(appUrlOf({ CONVEYOR_PUBLIC_URL: '' }, inputs(''))).toBeUndefined();
    expect(appUrlOf({ CONVEYOR_PUBLIC_URL: 'http://127.0.0.1:3000' }, inputs(''))).toBe('http://127.0.0.1:3000');
    expect(() => appUrlOf({ CONVEYOR_PUBLIC_URL: 'http://conveyor.example.com' }, inputs(''))).toThrow(ConveyorError);
    expect(() => appUrlOf({ CONVEYOR_PUBLIC_URL: 'http://conveyor.example.com' }, inputs(''))).toThrow(
      /CONVEYOR_PUBLIC_URL \(http:\/\/conveyor\.example\.com\) must use https/,
    );
    expect(() => appUrlOf({}, inputs('ftp://conveyor.example.com'))).toThrow(/the input `app-url` \(ftp:\/\/conveyor\.example\.com\) must use https/);
  });

  it("sends the runner's OIDC token nowhere a payload names: without CONVEYOR_PUBLIC_URL the step fails saying how to set it", async () => {
    const attacker = await listening();
    try {
      const payload = { ...makePayload({ repos: [{ repo: 'acme/web' }] }), app: { url: attacker.url } };
      const error = await obtainToken({
        env: { CONVEYOR_CHECK_RUN_ID: '77', CONVEYOR_PUBLIC_URL: '' },
        getInput: () => '',
        payload,
        log: silentLogger,
        stopped: () => undefined,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConveyorError);
      expect(error).toMatchObject({ code: 'bad-input' });
      const message = (error as Error).message;
      expect(message).toMatch(/CONVEYOR_PUBLIC_URL is not set/);
      expect(message).toMatch(/repository or organisation variable CONVEYOR_PUBLIC_URL/);
      expect(message).not.toMatch(/id-token/);
      // The runner was not even asked for a token, and the payload's server heard nothing.
      expect(issuer.idTokenAudiences).toEqual([]);
      expect(attacker.requests).toEqual([]);
    } finally {
      await attacker.close();
    }
  });
});
