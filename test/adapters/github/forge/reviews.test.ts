// Pull request reviews on GitHub (adapters/github/forge/reviews.ts) against GitHub's REST API,
// mocked with nock: the review's payload (its comments on the new side of the diff), every page of
// a PR's reviews, the dismissal, the edit, and the refusals the review step works around.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { GitHubApiError } from '../../../../adapters/github/errors.ts';
import { REVIEW_BODY_MAX } from '../../../../core/github/limits.ts';
import { ReviewRefused } from '../../../../engine/ports/forge.ts';
import { rejectionOf } from '../../../helpers/errors.ts';
import { API, onlyNock, quick } from './quick.ts';

onlyNock();

const HEAD = 'a'.repeat(40);
const review = (id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  html_url: `https://github.com/acme/web/pull/12#pullrequestreview-${id}`,
  state: 'COMMENTED',
  body: 'body',
  user: { login: 'conveyor[bot]', type: 'Bot' },
  commit_id: HEAD,
  ...overrides,
});

describe('GitHub reviews', () => {
  it('posts a review on the commit reviewed, its comments on the RIGHT side of their lines, with the token', async () => {
    const scope = nock(API, { reqheaders: { authorization: 'token ghs_test' } })
      .post('/repos/acme/web/pulls/12/reviews', {
        commit_id: HEAD,
        event: 'REQUEST_CHANGES',
        body: 'the verdict',
        comments: [{ path: 'lib.js', line: 3, side: 'RIGHT', body: 'say why' }],
      })
      .reply(200, review(901, { state: 'CHANGES_REQUESTED', body: 'the verdict' }));
    const posted = await quick().forge.createReview({
      repo: 'acme/web',
      number: 12,
      commit: HEAD,
      event: 'REQUEST_CHANGES',
      body: 'the verdict',
      comments: [{ path: 'lib.js', line: 3, body: 'say why' }],
    });
    expect(posted).toEqual({
      id: 901,
      url: 'https://github.com/acme/web/pull/12#pullrequestreview-901',
      state: 'CHANGES_REQUESTED',
      body: 'the verdict',
      author: 'conveyor[bot]',
      commit: HEAD,
    });
    scope.done();
  });

  it("cuts a body and a comment to GitHub's limit", async () => {
    let sent: { body: string; comments: Array<{ body: string }> } | undefined;
    const scope = nock(API)
      .post('/repos/acme/web/pulls/12/reviews', (b: typeof sent) => ((sent = b), true))
      .reply(200, review(902));
    const long = 'x'.repeat(REVIEW_BODY_MAX + 10);
    await quick().forge.createReview({
      repo: 'acme/web',
      number: 12,
      commit: HEAD,
      event: 'COMMENT',
      body: long,
      comments: [{ path: 'a', line: 1, body: long }],
    });
    scope.done();
    expect(sent!.body.length).toBe(REVIEW_BODY_MAX);
    expect(sent!.comments[0]!.body.length).toBe(REVIEW_BODY_MAX);
  });

  it('refuses as own-pull-request when GitHub lets no one request changes on a PR they opened', async () => {
    const scope = nock(API)
      .post('/repos/acme/web/pulls/12/reviews')
      .reply(422, { message: 'Unprocessable Entity', errors: ['Review Can not request changes on your own pull request'] });
    const e = await rejectionOf(
      quick().forge.createReview({ repo: 'acme/web', number: 12, commit: HEAD, event: 'REQUEST_CHANGES', body: 'b', comments: [] }),
      ReviewRefused,
    );
    expect(e).toMatchObject({ reason: 'own-pull-request', message: 'Unprocessable Entity: Review Can not request changes on your own pull request' });
    scope.done();
  });

  it('refuses as lines when GitHub cannot place a comment, and passes any other refusal on as it is', async () => {
    const scope = nock(API)
      .post('/repos/acme/web/pulls/12/reviews')
      .reply(422, { message: 'Unprocessable Entity', errors: ['Line could not be resolved'] })
      .post('/repos/acme/web/pulls/12/reviews')
      .reply(422, { message: 'Validation Failed', errors: ['Body is too long'] });
    const withLine = { repo: 'acme/web', number: 12, commit: HEAD, event: 'COMMENT' as const, body: 'b', comments: [{ path: 'a', line: 1, body: 'c' }] };
    expect(await rejectionOf(quick().forge.createReview(withLine), ReviewRefused)).toMatchObject({ reason: 'lines' });
    const other = await rejectionOf(quick().forge.createReview({ ...withLine, comments: [] }), GitHubApiError);
    expect(other.status).toBe(422);
    scope.done();
  });

  it("lists every page of a PR's reviews", async () => {
    const next = `${API}/repositories/1/pulls/12/reviews?per_page=100&page=2`;
    const scope = nock(API)
      .get('/repos/acme/web/pulls/12/reviews')
      .query({ per_page: '100' })
      .reply(
        200,
        Array.from({ length: 100 }, (_v, i) => review(i + 1)),
        { link: `<${next}>; rel="next", <${next}>; rel="last"` },
      )
      .get('/repositories/1/pulls/12/reviews')
      .query({ per_page: '100', page: '2' })
      .reply(200, [review(101, { state: 'CHANGES_REQUESTED', user: null, body: null })]);
    const reviews = await quick().forge.listReviews('acme/web', 12);
    expect(reviews).toHaveLength(101);
    expect(reviews[100]).toEqual({
      id: 101,
      url: 'https://github.com/acme/web/pull/12#pullrequestreview-101',
      state: 'CHANGES_REQUESTED',
      body: '',
      author: '',
      commit: HEAD,
    });
    scope.done();
  });

  it('dismisses a review with its message, and edits one', async () => {
    const scope = nock(API)
      .put('/repos/acme/web/pulls/12/reviews/7/dismissals', { message: 'replaced', event: 'DISMISS' })
      .reply(200, review(7, { state: 'DISMISSED' }))
      .put('/repos/acme/web/pulls/12/reviews/8', { body: 'outdated' })
      .reply(200, review(8, { body: 'outdated' }));
    const forge = quick().forge;
    await forge.dismissReview('acme/web', 12, 7, 'replaced');
    await forge.editReview('acme/web', 12, 8, 'outdated');
    scope.done();
  });
});
