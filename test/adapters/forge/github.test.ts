// The GitHub forge against GitHub's REST API, mocked at the HTTP boundary with nock.
import nock from 'nock';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { GitHubForge } from '../../../adapters/forge/github.ts';

const API = 'https://api.github.com';

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
    const forge = new GitHubForge({ token: 'ghs_test' });
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
    const forge = new GitHubForge({ token: 'ghs_test' });
    expect((await forge.findPullRequest('acme/web', 'conveyor/web-7'))?.number).toBe(12);
    expect(await forge.findPullRequest('acme/web', 'conveyor/web-8')).toBeUndefined();
    scope.done();
  });

  it('updates a body, on the API of GITHUB_API_URL', async () => {
    const scope = nock('https://ghe.example.com/api/v3')
      .patch('/repos/acme/web/pulls/12', { body: 'linked' })
      .reply(200, pull(12, { body: 'linked' }));
    const forge = new GitHubForge({ token: 'ghs_test', baseUrl: 'https://ghe.example.com/api/v3/' });
    expect((await forge.updatePullRequest('acme/web', 12, { body: 'linked' })).body).toBe('linked');
    scope.done();
  });

  it('merges with method, message and expected head; reads a merged PR', async () => {
    const scope = nock(API)
      .put('/repos/acme/web/pulls/12/merge', { merge_method: 'squash', commit_title: 'Add (#12)', commit_message: 'Conveyor-Run: r1', sha: 'a'.repeat(40) })
      .reply(200, { merged: true, sha: 'b'.repeat(40), message: 'merged' })
      .get('/repos/acme/web/pulls/12')
      .reply(200, pull(12, { state: 'closed', merged: true, merged_at: '2025-01-01T00:00:00Z', merge_commit_sha: 'b'.repeat(40) }));
    const forge = new GitHubForge({ token: 'ghs_test' });
    expect(await forge.mergePullRequest('acme/web', 12, { method: 'squash', title: 'Add (#12)', message: 'Conveyor-Run: r1', expectedHead: 'a'.repeat(40) })).toEqual({ merged: true, sha: 'b'.repeat(40) });
    expect(await forge.getPullRequest('acme/web', 12)).toMatchObject({ state: 'merged', mergeCommit: 'b'.repeat(40) });
    scope.done();
  });

  it('turns an API error into forge-failed naming the call and status', async () => {
    const scope = nock(API).post('/repos/acme/web/pulls').reply(422, { message: 'A pull request already exists for acme:conveyor/web-7.' });
    const forge = new GitHubForge({ token: 'ghs_test' });
    await expect(forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 't', body: 'b' })).rejects.toMatchObject({
      code: 'forge-failed',
      message: expect.stringContaining('HTTP 422'),
    });
    scope.done();
  });
});
