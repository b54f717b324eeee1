// The merge step where base branches protect themselves: a ruleset requiring a merge queue has the
// PRs enqueued (GraphQL enqueuePullRequest pinned to the approved head), each only once the PRs
// before it in merge order merged, and the queue's merges (pull_request.closed) or removals
// (pull_request.dequeued) move the step; a ruleset requiring PRs up to date has one that is behind
// its base repaired before anything merges; a cancelled run takes what it enqueued out of the queue
// again (GraphQL dequeuePullRequest). Driven through probot.receive, nock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { API, createHarness, INSTALLATION, tokenScope, webhooks, type Harness } from './harness.ts';
import { configScope, dispatchScope, openPullScope, permissionScope, type Dispatched } from './scopes.ts';
import {
  API_HEAD,
  approvalCheckScope,
  approveByComment,
  events,
  fleetBuilt as built,
  fleetPlan as plan,
  LIB_HEAD,
  replyScope,
  reportScopes,
  RUN,
  seed,
  WEB_HEAD,
} from './decisions-setup.ts';

let h: Harness;
beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness({ merge: { polls: 1, sleep: async () => {} } });
  tokenScope();
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

const QUEUE = [{ type: 'merge_queue', parameters: { merge_method: 'SQUASH', grouping_strategy: 'ALLGREEN' } }];
const HEADS: Record<string, string> = { 'acme/lib': LIB_HEAD, 'acme/api': API_HEAD, 'acme/web': WEB_HEAD };
const NUMBERS: Record<string, number> = { 'acme/lib': 3, 'acme/api': 2, 'acme/web': 1 };
const nodeId = (repo: string) => `PR_${repo.replace('/', '_')}`;

/** An open PR whose base requires a merge queue, as the merge step reads it (with its GraphQL id). */
const queued = (repo: string) => openPullScope(repo, NUMBERS[repo]!, HEADS[repo]!, { node_id: nodeId(repo) }, QUEUE);
/** A PR the queue merged. */
const mergedPull = (repo: string) =>
  nock(API)
    .get(`/repos/${repo}/pulls/${NUMBERS[repo]}`)
    .reply(200, { state: 'closed', merged: true, merge_commit_sha: `q-${repo}`, head: { sha: HEADS[repo] }, base: { ref: 'main' } });

/** GraphQL enqueuePullRequest, recording which PR (by id) at which head. */
function enqueueScope(into: string[]): nock.Scope {
  return nock(API)
    .post('/graphql', (b: { query: string; variables: { id: string; head: string } }) => {
      if (!b.query.includes('enqueuePullRequest')) return false;
      into.push(`${b.variables.id}@${b.variables.head.slice(0, 1)}`);
      return true;
    })
    .reply(200, { data: { enqueuePullRequest: { mergeQueueEntry: { state: 'QUEUED' } } } });
}

/** The queue merged `repo`'s PR: GitHub's pull_request.closed, merged, sent by the queue's bot. */
const queueMerged = (repo: string) =>
  h.receive('pull_request', events.pull('closed', repo, NUMBERS[repo]!, HEADS[repo]!, 'github-merge-queue[bot]', true, 'Bot'));

/** The queue removed `repo`'s PR: GitHub's pull_request.dequeued with its reason. */
const dequeued = (repo: string, reason: string) =>
  h.receive('pull_request', {
    ...events.pull('synchronize', repo, NUMBERS[repo]!, HEADS[repo]!, 'github-merge-queue[bot]', false, 'Bot'),
    action: 'dequeued',
    reason,
  });

describe('merging through merge queues', () => {
  it('enqueues each PR pinned to its approved head, providers first, each once the one before it merged; then the run succeeds', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const enqueued: string[] = [];

    // 1. All three are judged; only the provider's provider (acme/lib) is enqueued, and nothing merges directly.
    const first = [queued('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope(enqueued)];
    await approveByComment(h);
    allDone(first);
    expect(enqueued).toEqual(['PR_acme_lib@3']);
    let run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('running');
    expect(run.steps.ship).toMatchObject({ status: 'queued', attempt: 1 });
    expect(run.steps.ship?.reason).toContain('waits for the merge queue to merge acme/lib#3 (enqueued at 3333333)');
    expect(run.steps.ship?.reason).toContain('Merged: none. Not merged: acme/lib#3, acme/api#2, acme/web#1.');

    // 2. The queue merged acme/lib#3: acme/api#2 is enqueued next (the webhook told twice: once).
    const second = [mergedPull('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope(enqueued)];
    await queueMerged('acme/lib');
    await dequeued('acme/lib', 'MERGE');
    await h.conveyor.idle();
    allDone(second);
    expect(enqueued).toEqual(['PR_acme_lib@3', 'PR_acme_api@2']);

    // 3. Then acme/web#1.
    const third = [mergedPull('acme/lib'), mergedPull('acme/api'), queued('acme/web'), enqueueScope(enqueued)];
    await queueMerged('acme/api');
    await h.conveyor.idle();
    allDone(third);
    expect(enqueued).toEqual(['PR_acme_lib@3', 'PR_acme_api@2', 'PR_acme_web@a']);

    // 4. All merged: the step succeeds and the environments are torn down.
    const last = [mergedPull('acme/lib'), mergedPull('acme/api'), mergedPull('acme/web'), dispatchScope('preview', 901, [])];
    await queueMerged('acme/web');
    await h.conveyor.idle();
    allDone(last);
    run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('succeeded');
    expect(run.steps.ship?.result?.commits).toEqual({ 'acme/lib': 'q-acme/lib', 'acme/api': 'q-acme/api', 'acme/web': 'q-acme/web' });
  });

  it("a PR the queue removes stops the merge with the queue's reason; /conveyor retry enqueues it again", async () => {
    await seed(h, plan(), built);
    const report = reportScopes();
    approvalCheckScope([]);
    const enqueued: string[] = [];
    const first = [queued('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope(enqueued)];
    await approveByComment(h);
    allDone(first);

    await dequeued('acme/lib', 'CI_FAILURE');
    await h.conveyor.idle();
    let run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('waiting');
    expect(run.steps.ship?.status).toBe('failed');
    expect(run.steps.ship?.reason).toBe(
      'acme/lib#3 was removed from the merge queue: its required checks failed in the merge queue (CI_FAILURE). Merged: none. Not merged: acme/lib#3, acme/api#2, acme/web#1. A person decides what happens next: `/conveyor retry` (`conveyor retry`) enqueues it again.',
    );
    expect(report.comments.at(-1)).toContain('was removed from the merge queue: its required checks failed in the merge queue');

    const again = [
      permissionScope('bob', 'write'),
      configScope(),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .reply(201, {}),
      queued('acme/lib'),
      queued('acme/api'),
      queued('acme/web'),
      enqueueScope(enqueued),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor retry', 'bob'));
    await h.conveyor.idle();
    allDone(again);
    expect(enqueued).toEqual(['PR_acme_lib@3', 'PR_acme_lib@3']);
    run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ship).toMatchObject({ status: 'queued', attempt: 2 });
  });

  it('the sweeper has a merge that heard nothing from its queue look again: a PR gone from the queue unheard of stops it', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const first = [queued('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope([])];
    await approveByComment(h);
    allDone(first);

    // Not yet due: nothing is asked.
    expect((await h.conveyor.sweep()).looked).toBeUndefined();
    h.clock.now = new Date(Date.parse(h.clock.now) + 11 * 60_000).toISOString();
    const look = [
      nock(API)
        .get(`/repos/acme/lib/pulls/3`)
        .reply(200, { state: 'open', merged: false, mergeable: true, mergeable_state: 'clean', head: { sha: LIB_HEAD }, base: { ref: 'main' } }),
      queued('acme/api'),
      queued('acme/web'),
      nock(API)
        .post('/graphql', (b: { query: string; variables: { number: number } }) => b.query.includes('mergeQueueEntry') && b.variables.number === 3)
        .reply(200, { data: { repository: { pullRequest: { mergeQueueEntry: null } } } }),
      nock(API).get('/repos/acme/web/actions/workflows/conveyor.yml/runs').query(true).optionally().reply(200, { total_count: 0, workflow_runs: [] }),
    ];
    expect((await h.conveyor.sweep()).looked).toEqual([RUN]);
    await h.conveyor.idle();
    allDone(look.slice(0, 4));
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ship?.status).toBe('failed');
    expect(run.steps.ship?.reason).toContain('acme/lib#3: it was removed from the merge queue, and the forge did not say why');
  });
});

/** GraphQL dequeuePullRequest, recording its variables; answered `answer`. */
function dequeueScope(into: unknown[], answer: object = { data: { dequeuePullRequest: { mergeQueueEntry: { state: 'QUEUED' } } } }): nock.Scope {
  return nock(API)
    .post('/graphql', (b: { query: string; variables: unknown }) => {
      if (!b.query.includes('dequeuePullRequest(input: { id: $id })')) return false;
      into.push(b.variables);
      return true;
    })
    .reply(200, answer);
}

/** GraphQL's answer to whether `repo`'s PR is in its queue now. */
const heldScope = (repo: string, entry: object | null) =>
  nock(API)
    .post('/graphql', (b: { query: string; variables: { number: number } }) => b.query.includes('mergeQueueEntry') && b.variables.number === NUMBERS[repo])
    .reply(200, { data: { repository: { pullRequest: { mergeQueueEntry: entry } } } });

/** An open PR as the dequeue reads it first (with its GraphQL id). */
const openPull = (repo: string) =>
  nock(API)
    .get(`/repos/${repo}/pulls/${NUMBERS[repo]}`)
    .reply(200, { number: NUMBERS[repo], state: 'open', merged: false, node_id: nodeId(repo), head: { sha: HEADS[repo] }, base: { ref: 'main' } });

/** `/conveyor cancel` by bob: its reaction, the teardown of the preview and the comment on each PR. */
function cancelScopes(): nock.Scope[] {
  return [
    permissionScope('bob', 'write'),
    nock(API)
      .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
      .reply(201, {}),
    dispatchScope('preview', 901, []),
    replyScope('acme/web', 1, []),
    replyScope('acme/api', 2, []),
    replyScope('acme/lib', 3, []),
  ];
}

describe('cancelling a run whose merge waits for a merge queue', () => {
  it('takes exactly the PR it enqueued and the queue has not merged out of the queue (dequeuePullRequest, by the PR id); nothing of the merged one', async () => {
    await seed(h, plan(), built);
    const report = reportScopes();
    approvalCheckScope([]);
    const first = [queued('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope([])];
    await approveByComment(h);
    allDone(first);
    // The queue merged acme/lib#3; acme/api#2 is enqueued and waits.
    const second = [mergedPull('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope([])];
    await queueMerged('acme/lib');
    allDone(second);

    const dequeuedVars: unknown[] = [];
    const scopes = [...cancelScopes(), openPull('acme/api'), dequeueScope(dequeuedVars)];
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel wrong approach', 'bob'));
    allDone(scopes);
    expect(dequeuedVars).toEqual([{ id: 'PR_acme_api' }]);
    const run = await h.conveyor.engine.get(RUN);
    expect(run).toMatchObject({ status: 'cancelled', reason: 'cancelled by bob: wrong approach' });
    expect(run.steps.ship?.status).toBe('cancelled');
    expect(run.steps.ship?.reason).toBe('cancelled by bob: wrong approach; took acme/api#2 out of the merge queue');
    expect(run.steps.ship?.attempts.at(-1)?.queue?.dequeued).toMatchObject({ removed: ['acme/api#2'], failed: [] });
    expect(report.comments.at(-1)).toContain('took acme/api#2 out of the merge queue');
    // A webhook of the removal that follows changes nothing.
    await dequeued('acme/api', 'MANUAL');
    expect((await h.conveyor.engine.get(RUN)).version).toBe(run.version);
  });

  it('a PR the queue no longer holds (GitHub refuses its dequeue) is fine: the cancel stands and says nothing failed', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const first = [queued('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope([])];
    await approveByComment(h);
    allDone(first);

    const dequeuedVars: unknown[] = [];
    const scopes = [
      ...cancelScopes(),
      openPull('acme/lib'),
      dequeueScope(dequeuedVars, {
        data: { dequeuePullRequest: null },
        errors: [{ type: 'UNPROCESSABLE', message: 'Pull request is not in the merge queue' }],
      }),
      heldScope('acme/lib', null),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel', 'bob'));
    allDone(scopes);
    expect(dequeuedVars).toEqual([{ id: 'PR_acme_lib' }]);
    const run = await h.conveyor.engine.get(RUN);
    expect(run).toMatchObject({ status: 'cancelled', reason: 'cancelled by bob' });
    expect(run.steps.ship?.reason).toBe('cancelled by bob');
    expect(h.logged.filter((m) => m.includes('merge queue'))).toEqual([]);
    expect(await h.conveyor.deps.store.pendingEffects(RUN)).toEqual([]);
  });

  it('a dequeue GitHub refuses while the PR is still queued is said (logged, on the step, the run and the tracking comment) and the cancel stands', async () => {
    await seed(h, plan(), built);
    const report = reportScopes();
    approvalCheckScope([]);
    const first = [queued('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope([])];
    await approveByComment(h);
    allDone(first);

    const scopes = [
      ...cancelScopes(),
      openPull('acme/lib'),
      dequeueScope([], { data: { dequeuePullRequest: null }, errors: [{ type: 'FORBIDDEN', message: 'Resource not accessible by integration' }] }),
      heldScope('acme/lib', { state: 'QUEUED' }),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel', 'bob'));
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    const said =
      'could not take acme/lib#3 out of the merge queue, where it may still merge (remove it there): (GraphQL dequeuePullRequest) Resource not accessible by integration';
    expect(run.status).toBe('cancelled');
    expect(run.reason).toBe(`cancelled by bob; ${said}`);
    expect(run.steps.ship?.reason).toBe(`cancelled by bob; ${said}`);
    // Shown as text (its parentheses escaped), in the headline and on the step.
    expect(report.comments.at(-1)).toContain(
      '> ⛔ **Cancelled**: cancelled by bob; could not take acme/lib#3 out of the merge queue, where it may still merge',
    );
    expect(report.comments.at(-1)).toMatch(
      /\| `ship` \| merge \| ⛔ cancelled: cancelled by bob; could not take acme\/lib#3 out of the merge queue.*Resource not accessible by integration/,
    );
    expect(h.logged).toContain(
      'run acme-web-7 stopped waiting for its merge queue, but acme/lib#3 could not be taken out of it and may still merge: (GraphQL dequeuePullRequest) Resource not accessible by integration',
    );
    // Said once, not tried again and again: the effect is done.
    expect(await h.conveyor.deps.store.pendingEffects(RUN)).toEqual([]);
  });
});

describe('an installation losing a repository while the merge waits for its queue', () => {
  it('cancels the run and still takes its enqueued PR out of the queue of a repository it reaches', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const first = [queued('acme/lib'), queued('acme/api'), queued('acme/web'), enqueueScope([])];
    await approveByComment(h);
    allDone(first);

    const dequeuedVars: unknown[] = [];
    const scopes = [openPull('acme/lib'), dequeueScope(dequeuedVars)];
    await h.receive('installation_repositories', {
      action: 'removed',
      installation: { id: INSTALLATION },
      repository_selection: 'selected',
      repositories_added: [],
      repositories_removed: [{ id: 1, node_id: 'x', name: 'web', full_name: 'acme/web', private: true }],
      sender: { login: 'owner', type: 'User' },
    });
    allDone(scopes);
    expect(dequeuedVars).toEqual([{ id: 'PR_acme_lib' }]);
    const run = await h.conveyor.engine.get(RUN);
    expect(run).toMatchObject({ status: 'cancelled', unreachable: "cancelled by GitHub: the Conveyor app's access to acme/web was removed" });
    expect(run.steps.ship?.reason).toBe("cancelled by GitHub: the Conveyor app's access to acme/web was removed; took acme/lib#3 out of the merge queue");
    // Nothing else was asked of GitHub: no teardown, no report of the unreachable run.
    expect(await h.conveyor.deps.store.pendingEffects(RUN)).toEqual([]);
  });
});

describe('merging into a branch that requires PRs up to date', () => {
  it('a PR behind its base (rules: strict required status checks) is repaired first: the base merged in, nothing merged', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const dispatched: Dispatched[] = [];
    const strict = [{ type: 'required_status_checks', parameters: { strict_required_status_checks_policy: true, required_status_checks: [] } }];
    const scopes = [
      openPullScope('acme/lib', 3, LIB_HEAD),
      openPullScope('acme/api', 2, API_HEAD, {}, strict),
      nock(API).get(`/repos/acme/api/compare/main...${API_HEAD}`).query(true).reply(200, { behind_by: 0, ahead_by: 1 }),
      // GitHub still says clean; the rules and the comparison say it lacks two commits of main.
      openPullScope('acme/web', 1, WEB_HEAD, {}, strict),
      nock(API).get(`/repos/acme/web/compare/main...${WEB_HEAD}`).query(true).reply(200, { behind_by: 2, ahead_by: 1 }),
      dispatchScope('ship', 801, dispatched),
    ];
    await approveByComment(h);
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ship).toMatchObject({ status: 'queued', mode: 'repair', attempt: 2 });
    const findings = run.steps.ship?.attempts.at(-1)?.findings ?? '';
    expect(findings).toContain('These pull requests are behind their base branch, which requires them up to date with it before they merge:');
    expect(findings).toContain('- acme/web#1: it is behind `main`, whose rules require it up to date before it merges');
    expect(findings).not.toContain('acme/api#2');
    expect(findings).toContain('there is nothing to resolve');
  });
});
