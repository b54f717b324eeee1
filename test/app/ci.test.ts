// The repository's own CI in the loop, on GitHub: the `ci` step waits (holding no process) for the
// checks acme/web's base branch requires, learns of them from other apps' webhooks, reads every
// page of check runs and statuses, ignores Conveyor's own, sends a failing one (its name,
// conclusion, summary and failing log lines) to the repair agent, and fails when `wait-minutes`
// runs out. Without `ci`, a merge blocked by a required check names it. Driven through
// probot.receive, GitHub's REST API in nock (every scope asserted done).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import nock from 'nock';
import { renderResultText } from '../../core/github/check-run.ts';
import { parseStepPayload } from '../../core/contract/wire.ts';
import { planOf, resultOf, sealedFor, type StepSpec } from '../helpers/plans.ts';
import { API, APP_ID, createHarness, fixture, INSTALLATION, repoOf, tokenScope, webhooks, type Harness } from './harness.ts';
import { dispatchScope, noSummaryOnHead, openPullScope, type Dispatched } from './scopes.ts';
import { events, permissionScope, pr, reportScopes, RUN, seed, WEB_HEAD } from './decisions-setup.ts';

let h: Harness;
beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness({ merge: { polls: 1, baseMs: 1, sleep: async () => {} } });
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

/** GitHub Actions' app: its check runs are jobs, whose id is the job's. */
const ACTIONS = { id: 15368, slug: 'github-actions' };
const REPAIRED = '5'.repeat(40);

const ciPlan = (ci: Partial<Extract<StepSpec, { kind: 'ci' }>> = { repair: 1 }) =>
  planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate' },
    { id: 'ci', kind: 'ci', ...ci },
    { id: 'ship', kind: 'merge' },
  ]);
const built = { implement: { prs: [pr('acme/web', 1, WEB_HEAD)], commits: { 'acme/web': WEB_HEAD } } };

/** acme/web's `main`: branch protection requires `build` from GitHub Actions (and Conveyor's own summary, which never counts); a ruleset requires `lint`. */
function requiredScopes(): nock.Scope[] {
  return [
    nock(API)
      .get('/repos/acme/web/branches/main')
      .reply(200, {
        name: 'main',
        commit: { sha: 'b'.repeat(40) },
        protected: true,
        protection: {
          enabled: true,
          required_status_checks: { enforcement_level: 'non_admins', contexts: ['build', 'conveyor'], checks: [{ context: 'build', app_id: ACTIONS.id }] },
        },
      }),
    nock(API)
      .get('/repos/acme/web/rules/branches/main')
      .query({ per_page: '100' })
      .reply(200, [
        { type: 'pull_request', parameters: {} },
        { type: 'required_status_checks', parameters: { strict_required_status_checks_policy: false, required_status_checks: [{ context: 'lint' }] } },
      ]),
  ];
}

type CheckRunJson = Record<string, unknown>;
const checkRun = (id: number, name: string, conclusion: string | null, app: { id: number; slug: string }, output: object = {}): CheckRunJson => ({
  id,
  name,
  head_sha: WEB_HEAD,
  status: conclusion === null ? 'in_progress' : 'completed',
  conclusion,
  app,
  html_url: `https://github.com/acme/web/runs/${id}`,
  output: { title: null, summary: null, ...output },
});

/** The check runs and statuses on `head`, each list in two pages of GitHub's (100 a page, a Link to the next). */
function observedScopes(head: string, runs: [CheckRunJson[], CheckRunJson[]], statuses: [object[], object[]]): nock.Scope[] {
  const next = (path: string) => ({ Link: `<${API}${path}&page=2>; rel="next", <${API}${path}&page=2>; rel="last"` });
  const checks = `/repos/acme/web/commits/${head}/check-runs`;
  const listed = `/repos/acme/web/commits/${head}/statuses`;
  return [
    nock(API)
      .get(checks)
      .query({ filter: 'latest', per_page: '100' })
      .reply(200, { total_count: runs[0].length + runs[1].length, check_runs: runs[0] }, next(`${checks}?filter=latest&per_page=100`)),
    nock(API)
      .get(checks)
      .query({ filter: 'latest', per_page: '100', page: '2' })
      .reply(200, { total_count: runs[0].length + runs[1].length, check_runs: runs[1] }),
    nock(API)
      .get(listed)
      .query({ per_page: '100' })
      .reply(200, statuses[0], next(`${listed}?per_page=100`)),
    nock(API).get(listed).query({ per_page: '100', page: '2' }).reply(200, statuses[1]),
  ];
}

/** A PR as a check run's or suite's payload lists it: an open PR of the repository whose head is the check's commit. */
const listedPr = (repo: string, number: number, head: string) => ({
  url: `${API}/repos/${repo}/pulls/${number}`,
  id: 1000 + number,
  number,
  head: { ref: `conveyor/web-${number}`, sha: head, repo: { id: 1, url: `${API}/repos/${repo}`, name: repo.split('/')[1] } },
  base: { ref: 'main', sha: 'b'.repeat(40), repo: { id: 1, url: `${API}/repos/${repo}`, name: repo.split('/')[1] } },
});

/**
 * Another app's check run completing (a webhook the app gets for every app's check runs), on
 * acme/web's PR #1 unless `on` says another repository or other PRs.
 */
function otherCheckCompleted(run: CheckRunJson, on: { repo?: string; prs?: number[] } = {}) {
  const p = fixture('check_run.completed');
  const repo = on.repo ?? 'acme/web';
  const head = (run.head_sha as string | undefined) ?? WEB_HEAD;
  const pullRequests = (on.prs ?? [1]).map((n) => listedPr(repo, n, head));
  return {
    ...p,
    check_run: { ...(p.check_run as object), external_id: '', ...run, pull_requests: pullRequests },
    repository: repoOf(repo),
    installation: { id: INSTALLATION },
  };
}

const status = (context: string, state: string, description = '') => ({ context, state, description, target_url: `https://ci.example/${context}` });

const LOG = [
  '2025-03-01T10:00:00Z ##[group]Run npm test',
  ...Array.from({ length: 400 }, (_, i) => `2025-03-01T10:00:01Z ok ${i} passing test of the suite`),
  '2025-03-01T10:00:02Z FAIL src/price.test.ts > formats the price',
  '2025-03-01T10:00:02Z AssertionError: expected "12.5" to be "12.50"',
  '2025-03-01T10:00:03Z ##[error]Process completed with exit code 1.',
].join('\n');

describe('the ci step on GitHub', () => {
  it("repairs a failing required check of another app with its name, summary and failing log lines, ignoring Conveyor's own; the gate and ci run again on the repaired head, then it merges", async () => {
    await seed(h, ciPlan(), built, { leaveQueued: 'ci' });
    reportScopes();
    const dispatched: Dispatched[] = [];
    const failing = checkRun(4242, 'build', 'failure', ACTIONS, { title: 'Build failed', summary: '1 test of 401 failed' });
    const scopes = [
      ...requiredScopes(),
      ...observedScopes(
        WEB_HEAD,
        // Page 1 holds Conveyor's own check runs (one even named `lint`, failing): none counts.
        [
          [checkRun(9001, 'conveyor', 'success', { id: APP_ID, slug: 'conveyor' }), checkRun(9002, 'lint', 'failure', { id: APP_ID, slug: 'conveyor' })],
          [failing],
        ],
        [[status('coverage', 'failure')], [status('lint', 'success', 'no lint errors')]],
      ),
      // The job's log: GitHub redirects to where it is stored.
      nock(API).get('/repos/acme/web/actions/jobs/4242/logs').reply(302, '', { Location: 'https://pipelines.example.com/logs/4242.txt' }),
      nock('https://pipelines.example.com').get('/logs/4242.txt').reply(200, LOG, { 'content-type': 'text/plain' }),
      dispatchScope('ci', 801, dispatched),
    ];
    await h.receive('check_run', otherCheckCompleted(failing));
    allDone(scopes);

    let run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ci).toMatchObject({ status: 'queued', mode: 'repair', attempt: 2, repairs: 1 });
    const parsed = parseStepPayload(dispatched[0]!.inputs.payload!);
    if (!parsed.ok) throw new Error('the repair payload does not parse');
    expect(parsed.payload).toMatchObject({ mode: 'repair', step: { id: 'ci', kind: 'ci' } });
    const findings = parsed.payload.findings!;
    expect(findings).toContain('acme/web#1: required check `build` (failure)');
    expect(findings).toContain('1 test of 401 failed');
    expect(findings).toContain('FAIL src/price.test.ts > formats the price');
    expect(findings).toContain('AssertionError: expected "12.5" to be "12.50"');
    // Failing lines, not the whole log; and nothing of Conveyor's own or of checks nobody requires.
    expect(findings).not.toContain('ok 17 passing test');
    expect(findings).not.toMatch(/coverage|lint/);
    expect(h.logged.join('\n')).toContain('Required checks failed: "build" on acme/web#1 (failure). Passed: "lint" on acme/web#1.');

    // The repair pushes a new head: the gate runs again on it first, then the checks are judged there.
    const moved = [
      noSummaryOnHead(REPAIRED),
      nock(API)
        .persist()
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === REPAIRED)
        .reply(201, { id: 520, html_url: 'x', status: 'in_progress', output: {} }),
      dispatchScope('test', 802, dispatched),
    ];
    nock(API).persist().patch('/repos/acme/web/check-runs/520').reply(200, {});
    const repaired = sealedFor(
      run,
      resultOf(RUN, 'ci', 2, 0, 'success', { mode: 'repair', prs: [pr('acme/web', 1, REPAIRED)], commits: { 'acme/web': REPAIRED } }),
    );
    await h.receive('check_run', events.checkCompleted(801, `${RUN}:ci:2:0`, 'conveyor / ci', renderResultText(repaired)));
    allDone(moved);
    run = await h.conveyor.engine.get(RUN);
    expect(run.steps.test).toMatchObject({ status: 'queued', attempt: 2 });
    expect(run.steps.ci).toMatchObject({ status: 'pending', repairs: 1 });

    const order: string[] = [];
    const merged = [
      ...requiredScopes(),
      ...observedScopes(REPAIRED, [[], [checkRun(4300, 'build', 'success', ACTIONS)]], [[], [status('lint', 'success')]]),
      openPullScope('acme/web', 1, REPAIRED),
      nock(API)
        .put('/repos/acme/web/pulls/1/merge', (b: { sha: string }) => order.push('acme/web#1') > 0 && b.sha === REPAIRED)
        .reply(200, { merged: true, sha: 'm-web' }),
    ];
    const gate = sealedFor(run, resultOf(RUN, 'test', 2, 0, 'success'));
    await h.receive('check_run', events.checkCompleted(802, dispatched[1]!.externalId, 'conveyor / test', renderResultText(gate)));
    allDone(merged);
    run = await h.conveyor.engine.get(RUN);
    expect(order).toEqual(['acme/web#1']);
    expect(run.status).toBe('succeeded');
    expect(run.steps.ci?.result?.summary).toBe('Passed: "build" on acme/web#1, "lint" on acme/web#1.');
  });

  it('counts a required commit status: a failing one, without a repair, fails the step naming it', async () => {
    await seed(h, ciPlan({}), built, { leaveQueued: 'ci' });
    const report = reportScopes();
    const scopes = [
      ...requiredScopes(),
      ...observedScopes(WEB_HEAD, [[], [checkRun(4242, 'build', 'success', ACTIONS)]], [[], [status('lint', 'error', 'eslint crashed')]]),
    ];
    await h.receive('status', { sha: WEB_HEAD, context: 'lint', state: 'error', repository: repoOf('acme/web'), installation: { id: INSTALLATION } });
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ci).toMatchObject({ status: 'failed', repairs: 0 });
    expect(run.steps.ci?.reason).toContain('Required checks failed: "lint" on acme/web#1 (error)');
    expect(report.comments.at(-1)).toContain('Required checks failed:');
  });

  it('waits while a required check runs (a pending status changes nothing), and fails once wait-minutes ran out, spending no repair', async () => {
    await seed(h, ciPlan({ repair: 1, waitMinutes: 30 }), built, { leaveQueued: 'ci' });
    reportScopes();
    // The step started at 09:00 (seed's time).
    h.clock.now = '2025-03-01T09:01:00.000Z';
    const running = [checkRun(4242, 'build', null, ACTIONS)];
    const waiting = [...requiredScopes(), ...observedScopes(WEB_HEAD, [[], running], [[], [status('lint', 'success')]])];
    await h.receive('check_suite', {
      action: 'completed',
      check_suite: { head_sha: WEB_HEAD, app: { id: 999 } },
      repository: repoOf('acme/web'),
      installation: { id: INSTALLATION },
    });
    allDone(waiting);
    expect((await h.conveyor.engine.get(RUN)).steps.ci).toMatchObject({ status: 'queued', mode: 'run' });

    // A pending status, and a sweep before the wait ran out (and before the sweeper's own look is due): no call to GitHub.
    h.calls.length = 0;
    await h.receive('status', { sha: WEB_HEAD, context: 'lint', state: 'pending', repository: repoOf('acme/web'), installation: { id: INSTALLATION } });
    h.clock.now = '2025-03-01T09:05:00.000Z';
    await h.conveyor.sweep();
    await h.conveyor.idle();
    expect(h.calls).toEqual([]);

    h.clock.now = '2025-03-01T09:31:00.000Z';
    const expired = [...requiredScopes(), ...observedScopes(WEB_HEAD, [[], running], [[], [status('lint', 'success')]])];
    await h.conveyor.sweep();
    await h.conveyor.idle();
    allDone(expired);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ci).toMatchObject({ status: 'failed', repairs: 0 });
    expect(run.steps.ci?.reason).toContain(
      'the required checks did not all complete within 30 minutes (wait-minutes). Waiting for: "build" on acme/web#1 (in_progress)',
    );
  });

  it('without ci, a merge blocked by a failing required check names it on the tracking comment', async () => {
    await seed(
      h,
      planOf([
        { id: 'implement', kind: 'code' },
        { id: 'approve', kind: 'approval' },
        { id: 'ship', kind: 'merge' },
      ]),
      built,
    );
    const report = reportScopes();
    nock(API).persist().patch('/repos/acme/web/check-runs/600').reply(200, {});
    const scopes = [
      permissionScope('bob', 'write'),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .reply(201, {}),
      openPullScope('acme/web', 1, WEB_HEAD, { mergeable_state: 'blocked' }),
      ...requiredScopes(),
      ...observedScopes(WEB_HEAD, [[], [checkRun(4242, 'build', 'failure', ACTIONS)]], [[], [status('lint', 'success')]]),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor approve', 'bob'));
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ship?.status).toBe('failed');
    expect(run.steps.ship?.reason).toContain(
      'not merging: acme/web#1: Required checks failed: "build" on acme/web#1 (failure) (its required checks must pass before it merges)',
    );
    expect(report.comments.at(-1)).toContain('Required checks failed: "build" on acme/web#1 \\(failure\\)');
  });
});

describe('the webhooks of other apps, on the busiest event stream', () => {
  /** The ids of the runs the store handed out (lists and gets) while `work` ran. */
  async function runsRead(work: () => Promise<void>): Promise<string[]> {
    const store = h.conveyor.deps.store;
    const [list, get] = [store.list.bind(store), store.get.bind(store)];
    const read: string[] = [];
    const spies = [
      vi.spyOn(store, 'list').mockImplementation(async (filter) => {
        const runs = await list(filter);
        read.push(...runs.map((r) => r.id));
        return runs;
      }),
      vi.spyOn(store, 'get').mockImplementation(async (id) => {
        const run = await get(id);
        if (run) read.push(run.id);
        return run;
      }),
    ];
    try {
      await work();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return read;
  }

  it("a check run, check suite or status on a head of an unrelated repository makes no call to GitHub and reads no run, while a run's ci step waits", async () => {
    await seed(h, ciPlan(), built, { leaveQueued: 'ci' });
    h.calls.length = 0;
    const FOREIGN = 'f'.repeat(40);
    const other = { repository: repoOf('acme/other'), installation: { id: INSTALLATION } };
    const read = await runsRead(async () => {
      // With the PR GitHub lists for it (acme/other#1, not a run's), and with none.
      await h.receive('check_run', otherCheckCompleted({ ...checkRun(7001, 'build', 'failure', ACTIONS), head_sha: FOREIGN }, { repo: 'acme/other' }));
      await h.receive('check_run', otherCheckCompleted({ ...checkRun(7002, 'lint', 'success', ACTIONS), head_sha: FOREIGN }, { repo: 'acme/other', prs: [] }));
      await h.receive('check_suite', { action: 'completed', check_suite: { head_sha: FOREIGN, app: { id: 999 }, pull_requests: [] }, ...other });
      await h.receive('status', { sha: FOREIGN, context: 'lint', state: 'failure', ...other });
    });
    expect(h.calls).toEqual([]);
    expect(read).toEqual([]);
    expect((await h.conveyor.engine.get(RUN)).steps.ci).toMatchObject({ status: 'queued', mode: 'run' });
  });

  it("a burst of check runs completing on the run's head reads its required checks and the head's checks once", async () => {
    await h.close();
    h = await createHarness({ merge: { polls: 1, baseMs: 1, sleep: async () => {} }, ciCoalesceMs: 500 });
    await seed(h, ciPlan({ repair: 1, waitMinutes: 30 }), built, { leaveQueued: 'ci' });
    h.clock.now = '2025-03-01T09:01:00.000Z';
    // Answers enough for a judgement per webhook: what counts is how many are asked for.
    const running = [checkRun(4242, 'build', null, ACTIONS)];
    for (let i = 0; i < 3; i++) {
      requiredScopes();
      observedScopes(WEB_HEAD, [[], running], [[], [status('lint', 'success')]]);
    }
    h.calls.length = 0;
    await Promise.all(['lint', 'test', 'types'].map((name, i) => h.receive('check_run', otherCheckCompleted(checkRun(4300 + i, name, 'success', ACTIONS)))));
    const reads = (path: string) => h.calls.filter((c) => c.method === 'GET' && c.path === path).length;
    expect(reads('/repos/acme/web/branches/main')).toBe(1);
    expect(reads('/repos/acme/web/rules/branches/main')).toBe(1);
    // Each list in its two pages.
    expect(reads(`/repos/acme/web/commits/${WEB_HEAD}/check-runs`)).toBe(2);
    expect(reads(`/repos/acme/web/commits/${WEB_HEAD}/statuses`)).toBe(2);
    expect((await h.conveyor.engine.get(RUN)).steps.ci).toMatchObject({ status: 'queued', mode: 'run' });
  });
});
