// The app's GitHub calls through a real installation Octokit, GitHub mocked with nock: what a retry
// can fix (server errors, rate limits) is tried again with backoff or after GitHub's retry-after;
// anything else fails at once, with a message naming the call; a missing collaborator is `none`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { ConveyorError } from '../../../core/errors.ts';
import { GitHubClient } from '../../../adapters/github/client.ts';
import { API, createHarness, INSTALLATION, tokenScope, type Harness } from '../../app/harness.ts';
import { rejectionOf } from '../../helpers/errors.ts';

let h: Harness;
let sleeps: number[];
let client: GitHubClient;
beforeEach(async () => {
  nock.disableNetConnect();
  h = createHarness();
  tokenScope();
  sleeps = [];
  client = new GitHubClient(await h.probot.auth(INSTALLATION), { sleep: async (ms) => void sleeps.push(ms) });
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  h.close();
});

const REF = '/repos/acme/web/git/ref/heads%2Fmain';
const ok = { object: { sha: 'b'.repeat(40) } };

const failure = (p: Promise<unknown>) => rejectionOf(p, ConveyorError);

describe('retries', () => {
  it('tries a server error again with exponential backoff', async () => {
    const scope = nock(API).get(REF).reply(502, { message: 'Bad Gateway' }).get(REF).reply(503, { message: 'Unavailable' }).get(REF).reply(200, ok);
    expect(await client.branchHead('acme/web', 'main')).toBe('b'.repeat(40));
    expect(scope.isDone()).toBe(true);
    expect(sleeps).toEqual([500, 1000]);
  });

  it('waits as long as a rate limit asks (403 with no quota left, or 429)', async () => {
    const scope = nock(API)
      .get(REF)
      .reply(403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'retry-after': '7' })
      .get(REF)
      .reply(429, { message: 'Too many requests' })
      .get(REF)
      .reply(200, ok);
    expect(await client.branchHead('acme/web', 'main')).toBe('b'.repeat(40));
    expect(scope.isDone()).toBe(true);
    expect(sleeps).toEqual([7000, 1000]);
  });

  it('gives up after 3 retries, saying how many tries and the status', async () => {
    const scope = nock(API).get(REF).times(4).reply(500, { message: 'Server Error' });
    const e = await failure(client.branchHead('acme/web', 'main'));
    expect(scope.isDone()).toBe(true);
    expect(e.code).toBe('forge-failed');
    expect(e.message).toMatch(/^GitHub reading the head of acme\/web:main failed after 4 tries \(HTTP 500\): Server Error/);
    expect(sleeps).toEqual([500, 1000, 2000]);
  });

  it('fails at once on what a retry cannot fix: not found, refused permission, invalid request', async () => {
    for (const [status, message] of [
      [404, 'Not Found'],
      [403, 'Resource not accessible by integration'],
      [422, 'Validation Failed'],
    ] as const) {
      const scope = nock(API).get(REF).reply(status, { message });
      const e = await failure(client.branchHead('acme/web', 'main'));
      expect(scope.isDone()).toBe(true);
      expect(e.message).toMatch(new RegExp(`^GitHub reading the head of acme/web:main failed \\(HTTP ${status}\\): ${message}`));
    }
    expect(sleeps).toEqual([]);
  });
});

describe('reads', () => {
  it('a user who is no collaborator has permission none; a missing file is undefined', async () => {
    const scopes = [
      nock(API).get('/repos/acme/web/collaborators/stranger/permission').reply(404, { message: 'Not Found' }),
      nock(API).get('/repos/acme/web/contents/.github%2Fconveyor.yml').query({ ref: 'main' }).reply(404, { message: 'Not Found' }),
    ];
    expect(await client.permission('acme/web', 'stranger')).toBe('none');
    expect(await client.readFile('acme/web', '.github/conveyor.yml', 'main')).toBeUndefined();
    for (const s of scopes) expect(s.isDone()).toBe(true);
    expect(sleeps).toEqual([]);
  });
});
