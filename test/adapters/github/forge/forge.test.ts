// The Forge port on GitHub (adapters/github/forge/forge.ts) against GitHub's REST API, mocked at
// the HTTP boundary with nock: the request each operation sends, what it makes of the answer, and
// failures as the one typed error. (Retries, rate limits and pacing:
// test/adapters/github/octokit.test.ts; the other modules: the files beside this one.)
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { GitHubApiError } from '../../../../adapters/github/errors.ts';
import { rejectionOf } from '../../../helpers/errors.ts';
import { API, onlyNock, quick } from './quick.ts';

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

onlyNock();

describe('GitHubForge', () => {
  it('creates a pull request with the token', async () => {
    const scope = nock(API, { reqheaders: { authorization: 'token ghs_test' } })
      .post('/repos/acme/web/pulls', { head: 'conveyor/web-7', base: 'main', title: 'Add a greeting (#7)', body: 'hello' })
      .reply(201, pull(12, { body: 'hello' }));
    const forge = quick().forge;
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
    const forge = quick().forge;
    expect((await forge.findPullRequest('acme/web', 'conveyor/web-7'))?.number).toBe(12);
    expect(await forge.findPullRequest('acme/web', 'conveyor/web-8')).toBeUndefined();
    scope.done();
  });

  it('updates a body, on the API of GITHUB_API_URL', async () => {
    const scope = nock('https://ghe.example.com/api/v3')
      .patch('/repos/acme/web/pulls/12', { body: 'linked' })
      .reply(200, pull(12, { body: 'linked' }));
    const forge = quick({ baseUrl: 'https://ghe.example.com/api/v3/' }).forge;
    expect((await forge.updatePullRequest('acme/web', 12, { body: 'linked' })).body).toBe('linked');
    scope.done();
  });

  it('merges with method, message and expected head; reads a merged PR', async () => {
    const scope = nock(API)
      .put('/repos/acme/web/pulls/12/merge', { merge_method: 'squash', commit_title: 'Add (#12)', commit_message: 'Conveyor-Run: r1', sha: 'a'.repeat(40) })
      .reply(200, { merged: true, sha: 'b'.repeat(40), message: 'merged' })
      .get('/repos/acme/web/pulls/12')
      .reply(200, pull(12, { state: 'closed', merged: true, merged_at: '2025-01-01T00:00:00Z', merge_commit_sha: 'b'.repeat(40) }));
    const forge = quick().forge;
    expect(
      await forge.mergePullRequest('acme/web', 12, { method: 'squash', title: 'Add (#12)', message: 'Conveyor-Run: r1', expectedHead: 'a'.repeat(40) }),
    ).toEqual({ merged: true, sha: 'b'.repeat(40) });
    expect(await forge.getPullRequest('acme/web', 12)).toMatchObject({ state: 'merged', mergeCommit: 'b'.repeat(40) });
    scope.done();
  });

  it('turns an API error into forge-failed naming the call and status', async () => {
    const scope = nock(API).post('/repos/acme/web/pulls').reply(422, { message: 'A pull request already exists for acme:conveyor/web-7.' });
    const forge = quick().forge;
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
    const forge = quick().forge;
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
