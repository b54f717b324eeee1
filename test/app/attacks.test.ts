// The outside review's attacks on the GitHub mode, replayed: a person named like the app, results
// and workflow runs forged from another repository or with a bogus receipt, a writer's own
// dispatch of the workflow asking the token broker for the run's token, and an installation taken
// away mid-run. Each is refused, or changes only what it may.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { renderResultText } from '../../core/github/check-run.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { API, createHarness, INSTALLATION, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { events, planWith, pr, reportScopes, RUN, seed, WEB_HEAD } from './decisions-setup.ts';
import { dispatchScope, type Dispatched } from './scopes.ts';
import { storeAttemptAuthority } from '../../app/attempt-authority.ts';
import { BOT, CODE_PERMISSIONS, expectRefusal, startBroker, tokenEndpoint } from '../helpers/broker.ts';
import { jobClaims, startIssuer } from '../helpers/oidc.ts';

let h: Harness;
// The loopback for the OIDC issuer and the token broker of the broker's attack.
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, token: true, loopback: true });

const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

/** A run whose gate `check` is dispatched to check run 102 in acme/web, and waits for its result. */
async function gateQueued() {
  return seed(
    h,
    planWith([
      { id: 'implement', kind: 'code' },
      { id: 'check', kind: 'gate' },
      { id: 'ship', kind: 'merge' },
    ]),
    { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
    { leaveQueued: 'check', queuedCheckRun: 102 },
  );
}

describe('pushes', () => {
  it("a person whose login is Conveyor is a person: their push makes the approval stale; only the app's bot, known as a Bot by its login, is Conveyor", async () => {
    const plan = planWith([
      { id: 'implement', kind: 'code' },
      { id: 'approve', kind: 'approval', minApprovals: 2 },
      { id: 'ship', kind: 'merge' },
    ]);
    await seed(
      h,
      plan,
      { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
      { events: [{ type: 'decision', at: '2025-03-01T09:30:00.000Z', decision: 'approve', by: 'bob' }] },
    );
    const { comments } = reportScopes();
    nock(API).persist().post('/repos/acme/web/check-runs').reply(201, { id: 650, html_url: 'x', status: 'in_progress', output: {} });
    nock(API)
      .persist()
      .patch(/\/repos\/acme\/web\/check-runs\/\d+/)
      .reply(200, {});
    nock(API)
      .persist()
      .get(/\/repos\/acme\/web\/commits\/\w+\/check-runs/)
      .query(true)
      .reply(200, { total_count: 0, check_runs: [] });

    // The app's own bot: nothing changes.
    await h.receive('pull_request', events.pull('synchronize', 'acme/web', 1, 'c'.repeat(40), 'conveyor-app[bot]', false, 'Bot'));
    expect((await h.conveyor.engine.get(RUN)).approvals[0]?.stale).toBeUndefined();
    // A human whose login is the app's name, in any case: a push like anyone's.
    await h.receive('pull_request', events.pull('synchronize', 'acme/web', 1, 'd'.repeat(40), 'Conveyor'));
    const run = await h.conveyor.engine.get(RUN);
    expect(run.approvals[0]?.stale).toEqual({ kind: 'pushed', by: 'Conveyor', repo: 'acme/web', head: 'd'.repeat(40) });
    expect(run.steps.approve?.reason).toContain('approvals are stale: Conveyor pushed ddddddd to acme/web after the approval');
    expect(comments.at(-1)).toContain('Conveyor pushed ddddddd to acme/web after the approval');
  });
});

describe('forged results', () => {
  it('a completed check run from another repository that names the attempt is ignored, whatever it says', async () => {
    const before = await gateQueued();
    const forged = sealedFor(before, resultOf(RUN, 'check', 1, 0, 'success'));
    h.calls.length = 0;
    for (const repo of ['evil/web', 'acme/other']) {
      const completed = events.checkCompleted(102, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(forged));
      await h.receive('check_run', { ...completed, repository: { ...completed.repository, full_name: repo } });
    }
    // Another check run id in the right repository, naming the attempt: not the one the app dispatched to.
    await h.receive('check_run', events.checkCompleted(999, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(forged)));
    expect(h.calls).toEqual([]);
    const after = await h.conveyor.engine.get(RUN);
    expect(after.version).toBe(before.version);
    expect(after.steps.check).toMatchObject({ status: 'queued', attempt: 1, epoch: 0 });
  });

  it("the attempt's own check run with a bogus receipt is not trusted: the attempt is lost and dispatched again", async () => {
    await gateQueued();
    const { scopes } = reportScopes();
    const dispatched: Dispatched[] = [];
    const again = dispatchScope('check', 103, dispatched);
    const bogus = { ...resultOf(RUN, 'check', 1, 0, 'success'), receipt: `sha256:${'0'.repeat(64)}` };
    await h.receive('check_run', events.checkCompleted(102, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(bogus)));
    allDone([again, ...scopes]);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.check).toMatchObject({ status: 'queued', attempt: 1, epoch: 1 });
    expect(run.steps.check?.attempts[0]).toMatchObject({
      conclusion: 'lost',
      summary: expect.stringContaining('was not trusted: its receipt does not verify against the payload that was sent'),
    });
    expect(dispatched.map((d) => d.externalId)).toEqual([`${RUN}:check:1:1`]);
  });

  it("completed workflow runs of another repository, another workflow or with only a title naming the check run are not Conveyor's to judge", async () => {
    const before = await gateQueued();
    // The dispatch recorded which run it started.
    await h.conveyor.deps.links.saveAttempt({ ...(await h.conveyor.deps.links.attempt(`${RUN}:check:1:0`))!, workflowRunId: 4242 });
    h.calls.length = 0;
    const title = `conveyor / check · attempt 1 [check run 102]`;
    for (let i = 0; i < 3; i++)
      await h.receive('workflow_run', webhooks.workflowRun({ id: 5000 + i, display_title: title, conclusion: 'failure' }, 'evil/web'));
    await h.receive('workflow_run', webhooks.workflowRun({ id: 6000, display_title: title, conclusion: 'failure', path: '.github/workflows/other.yml' }));
    // Right repository and workflow, but not the run the dispatch recorded.
    await h.receive('workflow_run', webhooks.workflowRun({ id: 6001, display_title: title, conclusion: 'failure' }));
    expect(h.calls).toEqual([]);
    const after = await h.conveyor.engine.get(RUN);
    expect(after.version).toBe(before.version);
    expect(after.steps.check).toMatchObject({ status: 'queued', attempt: 1, epoch: 0, losses: 0 });
  });
});

describe("a writer's own dispatch of the default branch's conveyor.yml", () => {
  it("ending first, with the attempt's marker in its name, is not taken for the attempt's run (GHES: no run id recorded)", async () => {
    const before = await gateQueued();
    h.calls.length = 0;
    const title = 'conveyor / check [check run 102]';
    // Their run names check run 102 too; only who started it tells it apart from the app's.
    await h.receive('workflow_run', webhooks.workflowRun({ id: 5555, display_title: title, conclusion: 'failure', actor: { login: 'mallory', type: 'User' } }));
    expect(h.calls).toEqual([]);
    expect((await h.conveyor.deps.links.attempt(`${RUN}:check:1:0`))?.workflowRunId).toBeUndefined();
    const after = await h.conveyor.engine.get(RUN);
    expect(after.version).toBe(before.version);
    expect(after.steps.check).toMatchObject({ status: 'queued', attempt: 1, epoch: 0, losses: 0 });
  });

  it("gets no token for the run's attempt nor for the attempts that come next; the app's own run gets it once found by its marker (GHES: no run id)", async () => {
    // The gate was dispatched to check run 102, and GitHub said no run id (as GitHub Enterprise Server does).
    const run = await gateQueued();
    const issuer = await startIssuer();
    const { store, links, github } = h.conveyor.deps;
    const broker = await startBroker(issuer, storeAttemptAuthority({ store, links, github, botLogin: async () => BOT }));
    try {
      h.calls.length = 0;
      const gate = { runId: RUN, step: 'check', attempt: 1, epoch: 0 };
      // Their run has a genuine OIDC token: the right repository, workflow file, branch and event, but it is theirs.
      const theirs = await issuer.sign(jobClaims({ actor: 'mallory', run_id: '5555' }));
      expectRefusal(await broker.exchange({ token: theirs, ...gate }), 403, 'actor-mismatch', /started by mallory/);
      // Polling the attempt ids that come next (the next one is dispatched while they ask) gets nothing either.
      for (const next of [{ attempt: 2 }, { epoch: 1 }, { attempt: 1, epoch: 2 }])
        expectRefusal(await broker.exchange({ token: theirs, ...gate, ...next }), 403, 'actor-mismatch', /started by mallory/);
      // Nothing was asked of GitHub, nothing minted (nock has no token endpoint for the broker), nothing recorded.
      const githubCalls = () => h.calls.filter((c) => c.path.startsWith('/repos/'));
      expect(githubCalls()).toEqual([]);
      expect((await links.attempt(`${RUN}:check:1:0`))?.workflowRunId).toBeUndefined();
      expect(broker.logged.filter((l) => l.startsWith('warn: ') && l.includes('actor-mismatch'))).toHaveLength(4);

      // The app's own run: found among the workflow's runs by the marker in its name (the writer's run names check run 102 too).
      const listed = (id: number, actor: string) => ({
        id,
        html_url: `https://github.com/acme/web/actions/runs/${id}`,
        status: 'in_progress',
        run_attempt: 1,
        display_title: `conveyor / check · attempt 1 [check run 102]`,
        actor: { login: actor },
        triggering_actor: { login: actor },
      });
      const listing = nock(API)
        .get('/repos/acme/web/actions/workflows/conveyor.yml/runs')
        .query(true)
        .reply(200, { total_count: 2, workflow_runs: [listed(5555, 'mallory'), listed(4242, BOT)] });
      const mint = tokenEndpoint(
        run.plan.changeSet.map((r) => r.repo.split('/')[1]!),
        CODE_PERMISSIONS,
      );
      const r = await broker.exchange({ token: await issuer.sign(jobClaims({ run_id: '4242' })), ...gate });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      allDone([listing, mint]);
      expect(githubCalls()).toEqual([{ method: 'GET', path: '/repos/acme/web/actions/workflows/conveyor.yml/runs' }]);
      expect((await links.attempt(`${RUN}:check:1:0`))?.workflowRunId).toBe(4242);
    } finally {
      await broker.close();
      await issuer.close();
    }
  });
});

describe('an installation taken away', () => {
  it("installation.deleted cancels the installation's active runs, saying why, and asks nothing more of GitHub", async () => {
    await gateQueued();
    h.calls.length = 0;
    await h.receive('installation', {
      action: 'deleted',
      installation: { id: INSTALLATION, account: { login: 'acme', type: 'Organization' } },
      sender: { login: 'owner', type: 'User' },
    });
    const run = await h.conveyor.engine.get(RUN);
    expect(run).toMatchObject({
      status: 'cancelled',
      reason: 'cancelled by GitHub: the Conveyor app was uninstalled from acme',
      unreachable: 'cancelled by GitHub: the Conveyor app was uninstalled from acme',
    });
    expect(h.calls).toEqual([]);
    expect(await h.conveyor.deps.store.pendingEffects(RUN)).toEqual([]);
  });

  it('installation_repositories.removed cancels the runs whose repositories it took, and leaves the others', async () => {
    await gateQueued();
    h.calls.length = 0;
    const removed = (names: string[]) => ({
      action: 'removed',
      installation: { id: INSTALLATION },
      repository_selection: 'selected',
      repositories_added: [],
      repositories_removed: names.map((full_name, i) => ({ id: i + 1, node_id: 'x', name: full_name.split('/')[1], full_name, private: true })),
      sender: { login: 'owner', type: 'User' },
    });
    await h.receive('installation_repositories', removed(['acme/docs']));
    expect((await h.conveyor.engine.get(RUN)).status).toBe('running');
    await h.receive('installation_repositories', removed(['acme/web']));
    expect(await h.conveyor.engine.get(RUN)).toMatchObject({
      status: 'cancelled',
      unreachable: "cancelled by GitHub: the Conveyor app's access to acme/web was removed",
    });
    expect(h.calls).toEqual([]);
  });
});
