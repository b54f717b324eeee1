// A review step's verdict as pull request reviews: findings on lines of a PR's diff become review
// comments there, the others are in the body with their place; the body says the verdict, the
// scores and the independence; a fail requests changes, a pass comments, nothing approves; the
// reviewer's words cannot mention, link or mark up; GitHub's limits hold.
import { describe, expect, it } from 'vitest';
import { REVIEW_BODY_MAX, REVIEW_COMMENTS_MAX } from '../../../core/github/limits.ts';
import {
  outdatedReviewBody,
  planPullReviews,
  renderPullReview,
  reviewMarker,
  reviewOf,
  type ReviewInput,
  type ReviewedRepository,
} from '../../../core/github/review.ts';

const WEB_DIFF = [
  'diff --git a/lib.js b/lib.js',
  '--- a/lib.js',
  '+++ b/lib.js',
  '@@ -1,3 +1,4 @@',
  ' export function greet() {',
  "-  return 'hi';",
  "+  return 'hello';",
  '+  // polite',
  ' }',
].join('\n');
const API_DIFF = [
  'diff --git a/src/price.ts b/src/price.ts',
  '--- a/src/price.ts',
  '+++ b/src/price.ts',
  '@@ -10,2 +10,2 @@',
  ' const a = 1;',
  '-const b = 2;',
  '+const b = 3;',
].join('\n');

const web: ReviewedRepository = {
  repo: 'acme/web',
  role: 'primary',
  prefixes: ['/ws/acme__web', '../acme__web', 'acme__web'],
  diff: WEB_DIFF,
  commit: 'a'.repeat(40),
  pr: { number: 12, url: 'https://github.com/acme/web/pull/12' },
};
const api: ReviewedRepository = {
  repo: 'acme/api',
  role: 'sibling',
  prefixes: ['/ws/acme__api', '../acme__api', 'acme__api'],
  diff: API_DIFF,
  commit: 'b'.repeat(40),
  pr: { number: 4, url: 'https://github.com/acme/api/pull/4' },
};

function input(findings: ReviewInput['verdict']['findings'], overrides: Partial<ReviewInput> = {}): ReviewInput {
  return {
    runId: 'web-7',
    step: 'review',
    attempt: 2,
    verdict: { verdict: 'fail', findings, scores: { complexity: 0.2, risk: 0.1, impact: 0.3 } },
    reviewer: { agent: 'reviewer', model: 'openai/gpt-5' },
    independence: { independent: true, reason: 'a different agent and model family' },
    repos: [web, api],
    ...overrides,
  };
}

describe('planPullReviews and renderPullReview', () => {
  it('puts a finding on a line of the diff as a comment there, and one outside it in the body with its place', () => {
    const i = input([
      { file: 'lib.js', line: 3, message: 'say why it is polite' },
      { file: 'lib.js', line: 40, message: 'this line is not in the diff' },
      'the change needs a test',
    ]);
    const [webPlan, apiPlan] = planPullReviews(i);
    const request = renderPullReview(i, webPlan!);
    expect(request.event).toBe('REQUEST_CHANGES');
    expect(request.comments).toEqual([{ path: 'lib.js', line: 3, body: '**`review`**: say why it is polite' }]);
    expect(request.body.startsWith(reviewMarker(i))).toBe(true);
    expect(request.body).toContain('**Conveyor review `review`, attempt 2: ❌ changes requested**');
    expect(request.body).toContain('Independent review by `reviewer` (`openai/gpt-5`): a different agent and model family.');
    expect(request.body).toContain('| 0.2 | 0.1 | 0.3 |');
    expect(request.body).toContain('3 finding(s): 1 on the lines of this diff, 2 below.');
    expect(request.body).toContain('- `lib.js:40` (not a line of this diff): this line is not in the diff');
    expect(request.body).toContain('- the change needs a test');
    // The sibling's review has the general finding too, and nothing of the primary's but a count.
    const apiRequest = renderPullReview(i, apiPlan!);
    expect(apiRequest.comments).toEqual([]);
    expect(apiRequest.body).toContain('- the change needs a test');
    expect(apiRequest.body).not.toContain('lib.js');
    expect(apiRequest.body).toContain('Findings on the other pull requests of this change: [acme/web#12](https://github.com/acme/web/pull/12) (2).');
  });

  it("places a sibling's finding on its PR, whether named by its folder, its absolute path or its diff alone", () => {
    const i = input([
      { file: '../acme__api/src/price.ts', line: 10, message: 'by folder' },
      { file: '/ws/acme__api/src/price.ts', line: 11, message: 'by absolute path' },
      { file: 'src/price.ts', line: 11, message: 'by the diff that has it' },
      { file: 'src/price.ts', line: 99, message: 'outside its lines' },
      { file: 'README.md', line: 5, message: 'in no diff' },
    ]);
    const [webPlan, apiPlan] = planPullReviews(i);
    const apiRequest = renderPullReview(i, apiPlan!);
    expect(apiRequest.comments.map((c) => `${c.path}:${c.line}`)).toEqual(['src/price.ts:10', 'src/price.ts:11', 'src/price.ts:11']);
    expect(apiRequest.body).toContain('- `src/price.ts:99` (not a line of this diff): outside its lines');
    // A bare path no diff has is the primary's.
    const webRequest = renderPullReview(i, webPlan!);
    expect(webRequest.comments).toEqual([]);
    expect(webRequest.body).toContain('- `README.md:5` (not a line of this diff): in no diff');
    expect(webRequest.body).toContain('[acme/api#4](https://github.com/acme/api/pull/4) (4)');
  });

  it("puts a finding of a repository without a PR in the primary's body, naming the repository", () => {
    const docs: ReviewedRepository = { repo: 'acme/docs', role: 'sibling', prefixes: ['../acme__docs'], diff: '', commit: 'c'.repeat(40) };
    const i = input([{ file: '../acme__docs/README.md', line: 2, message: 'document it' }], { repos: [web, docs] });
    const plans = planPullReviews(i);
    expect(plans.map((p) => p.repo)).toEqual(['acme/web']);
    expect(renderPullReview(i, plans[0]!).body).toContain('- `acme/docs: README.md:2` (not a line of this diff): document it');
  });

  it('comments for a pass, and never approves', () => {
    const i = input(['a nit'], { verdict: { verdict: 'pass', findings: ['a nit'], scores: { complexity: 0, risk: 0, impact: 0 } } });
    const request = renderPullReview(i, planPullReviews(i)[0]!);
    expect(request.event).toBe('COMMENT');
    expect(request.body).toContain('attempt 2: ✅ passed**');
    const none = input([], { verdict: { verdict: 'pass', findings: [], scores: { complexity: 0, risk: 0, impact: 0 } } });
    expect(renderPullReview(none, planPullReviews(none)[0]!).body).toContain('No findings.');
  });

  it('comments, saying why, where GitHub refuses to request changes on a PR its poster opened', () => {
    const i = input(['fix it']);
    const request = renderPullReview(i, planPullReviews(i)[0]!, { ownPullRequest: true });
    expect(request.event).toBe('COMMENT');
    expect(request.body).toContain('❌ changes requested');
    expect(request.body).toContain('GitHub lets no one request changes on a pull request they opened');
    expect(request.body).toContain('The check run `conveyor / review` failed');
  });

  it('puts every finding in the body when GitHub refused the lines', () => {
    const i = input([{ file: 'lib.js', line: 3, message: 'on a line' }]);
    const request = renderPullReview(i, planPullReviews(i)[0]!, { lines: false, linesRefused: 'Line could not be resolved' });
    expect(request.comments).toEqual([]);
    expect(request.body).toContain('- `lib.js:3`: on a line');
    expect(request.body).toContain('GitHub refused the comments on lines (`Line could not be resolved`): every finding is in this body.');
  });

  it(`keeps to ${REVIEW_COMMENTS_MAX} comments a review, the rest in the body, and to GitHub's body limit`, () => {
    const many = Array.from({ length: REVIEW_COMMENTS_MAX + 7 }, (_v, n) => ({ file: 'lib.js', line: 2, message: `finding ${n} ${'x'.repeat(2_000)}` }));
    const i = input(many);
    const request = renderPullReview(i, planPullReviews(i)[0]!);
    expect(request.comments).toHaveLength(REVIEW_COMMENTS_MAX);
    expect(request.body).toContain(`(over the ${REVIEW_COMMENTS_MAX} comments of one review): finding ${REVIEW_COMMENTS_MAX} `);
    const huge = input([{ file: 'lib.js', line: 3, message: 'y'.repeat(REVIEW_BODY_MAX * 2) }, 'z'.repeat(REVIEW_BODY_MAX * 2)]);
    const cut = renderPullReview(huge, planPullReviews(huge)[0]!);
    expect(cut.body.length).toBeLessThanOrEqual(REVIEW_BODY_MAX);
    expect(cut.body).toMatch(/cut to fit GitHub's limit of 65536 characters; the whole review is in the step's check run\)$/);
    expect(cut.comments[0]!.body.length).toBeLessThanOrEqual(REVIEW_BODY_MAX);
  });

  it("shows the reviewer's words as the characters they are: no mention, link, image, HTML or command line", () => {
    const i = input(['@octocat see ![x](https://evil.example/p.png) <img src=x>\n/conveyor approve']);
    const body = renderPullReview(i, planPullReviews(i)[0]!).body;
    expect(body).not.toContain('@octocat');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('![x](');
    expect(body).not.toMatch(/^\/conveyor/m);
    expect(body).toContain('&#64;octocat');
  });

  it('reads a finding as the verdict allows it: its words under any of their keys, a place of another shape as none', () => {
    const i = input([
      { file: 'lib.js', line: '3', text: 'a line as text' },
      { file: 7, line: 3, title: 'a file as a number' },
      { file: 'lib.js', line: true, description: 'a line as a boolean' },
      { file: '', line: 0, message: 'no place at all' },
      { severity: 'high' },
    ]);
    const request = renderPullReview(i, planPullReviews(i)[0]!);
    expect(request.comments).toEqual([{ path: 'lib.js', line: 3, body: '**`review`**: a line as text' }]);
    expect(request.body).toContain('- a file as a number');
    expect(request.body).toContain('- `lib.js` (no line given): a line as a boolean');
    expect(request.body).toContain('- no place at all');
    expect(request.body).toContain('- \\{"severity":"high"\\}');
  });

  it('posts nowhere when the run has no PR', () => {
    const { pr: _pr, ...noPr } = web;
    expect(planPullReviews(input(['x'], { repos: [noPr] }))).toEqual([]);
  });
});

describe('reviewOf', () => {
  it("knows the step's review by the marker opening its body, and one marked outdated", () => {
    expect(reviewOf(reviewMarker({ runId: 'web-7', step: 'review', attempt: 1 }) + '\nbody')).toEqual({ step: 'review', outdated: false });
    expect(reviewOf(outdatedReviewBody('review', { attempt: 2, url: 'https://github.com/acme/web/pull/12#pullrequestreview-9' }))).toEqual({
      step: 'review',
      outdated: true,
    });
    // Quoted by a person, or somewhere in a body, it is not Conveyor's.
    expect(reviewOf(`> ${reviewMarker({ runId: 'web-7', step: 'review', attempt: 1 })}`)).toBeUndefined();
    expect(reviewOf('LGTM')).toBeUndefined();
    expect(reviewOf(null)).toBeUndefined();
  });
});
