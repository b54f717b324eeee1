// The action's side of the token exchange, against the app's real token broker on 127.0.0.1: the
// runner's ID token endpoint (ACTIONS_ID_TOKEN_REQUEST_URL/_TOKEN, read by @actions/core) hands
// out real signed tokens, the broker verifies them and mints through Probot, GitHub's token
// endpoint is nock. Token lifetimes are short here (or the source's clock is moved on), so a
// renewal happens and its token is the one used; a renewal the app refuses stops the attempt with
// a typed error.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { appUrlOf, startTokenSource, TokenExchangeError, type AttemptIdentity, type TokenSourceOptions } from '../../action/src/oidc-token.ts';
import type { AttemptFacts } from '../../app/token-broker.ts';
import { ConveyorError } from '../../core/errors.ts';
import { CODE_PERMISSIONS, startBroker, tokenEndpoint, type Broker } from '../helpers/broker.ts';
import { jobClaims, startIssuer, type TestIssuer } from '../helpers/oidc.ts';
import { INSTALLATION } from '../app/harness.ts';

const ATTEMPT: AttemptIdentity = { runId: 'acme-web-7', step: 'implement', attempt: 1, epoch: 0, mode: 'run' };
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
    const tokens = await source({ now: Date.now, log: (line) => line.includes('renewed the installation token') && renewed() });
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

describe("the app's URL", () => {
  it('comes from CONVEYOR_PUBLIC_URL first, else from the payload; tokens never travel in the clear', () => {
    const payload = { app: { url: 'https://conveyor.example.com/' } };
    expect(appUrlOf({}, payload)).toBe('https://conveyor.example.com');
    expect(appUrlOf({ CONVEYOR_PUBLIC_URL: 'https://pinned.example.com' }, payload)).toBe('https://pinned.example.com');
    expect(appUrlOf({}, {})).toBeUndefined();
    expect(appUrlOf({}, { app: { url: 'http://127.0.0.1:3000' } })).toBe('http://127.0.0.1:3000');
    expect(() => appUrlOf({ CONVEYOR_PUBLIC_URL: 'http://conveyor.example.com' }, payload)).toThrow(ConveyorError);
    expect(() => appUrlOf({ CONVEYOR_PUBLIC_URL: 'http://conveyor.example.com' }, payload)).toThrow(
      /CONVEYOR_PUBLIC_URL \(http:\/\/conveyor\.example\.com\) must use https/,
    );
  });
});
