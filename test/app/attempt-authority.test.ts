// The token broker over the app's real state: a SQLite store holding a run and the link tables
// holding its attempts' dispatches (app/attempt-authority.ts). What the store says decides: the
// attempt's workflow run, whether it is still current (a retry retires it), and a teardown's
// deployments permission while it has environments to remove. An attempt still being dispatched
// gets nothing; one whose dispatch said no run id (GitHub Enterprise Server) gets a token only once
// the app found its run by the marker in its name, among the runs its own bot started (nock).
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storeAttemptAuthority } from '../../app/attempt-authority.ts';
import { gitHub } from '../../adapters/github/forge/github.ts';
import { octokitLog } from '../../adapters/github/octokit.ts';
import { openAppStore, type AppStore } from '../../app/stores.ts';
import { createRun } from '../../core/run/reducer.ts';
import type { Run } from '../../core/run/types.ts';
import type { AttemptLink, LinkStore } from '../../adapters/github/links.ts';
import { jobClaims, startIssuer, type TestIssuer } from '../helpers/oidc.ts';
import { planOf } from '../helpers/plans.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { BOT, CODE_PERMISSIONS, expectRefusal, startBroker, tokenEndpoint, type Broker } from '../helpers/broker.ts';
import { API, INSTALLATION } from './harness.ts';
import { silentLogger } from '../../lib/logger.ts';

const RUN = 'acme-web-7';
const AT = '2025-03-01T10:00:00.000Z';
let issuer: TestIssuer;
let broker: Broker;
let dir: string;
let store: AppStore;
let links: LinkStore;

function storedRun(): Run {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'preview', kind: 'deploy' },
  ]);
  const run = createRun({
    id: RUN,
    plan: { ...plan, changeSet: [...plan.changeSet, { repo: 'acme/api', base: 'main', role: 'sibling', services: [] }] },
    issue: { repo: 'acme/web', number: 7, title: 'Add a feature', body: '' },
    origin: { kind: 'github', installationId: INSTALLATION, defaultBranch: 'main' },
    at: AT,
  });
  const implement = { ...run.steps.implement!, status: 'queued' as const, attempt: 1, epoch: 0 };
  return { ...run, steps: { ...run.steps, implement }, environments: [{ service: 'web', envId: 'web-7', state: 'ready' }] };
}

function dispatched(externalId: string, workflowRunId: number): Promise<void> {
  return links.saveAttempt({ externalId, runId: RUN, repo: 'acme/web', state: 'dispatched', checkRunId: 77, workflowRunId, at: AT });
}

/** A change to the stored run, committed as the engine would (compare-and-swap). */
async function change(edit: (run: Run) => Run): Promise<void> {
  expect(await store.commit(edit((await store.get(RUN))!), [])).toEqual({ claimed: [] });
}

beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(async () => {
  await issuer.close();
});

beforeEach(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  dir = tempDir('conveyor-authority-');
  store = await openAppStore({ CONVEYOR_DATABASE_URL: join(dir, 'app.db') });
  links = store.links;
  await store.create(storedRun(), []);
  await dispatched(`${RUN}:implement:1:0`, 9001);
  const github = gitHub({ token: 'ghs_app', msPerSecond: 1, paceWrites: false, log: octokitLog(silentLogger) });
  broker = await startBroker(
    issuer,
    storeAttemptAuthority({
      store,
      links,
      github: async (installationId) => (installationId === INSTALLATION ? github : Promise.reject(new Error('no'))),
      botLogin: async () => BOT,
    }),
  );
});

afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await broker.close();
  await store.close();
  removeDir(dir);
});

const implement = { runId: RUN, step: 'implement', attempt: 1, epoch: 0 };

describe('the token broker over the app store', () => {
  it("gives the current attempt's job a token for the run's change set", async () => {
    const scope = tokenEndpoint(['web', 'api'], CODE_PERMISSIONS);
    expect((await broker.exchange({ token: await issuer.sign(jobClaims()), ...implement })).status).toBe(200);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a job whose run id is not the workflow run the dispatch recorded', async () => {
    expectRefusal(
      await broker.exchange({ token: await issuer.sign(jobClaims({ run_id: '9999' })), ...implement }),
      403,
      'run-id-mismatch',
      /dispatched as workflow run 9001/,
    );
  });

  it('refuses the attempt once a retry has retired it (a renewal gets nothing either)', async () => {
    const scope = tokenEndpoint(['web', 'api'], CODE_PERMISSIONS);
    expect((await broker.exchange({ token: await issuer.sign(jobClaims()), ...implement })).status).toBe(200);
    await change((run) => ({ ...run, steps: { ...run.steps, implement: { ...run.steps.implement!, attempt: 2, epoch: 0 } } }));
    expectRefusal(await broker.exchange({ token: await issuer.sign(jobClaims()), ...implement }), 409, 'attempt-retired', /no longer current/);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an attempt the app has no dispatch of', async () => {
    expectRefusal(await broker.exchange({ token: await issuer.sign(jobClaims()), ...implement, epoch: 1 }), 404, 'unknown-attempt', /dispatched no attempt/);
  });

  it('gives a teardown deployments write while it has environments to remove, and nothing after', async () => {
    const teardown = { runId: RUN, step: 'preview', attempt: 3, epoch: 0, mode: 'teardown' };
    await dispatched(`${RUN}:preview:3:0:teardown`, 9003);
    const scope = tokenEndpoint(['web', 'api'], { ...CODE_PERMISSIONS, deployments: 'write' });
    expect((await broker.exchange({ token: await issuer.sign(jobClaims({ run_id: '9003' })), ...teardown })).status).toBe(200);
    await change((run) => ({ ...run, environments: [], removedEnvironments: run.environments }));
    expectRefusal(
      await broker.exchange({ token: await issuer.sign(jobClaims({ run_id: '9003' })), ...teardown }),
      409,
      'attempt-retired',
      /\(teardown\) is no longer current/,
    );
    expect(scope.isDone()).toBe(true);
  });
});

describe('an attempt whose workflow run the app does not know yet', () => {
  const link = (over: Partial<AttemptLink> = {}): AttemptLink => ({
    externalId: `${RUN}:implement:1:0`,
    runId: RUN,
    repo: 'acme/web',
    state: 'dispatched',
    checkRunId: 77,
    at: AT,
    ...over,
  });
  /** A run of acme/web's conveyor.yml as GitHub lists it. */
  const listed = (id: number, actor: string, checkRunId = 77) => ({
    id,
    html_url: `https://github.com/acme/web/actions/runs/${id}`,
    status: 'in_progress',
    conclusion: null,
    run_started_at: AT,
    run_attempt: 1,
    display_title: `conveyor / implement · attempt 1 [check run ${checkRunId}]`,
    actor: { login: actor },
    triggering_actor: { login: actor },
  });
  const runsOfConveyorYml = (runs: unknown[]) =>
    nock(API)
      .get('/repos/acme/web/actions/workflows/conveyor.yml/runs')
      .query((q) => q.event === 'workflow_dispatch' && typeof q.created === 'string')
      .reply(200, { total_count: runs.length, workflow_runs: runs });

  it('gives nothing while its dispatch is under way (creating-check): 425, before any token is minted', async () => {
    await links.saveAttempt(link({ state: 'creating-check', workflowRunId: undefined }));
    const r = await broker.exchange({ token: await issuer.sign(jobClaims()), ...implement });
    expectRefusal(r, 425, 'dispatch-under-way', /still being dispatched/);
  });

  it("on GHES, finds the run by its marker among the bot's runs (a writer's run with the same marker is not taken), records it, and answers only it", async () => {
    await links.saveAttempt(link());
    // The writer's own dispatch, naming check run 77 too, is the newest.
    const listing = runsOfConveyorYml([listed(5555, 'mallory'), listed(9001, BOT)]);
    const token = await issuer.sign(jobClaims());
    const scopes = [tokenEndpoint(['web', 'api'], CODE_PERMISSIONS), tokenEndpoint(['web', 'api'], CODE_PERMISSIONS)];
    expect((await broker.exchange({ token, ...implement })).status).toBe(200);
    expect(listing.isDone()).toBe(true);
    expect(await links.attempt(`${RUN}:implement:1:0`)).toMatchObject({ workflowRunId: 9001, workflowRunUrl: 'https://github.com/acme/web/actions/runs/9001' });
    // A renewal is judged against the recorded run, without listing again (nock has no listing left).
    expect((await broker.exchange({ token, ...implement })).status).toBe(200);
    for (const scope of scopes) expect(scope.isDone()).toBe(true);
    // The writer's run is not the attempt's, even had its job's token come from the bot.
    expectRefusal(
      await broker.exchange({ token: await issuer.sign(jobClaims({ run_id: '5555' })), ...implement }),
      403,
      'run-id-mismatch',
      /dispatched as workflow run 9001/,
    );
  });

  it('on GHES, refuses (425) while only runs of others name its check run, and records nothing', async () => {
    await links.saveAttempt(link());
    const listing = runsOfConveyorYml([listed(5555, 'mallory'), listed(9002, BOT, 78)]);
    expectRefusal(await broker.exchange({ token: await issuer.sign(jobClaims()), ...implement }), 425, 'run-not-found', /check run/);
    expect(listing.isDone()).toBe(true);
    expect((await links.attempt(`${RUN}:implement:1:0`))?.workflowRunId).toBeUndefined();
  });
});
