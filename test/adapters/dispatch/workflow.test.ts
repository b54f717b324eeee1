// The workflow dispatcher after a crash: a record left by an interrupted try makes the next try
// look on GitHub before it creates a check run or dispatches again, so one attempt never gets two
// check runs or two workflow runs. And a server that does not know `return_run_details` still gets
// its dispatch. Real store and link tables, GitHub mocked with nock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { buildPayload } from '../../../core/run/payload.ts';
import { createWorkflowDispatcher } from '../../../adapters/dispatch/workflow/dispatcher.ts';
import type { Dispatcher } from '../../../engine/ports/dispatcher.ts';
import { join } from 'node:path';
import type { AttemptLink } from '../../../adapters/github/links.ts';
import { openSqliteStore } from '../../../adapters/store/sqlite.ts';
import { API, BOT, createHarness, tokenScope, type Harness } from '../../app/harness.ts';
import { DRAFT_SHA } from '../../app/scopes.ts';
import { planWith, RUN, seed } from '../../app/decisions-setup.ts';

const EXTERNAL_ID = `${RUN}:implement:1:0`;
const CRASHED_AT = '2025-03-01T09:58:00.000Z';

let h: Harness;
let dispatcher: Dispatcher;
beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness();
  tokenScope();
  const { store, links, githubOf, botLogin } = h.conveyor.deps;
  dispatcher = createWorkflowDispatcher({ store, links, github: githubOf, botLogin, now: () => h.clock.now });
  await seed(
    h,
    planWith([
      { id: 'implement', kind: 'code' },
      { id: 'check', kind: 'gate' },
    ]),
    {},
    // The run's draft PR, as the app opens it before it starts a run: its check runs go on its head.
    {
      leaveQueued: 'implement',
      prs: [{ repo: 'acme/web', number: 1, url: 'https://github.com/acme/web/pull/1', branch: 'conveyor/web-7', head: DRAFT_SHA, draft: true }],
    },
  );
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

const payload = async () => buildPayload(await h.conveyor.engine.get(RUN), { step: 'implement', attempt: 1, epoch: 0, mode: 'run' });
const crashed = (extra: Partial<AttemptLink>) =>
  h.conveyor.deps.links.saveAttempt({
    externalId: EXTERNAL_ID,
    runId: RUN,
    repo: 'acme/web',
    head: DRAFT_SHA,
    at: CRASHED_AT,
    state: 'creating-check',
    ...extra,
  });
const noCheckRunCreated = () => nock(API).post('/repos/acme/web/check-runs').reply(500, { message: 'must not be called' });
const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

/** The dispatch of the workflow, its inputs copied into `inputs`. */
function dispatchInto(inputs: Record<string, string>): nock.Scope {
  return nock(API)
    .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: { inputs: Record<string, string> }) => (Object.assign(inputs, b.inputs), true))
    .reply(204);
}

/** Runs of conveyor.yml as GitHub lists them, started by the app's bot unless `actor` says who else. */
function workflowRuns(runs: Array<{ id: number; display_title: string; actor?: string }>, query: Record<string, string>[] = []): nock.Scope {
  return nock(API)
    .get('/repos/acme/web/actions/workflows/conveyor.yml/runs')
    .query((q) => query.push(q as Record<string, string>) > 0)
    .reply(200, {
      total_count: runs.length,
      workflow_runs: runs.map((r) => ({
        id: r.id,
        display_title: r.display_title,
        name: 'conveyor',
        html_url: `https://github.com/acme/web/actions/runs/${r.id}`,
        actor: { login: r.actor ?? BOT },
      })),
    });
}

describe('the workflow dispatcher after a crash', () => {
  it('finds the workflow run an interrupted dispatch started, and dispatches nothing', async () => {
    await crashed({ state: 'creating-check', checkRunId: 101, checkRunUrl: 'https://github.com/acme/web/runs/101' });
    const query: Record<string, string>[] = [];
    const scopes = [
      workflowRuns(
        [
          { id: 4241, display_title: 'conveyor / implement · attempt 1 [check run 100]' },
          { id: 4242, display_title: 'conveyor / implement · attempt 1 [check run 101]' },
        ],
        query,
      ),
    ];
    const forbidden = [noCheckRunCreated(), nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204)];
    expect(await dispatcher.run(await payload())).toEqual({ kind: 'dispatched' });
    allDone(scopes);
    for (const s of forbidden) expect(s.isDone()).toBe(false);
    // Looked only at runs dispatched since the record was written, less 10 minutes for clocks apart.
    expect(query[0]).toMatchObject({ event: 'workflow_dispatch', created: '>=2025-03-01T09:48:00Z' });
    expect(await h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({
      state: 'dispatched',
      checkRunId: 101,
      workflowRunId: 4242,
      workflowRunUrl: 'https://github.com/acme/web/actions/runs/4242',
    });
  });

  it('dispatches again on the same check run when the interrupted dispatch started nothing', async () => {
    await crashed({ state: 'creating-check', checkRunId: 101 });
    const inputs: Record<string, string> = {};
    const scopes = [workflowRuns([{ id: 4241, display_title: 'conveyor / implement · attempt 1 [check run 100]' }]), dispatchInto(inputs)];
    const forbidden = noCheckRunCreated();
    await dispatcher.run(await payload());
    allDone(scopes);
    expect(forbidden.isDone()).toBe(false);
    expect(inputs['check-run']).toBe('101');
    expect(await h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101 });
  });

  /** The check runs of the crashed attempt's head: an older attempt's, and the one the interrupted try created. */
  const checkRunsOnHead = () =>
    nock(API)
      .get(`/repos/acme/web/commits/${DRAFT_SHA}/check-runs`)
      .query((q) => q.check_name === 'conveyor / implement')
      .reply(200, {
        total_count: 2,
        check_runs: [
          {
            id: 99,
            html_url: 'https://github.com/acme/web/runs/99',
            status: 'completed',
            conclusion: 'cancelled',
            external_id: `${RUN}:implement:0:0`,
            details_url: null,
            started_at: null,
            output: { summary: null, text: null },
          },
          {
            id: 101,
            html_url: 'https://github.com/acme/web/runs/101',
            status: 'queued',
            conclusion: null,
            external_id: EXTERNAL_ID,
            details_url: null,
            started_at: null,
            output: { summary: null, text: null },
          },
        ],
      });

  it('finds the check run an interrupted try created before it could record its id', async () => {
    await crashed({ state: 'creating-check' });
    const inputs: Record<string, string> = {};
    // The interrupted try may have dispatched too (that record rides on a later write): looked for first.
    const scopes = [checkRunsOnHead(), workflowRuns([{ id: 4241, display_title: 'conveyor / implement · attempt 1 [check run 100]' }]), dispatchInto(inputs)];
    const forbidden = noCheckRunCreated();
    await dispatcher.run(await payload());
    allDone(scopes);
    expect(forbidden.isDone()).toBe(false);
    expect(inputs['check-run']).toBe('101');
    expect(await h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({
      state: 'dispatched',
      checkRunId: 101,
      checkRunUrl: 'https://github.com/acme/web/runs/101',
    });
  });

  it('finds the workflow run of an interrupted try that died before its dispatch was recorded, and makes nothing', async () => {
    await crashed({ state: 'creating-check' });
    const scopes = [checkRunsOnHead(), workflowRuns([{ id: 4242, display_title: 'conveyor / implement · attempt 1 [check run 101]' }])];
    const forbidden = [noCheckRunCreated(), nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204)];
    await dispatcher.run(await payload());
    allDone(scopes);
    for (const s of forbidden) expect(s.isDone()).toBe(false);
    expect(await h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101, workflowRunId: 4242 });
  });

  it('does nothing for an attempt already dispatched', async () => {
    await crashed({ state: 'dispatched', checkRunId: 101, workflowRunId: 4242 });
    h.calls.length = 0;
    await dispatcher.run(await payload());
    // Not even the head is read: the record says where its check run is.
    expect(h.calls).toEqual([]);
  });
});

describe('dispatching', () => {
  it('writes its record before it creates the check run, and that it dispatched once it did', async () => {
    // What a process that took over after a crash would find: a second connection to the same file.
    const other = await openSqliteStore(join(h.dir, 'app.db'));
    const seen: Array<AttemptLink | undefined> = [];
    const scopes = [
      nock(API)
        .post('/repos/acme/web/check-runs')
        .reply(
          201,
          async () => (
            seen.push(await other.links.attempt(EXTERNAL_ID)),
            { id: 101, html_url: 'https://github.com/acme/web/runs/101', status: 'queued', external_id: EXTERNAL_ID, output: {} }
          ),
        ),
      nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204),
    ];
    try {
      await dispatcher.run(await payload());
      allDone(scopes);
      expect(seen).toEqual([expect.objectContaining({ state: 'creating-check', head: DRAFT_SHA })]);
      expect(seen[0]?.checkRunId).toBeUndefined();
      expect(await other.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101 });
      expect(await other.links.attemptByCheckRun('acme/web', 101)).toMatchObject({ externalId: EXTERNAL_ID });
    } finally {
      await other.close();
    }
  });

  it('sends the dispatch again without `return_run_details` to a server that refuses that parameter', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const scopes = [
      nock(API)
        .post('/repos/acme/web/check-runs')
        .reply(201, {
          id: 101,
          html_url: 'https://github.com/acme/web/runs/101',
          status: 'queued',
          conclusion: null,
          external_id: EXTERNAL_ID,
          details_url: null,
          started_at: null,
          output: { summary: null, text: null },
        }),
      nock(API)
        .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: Record<string, unknown>) => bodies.push(b) > 0)
        .reply(422, { message: 'Invalid request.\n\n"return_run_details" is not a permitted key.' })
        .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: Record<string, unknown>) => bodies.push(b) > 0)
        .reply(204),
    ];
    await dispatcher.run(await payload());
    allDone(scopes);
    expect(bodies.map((b) => b.return_run_details)).toEqual([true, undefined]);
    expect(bodies[1]).toMatchObject({ ref: 'main', inputs: { 'check-run': '101' } });
    expect(await h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101 });
    expect((await h.conveyor.deps.links.attempt(EXTERNAL_ID))?.workflowRunId).toBeUndefined();
  });
});
