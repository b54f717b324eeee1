// The workflow dispatcher after a crash: a record left by an interrupted try makes the next try
// look on GitHub before it creates a check run or dispatches again, so one attempt never gets two
// check runs or two workflow runs. And a server that does not know `return_run_details` still gets
// its dispatch. Real store and link tables, GitHub mocked with nock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import nock from 'nock';
import { buildPayload } from '../../../core/run/payload.ts';
import { createWorkflowDispatcher } from '../../../adapters/dispatch/workflow.ts';
import type { Dispatcher } from '../../../engine/ports/dispatcher.ts';
import type { RunEffect } from '../../../core/run/types.ts';
import { join } from 'node:path';
import { openLinkStore, type AttemptLink } from '../../../adapters/store/links.ts';
import { API, createHarness, tokenScope, type Harness } from '../../app/harness.ts';
import { BASE_SHA, noSummaryOnHead } from '../../app/scopes.ts';
import { planWith, pr, RUN, seed, WEB_HEAD } from '../../app/decisions-setup.ts';
import { resultOf } from '../../helpers/plans.ts';

const EXTERNAL_ID = `${RUN}:implement:1:0`;
const CRASHED_AT = '2025-03-01T09:58:00.000Z';

let h: Harness;
let dispatcher: Dispatcher;
beforeEach(() => {
  nock.disableNetConnect();
  h = createHarness();
  tokenScope();
  const { store, links, heads, githubOf } = h.conveyor.deps;
  dispatcher = createWorkflowDispatcher({ store, links, heads, github: githubOf, now: () => h.clock.now });
  seed(h, planWith([{ id: 'implement', kind: 'code' }, { id: 'check', kind: 'gate' }]), {}, { leaveQueued: 'implement' });
  nock(API).get('/repos/acme/web/git/ref/heads%2Fmain').reply(200, { object: { sha: BASE_SHA } });
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
  h.close();
});

const payload = () => buildPayload(h.conveyor.engine.get(RUN), { step: 'implement', attempt: 1, epoch: 0, mode: 'run' });
const crashed = (extra: Partial<AttemptLink>) => h.conveyor.deps.links.saveAttempt({ externalId: EXTERNAL_ID, runId: RUN, repo: 'acme/web', head: BASE_SHA, at: CRASHED_AT, state: 'creating-check', ...extra });
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

function workflowRuns(runs: Array<{ id: number; display_title: string }>, query: Record<string, string>[] = []): nock.Scope {
  return nock(API)
    .get('/repos/acme/web/actions/workflows/conveyor.yml/runs')
    .query((q) => query.push(q as Record<string, string>) > 0)
    .reply(200, { total_count: runs.length, workflow_runs: runs.map((r) => ({ ...r, name: 'conveyor', html_url: `https://github.com/acme/web/actions/runs/${r.id}` })) });
}

describe('the workflow dispatcher after a crash', () => {
  it('finds the workflow run an interrupted dispatch started, and dispatches nothing', async () => {
    crashed({ state: 'dispatching', checkRunId: 101, checkRunUrl: 'https://github.com/acme/web/runs/101' });
    const query: Record<string, string>[] = [];
    const scopes = [workflowRuns([{ id: 4241, display_title: 'conveyor / implement · attempt 1 [check run 100]' }, { id: 4242, display_title: 'conveyor / implement · attempt 1 [check run 101]' }], query)];
    const forbidden = [noCheckRunCreated(), nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204)];
    expect(await dispatcher.run(payload())).toEqual({ kind: 'dispatched' });
    allDone(scopes);
    for (const s of forbidden) expect(s.isDone()).toBe(false);
    // Looked only at runs dispatched since the record was written.
    expect(query[0]).toMatchObject({ event: 'workflow_dispatch', created: '>=2025-03-01T09:58:00Z' });
    expect(h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101, workflowRunId: 4242, workflowRunUrl: 'https://github.com/acme/web/actions/runs/4242' });
  });

  it('dispatches again on the same check run when the interrupted dispatch started nothing', async () => {
    crashed({ state: 'dispatching', checkRunId: 101 });
    const inputs: Record<string, string> = {};
    const scopes = [
      workflowRuns([{ id: 4241, display_title: 'conveyor / implement · attempt 1 [check run 100]' }]),
      dispatchInto(inputs),
    ];
    const forbidden = noCheckRunCreated();
    await dispatcher.run(payload());
    allDone(scopes);
    expect(forbidden.isDone()).toBe(false);
    expect(inputs['check-run']).toBe('101');
    expect(h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101 });
  });

  /** The check runs of the crashed attempt's head: an older attempt's, and the one the interrupted try created. */
  const checkRunsOnHead = () =>
    nock(API)
      .get(`/repos/acme/web/commits/${BASE_SHA}/check-runs`)
      .query((q) => q.check_name === 'conveyor / implement')
      .reply(200, {
        total_count: 2,
        check_runs: [
          { id: 99, html_url: 'https://github.com/acme/web/runs/99', status: 'completed', conclusion: 'cancelled', external_id: `${RUN}:implement:0:0`, details_url: null, started_at: null, output: { summary: null, text: null } },
          { id: 101, html_url: 'https://github.com/acme/web/runs/101', status: 'queued', conclusion: null, external_id: EXTERNAL_ID, details_url: null, started_at: null, output: { summary: null, text: null } },
        ],
      });

  it('finds the check run an interrupted try created before it could record its id', async () => {
    crashed({ state: 'creating-check' });
    const inputs: Record<string, string> = {};
    // The interrupted try may have dispatched too (that record rides on a later write): looked for first.
    const scopes = [checkRunsOnHead(), workflowRuns([{ id: 4241, display_title: 'conveyor / implement · attempt 1 [check run 100]' }]), dispatchInto(inputs)];
    const forbidden = noCheckRunCreated();
    await dispatcher.run(payload());
    allDone(scopes);
    expect(forbidden.isDone()).toBe(false);
    expect(inputs['check-run']).toBe('101');
    expect(h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101, checkRunUrl: 'https://github.com/acme/web/runs/101' });
  });

  it('finds the workflow run of an interrupted try that died before its dispatch was recorded, and makes nothing', async () => {
    crashed({ state: 'creating-check' });
    const scopes = [checkRunsOnHead(), workflowRuns([{ id: 4242, display_title: 'conveyor / implement · attempt 1 [check run 101]' }])];
    const forbidden = [noCheckRunCreated(), nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204)];
    await dispatcher.run(payload());
    allDone(scopes);
    for (const s of forbidden) expect(s.isDone()).toBe(false);
    expect(h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101, workflowRunId: 4242 });
  });

  it('does nothing for an attempt already dispatched', async () => {
    crashed({ state: 'dispatched', checkRunId: 101, workflowRunId: 4242 });
    h.calls.length = 0;
    await dispatcher.run(payload());
    expect(h.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /repos/acme/web/git/ref/heads/main']);
  });
});

describe('dispatching', () => {
  it('writes its record before it creates the check run, and the dispatched record with the store\'s next write', async () => {
    // What a process that took over after a crash would find: a second connection to the same file.
    const other = openLinkStore(join(h.dir, 'app.db'));
    const seen: Array<AttemptLink | undefined> = [];
    const scopes = [
      nock(API)
        .post('/repos/acme/web/check-runs')
        .reply(201, () => (seen.push(other.attempt(EXTERNAL_ID)), { id: 101, html_url: 'https://github.com/acme/web/runs/101', status: 'queued', external_id: EXTERNAL_ID, output: {} })),
      nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204),
    ];
    try {
      await dispatcher.run(payload());
      allDone(scopes);
      expect(seen).toEqual([expect.objectContaining({ state: 'creating-check', head: BASE_SHA })]);
      expect(seen[0]?.checkRunId).toBeUndefined();
      // This process knows at once; the file, with the next write (a transition, here marking effects done).
      expect(h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101 });
      expect(h.conveyor.deps.links.attemptByCheckRun(101)).toMatchObject({ externalId: EXTERNAL_ID });
      expect(other.attempt(EXTERNAL_ID)).toMatchObject({ state: 'creating-check' });
      h.conveyor.deps.store.markEffectsDone([{ runId: RUN, key: 'no-such-effect' }]);
      expect(other.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101 });
    } finally {
      other.close();
    }
  });

  it('sends the dispatch again without `return_run_details` to a server that refuses that parameter', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const scopes = [
      nock(API).post('/repos/acme/web/check-runs').reply(201, { id: 101, html_url: 'https://github.com/acme/web/runs/101', status: 'queued', conclusion: null, external_id: EXTERNAL_ID, details_url: null, started_at: null, output: { summary: null, text: null } }),
      nock(API)
        .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: Record<string, unknown>) => bodies.push(b) > 0)
        .reply(422, { message: 'Invalid request.\n\n"return_run_details" is not a permitted key.' })
        .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: Record<string, unknown>) => bodies.push(b) > 0)
        .reply(204),
    ];
    await dispatcher.run(payload());
    allDone(scopes);
    expect(bodies.map((b) => b.return_run_details)).toEqual([true, undefined]);
    expect(bodies[1]).toMatchObject({ ref: 'main', inputs: { 'check-run': '101' } });
    expect(h.conveyor.deps.links.attempt(EXTERNAL_ID)).toMatchObject({ state: 'dispatched', checkRunId: 101 });
    expect(h.conveyor.deps.links.attempt(EXTERNAL_ID)?.workflowRunId).toBeUndefined();
  });
});

describe('a record prepared with a transition', () => {
  const effect: RunEffect = { type: 'dispatch', key: `${RUN}:dispatch:implement:1:0`, step: 'implement', attempt: 1, epoch: 0, mode: 'run' };
  /** Prepares the attempt's record as a commit would, writes it (the store's next write), and says how the commit went. */
  const prepareAndCommit = (committed: boolean) => {
    h.conveyor.deps.heads.adopt(RUN, 'main', BASE_SHA);
    const settle = dispatcher.prepare!(h.conveyor.engine.get(RUN), [effect]);
    h.conveyor.deps.store.markEffectsDone([{ runId: RUN, key: 'no-such-effect' }]);
    settle(committed);
  };
  const created = () =>
    nock(API)
      .post('/repos/acme/web/check-runs', (b: { head_sha: string }) => b.head_sha === BASE_SHA)
      .reply(201, { id: 101, html_url: 'https://github.com/acme/web/runs/101', status: 'queued', external_id: EXTERNAL_ID, output: {} });
  const dispatched = () => nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204);

  it('is trusted by the attempt\'s first try once its transition was committed: nothing is looked up', async () => {
    nock.removeInterceptor({ hostname: 'api.github.com', path: '/repos/acme/web/git/ref/heads%2Fmain', method: 'GET' });
    prepareAndCommit(true);
    const scopes = [created(), dispatched()];
    h.calls.length = 0;
    await dispatcher.run(payload());
    allDone(scopes);
    expect(h.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /repos/acme/web/check-runs', 'POST /repos/acme/web/actions/workflows/conveyor.yml/dispatches']);
  });

  it('is not trusted when its transition was not committed (another writer got there first): the try looks on GitHub first', async () => {
    prepareAndCommit(false);
    const lookup = nock(API).get(`/repos/acme/web/commits/${BASE_SHA}/check-runs`).query(true).reply(200, { total_count: 0, check_runs: [] });
    const scopes = [lookup, created(), dispatched()];
    await dispatcher.run(payload());
    allDone(scopes);
  });
});

describe('dispatching an attempt a transition made', () => {
  it('writes its record with the commit that made it, when its head is known then, and calls nothing twice', async () => {
    const other = openLinkStore(join(h.dir, 'app.db'));
    const saves = vi.spyOn(h.conveyor.deps.links, 'saveAttempt');
    const seen: Array<AttemptLink | undefined> = [];
    // The tracking comment's edit, and the summary check run on the PR's head (new to the run).
    const scopes = [
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      noSummaryOnHead(WEB_HEAD),
      nock(API).post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === WEB_HEAD).reply(201, { id: 501, html_url: 'x', status: 'in_progress', output: {} }),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor / check' && b.head_sha === WEB_HEAD)
        .reply(201, () => (seen.push(other.attempt(`${RUN}:check:1:0`)), { id: 102, html_url: 'https://github.com/acme/web/runs/102', status: 'queued', output: {} })),
      nock(API).post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204),
    ];
    try {
      // The code step's result names its PR: the gate after it goes on the PR's head, known at the commit.
      await h.conveyor.engine.apply(RUN, { type: 'step-completed', at: CRASHED_AT, result: resultOf(RUN, 'implement', 1, 0, 'success', { prs: [pr('acme/web', 12, WEB_HEAD)] }) });
      await h.conveyor.idle();
      for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
      // In the file before the check run was made: the commit of the transition wrote it.
      expect(seen).toEqual([expect.objectContaining({ state: 'creating-check', head: WEB_HEAD })]);
      // Two saves, both riding on writes the store made anyway: none of its own.
      const mine = saves.mock.calls.filter(([l]) => l.externalId === `${RUN}:check:1:0`);
      expect(mine.map(([l, , o]) => [l.state, o?.later])).toEqual([['creating-check', true], ['dispatched', true]]);
    } finally {
      saves.mockRestore();
      other.close();
    }
  });
});
