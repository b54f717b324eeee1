// A repair's check run is named as one (`conveyor / test (repair 1)`), so the Checks tab never shows
// a repair's tick as the gate passing; after a crash the dispatcher looks for it by that name, and
// finds it by its external id. Real store, GitHub mocked with nock.
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkflowDispatcher } from '../../../adapters/dispatch/workflow/dispatcher.ts';
import { buildPayload } from '../../../core/run/payload.ts';
import { reduce } from '../../../core/run/reducer.ts';
import type { RunEvent } from '../../../core/run/types.ts';
import { completionOf } from '../../helpers/plans.ts';
import { API, createHarness, tokenScope, type Harness } from '../../app/harness.ts';
import { planWith, pr, RUN, seed, WEB_HEAD } from '../../app/decisions-setup.ts';

let h: Harness;
beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness();
  tokenScope();
  await seed(
    h,
    planWith([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate', repair: 2 },
    ]),
    { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
    { leaveQueued: 'test' },
  );
  // The gate fails: its first repair is queued (attempt 2), as the reducer leaves it.
  const run = (await h.conveyor.deps.store.get(RUN))!;
  const failed = reduce(run, { ...completionOf(run, 'test', 'failure', { findings: 'expected 1, got 2' }), at: run.updatedAt } as RunEvent).run;
  expect(failed.steps.test).toMatchObject({ status: 'queued', attempt: 2, mode: 'repair' });
  expect(await h.conveyor.deps.store.commit(failed, [])).toBeTruthy();
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

const dispatcher = () => {
  const { store, links, githubOf, botLogin } = h.conveyor.deps;
  return createWorkflowDispatcher({ store, links, github: githubOf, botLogin, now: () => h.clock.now });
};
const repairPayload = async () => buildPayload((await h.conveyor.deps.store.get(RUN))!, { step: 'test', attempt: 2, epoch: 0, mode: 'repair' });

describe("a repair's check run", () => {
  it('is named `conveyor / test (repair 1)`, its external id the attempt', async () => {
    const made: Array<{ name: string; external_id: string }> = [];
    const scopes = [
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; external_id: string }) => made.push(b) > 0)
        .reply(201, { id: 301, html_url: 'https://github.com/acme/web/runs/301', status: 'queued', output: {} }),
      nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204),
    ];
    expect(await dispatcher().run(await repairPayload())).toEqual({ kind: 'dispatched' });
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(made.map((b) => [b.name, b.external_id])).toEqual([['conveyor / test (repair 1)', `${RUN}:test:2:0`]]);
  });

  it('is looked for by that name after a crash, and found by its external id', async () => {
    await h.conveyor.deps.links.saveAttempt({
      externalId: `${RUN}:test:2:0`,
      runId: RUN,
      repo: 'acme/web',
      head: WEB_HEAD,
      at: h.clock.now,
      state: 'creating-check',
    });
    const scopes = [
      nock(API)
        .get(`/repos/acme/web/commits/${WEB_HEAD}/check-runs`)
        .query({ check_name: 'conveyor / test (repair 1)', filter: 'all', per_page: '100' })
        .reply(200, {
          total_count: 1,
          check_runs: [
            { id: 301, html_url: 'https://github.com/acme/web/runs/301', status: 'queued', conclusion: null, external_id: `${RUN}:test:2:0`, output: {} },
          ],
        }),
      nock(API).get('/repos/acme/web/actions/workflows/conveyor.yml/runs').query(true).reply(200, { total_count: 0, workflow_runs: [] }),
      nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204),
    ];
    const created = nock(API).post('/repos/acme/web/check-runs').reply(201, { id: 999 });
    await dispatcher().run(await repairPayload());
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(created.isDone()).toBe(false);
    expect(await h.conveyor.deps.links.attempt(`${RUN}:test:2:0`)).toMatchObject({ checkRunId: 301, state: 'dispatched' });
  });
});
