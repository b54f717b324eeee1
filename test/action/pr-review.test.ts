// The review step posts its verdict on the run's PRs as pull request reviews: a fail requests
// changes, a pass comments; a finding on a line of a PR's diff is a review comment there, one
// elsewhere is in the body; the step's earlier reviews are replaced (dismissed, or marked
// outdated) after every page of the PR's reviews is read; GitHub's refusals are worked around, its
// limits kept, and a review that cannot be posted never fails the step.
// The step runs in-process: a real reviewer command and real git against bare repositories,
// GitHub's API mocked with nock (no other connection), every mock asserted used.
import nock from 'nock';
import { githubStepContext } from '../helpers/github-step.ts';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StepContext } from '../../action/src/context.ts';
import { runReview } from '../../action/src/steps/review.ts';
import { REVIEW_COMMENTS_MAX } from '../../core/github/limits.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

const API = 'https://api.github.com';
const BOT = { login: 'conveyor[bot]', type: 'Bot' };
let remotes: Remotes;
let scratch: string;
let n = 0;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-pr-review-');
  remotes.create('acme/web', { 'lib.js': "export function greet() {\n  return 'hi';\n}\n" });
  remotes.create('acme/api', { 'src/price.js': 'export const price = 1;\n' });
  git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
  git(remotes.bare('acme/api'), 'branch', 'conveyor/web-7', 'main');
  remotes.commit('acme/web', 'conveyor/web-7', { 'lib.js': "export function greet() {\n  return 'hello';\n}\n" }, 'greet');
  remotes.commit('acme/api', 'conveyor/web-7', { 'src/price.js': 'export const price = 2;\n' }, 'price');
});
afterEach(() => {
  nock.cleanAll();
  remotes.cleanup();
  removeDir(scratch);
});

/** A step context that clones from the local remotes and talks to (mocked) GitHub as its forge. */
const githubContext = (): StepContext => githubStepContext(remotes, join(scratch, `ws-${++n}`));

/** Attempt 2 of step `review`, whose reviewer writes `verdict`; `repos`: the repositories with a PR (web #12, api #4). */
function reviewPayload(verdict: unknown, repos: Array<'acme/web' | 'acme/api'> = ['acme/web']): StepPayload {
  const json = JSON.stringify(verdict).replace(/'/g, "'\\''");
  const payload = makePayload({
    repos: repos.map((repo) => ({ repo })),
    step: { id: 'review', kind: 'review', agent: 'coder', needs: [], timeoutMinutes: 5 },
    agentRun: `printf '%s' '${json}' > "$CONVEYOR_RESULT_FILE"`,
  });
  const prs = { 'acme/web': 12, 'acme/api': 4 } as const;
  return {
    ...payload,
    attempt: 2,
    repos: payload.repos.map((r) => {
      const number = prs[r.repo as keyof typeof prs];
      return { ...r, workBranch: 'conveyor/web-7', pr: { repo: r.repo, number, url: `https://github.com/${r.repo}/pull/${number}`, branch: 'conveyor/web-7' } };
    }),
  };
}

const scores = { complexity: 0.2, risk: 0.1, impact: 0.3 };
const review = (repo: string, number: number, id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  html_url: `https://github.com/${repo}/pull/${number}#pullrequestreview-${id}`,
  state: 'COMMENTED',
  body: '',
  user: BOT,
  commit_id: 'f'.repeat(40),
  ...overrides,
});
type Sent = { commit_id: string; event: string; body: string; comments: Array<{ path: string; line: number; side: string; body: string }> };

describe('the review on the pull requests', () => {
  it("requests changes on each PR, its findings on the lines of that repository's diff, the rest in the body, and replaces the step's earlier reviews", async () => {
    const sent: Record<string, Sent> = {};
    const web = remotes.head('acme/web', 'conveyor/web-7')!;
    const api = remotes.head('acme/api', 'conveyor/web-7')!;
    const next = `${API}/repositories/1/pulls/12/reviews?per_page=100&page=2`;
    const earlier = (id: number, state: string, body: string, user = BOT) => review('acme/web', 12, id, { state, body, user });
    const scope = nock(API, { reqheaders: { authorization: 'token ghs_test' } })
      .post('/repos/acme/web/pulls/12/reviews', (b: Sent) => ((sent.web = b), true))
      .reply(200, review('acme/web', 12, 950, { state: 'CHANGES_REQUESTED' }))
      .get('/repos/acme/web/pulls/12/reviews')
      .query({ per_page: '100' })
      // A first page of people's reviews; the step's earlier ones are on the second.
      .reply(
        200,
        Array.from({ length: 100 }, (_v, i) => review('acme/web', 12, i + 1, { user: { login: 'alice', type: 'User' }, body: 'LGTM' })),
        { link: `<${next}>; rel="next"` },
      )
      .get('/repositories/1/pulls/12/reviews')
      .query({ per_page: '100', page: '2' })
      .reply(200, [
        earlier(900, 'CHANGES_REQUESTED', '<!-- conveyor:review step=review run=run-1 attempt=1 -->\nfix it'),
        earlier(901, 'COMMENTED', '<!-- conveyor:review step=review run=run-0 attempt=1 -->\nfine'),
        // Not the step's to replace: a person's with the marker pasted, another step's, one already outdated, one dismissed.
        earlier(902, 'CHANGES_REQUESTED', '<!-- conveyor:review step=review run=run-1 attempt=1 -->', { login: 'mallory', type: 'User' }),
        earlier(903, 'CHANGES_REQUESTED', '<!-- conveyor:review step=security run=run-1 attempt=1 -->'),
        earlier(904, 'COMMENTED', '<!-- conveyor:review-outdated step=review -->\nold'),
        earlier(905, 'DISMISSED', '<!-- conveyor:review step=review run=run-1 attempt=1 -->'),
        review('acme/web', 12, 950, { state: 'CHANGES_REQUESTED', body: '<!-- conveyor:review step=review run=run-1 attempt=2 -->' }),
      ])
      .put('/repos/acme/web/pulls/12/reviews/900/dismissals', {
        message: 'Replaced by the review of attempt 2 of step review: https://github.com/acme/web/pull/12#pullrequestreview-950',
        event: 'DISMISS',
      })
      .reply(200, {})
      .put(
        '/repos/acme/web/pulls/12/reviews/901',
        (b: { body: string }) =>
          b.body.startsWith('<!-- conveyor:review-outdated step=review -->') &&
          b.body.includes('[the review of attempt 2](https://github.com/acme/web/pull/12#pullrequestreview-950)'),
      )
      .reply(200, {})
      .post('/repos/acme/api/pulls/4/reviews', (b: Sent) => ((sent.api = b), true))
      .reply(200, review('acme/api', 4, 960, { state: 'CHANGES_REQUESTED' }))
      .get('/repos/acme/api/pulls/4/reviews')
      .query({ per_page: '100' })
      .reply(200, []);

    const result = await runReview(
      githubContext(),
      reviewPayload(
        {
          verdict: 'fail',
          findings: [
            { file: 'lib.js', line: 2, message: 'say hello politely' },
            { file: 'lib.js', line: 40, message: 'not a line of the diff' },
            { file: '../acme__api/src/price.js', line: 1, message: 'why 2?' },
            'add a test',
          ],
          scores,
        },
        ['acme/web', 'acme/api'],
      ),
    );
    expect(result.conclusion, result.summary).toBe('failure');
    scope.done();

    expect(sent.web).toMatchObject({
      commit_id: web,
      event: 'REQUEST_CHANGES',
      comments: [{ path: 'lib.js', line: 2, side: 'RIGHT', body: '**`review`**: say hello politely' }],
    });
    expect(sent.web!.body).toMatch(/^<!-- conveyor:review step=review run=run-1 attempt=2 -->\n/);
    expect(sent.web!.body).toContain('**Conveyor review `review`, attempt 2: ❌ changes requested**');
    expect(sent.web!.body).toContain('| 0.2 | 0.1 | 0.3 |');
    expect(sent.web!.body).toContain('review by `coder`: no agent of this run wrote the code.');
    expect(sent.web!.body).toContain('- `lib.js:40` (not a line of this diff): not a line of the diff');
    expect(sent.web!.body).toContain('- add a test');
    expect(sent.web!.body).not.toContain('why 2?');
    expect(sent.api).toMatchObject({
      commit_id: api,
      event: 'REQUEST_CHANGES',
      comments: [{ path: 'src/price.js', line: 1, side: 'RIGHT', body: '**`review`**: why 2?' }],
    });
    expect(sent.api!.body).toContain('- add a test');

    expect(result.summary).toContain('### On the pull requests');
    expect(result.summary).toContain(
      '- acme/web#12: [review](https://github.com/acme/web/pull/12#pullrequestreview-950) requesting changes; 1 comment(s) on lines; 2 finding(s) in its body; [an earlier review](https://github.com/acme/web/pull/12#pullrequestreview-900) dismissed; [an earlier review](https://github.com/acme/web/pull/12#pullrequestreview-901) marked outdated',
    );
    expect(result.summary).toContain(
      '- acme/api#4: [review](https://github.com/acme/api/pull/4#pullrequestreview-960) requesting changes; 1 comment(s) on lines; 1 finding(s) in its body',
    );
  });

  it('comments, saying why, on a PR Conveyor opened (GitHub refuses to request changes there), and moves lines GitHub cannot place into the body', async () => {
    const sent: Sent[] = [];
    const own = { message: 'Unprocessable Entity', errors: ['Review Can not request changes on your own pull request'] };
    const scope = nock(API)
      .post('/repos/acme/web/pulls/12/reviews', (b: Sent) => (sent.push(b), true))
      .reply(422, own)
      .post('/repos/acme/web/pulls/12/reviews', (b: Sent) => (sent.push(b), true))
      .reply(422, { message: 'Unprocessable Entity', errors: ['Line could not be resolved'] })
      .post('/repos/acme/web/pulls/12/reviews', (b: Sent) => (sent.push(b), true))
      .reply(200, review('acme/web', 12, 970))
      .get('/repos/acme/web/pulls/12/reviews')
      .query({ per_page: '100' })
      .reply(200, [review('acme/web', 12, 970)]);
    const result = await runReview(githubContext(), reviewPayload({ verdict: 'fail', findings: [{ file: 'lib.js', line: 2, message: 'on a line' }], scores }));
    expect(result.conclusion).toBe('failure');
    scope.done();
    expect(sent.map((b) => [b.event, b.comments.length])).toEqual([
      ['REQUEST_CHANGES', 1],
      ['COMMENT', 1],
      ['COMMENT', 0],
    ]);
    expect(sent[2]!.body).toContain('- `lib.js:2`: on a line');
    expect(sent[2]!.body).toContain('GitHub lets no one request changes on a pull request they opened, and Conveyor opened this one');
    expect(result.summary).toContain(
      'commenting; 0 comment(s) on lines; 1 finding(s) in its body; posted as a comment: GitHub lets no one request changes on a pull request they opened, and Conveyor opened it; GitHub refused the comments on lines (`Unprocessable Entity: Line could not be resolved`): every finding is in the body',
    );
  });

  it(`keeps to ${REVIEW_COMMENTS_MAX} review comments, the other findings in the body`, async () => {
    let sent: Sent | undefined;
    const scope = nock(API)
      .post('/repos/acme/web/pulls/12/reviews', (b: Sent) => ((sent = b), true))
      .reply(200, review('acme/web', 12, 980))
      .get('/repos/acme/web/pulls/12/reviews')
      .query({ per_page: '100' })
      .reply(200, []);
    const findings = Array.from({ length: REVIEW_COMMENTS_MAX + 5 }, (_v, i) => ({ file: 'lib.js', line: 1 + (i % 3), message: `finding ${i}` }));
    const result = await runReview(githubContext(), reviewPayload({ verdict: 'pass', findings, scores }));
    expect(result.conclusion).toBe('success');
    scope.done();
    expect(sent!.event).toBe('COMMENT');
    expect(sent!.comments).toHaveLength(REVIEW_COMMENTS_MAX);
    expect(sent!.body).toContain(
      `- \`lib.js:${1 + (REVIEW_COMMENTS_MAX % 3)}\` (over the ${REVIEW_COMMENTS_MAX} comments of one review): finding ${REVIEW_COMMENTS_MAX}`,
    );
    expect(result.summary).toContain(`commenting; ${REVIEW_COMMENTS_MAX} comment(s) on lines; 5 finding(s) in its body`);
  });

  it('never fails the step when the review cannot be posted: the summary says why', async () => {
    const scope = nock(API).post('/repos/acme/web/pulls/12/reviews').reply(403, { message: 'Resource not accessible by integration' });
    const result = await runReview(githubContext(), reviewPayload({ verdict: 'pass', findings: [], scores }));
    expect(result.conclusion, result.summary).toBe('success');
    expect(result.error).toBeUndefined();
    scope.done();
    expect(result.summary).toContain(
      '- acme/web#12: the review was not posted: `GitHub POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews failed (HTTP 403): Resource not accessible by integration`',
    );
  });
});
