// The Octokit policy (adapters/github/octokit.ts) against GitHub's documented rate-limit rules, on
// the action's Octokit with its production waits: GitHub mocked with nock, time faked (setTimeout
// and Date; plugin-throttling and plugin-retry schedule their waits through Bottleneck's
// setTimeout). nock records the fake time each request reached GitHub, so a test reads exactly how
// long a retry waited; the plugin's own judgement (its `retryAfter`) is captured through the
// policy's onRateLimit, and each "not sooner" is shown by advancing to one millisecond before the
// wait ends and seeing no second request.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import nock from 'nock';
import { GitHubApiError } from '../../../adapters/github/errors.ts';
import { createGitHubOctokit, octokitLog, type GitHubPolicy, type RateLimitEvent } from '../../../adapters/github/octokit.ts';
import { rejectionOf } from '../../helpers/errors.ts';
import { silentLogger } from '../../../lib/logger.ts';

const API = 'https://api.github.com';
const REF = '/repos/acme/web/git/ref/heads%2Fmain';
const ROUTE = 'GET /repos/{owner}/{repo}/git/ref/{ref}';
const SHA = 'b'.repeat(40);
const SECONDARY = { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' };

/** Each test starts an hour after the last one began, so the pacing the plugin remembers per key is long past. */
let start = Date.parse('2030-01-01T00:00:00.000Z');
beforeEach(() => {
  nock.disableNetConnect();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime((start += 3_600_000));
});
afterEach(() => {
  vi.useRealTimers();
  nock.cleanAll();
  nock.enableNetConnect();
});

/** Lets the real event loop turn a few times: nock answers on it, outside the fake clock. */
async function turn(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** Moves the fake clock a millisecond at a time until `done()` (the plugins hop through 0-1 ms timers). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !done(); i++) {
    await vi.advanceTimersByTimeAsync(1);
    await turn();
  }
  expect(done()).toBe(true);
}

/** Runs the fake clock timer by timer until the call settles; its answer, or what it failed with. */
async function settle<T>(call: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  let out: { value?: T; error?: unknown } | undefined;
  call.then(
    (value) => (out = { value }),
    (error: unknown) => (out = { error }),
  );
  for (let i = 0; i < 2000 && !out; i++) {
    await turn();
    if (!out && vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
  }
  if (!out) throw new Error('the call never settled');
  return out;
}

/** One answer of GitHub, the fake time it was asked recorded in `at`. */
const answer =
  (at: number[], status: number, body: unknown, headers: Record<string, string> = {}) =>
  () => (at.push(Date.now()), [status, body, headers] as [number, unknown, Record<string, string>]);

function octokitWith(events: RateLimitEvent[], policy: GitHubPolicy = {}) {
  return createGitHubOctokit({ token: 'ghs_test', log: octokitLog(silentLogger), onRateLimit: (e) => events.push(e), ...policy });
}

const getRef = (octokit: ReturnType<typeof createGitHubOctokit>) => octokit.rest.git.getRef({ owner: 'acme', repo: 'web', ref: 'heads/main' });

describe('rate limits, as GitHub documents them', () => {
  for (const status of [403, 429]) {
    it(`a secondary limit (${status}) with retry-after: 30 is retried 30 s later, not one millisecond sooner`, async () => {
      const events: RateLimitEvent[] = [];
      const at: number[] = [];
      const scope = nock(API)
        .get(REF)
        .reply(answer(at, status, SECONDARY, { 'retry-after': '30' }))
        .get(REF)
        .reply(answer(at, 200, { object: { sha: SHA } }));
      const call = getRef(octokitWith(events));
      await until(() => events.length === 1);
      expect(events[0]).toEqual({ kind: 'secondary', retryAfter: 30, route: ROUTE, retryCount: 0, retrying: true });

      await vi.advanceTimersByTimeAsync(at[0]! + 29_999 - Date.now());
      await turn();
      expect(at).toHaveLength(1);

      const { value } = await settle(call);
      expect(value?.data.object.sha).toBe(SHA);
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(30_000);
      expect(at[1]! - at[0]!).toBeLessThan(30_100);
      scope.done();
    });
  }

  it('a spent primary limit (x-ratelimit-remaining: 0) is retried only after x-ratelimit-reset', async () => {
    const events: RateLimitEvent[] = [];
    const at: number[] = [];
    const reset = Math.floor(Date.now() / 1000) + 42;
    const spent = { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) };
    const scope = nock(API)
      .get(REF)
      .reply(answer(at, 403, { message: 'API rate limit exceeded for installation ID 2.' }, spent))
      .get(REF)
      .reply(answer(at, 200, { object: { sha: SHA } }));
    const call = getRef(octokitWith(events));
    await until(() => events.length === 1);
    // The seconds left until the reset, and one more so the retry comes after it.
    expect(events[0]).toEqual({ kind: 'primary', retryAfter: 43, route: ROUTE, retryCount: 0, retrying: true });

    await vi.advanceTimersByTimeAsync(reset * 1000 - 1 - Date.now());
    await turn();
    expect(at).toHaveLength(1);

    const { value } = await settle(call);
    expect(value?.data.object.sha).toBe(SHA);
    expect(at[1]!).toBeGreaterThan(reset * 1000);
    scope.done();
  });

  it('a secondary limit without retry-after waits a minute', async () => {
    const events: RateLimitEvent[] = [];
    const at: number[] = [];
    const scope = nock(API)
      .get(REF)
      .reply(answer(at, 403, SECONDARY))
      .get(REF)
      .reply(answer(at, 200, { object: { sha: SHA } }));
    const call = getRef(octokitWith(events));
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ kind: 'secondary', retryAfter: 60, retrying: true });

    await vi.advanceTimersByTimeAsync(at[0]! + 59_999 - Date.now());
    await turn();
    expect(at).toHaveLength(1);

    const { value } = await settle(call);
    expect(value?.data.object.sha).toBe(SHA);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(60_000);
    scope.done();
  });

  it('is retried at most 3 times, then fails with the typed error (plugin-retry does not try a 429 again)', async () => {
    const events: RateLimitEvent[] = [];
    const at: number[] = [];
    const scope = nock(API)
      .get(REF)
      .times(4)
      .reply(answer(at, 429, SECONDARY, { 'retry-after': '5' }));
    const { error } = await settle(getRef(octokitWith(events)));
    expect(error).toBeInstanceOf(GitHubApiError);
    const e = error as GitHubApiError;
    expect({ status: e.status, route: e.route, code: e.code }).toEqual({ status: 429, route: ROUTE, code: 'forge-failed' });
    expect(e.message).toBe(`GitHub ${ROUTE} failed (HTTP 429): ${SECONDARY.message}`);
    expect(events.map((x) => [x.retryCount, x.retrying])).toEqual([
      [0, true],
      [1, true],
      [2, true],
      [3, false],
    ]);
    // Each retry waited out retry-after: 5 s.
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps).toHaveLength(3);
    for (const gap of gaps) expect(gap >= 5000 && gap < 5100, `waited ${gap} ms`).toBe(true);
    scope.done();
  });
});

describe('server errors and the network', () => {
  it('a 5xx is retried with backoff and the call succeeds', async () => {
    const at: number[] = [];
    const scope = nock(API)
      .get(REF)
      .reply(answer(at, 502, 'Bad Gateway'))
      .get(REF)
      .reply(answer(at, 200, { object: { sha: SHA } }));
    const { value } = await settle(getRef(octokitWith([])));
    expect(value?.data.object.sha).toBe(SHA);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(1000);
    scope.done();
  });

  it('repeated 5xx: three retries (after 1, 4 and 9 s), then the typed error naming the route and status', async () => {
    const at: number[] = [];
    const scope = nock(API)
      .get(REF)
      .times(4)
      .reply(answer(at, 500, { message: 'Server Error' }));
    const { error } = await settle(getRef(octokitWith([])));
    const e = error as GitHubApiError;
    expect(e).toBeInstanceOf(GitHubApiError);
    expect(e.message).toBe(`GitHub ${ROUTE} failed (HTTP 500): Server Error`);
    expect(e.status).toBe(500);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    [1000, 4000, 9000].forEach((ms, i) => expect(gaps[i]).toBeGreaterThanOrEqual(ms));
    scope.done();
  });

  it('a network failure is retried, then named as no answer', async () => {
    const scope = nock(API).get(REF).times(4).replyWithError('socket hang up');
    const { error } = await settle(getRef(octokitWith([])));
    const e = error as GitHubApiError;
    expect(e).toBeInstanceOf(GitHubApiError);
    expect(e.status).toBeUndefined();
    expect(e.message).toBe(`GitHub ${ROUTE} failed (no answer): socket hang up`);
    scope.done();
  });
});

describe('content-creating requests', () => {
  const comment = (octokit: ReturnType<typeof createGitHubOctokit>, body: string) =>
    octokit.rest.issues.createComment({ owner: 'acme', repo: 'web', issue_number: 7, body });

  it('are paced: a second comment goes out three seconds after the first', async () => {
    const at: number[] = [];
    const scope = nock(API)
      .post('/repos/acme/web/issues/7/comments')
      .times(2)
      .reply(answer(at, 201, { id: 1, html_url: 'x' }));
    const octokit = octokitWith([]);
    const both = Promise.all([comment(octokit, 'one'), comment(octokit, 'two')]);
    await until(() => at.length === 1);
    // The notification group grants its slots 3 s apart; the first request left a millisecond
    // after its slot (the plugins hop through 1 ms timers), so the gap between requests is 2,999 ms.
    await vi.advanceTimersByTimeAsync(at[0]! + 2_990 - Date.now());
    await turn();
    expect(at).toHaveLength(1);
    await settle(both);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(2_990);
    expect(at[1]! - at[0]!).toBeLessThan(3_100);
    scope.done();
  });

  it('go out at once when pacing is off (tests that do not fake the clock)', async () => {
    const at: number[] = [];
    const scope = nock(API)
      .post('/repos/acme/web/issues/7/comments')
      .times(2)
      .reply(answer(at, 201, { id: 1, html_url: 'x' }));
    const octokit = octokitWith([], { paceWrites: false });
    const both = Promise.all([comment(octokit, 'one'), comment(octokit, 'two')]);
    await until(() => at.length === 2);
    expect(at[1]! - at[0]!).toBeLessThan(100);
    await settle(both);
    scope.done();
  });
});

describe('the typed error', () => {
  it("carries GitHub's own reason for a 422", async () => {
    const scope = nock(API)
      .post('/repos/acme/web/pulls')
      .reply(422, {
        message: 'Validation Failed',
        errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for acme:conveyor/web-12.' }],
        documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
      });
    const octokit = octokitWith([]);
    const e = await rejectionOf(
      settle(octokit.rest.pulls.create({ owner: 'acme', repo: 'web', head: 'conveyor/web-12', base: 'main', title: 't' })).then((r) => {
        if (r.error) throw r.error;
      }),
      GitHubApiError,
    );
    expect(e.message).toBe(
      'GitHub POST /repos/{owner}/{repo}/pulls failed (HTTP 422): Validation Failed: A pull request already exists for acme:conveyor/web-12.',
    );
    expect({ status: e.status, route: e.route, code: e.code, absent: e.absent }).toEqual({
      status: 422,
      route: 'POST /repos/{owner}/{repo}/pulls',
      code: 'forge-failed',
      absent: false,
    });
    scope.done();
  });
});
