// Where a dispatch said no run id (GitHub Enterprise Server), the app finds an attempt's workflow
// run by the marker `[check run N]` in its name. Anyone who may dispatch the workflow can give their
// own run that name, so every search takes only the runs the app's bot started: a writer's run with
// the marker never makes the sweeper think the attempt is running, never becomes the attempt's run
// after a crashed dispatch (the token broker would then answer it), and is never the one cancelled.
// And the sweeper looks from the dispatch's time, with slack for clocks apart, not from the link's
// last change, which comes after GitHub made the run.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { attemptKeyFor } from '../../core/contract/attempt-ref.ts';
import { buildPayload } from '../../core/run/payload.ts';
import { API, createHarness, tokenScope, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { dispatchScope, permissionScope, startIssue7, workflowRunsScope, type Dispatched } from './scopes.ts';
import { planWith, pr, RUN, seed, WEB_HEAD } from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true });

const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

/** GitHub's read of the attempt's check run 101: still queued (the action writes it once, at the end). */
const queued101 = () =>
  nock(API)
    .get('/repos/acme/web/check-runs/101')
    .reply(200, { id: 101, status: 'queued', conclusion: null, external_id: `${RUN}:implement:1:0`, output: {} });

describe('the sweeper', () => {
  it("does not take a writer's run named for the attempt as its run: the attempt no runner of the app's started is lost", async () => {
    const dispatched: Dispatched[] = [];
    await startIssue7(h, dispatched);
    h.clock.now = '2025-03-01T10:11:00.000Z';
    const scopes = [
      queued101(),
      // mallory dispatched conveyor.yml with the attempt's marker in the name; it is running.
      workflowRunsScope([{ checkRun: 101, status: 'in_progress', startedAt: '2025-03-01T10:05:00Z', actor: 'mallory' }]),
      nock(API)
        .patch('/repos/acme/web/check-runs/101', (b: { conclusion: string }) => b.conclusion === 'cancelled')
        .reply(200, {}),
      dispatchScope('implement', 102, dispatched),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
    ];
    const report = await h.conveyor.sweep();
    await h.conveyor.idle();
    expect(report.lost).toEqual([`${RUN}:implement:1:0`]);
    allDone(scopes);
    expect((await h.conveyor.engine.get(RUN)).steps.implement!.attempts[0]!.summary).toContain('no workflow run started it within 10 minutes');
  });

  it("finds the app's own run that GitHub dated before the dispatch was recorded: it looks from the dispatch's time less 10 minutes", async () => {
    const dispatched: Dispatched[] = [];
    await startIssue7(h, dispatched);
    // The dispatch was recorded at 10:00:00.000; GitHub, its clock a second behind, made the run at 09:59:59.
    h.clock.now = '2025-03-01T10:11:00.000Z';
    const created: string[] = [];
    const scopes = [
      queued101(),
      workflowRunsScope([{ checkRun: 101, status: 'in_progress', createdAt: '2025-03-01T09:59:59Z', startedAt: '2025-03-01T10:00:30Z' }], created),
    ];
    expect(await h.conveyor.sweep()).toEqual({ judged: 1, lost: [], completed: [] });
    allDone(scopes);
    expect(created).toEqual(['>=2025-03-01T09:50:00Z']);
    expect((await h.conveyor.engine.get(RUN)).steps.implement).toMatchObject({ status: 'queued', epoch: 0 });
  });
});

describe('cancelling a run', () => {
  it("cancels the app's own workflow run of the attempt, never a writer's run with the same marker", async () => {
    const dispatched: Dispatched[] = [];
    await startIssue7(h, dispatched);
    const scopes = [
      permissionScope('alice', 'write'),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .reply(201, {}),
      nock(API).patch('/repos/acme/web/check-runs/101').reply(200, { id: 101, status: 'completed', conclusion: 'cancelled' }),
      // Listed first, mallory's run (700) names check run 101 as the app's own (701) does.
      workflowRunsScope([
        { checkRun: 101, status: 'in_progress', actor: 'mallory' },
        { checkRun: 101, status: 'in_progress' },
      ]),
      nock(API).post('/repos/acme/web/actions/runs/701/cancel').reply(202, {}),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
      nock(API).post('/repos/acme/web/issues/1/comments').reply(201, { id: 901, html_url: 'c' }),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel'));
    allDone(scopes);
    expect(h.calls.filter((c) => c.path.endsWith('/cancel'))).toEqual([{ method: 'POST', path: '/repos/acme/web/actions/runs/701/cancel' }]);
    expect(h.logged).toContain(`run ${RUN} cancelled: asked GitHub to cancel workflow run 701 of step implement in acme/web`);
  });
});

describe('a dispatch interrupted by a crash', () => {
  it("dispatches again rather than record a writer's run named for the attempt as its run (the broker would answer it)", async () => {
    // The gate's dispatch died after its check run 102 was made and recorded, before the dispatch
    // was: the restarted app carries the pending dispatch out. mallory saw check run 102 on the PR.
    const run = await seed(
      h,
      planWith([
        { id: 'implement', kind: 'code' },
        { id: 'check', kind: 'gate' },
      ]),
      { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
      { leaveQueued: 'check' },
    );
    const CHECK = { runId: RUN, step: 'check', attempt: 1, epoch: 0, mode: 'run' } as const;
    const externalId = `${RUN}:check:1:0`;
    await h.conveyor.deps.links.saveAttempt({
      externalId,
      runId: RUN,
      repo: 'acme/web',
      state: 'creating-check',
      head: WEB_HEAD,
      checkRunId: 102,
      at: h.clock.now,
    });
    await h.conveyor.deps.store.commit(run, [{ type: 'dispatch', key: attemptKeyFor(CHECK, 'dispatch'), ref: CHECK, payload: buildPayload(run, CHECK) }]);
    const inputs: Array<Record<string, string>> = [];
    const scopes = [
      tokenScope(),
      nock(API).get('/repos/acme/web/check-runs/102').reply(200, { id: 102, status: 'queued', conclusion: null, external_id: externalId, output: {} }),
      workflowRunsScope([{ checkRun: 102, status: 'in_progress', actor: 'mallory' }]),
      nock(API)
        .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: { inputs: Record<string, string> }) => inputs.push(b.inputs) > 0)
        .reply(204),
    ];
    await h.conveyor.recover();
    await h.conveyor.idle();
    allDone(scopes);
    expect(inputs.map((i) => i['check-run'])).toEqual(['102']);
    const link = await h.conveyor.deps.links.attempt(externalId);
    expect(link).toMatchObject({ state: 'dispatched', checkRunId: 102 });
    expect(link?.workflowRunId).toBeUndefined();
  });
});
