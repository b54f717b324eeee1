// A cancelled run stops what it has under way on GitHub (issue #16 item 6): `/conveyor cancel`
// and a PR closed without merging complete the in-flight attempt's check run as cancelled (what
// the action watches for: test/action/check-run-watch.test.ts) and cancel its workflow run; a
// workflow run that already completed (GitHub's 409) is fine.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { completionOf } from '../helpers/plans.ts';
import { API, createHarness, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { dispatchScope, permissionScope, startIssue7, workflowRunsScope, type Dispatched } from './scopes.ts';
import { events } from './decisions-setup.ts';
import { duplicateKeys } from '../helpers/pino-capture.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true });

/** The check run PATCH that completes an attempt's check run as cancelled, its body kept. */
function cancelledCheckScope(id: number, into: Array<Record<string, unknown>>): nock.Scope {
  return nock(API)
    .patch(`/repos/acme/web/check-runs/${id}`, (b: Record<string, unknown>) => (b.conclusion === 'cancelled' ? into.push(b) > 0 : false))
    .reply(200, { id, status: 'completed', conclusion: 'cancelled' });
}

describe('cancelling a run with an attempt in flight', () => {
  it('`/conveyor cancel` completes its check run as cancelled and cancels its workflow run, found by the check run it names', async () => {
    const dispatched: Dispatched[] = [];
    await startIssue7(h, dispatched);
    const patched: Array<Record<string, unknown>> = [];
    const scopes = [
      permissionScope('alice', 'write'),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .reply(201, {}),
      cancelledCheckScope(101, patched),
      // The dispatch did not say which workflow run it started: it is found by its name.
      workflowRunsScope([{ checkRun: 101, status: 'in_progress' }]),
      nock(API).post('/repos/acme/web/actions/runs/700/cancel').reply(202, {}),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
      // The run's draft PR is left open, saying why.
      nock(API)
        .post('/repos/acme/web/issues/1/comments', (b: { body: string }) => b.body.includes('This pull request is left open'))
        .reply(201, { id: 901, html_url: 'c' }),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel wrong approach'));
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect((await h.conveyor.engine.get('acme-web-7')).status).toBe('cancelled');
    expect(patched).toEqual([
      expect.objectContaining({
        status: 'completed',
        conclusion: 'cancelled',
        output: { title: 'cancelled', summary: 'This attempt was stopped: its run was cancelled (cancelled by alice: wrong approach).' },
      }),
    ]);
    // Said once, as pino fields naming the attempt stopped (what a log pipeline filters on), each key once per line.
    const stop = 'run acme-web-7 cancelled: asked GitHub to cancel workflow run 700 of step implement in acme/web';
    expect(h.records().filter((r) => r.msg === stop)).toEqual([
      expect.objectContaining({ level: 30, run: 'acme-web-7', step: 'implement', attempt: 1, epoch: 0, mode: 'run', repo: 'acme/web', workflowRun: 700 }),
    ]);
    expect(h.lines.filter((l) => duplicateKeys(l).length > 0)).toEqual([]);
  });

  it('closing the PR does the same; a workflow run that already completed (409) is fine', async () => {
    const dispatched: Dispatched[] = [];
    await startIssue7(h, dispatched);
    // The code step opened its PR; the gate is dispatched on its head, and the dispatch said which workflow run it started.
    const head = 'c'.repeat(40);
    const loose = [
      nock(API).persist().patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API)
        .persist()
        .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor')
        .reply(201, { id: 501, html_url: 'x', status: 'in_progress', output: {} }),
      nock(API)
        .persist()
        .patch(/\/repos\/acme\/web\/check-runs\/50[01]/)
        .reply(200, {}),
    ];
    const gate = dispatchScope('check', 102, dispatched);
    const pr = { repo: 'acme/web', number: 1, url: 'https://github.com/acme/web/pull/1', branch: 'conveyor/web-7', head };
    await h.conveyor.engine.apply('acme-web-7', completionOf(await h.conveyor.engine.get('acme-web-7'), 'implement', 'success', { prs: [pr] }));
    await h.conveyor.idle();
    expect(gate.isDone()).toBe(true);
    const link = (await h.conveyor.deps.links.attempt('acme-web-7:check:1:0'))!;
    await h.conveyor.deps.links.saveAttempt({ ...link, workflowRunId: 4242 });

    const patched: Array<Record<string, unknown>> = [];
    const scopes = [
      // A writer of the primary repository closed it.
      permissionScope('alice', 'write'),
      cancelledCheckScope(102, patched),
      nock(API).post('/repos/acme/web/actions/runs/4242/cancel').reply(409, { message: 'Cannot cancel a workflow run that is completed.' }),
    ];
    await h.receive('pull_request', events.pull('closed', 'acme/web', 1, head, 'alice'));
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect((await h.conveyor.engine.get('acme-web-7')).status).toBe('cancelled');
    expect(patched[0]).toMatchObject({ output: { summary: 'This attempt was stopped: its run was cancelled (PR acme/web#1 was closed without merging).' } });
    // Nothing left to stop is no failure, and nothing is said of a cancel that was not needed.
    expect(h.logged.filter((l) => l.includes('could not stop') || l.includes('workflow run 4242'))).toEqual([]);
    for (const s of loose) s.persist(false);
  });
});

describe('cancelling whatever the acknowledgement does', () => {
  it('a cancel whose reaction fails (and whose tracking comment update fails) still completes the check run and cancels the workflow run', async () => {
    const dispatched: Dispatched[] = [];
    await startIssue7(h, dispatched);
    const patched: Array<Record<string, unknown>> = [];
    const scopes = [
      permissionScope('alice', 'write'),
      cancelledCheckScope(101, patched),
      workflowRunsScope([{ checkRun: 101, status: 'in_progress' }]),
      nock(API).post('/repos/acme/web/actions/runs/700/cancel').reply(202, {}),
    ];
    // GitHub fails the reaction on the comment and the update of the tracking comment (each try the retry policy makes).
    const failing = [
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .times(4)
        .reply(500, { message: 'Server Error' }),
      nock(API).patch('/repos/acme/web/issues/comments/900').times(4).reply(500, { message: 'Server Error' }),
    ];
    // The rest of the cancel goes on: its draft PR is left open, saying why.
    const leftOpen = nock(API)
      .post('/repos/acme/web/issues/1/comments', (b: { body: string }) => b.body.includes('This pull request is left open'))
      .reply(201, { id: 901, html_url: 'c' });
    const summary = nock(API).persist().patch('/repos/acme/web/check-runs/500').reply(200, {});
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel wrong approach'), 'delivery-cancel');
    for (const s of [...scopes, ...failing, leftOpen]) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect((await h.conveyor.engine.get('acme-web-7')).status).toBe('cancelled');
    expect(patched).toEqual([expect.objectContaining({ status: 'completed', conclusion: 'cancelled' })]);
    // A warning of the handler, naming its delivery and what it was about.
    expect(h.records().filter((r) => r.msg.startsWith('could not acknowledge'))).toEqual([
      expect.objectContaining({
        level: 40,
        msg: expect.stringContaining('could not acknowledge the command of @alice on acme/web#7'),
        delivery: 'delivery-cancel',
        event: 'issue_comment',
        repo: 'acme/web',
        number: 7,
      }),
    ]);
    summary.persist(false);
  });
});
