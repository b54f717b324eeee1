// The GitHub mode's hard cases: an invalid configuration, a duplicate delivery, a stale attempt
// (the real action does nothing), a lost workflow run and its re-dispatch, a Re-run click, a
// payload over the input limit, and the sweeper.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { renderResultText } from '../../core/github/check-run.ts';
import { WIRE_VERSION, parseStepPayload } from '../../core/contract/wire.ts';
import { inputsDigest } from '../../core/contract/receipt.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { API, createHarness, fakeCheckRuns, runActionChild, tokenScope, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { configScope, dispatchScope, draftPrScope, permissionScope, startIssue7, workflowRunsScope, type Dispatched } from './scopes.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true });

/** Starts the run of issue 7 with its first dispatch (check run `firstCheck`). */
function started(dispatched: Dispatched[], firstCheck = 101): Promise<void> {
  return startIssue7(h, dispatched, firstCheck);
}

/** Delivers the same webhook again (same delivery id): no call to GitHub, and the run is not changed. */
async function redeliveredChangesNothing(name: string, payload: unknown, id: string): Promise<void> {
  const version = (await h.conveyor.engine.get('acme-web-7')).version;
  h.calls.length = 0;
  await h.receive(name, payload, id);
  expect(h.calls).toEqual([]);
  expect((await h.conveyor.engine.get('acme-web-7')).version).toBe(version);
}

describe('starting', () => {
  it('comments every error of an invalid configuration with its line, and starts nothing', async () => {
    const bad =
      'version: 1\nagents:\n  coder: { run: x }\n  idle: {}\nservices:\n  web: { repo: acme/web }\npipelines:\n  default:\n    steps:\n      - { id: a, kind: code, agent: codr }\n      - { id: b, kind: gate }\n';
    let body = '';
    const scopes = [
      tokenScope(),
      configScope(bad),
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => ((body = b.body), true))
        .reply(201, { id: 1, html_url: 'c' }),
    ];
    await h.receive('issues', webhooks.labeled());
    for (const s of scopes) expect(s.isDone()).toBe(true);
    expect(body).toMatch(/has 3 errors/);
    expect(body).toMatch(/\.github\/conveyor\.yml:10:\d+ pipelines\.default\.steps\[0\]\.agent: .*codr.*coder/);
    expect(body).toMatch(/\.github\/conveyor\.yml:11:\d+ pipelines\.default\.steps\[1\]/);
    expect(body).toContain('give it `preset`');
    // Each error in a code span its own backticks cannot break (the messages quote keys in backticks).
    const items = body.split('\n').filter((l) => l.startsWith('- '));
    expect(items).toHaveLength(3);
    for (const item of items) {
      const ticks = /^- (`+)/.exec(item)![1]!;
      expect(item.endsWith(ticks)).toBe(true);
      expect(item.slice(2 + ticks.length, -ticks.length)).not.toContain(ticks);
    }
    expect(await h.conveyor.deps.store.list()).toEqual([]);
  });

  it('ignores a redelivered webhook and a second label: one active run per issue and pipeline', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    // The same delivery id again: nothing at all (no config read, no call).
    h.calls.length = 0;
    await h.receive('issues', webhooks.labeled(), 'label-1');
    await h.receive('issues', webhooks.labeled(), 'label-1');
    // A new delivery of the label: the config is read, and the active run stops a second one.
    configScope();
    await h.receive('issues', webhooks.labeled(), 'another-delivery');
    expect(h.calls.map((c) => c.path)).toEqual(['/repos/acme/web/contents/.github/conveyor.yml']);
    expect((await h.conveyor.deps.store.list()).map((r) => r.id)).toEqual(['acme-web-7']);
    expect(dispatched).toHaveLength(1);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('a label starts a run only for a person with write permission: triage, read and bots are refused with a reply, and nothing is dispatched', async () => {
    const replies: string[] = [];
    for (const [sender, type, permission] of [
      ['tara', 'User', 'triage'],
      ['rita', 'User', 'read'],
      ['helper[bot]', 'Bot', undefined],
    ] as const) {
      const scopes = [
        configScope(),
        ...(permission ? [permissionScope(sender, permission)] : []),
        nock(API)
          .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => replies.push(b.body) > 0)
          .reply(201, { id: 1, html_url: 'c' }),
      ];
      if (replies.length === 0) scopes.push(tokenScope());
      const labeled = webhooks.labeled('conveyor', 7, sender);
      await h.receive('issues', { ...labeled, sender: { ...labeled.sender, type } });
      for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    }
    expect(replies).toEqual([
      '@tara only people with write permission on acme/web can start a Conveyor run (you have triage). Nothing was started.',
      '@rita only people with write permission on acme/web can start a Conveyor run (you have read). Nothing was started.',
      '@helper[bot] bots cannot start Conveyor runs. Nothing was started.',
    ]);
    expect(await h.conveyor.deps.store.list()).toEqual([]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('starts on `/conveyor run` from a writer, and refuses a reader with a reply', async () => {
    let reply = '';
    const refused = [
      tokenScope(),
      nock(API).get('/repos/acme/web/collaborators/mallory/permission').reply(200, { permission: 'read' }),
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => ((reply = b.body), true))
        .reply(201, { id: 1, html_url: 'c' }),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor run', 'mallory'));
    for (const s of refused) expect(s.isDone()).toBe(true);
    expect(reply).toContain('write permission');
    expect(await h.conveyor.deps.store.list()).toEqual([]);

    const dispatched: Dispatched[] = [];
    const ok = [
      nock(API).get('/repos/acme/web/collaborators/alice/permission').reply(200, { permission: 'admin' }),
      configScope(),
      draftPrScope(),
      dispatchScope('implement', 101, dispatched),
      nock(API).post('/repos/acme/web/issues/7/comments').reply(201, { id: 900, html_url: 'c' }),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor')
        .reply(201, { id: 500, html_url: 'x', status: 'in_progress', output: {} }),
      // The accepted command gets a reaction.
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/, { content: 'rocket' })
        .reply(201, {}),
    ];
    await h.receive('issue_comment', webhooks.comment('Please go.\n/conveyor run default\n'));
    for (const s of ok) expect(s.isDone()).toBe(true);
    expect((await h.conveyor.deps.store.list()).map((r) => r.requester)).toEqual(['alice']);
  });
});

describe('attempts', () => {
  it('the action does nothing for a stale attempt (its check run belongs to another attempt, or is completed)', async () => {
    const fake = await fakeCheckRuns();
    const work = tempDir('conveyor-stale-');
    try {
      const payload = { version: WIRE_VERSION, runId: 'acme-web-7', step: { id: 'implement' }, attempt: 1, epoch: 0, mode: 'run' };
      fake.checks.set(5, { id: 5, name: 'conveyor / implement', status: 'queued', external_id: 'acme-web-7:implement:1:1' });
      fake.checks.set(6, { id: 6, name: 'conveyor / implement', status: 'completed', external_id: 'acme-web-7:implement:1:0' });
      for (const id of [5, 6]) {
        const out = await runActionChild({
          INPUT_PAYLOAD: JSON.stringify(payload),
          INPUT_TOKEN: 'ghs_action',
          CONVEYOR_CHECK_RUN_ID: String(id),
          GITHUB_REPOSITORY: 'acme/web',
          GITHUB_API_URL: fake.url,
          GITHUB_SERVER_URL: 'file:///nonexistent',
          GITHUB_RUN_ID: '1',
          CONVEYOR_WORKSPACE_ROOT: work,
        });
        expect(out.code).toBe(0);
        expect(out.stdout).toContain('no longer current; doing nothing');
      }
      // Only the reads: nothing was marked, run or completed.
      expect(fake.requests).toEqual(['GET /repos/acme/web/check-runs/5', 'GET /repos/acme/web/check-runs/6']);
    } finally {
      await fake.close();
      removeDir(work);
    }
  }, 60_000);

  it('a workflow run that ended without a result is lost: closed, and dispatched again with the next epoch', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    const scopes = [
      nock(API)
        .get('/repos/acme/web/check-runs/101')
        .reply(200, { id: 101, status: 'queued', conclusion: null, external_id: 'acme-web-7:implement:1:0', output: { summary: null, text: null } }),
      nock(API)
        .patch(
          '/repos/acme/web/check-runs/101',
          (b: { status: string; conclusion: string; output: { summary: string } }) => b.conclusion === 'cancelled' && /dispatch 2/.test(b.output.summary),
        )
        .reply(200, {}),
      dispatchScope('implement', 102, dispatched),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
    ];
    const ended = webhooks.workflowRun({ id: 4242, display_title: 'conveyor / implement · attempt 1 [check run 101]', conclusion: 'failure' });
    await h.receive('workflow_run', ended, 'workflow-run-ended');
    for (const s of scopes) expect(s.isDone()).toBe(true);
    // Redelivered: the attempt it ended is not current any more, so nothing happens.
    await redeliveredChangesNothing('workflow_run', ended, 'workflow-run-ended');
    expect(dispatched[1]!.externalId).toBe('acme-web-7:implement:1:1');
    const step = (await h.conveyor.engine.get('acme-web-7')).steps.implement!;
    expect(step).toMatchObject({ status: 'queued', attempt: 1, epoch: 1, losses: 1 });
    expect(step.attempts[0]!.summary).toContain('workflow run #12');
    // A late completion of the lost attempt changes nothing.
    h.calls.length = 0;
    await h.receive(
      'check_run',
      webhooks.checkRun('completed', {
        id: 101,
        name: 'conveyor / implement',
        external_id: 'acme-web-7:implement:1:0',
        conclusion: 'cancelled',
        output: { summary: 'lost', text: null },
      }),
    );
    expect(h.calls).toEqual([]);
  });

  it('a check run completed by someone else without a result is lost: dispatched again, saying why', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    const scopes = [
      dispatchScope('implement', 102, dispatched),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
    ];
    const closed = webhooks.checkRun('completed', {
      id: 101,
      name: 'conveyor / implement',
      external_id: 'acme-web-7:implement:1:0',
      conclusion: 'cancelled',
      output: { summary: 'closed by hand', text: null },
    });
    await h.receive('check_run', closed, 'closed-by-hand');
    await h.conveyor.idle();
    for (const s of scopes) expect(s.isDone()).toBe(true);
    // Redelivered: the attempt is not current any more, so nothing happens (no second loss).
    await redeliveredChangesNothing('check_run', closed, 'closed-by-hand');
    expect(dispatched[1]!.externalId).toBe('acme-web-7:implement:1:1');
    const step = (await h.conveyor.engine.get('acme-web-7')).steps.implement!;
    expect(step).toMatchObject({ status: 'queued', attempt: 1, epoch: 1, losses: 1 });
    expect(step.attempts[0]!.summary).toContain('its check run was completed (cancelled) without a result: the check run has no output text');
  });

  it('the sweeper loses an attempt with no workflow run after 10 minutes, and one past its timeout', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    h.clock.now = '2025-03-01T10:05:00.000Z';
    expect((await h.conveyor.sweep()).judged).toBe(0);
    h.clock.now = '2025-03-01T10:11:00.000Z';
    const scopes = [
      // Its check run is still open: whether a runner took it is for its workflow run to say (there is none).
      nock(API)
        .get('/repos/acme/web/check-runs/101')
        .reply(200, { id: 101, status: 'queued', conclusion: null, external_id: 'acme-web-7:implement:1:0', output: {} }),
      workflowRunsScope([]),
      nock(API)
        .patch('/repos/acme/web/check-runs/101', (b: { conclusion: string }) => b.conclusion === 'cancelled')
        .reply(200, {}),
      dispatchScope('implement', 102, dispatched),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
    ];
    const report = await h.conveyor.sweep();
    await h.conveyor.idle();
    expect(report.lost).toEqual(['acme-web-7:implement:1:0']);
    for (const s of scopes) expect(s.isDone()).toBe(true);
    // The new attempt's workflow run started at 10:12 (its check run stays queued: the action writes
    // it once, at the end). Seen running at 10:22, it is left alone, and not read again a minute later.
    const timeout = (await h.conveyor.engine.get('acme-web-7')).plan.steps[0]!.timeoutMinutes;
    const queued102 = { id: 102, status: 'queued', conclusion: null, external_id: 'acme-web-7:implement:1:1', output: {} };
    const running = [{ checkRun: 102, status: 'in_progress', startedAt: '2025-03-01T10:12:00Z' }];
    h.clock.now = '2025-03-01T10:22:00.000Z';
    const seen = [nock(API).get('/repos/acme/web/check-runs/102').reply(200, queued102), workflowRunsScope(running)];
    expect(await h.conveyor.sweep()).toEqual({ judged: 1, lost: [], completed: [] });
    for (const s of seen) expect(s.isDone()).toBe(true);
    h.clock.now = '2025-03-01T10:23:00.000Z';
    expect(await h.conveyor.sweep()).toEqual({ judged: 0, lost: [], completed: [] });
    // Past its step timeout (+5 minutes of grace) it is lost.
    h.clock.now = new Date(Date.parse('2025-03-01T10:12:00Z') + (timeout + 6) * 60_000).toISOString();
    nock(API).get('/repos/acme/web/check-runs/102').reply(200, queued102);
    workflowRunsScope(running);
    nock(API)
      .patch('/repos/acme/web/check-runs/102', (b: { conclusion: string }) => b.conclusion === 'timed_out')
      .reply(200, {});
    dispatchScope('implement', 103, dispatched);
    nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {});
    nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {});
    expect((await h.conveyor.sweep()).lost).toEqual(['acme-web-7:implement:1:1']);
    await h.conveyor.idle();
    expect(nock.pendingMocks()).toEqual([]);
    expect((await h.conveyor.engine.get('acme-web-7')).steps.implement).toMatchObject({ epoch: 2, losses: 2 });
  });

  it('the sweeper reads the workflow run its dispatch recorded: one that ended without a result (its webhook missed) loses the attempt', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    const link = (await h.conveyor.deps.links.attempt('acme-web-7:implement:1:0'))!;
    await h.conveyor.deps.links.saveAttempt({ ...link, workflowRunId: 777, workflowRunUrl: 'https://github.com/acme/web/actions/runs/777' });
    h.clock.now = '2025-03-01T10:11:00.000Z';
    const scopes = [
      nock(API)
        .get('/repos/acme/web/check-runs/101')
        .reply(200, { id: 101, status: 'queued', conclusion: null, external_id: 'acme-web-7:implement:1:0', output: {} }),
      nock(API).get('/repos/acme/web/actions/runs/777').reply(200, {
        id: 777,
        html_url: 'https://github.com/acme/web/actions/runs/777',
        status: 'completed',
        conclusion: 'failure',
        run_started_at: '2025-03-01T10:01:00Z',
      }),
      nock(API)
        .patch('/repos/acme/web/check-runs/101', (b: { conclusion: string }) => b.conclusion === 'cancelled')
        .reply(200, {}),
      dispatchScope('implement', 102, dispatched),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
    ];
    expect((await h.conveyor.sweep()).lost).toEqual(['acme-web-7:implement:1:0']);
    await h.conveyor.idle();
    for (const s of scopes) expect(s.isDone()).toBe(true);
    const step = (await h.conveyor.engine.get('acme-web-7')).steps.implement!;
    expect(step.attempts[0]!.summary).toBe('its workflow run (https://github.com/acme/web/actions/runs/777) ended (failure) without reporting a result');
  });

  it('the sweeper takes the result of an attempt whose check run completed while its webhook went missing', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    h.clock.now = '2025-03-01T10:11:00.000Z';
    const prHead = 'a'.repeat(40);
    const result = sealedFor(
      await h.conveyor.engine.get('acme-web-7'),
      resultOf('acme-web-7', 'implement', 1, 0, 'success', {
        prs: [{ repo: 'acme/web', number: 1, url: 'https://github.com/acme/web/pull/1', branch: 'conveyor/web-7', head: prHead }],
        commits: { 'acme/web': prHead },
      }),
    );
    const scopes = [
      nock(API)
        .get('/repos/acme/web/check-runs/101')
        .reply(200, {
          id: 101,
          status: 'completed',
          conclusion: 'success',
          external_id: 'acme-web-7:implement:1:0',
          output: { summary: 'ok', text: renderResultText(result) },
        }),
      // Taken as the result, not lost: the check run is left as the action completed it, and the gate is dispatched on the PR's head.
      dispatchScope('check', 102, dispatched),
      nock(API).patch('/repos/acme/web/issues/comments/900').reply(200, {}),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === prHead)
        .reply(201, { id: 501, html_url: 'x', status: 'in_progress', output: {} }),
    ];
    const report = await h.conveyor.sweep();
    await h.conveyor.idle();
    expect(report).toEqual({ judged: 1, lost: [], completed: ['acme-web-7:implement:1:0'] });
    for (const s of scopes) expect(s.isDone()).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
    expect(dispatched[1]).toMatchObject({ externalId: 'acme-web-7:check:1:0', headSha: prHead });
    expect((await h.conveyor.engine.get('acme-web-7')).steps.implement).toMatchObject({ status: 'succeeded', losses: 0 });
  });

  it('the sweeper leaves alone an attempt whose result came in while it read the check run', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    h.clock.now = '2025-03-01T10:11:00.000Z';
    nock(API).persist().patch('/repos/acme/web/issues/comments/900').reply(200, {});
    nock(API).persist().patch('/repos/acme/web/check-runs/500').reply(200, {});
    const failed = sealedFor(
      await h.conveyor.engine.get('acme-web-7'),
      resultOf('acme-web-7', 'implement', 1, 0, 'failure', { summary: 'agent failed', error: { code: 'agent-failed', message: 'exit 1' } }),
    );
    // GitHub answers the sweeper's read with the check run as it was before the action completed
    // it; the completion's webhook is handled meanwhile.
    const read = nock(API)
      .get('/repos/acme/web/check-runs/101')
      .reply(200, (_uri, _body, answer) => {
        h.conveyor.engine.apply('acme-web-7', { type: 'step-completed', at: h.clock.now, result: failed }).then(
          () => answer(null, { id: 101, status: 'queued', conclusion: null, external_id: 'acme-web-7:implement:1:0', output: {} }),
          (e: Error) => answer(e, ''),
        );
      });
    // The check run still open, the sweeper asks for its workflow run (none): judged again after, the attempt is settled.
    workflowRunsScope([]);
    const closed = nock(API).patch('/repos/acme/web/check-runs/101').reply(200, {});
    const report = await h.conveyor.sweep();
    await h.conveyor.idle();
    expect(read.isDone()).toBe(true);
    // Not lost, and its check run (completed by the action) is not closed as lost over its result.
    expect(report).toEqual({ judged: 1, lost: [], completed: [] });
    expect(closed.isDone()).toBe(false);
    expect((await h.conveyor.engine.get('acme-web-7')).steps.implement).toMatchObject({ status: 'failed', losses: 0 });
  });

  it('Re-run in the Checks tab retries that step', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    // The attempt fails (no repair for a code step): the run waits for a person.
    const failed = sealedFor(
      await h.conveyor.engine.get('acme-web-7'),
      resultOf('acme-web-7', 'implement', 1, 0, 'failure', { summary: 'agent failed', error: { code: 'agent-failed', message: 'exit 1' } }),
    );
    nock(API).persist().patch('/repos/acme/web/issues/comments/900').reply(200, {});
    nock(API).persist().patch('/repos/acme/web/check-runs/500').reply(200, {});
    await h.receive(
      'check_run',
      webhooks.checkRun('completed', {
        id: 101,
        name: 'conveyor / implement',
        external_id: 'acme-web-7:implement:1:0',
        conclusion: 'failure',
        output: { summary: 'agent failed', text: renderResultText(failed as never) },
      }),
    );
    expect((await h.conveyor.engine.get('acme-web-7')).status).toBe('waiting');

    // A reader's Re-run is refused with a reply on the issue, and changes nothing.
    let refusal = '';
    const refused = [
      nock(API).get('/repos/acme/web/collaborators/mallory/permission').reply(200, { permission: 'read' }),
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => ((refusal = b.body), true))
        .reply(201, { id: 1, html_url: 'c' }),
    ];
    const version = (await h.conveyor.engine.get('acme-web-7')).version;
    await h.receive(
      'check_run',
      webhooks.checkRun('rerequested', { id: 101, name: 'conveyor / implement', external_id: 'acme-web-7:implement:1:0', conclusion: 'failure' }, 'mallory'),
    );
    for (const s of refused) expect(s.isDone()).toBe(true);
    expect(refusal).toBe(
      '@mallory asked to re-run step `implement` of run `acme-web-7`, but only people with write permission on acme/web can (they have read). Nothing changed.',
    );
    expect(await h.conveyor.engine.get('acme-web-7')).toMatchObject({ version, status: 'waiting' });

    // A bot's Re-run is ignored without a call (a `[bot]` login counts as a bot, as for commands).
    h.calls.length = 0;
    await h.receive(
      'check_run',
      webhooks.checkRun(
        'rerequested',
        { id: 101, name: 'conveyor / implement', external_id: 'acme-web-7:implement:1:0', conclusion: 'failure' },
        'renovate[bot]',
      ),
    );
    expect(h.calls).toEqual([]);
    expect(await h.conveyor.engine.get('acme-web-7')).toMatchObject({ version, status: 'waiting' });

    const scopes = [
      nock(API).get('/repos/acme/web/collaborators/alice/permission').reply(200, { permission: 'write' }),
      // A retry goes on with the budget the configuration gives now.
      configScope(),
      dispatchScope('implement', 102, dispatched),
    ];
    await h.receive(
      'check_run',
      webhooks.checkRun('rerequested', { id: 101, name: 'conveyor / implement', external_id: 'acme-web-7:implement:1:0', conclusion: 'failure' }),
    );
    for (const s of scopes) expect(s.isDone()).toBe(true);
    expect(dispatched[1]!.externalId).toBe('acme-web-7:implement:2:0');
    expect((await h.conveyor.engine.get('acme-web-7')).status).toBe('running');
  });
});

describe('the routing a dispatch adds', () => {
  it('is until when the attempt stays current, and no address of the app (the workflow names it); the attempt still verifies what was sent', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    const sent = JSON.parse(dispatched[0]!.inputs.payload!) as Record<string, unknown>;
    expect(Object.keys(sent)).toContain('currentUntil');
    expect(Object.keys(sent)).not.toContain('app');
    // The recorded inputs are the payload's without the routing: a result sealed by the action counts.
    const parsed = parseStepPayload(dispatched[0]!.inputs.payload!);
    const run = await h.conveyor.engine.get('acme-web-7');
    expect(parsed.ok && inputsDigest(parsed.payload)).toBe(run.steps.implement!.attempts[0]!.inputs);
  });
});

describe("the issue's author", () => {
  it('goes with the run into every payload (login and id, as the webhook names them): the co-author of the commits made for it', async () => {
    const dispatched: Dispatched[] = [];
    await started(dispatched);
    const parsed = parseStepPayload(dispatched[0]!.inputs.payload!);
    // The issue of the fixture was opened by Codertocat; alice labeled it.
    expect(parsed.ok && parsed.payload.issue.author).toEqual({ login: 'Codertocat', id: 21031067 });
    expect(parsed.ok && parsed.payload.requester).toBe('alice');
    expect((await h.conveyor.engine.get('acme-web-7')).issue.author).toEqual({ login: 'Codertocat', id: 21031067 });
  });
});

describe('payload size', () => {
  it('cuts the issue body of a payload over the input limit, with a note, and still dispatches', async () => {
    await h.close();
    h = await createHarness({ inputsLimit: 6_000 });
    const dispatched: Dispatched[] = [];
    const big = webhooks.labeled();
    (big.issue as { body: string }).body = `Start.\n${'Lots of detail. '.repeat(2_000)}\nEnd.`;
    const scopes = [
      tokenScope(),
      configScope(),
      permissionScope('alice', 'write'),
      draftPrScope(),
      dispatchScope('implement', 101, dispatched),
      nock(API).post('/repos/acme/web/issues/7/comments').reply(201, { id: 900, html_url: 'c' }),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor')
        .reply(201, { id: 500, html_url: 'x', status: 'in_progress', output: {} }),
    ];
    await h.receive('issues', big);
    for (const s of scopes) expect(s.isDone()).toBe(true);
    const inputs = dispatched[0]!.inputs;
    // Counted as sent: every input's value escaped inside the dispatch's JSON body.
    expect(Object.entries(inputs).reduce((n, [k, v]) => n + k.length + JSON.stringify(v).length, 0)).toBeLessThanOrEqual(6_000);
    const parsed = parseStepPayload(inputs.payload!);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.payload.issue.body.startsWith('Start.\nLots of detail.')).toBe(true);
    expect(parsed.payload.issue.body).toContain("cut to fit GitHub's workflow input limit (read it whole at https://github.com/acme/web/issues/7)");
    // The run keeps the whole body; only the dispatch was cut.
    const run = await h.conveyor.engine.get('acme-web-7');
    expect(run.issue.body).toContain('End.');
    // The attempt is sealed and verified against the cut payload that was sent, not the whole one.
    expect(run.steps.implement!.attempts[0]!.inputs).toBe(inputsDigest(parsed.payload));
  });

  it('is fitted once, where it is built, with room for the routing: still dispatched whole', async () => {
    await h.close();
    h = await createHarness({ inputsLimit: 6_000 });
    const dispatched: Dispatched[] = [];
    const big = webhooks.labeled();
    (big.issue as { body: string }).body = `Start.\n${'Lots of detail. '.repeat(2_000)}\nEnd.`;
    const scopes = [
      tokenScope(),
      configScope(),
      permissionScope('alice', 'write'),
      draftPrScope(),
      dispatchScope('implement', 101, dispatched),
      nock(API).post('/repos/acme/web/issues/7/comments').reply(201, { id: 900, html_url: 'c' }),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor')
        .reply(201, { id: 500, html_url: 'x', status: 'in_progress', output: {} }),
    ];
    await h.receive('issues', big);
    for (const s of scopes) expect(s.isDone()).toBe(true);
    const inputs = dispatched[0]!.inputs;
    expect(Object.entries(inputs).reduce((n, [k, v]) => n + k.length + JSON.stringify(v).length, 0)).toBeLessThanOrEqual(6_000);
    const parsed = parseStepPayload(inputs.payload!);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.payload.currentUntil).toBeDefined();
    expect(parsed.payload.issue.body).toContain("cut to fit GitHub's workflow input limit");
    const run = await h.conveyor.engine.get('acme-web-7');
    expect(run.steps.implement!.attempts[0]!.inputs).toBe(inputsDigest(parsed.payload));
  });
});
