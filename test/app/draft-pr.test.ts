// The pull request from the first minute (issue #16 item 8): a labeled issue gets its draft PR in
// the primary repository before anything else (an empty commit on the base's head through the
// Git data API, the work branch at it, the draft), every check run of the run is made on that PR's
// head (nothing on the base branch's commits), and when the run ends none of them is left queued
// or running. GitHub is mocked with nock, keeping state as GitHub does (test/app/fake-github.ts);
// test/app/api-calls.test.ts runs a whole pipeline this way to its merge: the action marks the
// draft ready for review after its push, by the GraphQL id the run keeps with the PR.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { API, createHarness, tokenScope, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { fakeGitHub } from './fake-github.ts';
import { BASE_SHA, BASE_TREE, CONFIG, configScope, permissionScope } from './scopes.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true });

describe("the run's draft pull request", () => {
  it('is opened before the first dispatch; every check run is on its head; a cancelled run leaves none running', async () => {
    const github = fakeGitHub(CONFIG);
    await h.receive('issues', webhooks.labeled());

    // 1. The draft PR came first: no check run, no dispatch before it.
    expect(github.pulls).toHaveLength(1);
    const [draft] = github.pulls;
    expect(draft).toMatchObject({ number: 1007, branch: 'conveyor/web-7', draft: true, order: 0 });
    expect(draft!.head).not.toBe(BASE_SHA);
    expect(github.dispatches.map((d) => d.attempt)).toEqual(['acme-web-7:implement:1:0']);
    const run = await h.conveyor.engine.get('acme-web-7');
    // Kept with the run, and sent to the action in each payload (test/app/flow.test.ts): a draft, and its GraphQL id (the
    // action marks it ready after its push without reading it first).
    const pr = {
      repo: 'acme/web',
      number: 1007,
      url: 'https://github.com/acme/web/pull/1007',
      branch: 'conveyor/web-7',
      head: draft!.head,
      draft: true,
      nodeId: 'PR_1007',
    };
    expect(run.prs).toEqual([pr]);

    // 2. Every check run the run made (the summary `conveyor` and the step's) is on the PR's head.
    expect(github.checkRuns.map((c) => [c.name, c.head_sha])).toEqual([
      ['conveyor / implement', draft!.head],
      ['conveyor', draft!.head],
    ]);

    // 3. Cancelled while the step runs: nothing it made is left queued or in progress.
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel'));
    expect((await h.conveyor.engine.get('acme-web-7')).status).toBe('cancelled');
    expect(github.checkRuns.map((c) => [c.name, c.status, c.conclusion])).toEqual([
      ['conveyor / implement', 'completed', 'cancelled'],
      ['conveyor', 'completed', 'cancelled'],
    ]);
    // The draft is left open with a comment saying why (a person closes it, or a new run takes it up).
    expect(github.comments.filter((c) => c.issue === 1007).map((c) => c.body)).toEqual([expect.stringContaining('This pull request is left open')]);
  });
});

describe('a draft pull request that cannot be opened', () => {
  it('starts nothing and says why on the issue, naming what to check', async () => {
    let body = '';
    const scopes = [
      tokenScope(),
      configScope(),
      permissionScope('alice', 'write'),
      nock(API)
        .get('/repos/acme/web/branches/main')
        .reply(200, { name: 'main', commit: { sha: BASE_SHA, commit: { tree: { sha: BASE_TREE } } } }),
      nock(API).post('/repos/acme/web/git/commits').reply(403, { message: 'Resource not accessible by integration' }),
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => ((body = b.body), true))
        .reply(201, { id: 1, html_url: 'c' }),
    ];
    await h.receive('issues', webhooks.labeled());
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(body).toMatch(
      /^Conveyor did not start: it could not open the run's draft pull request in acme\/web \(GitHub POST \/repos\/\{owner\}\/\{repo\}\/git\/commits failed \(HTTP 403\): Resource not accessible by integration\)\. Check that the app may write contents and pull requests there/,
    );
    expect(await h.conveyor.deps.store.list()).toEqual([]);
  });
});
