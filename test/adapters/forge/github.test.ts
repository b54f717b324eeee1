// The GitHub adapter against GitHub's REST API, mocked at the HTTP boundary with nock: the request
// each operation sends, what it makes of the answer, lists read past their first page, a 404 that
// means "not there", and failures as the one typed error. (Retries, rate limits and pacing:
// test/adapters/github/octokit.test.ts.)
import nock from 'nock';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { GitHubForge } from '../../../adapters/forge/github.ts';
import { GitHubApiError } from '../../../adapters/github/errors.ts';
import { logLines } from '../../../adapters/github/octokit.ts';
import { rejectionOf } from '../../helpers/errors.ts';

const API = 'https://api.github.com';
/** The action's forge, its waits a thousand times shorter and writes not paced (real time here). */
const quick = (options: { baseUrl?: string } = {}) =>
  new GitHubForge({ token: 'ghs_test', msPerSecond: 1, paceWrites: false, log: logLines(() => undefined), ...options });

function pull(number: number, overrides: Record<string, unknown> = {}) {
  return {
    number,
    html_url: `https://github.com/acme/web/pull/${number}`,
    title: 'Add a greeting (#7)',
    body: 'body',
    state: 'open',
    merged_at: null,
    merge_commit_sha: null,
    head: { ref: 'conveyor/web-7', sha: 'a'.repeat(40) },
    base: { ref: 'main' },
    ...overrides,
  };
}

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => nock.cleanAll());

describe('GitHubForge', () => {
  it('creates a pull request with the token', async () => {
    const scope = nock(API, { reqheaders: { authorization: 'token ghs_test' } })
      .post('/repos/acme/web/pulls', { head: 'conveyor/web-7', base: 'main', title: 'Add a greeting (#7)', body: 'hello' })
      .reply(201, pull(12, { body: 'hello' }));
    const forge = quick();
    const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'Add a greeting (#7)', body: 'hello' });
    expect(pr).toMatchObject({ repo: 'acme/web', number: 12, branch: 'conveyor/web-7', head: 'a'.repeat(40), state: 'open', body: 'hello' });
    scope.done();
  });

  it('finds the open pull request of a work branch, and none when there is none', async () => {
    const scope = nock(API)
      .get('/repos/acme/web/pulls')
      .query({ head: 'acme:conveyor/web-7', state: 'open', per_page: '10' })
      .reply(200, [pull(12)])
      .get('/repos/acme/web/pulls')
      .query({ head: 'acme:conveyor/web-8', state: 'open', per_page: '10' })
      .reply(200, []);
    const forge = quick();
    expect((await forge.findPullRequest('acme/web', 'conveyor/web-7'))?.number).toBe(12);
    expect(await forge.findPullRequest('acme/web', 'conveyor/web-8')).toBeUndefined();
    scope.done();
  });

  it('updates a body, on the API of GITHUB_API_URL', async () => {
    const scope = nock('https://ghe.example.com/api/v3')
      .patch('/repos/acme/web/pulls/12', { body: 'linked' })
      .reply(200, pull(12, { body: 'linked' }));
    const forge = quick({ baseUrl: 'https://ghe.example.com/api/v3/' });
    expect((await forge.updatePullRequest('acme/web', 12, { body: 'linked' })).body).toBe('linked');
    scope.done();
  });

  it('merges with method, message and expected head; reads a merged PR', async () => {
    const scope = nock(API)
      .put('/repos/acme/web/pulls/12/merge', { merge_method: 'squash', commit_title: 'Add (#12)', commit_message: 'Conveyor-Run: r1', sha: 'a'.repeat(40) })
      .reply(200, { merged: true, sha: 'b'.repeat(40), message: 'merged' })
      .get('/repos/acme/web/pulls/12')
      .reply(200, pull(12, { state: 'closed', merged: true, merged_at: '2025-01-01T00:00:00Z', merge_commit_sha: 'b'.repeat(40) }));
    const forge = quick();
    expect(
      await forge.mergePullRequest('acme/web', 12, { method: 'squash', title: 'Add (#12)', message: 'Conveyor-Run: r1', expectedHead: 'a'.repeat(40) }),
    ).toEqual({ merged: true, sha: 'b'.repeat(40) });
    expect(await forge.getPullRequest('acme/web', 12)).toMatchObject({ state: 'merged', mergeCommit: 'b'.repeat(40) });
    scope.done();
  });

  it('turns an API error into forge-failed naming the call and status', async () => {
    const scope = nock(API).post('/repos/acme/web/pulls').reply(422, { message: 'A pull request already exists for acme:conveyor/web-7.' });
    const forge = quick();
    await expect(forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 't', body: 'b' })).rejects.toMatchObject({
      code: 'forge-failed',
      status: 422,
      message: 'GitHub POST /repos/{owner}/{repo}/pulls failed (HTTP 422): A pull request already exists for acme:conveyor/web-7.',
    });
    scope.done();
  });

  it('reads mergeability with a single PR; a merge is sent once, never retried (its answer may be lost after GitHub merged)', async () => {
    const scope = nock(API)
      .get('/repos/acme/web/pulls/12')
      .reply(200, pull(12, { draft: false, mergeable: null, mergeable_state: 'unknown' }))
      .put('/repos/acme/web/pulls/12/merge')
      .reply(502, 'Bad Gateway', { 'content-type': 'text/html' });
    const forge = quick();
    expect(await forge.getPullRequest('acme/web', 12)).toMatchObject({
      state: 'open',
      head: 'a'.repeat(40),
      base: 'main',
      mergeable: null,
      mergeableState: 'unknown',
      draft: false,
    });
    const e = await rejectionOf(forge.mergePullRequest('acme/web', 12, { method: 'squash', title: 't' }), GitHubApiError);
    // A second try would have found no answer here (nock), not this 502.
    expect(e.message).toBe('GitHub PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge failed (HTTP 502): Bad Gateway');
    scope.done();
  });
});

/** An issue comment as GitHub lists it. */
const comment = (id: number, body: string) => ({ id, body, html_url: `https://github.com/acme/web/issues/7#issuecomment-${id}` });
const PAGE_2 = `<${API}/repositories/1/issues/7/comments?per_page=100&page=2>; rel="next", <${API}/repositories/1/issues/7/comments?per_page=100&page=2>; rel="last"`;

describe('comments', () => {
  it('finds the tracking comment by its marker on the second page of a busy issue', async () => {
    const marker = '<!-- conveyor:run acme-web-7 -->';
    const first = Array.from({ length: 100 }, (_, i) => comment(1000 + i, `comment ${i}`));
    const scope = nock(API)
      .get('/repos/acme/web/issues/7/comments')
      .query({ per_page: '100' })
      .reply(200, first, { link: PAGE_2 })
      .get('/repositories/1/issues/7/comments')
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(2000, 'late'), comment(2001, `Conveyor run\n${marker}`)]);
    expect(await quick().findComment('acme/web', 7, marker)).toEqual({ id: 2001, url: 'https://github.com/acme/web/issues/7#issuecomment-2001' });
    scope.done();
  });

  it('stops reading at the page that holds the marker, and reads every page when none does', async () => {
    const marker = '<!-- conveyor:run acme-web-7 -->';
    // The second page is not mocked: asking for it would fail the call.
    const found = nock(API)
      .get('/repos/acme/web/issues/7/comments')
      .query({ per_page: '100' })
      .reply(200, [comment(1, marker)], { link: PAGE_2 });
    expect((await quick().findComment('acme/web', 7, marker))?.id).toBe(1);
    found.done();
    const none = nock(API)
      .get('/repos/acme/web/issues/7/comments')
      .query({ per_page: '100' })
      .reply(200, [comment(1, 'a')], { link: PAGE_2 })
      .get('/repositories/1/issues/7/comments')
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(2, 'b')]);
    expect(await quick().findComment('acme/web', 7, marker)).toBeUndefined();
    none.done();
  });

  it('comments, edits and reacts', async () => {
    const scope = nock(API)
      .post('/repos/acme/web/issues/7/comments', { body: 'hi' })
      .reply(201, comment(9, 'hi'))
      .patch('/repos/acme/web/issues/comments/9', { body: 'edited' })
      .reply(200, comment(9, 'edited'))
      .post('/repos/acme/web/issues/comments/9/reactions', { content: 'rocket' })
      .reply(201, { id: 1, content: 'rocket' });
    const forge = quick();
    expect(await forge.createComment('acme/web', 7, 'hi')).toEqual({ id: 9, url: 'https://github.com/acme/web/issues/7#issuecomment-9' });
    await forge.updateComment('acme/web', 9, 'edited');
    await forge.reactToComment('acme/web', 9, 'rocket');
    scope.done();
  });
});

describe('what is not there', () => {
  it('a 404 is "none" or undefined where the caller asks whether it exists; elsewhere it is the typed error', async () => {
    const scope = nock(API)
      .get('/repos/acme/web/collaborators/stranger/permission')
      .reply(404, { message: 'Not Found' })
      .get('/orgs/acme/teams/reviewers/memberships/stranger')
      .reply(404, { message: 'Not Found' })
      .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
      .query({ ref: 'main' })
      .reply(404, { message: 'Not Found' })
      .get('/repos/acme/web/check-runs/8')
      .reply(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    const forge = quick();
    expect(await forge.permission('acme/web', 'stranger')).toBe('none');
    expect(await forge.teamMembership('acme', 'reviewers', 'stranger')).toBe('none');
    expect(await forge.readFile('acme/web', '.github/conveyor.yml', 'main')).toBeUndefined();
    const e = await rejectionOf(forge.getCheckRun('acme/web', 8), GitHubApiError);
    expect(e.message).toBe('GitHub GET /repos/{owner}/{repo}/check-runs/{check_run_id} failed (HTTP 404): Not Found');
    expect(e.absent).toBe(true);
    scope.done();
  });

  it('reads a file, a permission, a membership and a branch head', async () => {
    const scope = nock(API)
      .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
      .query({ ref: 'main' })
      .reply(200, { type: 'file', encoding: 'base64', content: Buffer.from('version: 1\n').toString('base64') })
      .get('/repos/acme/web/collaborators/bob/permission')
      .reply(200, { permission: 'write' })
      .get('/orgs/acme/teams/reviewers/memberships/bob')
      .reply(200, { state: 'active' })
      .get('/repos/acme/web/git/ref/heads%2Frelease%2F1.0')
      .reply(200, { object: { sha: 'c'.repeat(40) } });
    const forge = quick();
    expect(await forge.readFile('acme/web', '.github/conveyor.yml', 'main')).toBe('version: 1\n');
    expect(await forge.permission('acme/web', 'bob')).toBe('write');
    expect(await forge.teamMembership('acme', 'reviewers', 'bob')).toBe('active');
    expect(await forge.branchHead('acme/web', 'release/1.0')).toBe('c'.repeat(40));
    scope.done();
  });
});

describe('check runs and workflows', () => {
  const apiCheck = (id: number, externalId: string) => ({
    id,
    html_url: `https://github.com/acme/web/runs/${id}`,
    status: 'queued',
    conclusion: null,
    external_id: externalId,
    details_url: null,
    started_at: null,
    output: { summary: null, text: null },
  });

  it('finds a check run by its external id among those of a name on a commit', async () => {
    const scope = nock(API)
      .get(`/repos/acme/web/commits/${'a'.repeat(40)}/check-runs`)
      .query({ check_name: 'conveyor / code', filter: 'all', per_page: '100' })
      .reply(200, { total_count: 2, check_runs: [apiCheck(1, 'r:code:1:0'), apiCheck(2, 'r:code:2:0')] });
    expect(await quick().findCheckRun('acme/web', 'a'.repeat(40), 'conveyor / code', 'r:code:2:0')).toEqual({
      id: 2,
      url: 'https://github.com/acme/web/runs/2',
      status: 'queued',
      conclusion: null,
      externalId: 'r:code:2:0',
      detailsUrl: null,
      startedAt: null,
      output: { summary: null, text: null },
    });
    scope.done();
  });

  it("dispatches a workflow asking for its run's id; a server that does not know return_run_details gets the dispatch without it", async () => {
    const inputs = { payload: '{}', 'check-run': '5' };
    const scope = nock(API)
      .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', { ref: 'main', inputs, return_run_details: true })
      .reply(200, { workflow_run_id: 55, run_url: `${API}/repos/acme/web/actions/runs/55`, html_url: 'https://github.com/acme/web/actions/runs/55' })
      .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', { ref: 'main', inputs, return_run_details: true })
      .reply(422, { message: 'Invalid request.\n\n"return_run_details" is not a permitted key.' })
      .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', { ref: 'main', inputs })
      .reply(204);
    const forge = quick();
    expect(await forge.dispatchWorkflow('acme/web', 'conveyor.yml', 'main', inputs)).toEqual({ runId: 55, url: 'https://github.com/acme/web/actions/runs/55' });
    expect(await forge.dispatchWorkflow('acme/web', 'conveyor.yml', 'main', inputs)).toEqual({});
    scope.done();
  });
});

describe("GitHub's limits on what Conveyor writes", () => {
  it('cuts a comment over 65,536 characters and a check run output over 65,535, each with a note saying where the rest is', async () => {
    const sent: { comment?: string; edit?: string; body?: string; check?: { title: string; summary: string; text: string } } = {};
    const scopes = [
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => ((sent.comment = b.body), true))
        .reply(201, { id: 1, html_url: 'c' }),
      nock(API)
        .patch('/repos/acme/web/issues/comments/1', (b: { body: string }) => ((sent.edit = b.body), true))
        .reply(200, {}),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { output: { title: string; summary: string; text: string } }) => ((sent.check = b.output), true))
        .reply(201, { id: 5, html_url: 'x', status: 'completed', output: {} }),
      nock(API)
        .post('/repos/acme/web/pulls', (b: { body: string }) => ((sent.body = b.body), true))
        .reply(201, { number: 3, html_url: 'p', title: 't', body: '', state: 'open', head: { ref: 'conveyor/web-7', sha: 'a' }, base: { ref: 'main' } }),
    ];
    const forge = quick();
    // The sizes the review reproduced: a /conveyor status reply, a writes-violation check run.
    await forge.createComment('acme/web', 7, 's'.repeat(122_631));
    await forge.updateComment('acme/web', 1, 'e'.repeat(70_000));
    await forge.createCheckRun('acme/web', {
      name: 'conveyor / implement',
      head_sha: 'a',
      output: { title: 't'.repeat(2_000), summary: 'x'.repeat(80_000), text: 'y'.repeat(128_228) },
    });
    await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'A change', body: 'b'.repeat(66_000) });
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(sent.comment).toHaveLength(65_536);
    expect(sent.comment).toMatch(/…\(cut to fit GitHub's limit of 65536 characters; the whole text is in the run .*\)$/);
    expect(sent.edit).toHaveLength(65_536);
    expect(sent.body).toHaveLength(65_536);
    expect(sent.check?.summary).toHaveLength(65_535);
    expect(sent.check?.text).toHaveLength(65_535);
    expect(sent.check?.text).toMatch(/the whole output is in the step's log \(its workflow run\)\)$/);
    expect(sent.check?.title.length).toBeLessThanOrEqual(1_000);
    // Text that fits is sent as it is.
    nock(API)
      .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => b.body === 'short')
      .reply(201, { id: 2, html_url: 'c' });
    await forge.createComment('acme/web', 7, 'short');
  });
});
