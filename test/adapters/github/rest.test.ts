// The app's lean REST requester (rest.ts) at the HTTP boundary, GitHub mocked with nock: it sends
// what Octokit would (the installation token as `token ...`, JSON, the user agent), to GitHub
// Enterprise Server's base URL when Probot is configured for one, through a `fetch` given to the
// Octokit; its errors carry status, GitHub's message and headers, so retries (502, 429 with
// retry-after) and 404s behave as before and a failure names the call.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { Probot, ProbotOctokit } from 'probot';
import { ConveyorError } from '../../../core/errors.ts';
import { GitHubClient } from '../../../adapters/github/client.ts';
import { REFUSED_WAIT_MS, TOKEN_HOLD_MS, enc, restOf, type GitHubHttpError } from '../../../adapters/github/rest.ts';
import { API, INSTALLATION, privateKey } from '../../app/harness.ts';
import { rejectionOf } from '../../helpers/errors.ts';

const GHE = 'https://ghe.example.com';

function probot(options: { baseUrl?: string; fetch?: typeof fetch } = {}): Probot {
  return new Probot({
    appId: 1,
    privateKey,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    Octokit: ProbotOctokit.defaults((o: object) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false }, ...(options.fetch ? { request: { fetch: options.fetch } } : {}) })),
  });
}

const token = (base: string, value: string) =>
  nock(base).post(`${base === API ? '' : '/api/v3'}/app/installations/${INSTALLATION}/access_tokens`).reply(201, { token: value, expires_at: '2099-01-01T00:00:00Z', permissions: {} });

let sleeps: number[];
beforeEach(() => {
  nock.disableNetConnect();
  sleeps = [];
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});
const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};
const failure = (p: Promise<unknown>) => rejectionOf(p, Error);

describe('requests', () => {
  it("sends the installation token, Octokit's headers and a JSON body; reads the JSON answer", async () => {
    const scopes = [
      token(API, 'ghs_one'),
      nock(API, { reqheaders: { authorization: 'token ghs_one', accept: 'application/vnd.github.v3+json', 'content-type': 'application/json; charset=utf-8', 'user-agent': /^probot\// } })
        .patch('/repos/acme/web/check-runs/7', { status: 'in_progress', output: { title: 't', summary: 's' } })
        .reply(200, { id: 7, html_url: 'https://github.com/acme/web/runs/7' }),
      nock(API, { reqheaders: { authorization: 'token ghs_one' }, badheaders: ['content-type'] })
        .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
        .query({ ref: 'main' })
        .reply(200, { type: 'file', encoding: 'base64', content: Buffer.from('version: 1\n').toString('base64') }),
    ];
    const client = new GitHubClient(await probot().auth(INSTALLATION));
    await client.updateCheckRun('acme/web', 7, { status: 'in_progress', output: { title: 't', summary: 's' } });
    expect(await client.readFile('acme/web', '.github/conveyor.yml', 'main')).toBe('version: 1\n');
    allDone(scopes);
  });

  it("goes to GitHub Enterprise Server's API under the configured base URL, token included", async () => {
    const scopes = [
      token(GHE, 'ghs_ghe'),
      nock(GHE, { reqheaders: { authorization: 'token ghs_ghe' } })
        .post('/api/v3/repos/acme/web/actions/workflows/conveyor.yml/dispatches', { ref: 'main', inputs: { payload: '{}' }, return_run_details: true })
        .reply(200, { workflow_run_id: 55, html_url: `${GHE}/acme/web/actions/runs/55` }),
    ];
    const client = new GitHubClient(await probot({ baseUrl: `${GHE}/api/v3` }).auth(INSTALLATION));
    expect(await client.dispatchWorkflow('acme/web', 'conveyor.yml', 'main', { payload: '{}' })).toEqual({ runId: 55, url: `${GHE}/acme/web/actions/runs/55` });
    allDone(scopes);
  });

  it("uses the fetch the Octokit was given, not the global one", async () => {
    const seen: string[] = [];
    const fake: typeof fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      seen.push(`${init?.method ?? 'GET'} ${url} ${new Headers(init?.headers).get('authorization') ?? ''}`);
      if (url.endsWith('/access_tokens')) return Response.json({ token: 'ghs_fake', expires_at: '2099-01-01T00:00:00Z' }, { status: 201 });
      return Response.json({ object: { sha: 'c'.repeat(40) } });
    };
    // nock would refuse anything that reached the global fetch.
    const client = new GitHubClient(await probot({ fetch: fake }).auth(INSTALLATION));
    expect(await client.branchHead('acme/web', 'release/1.0')).toBe('c'.repeat(40));
    expect(seen).toEqual([`POST ${API}/app/installations/${INSTALLATION}/access_tokens bearer ${seen[0]?.split('bearer ')[1] ?? ''}`, `GET ${API}/repos/acme/web/git/ref/heads%2Frelease%2F1.0 token ghs_fake`]);
  });

  it('encodes path parameters as Octokit does', () => {
    expect(enc("a/b c!'()*")).toBe('a%2Fb%20c%21%27%28%29%2A');
  });
});

describe('the token', () => {
  it('is read once for many calls, again after it was held 30 s, and again (with one more try) after GitHub refused it', async () => {
    let now = 1_000_000;
    const octokit = await probot().auth(INSTALLATION);
    const client = new GitHubClient(octokit, { sleep: async (ms) => void sleeps.push(ms) }, restOf(octokit, { now: () => now, sleep: async (ms) => void sleeps.push(ms) }));
    // Each read of the credentials is one request through the Octokit (answered without the
    // network); the first also mints the token (a second request through its hooks).
    let reads = 0;
    octokit.hook.before('request', () => void reads++);
    const head = (auth: string, status = 200) =>
      nock(API, { reqheaders: { authorization: `token ${auth}` } })
        .get('/repos/acme/web/git/ref/heads%2Fmain')
        .reply(status, status === 200 ? { object: { sha: 'b'.repeat(40) } } : { message: 'Bad credentials' });
    // Minted once; Octokit's auth caches it, so later reads of the header need no request.
    const scopes = [token(API, 'ghs_one'), head('ghs_one'), head('ghs_one'), head('ghs_one')];
    await client.branchHead('acme/web', 'main');
    await client.branchHead('acme/web', 'main');
    expect(reads).toBe(2);
    now += TOKEN_HOLD_MS + 1;
    await client.branchHead('acme/web', 'main');
    expect(reads).toBe(3);
    allDone(scopes);

    // Refused once (a token too new for some server): read anew, tried again a second later.
    const once = [head('ghs_one', 401), head('ghs_one')];
    await client.branchHead('acme/web', 'main');
    expect(reads).toBe(4);
    expect(sleeps).toEqual([REFUSED_WAIT_MS]);
    allDone(once);

    // Refused twice (revoked): the call fails, naming it, and the next call reads the credentials anew.
    const refused = [head('ghs_one', 401), head('ghs_one', 401)];
    const e = await failure(client.branchHead('acme/web', 'main'));
    expect(e).toBeInstanceOf(ConveyorError);
    expect(e.message).toBe('GitHub reading the head of acme/web:main failed (HTTP 401): Bad credentials');
    expect((e.cause as GitHubHttpError).status).toBe(401);
    expect(reads).toBe(5);
    allDone(refused);
    const again = head('ghs_one');
    await client.branchHead('acme/web', 'main');
    expect(reads).toBe(6);
    allDone([again]);
    expect(sleeps).toEqual([REFUSED_WAIT_MS, REFUSED_WAIT_MS]);
  });
});

describe('the token, asked for by many calls at once or refused', () => {
  it('is read once for calls made together', async () => {
    const octokit = await probot().auth(INSTALLATION);
    const client = new GitHubClient(octokit);
    let reads = 0;
    octokit.hook.before('request', () => void reads++);
    const scopes = [token(API, 'ghs_one'), nock(API, { reqheaders: { authorization: 'token ghs_one' } }).get('/repos/acme/web/git/ref/heads%2Fmain').times(5).reply(200, { object: { sha: 'b'.repeat(40) } })];
    const heads = await Promise.all(Array.from({ length: 5 }, () => client.branchHead('acme/web', 'main')));
    expect(heads).toEqual(Array(5).fill('b'.repeat(40)));
    // One read of the header, and the one mint it made.
    expect(reads).toBe(2);
    allDone(scopes);
  });

  it('a failed ask fails the call, naming it and the credentials; its 404 is not "not there"; it is not kept', async () => {
    const client = new GitHubClient(await probot().auth(INSTALLATION), { sleep: async (ms) => void sleeps.push(ms) });
    const mint = `/app/installations/${INSTALLATION}/access_tokens`;
    const refused = [nock(API).post(mint).times(2).reply(404, { message: 'Not Found' })];
    const file = await failure(client.readFile('acme/web', '.github/conveyor.yml', 'main'));
    expect(file).toBeInstanceOf(ConveyorError);
    expect(file.message).toBe("GitHub reading .github/conveyor.yml of acme/web@main failed (HTTP 404): the installation's credentials could not be had: Not Found");
    const who = await failure(client.permission('acme/web', 'bob'));
    expect(who.message).toBe("GitHub reading the permission of bob on acme/web failed (HTTP 404): the installation's credentials could not be had: Not Found");
    expect(sleeps).toEqual([]);
    allDone(refused);
    // A server error while asking is retried as any call's; the next call asks again and goes through.
    const scopes = [
      nock(API).post(mint).reply(502, 'Bad Gateway', { 'content-type': 'text/html' }),
      token(API, 'ghs_two'),
      nock(API, { reqheaders: { authorization: 'token ghs_two' } }).get('/repos/acme/web/collaborators/bob/permission').reply(200, { permission: 'write' }),
    ];
    expect(await client.permission('acme/web', 'bob')).toBe('write');
    expect(sleeps).toEqual([500]);
    allDone(scopes);
  });
});

describe('failures', () => {
  it('retries 502 with backoff and 429 after its retry-after; a 404 is "not there"; others name the call', async () => {
    const client = new GitHubClient(await probot().auth(INSTALLATION), { sleep: async (ms) => void sleeps.push(ms) });
    const scopes = [
      token(API, 'ghs_one'),
      nock(API)
        .post('/repos/acme/web/issues/7/comments', { body: 'hi' })
        .reply(502, 'Bad Gateway', { 'content-type': 'text/html' })
        .post('/repos/acme/web/issues/7/comments', { body: 'hi' })
        .reply(429, { message: 'Too many requests' }, { 'retry-after': '3' })
        .post('/repos/acme/web/issues/7/comments', { body: 'hi' })
        .reply(201, { id: 9, html_url: 'https://github.com/acme/web/issues/7#issuecomment-9' }),
      nock(API).get('/repos/acme/web/collaborators/nobody/permission').reply(404, { message: 'Not Found' }),
      nock(API).get('/orgs/acme/teams/reviewers/memberships/nobody').reply(404, { message: 'Not Found' }),
      nock(API).get('/repos/acme/web/check-runs/8').reply(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }),
      nock(API)
        .patch('/repos/acme/web/check-runs/8')
        .reply(422, { message: 'Validation Failed', errors: [{ resource: 'CheckRun', code: 'invalid' }] }),
    ];
    expect(await client.createComment('acme/web', 7, 'hi')).toEqual({ id: 9, url: 'https://github.com/acme/web/issues/7#issuecomment-9' });
    expect(sleeps).toEqual([500, 3000]);
    expect(await client.permission('acme/web', 'nobody')).toBe('none');
    expect(await client.teamMembership('acme', 'reviewers', 'nobody')).toBe('none');
    const missing = await failure(client.getCheckRun('acme/web', 8));
    expect(missing.message).toBe('GitHub reading check run 8 in acme/web failed (HTTP 404): Not Found - https://docs.github.com/rest');
    const invalid = await failure(client.updateCheckRun('acme/web', 8, { status: 'completed' }));
    expect(invalid.message).toBe('GitHub updating check run 8 in acme/web failed (HTTP 422): Validation Failed: {"resource":"CheckRun","code":"invalid"}');
    expect(sleeps).toEqual([500, 3000]);
    allDone(scopes);
  });

  it('a network failure is retried, then named', async () => {
    const client = new GitHubClient(await probot().auth(INSTALLATION), { sleep: async (ms) => void sleeps.push(ms), retries: 1 });
    const scopes = [token(API, 'ghs_one'), nock(API).get('/repos/acme/web/check-runs/8').times(2).replyWithError('socket hang up')];
    const e = await failure(client.getCheckRun('acme/web', 8));
    expect(e.message).toMatch(/^GitHub reading check run 8 in acme\/web failed after 2 tries: /);
    expect(sleeps).toEqual([500]);
    allDone(scopes);
  });
});
