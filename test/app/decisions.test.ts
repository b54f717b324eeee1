// Deciding on GitHub: `/conveyor` commands in PR comments and reviews, and the approval check
// run's buttons, driven through probot.receive with GitHub's API mocked by nock.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { renderResultText } from '../../core/github/check-run.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { API, createHarness, type Harness, harnessPerTest, repoOf, webhooks } from './harness.ts';
import { dispatchScope, noSummaryOnHead, openPullScope, type Dispatched } from './scopes.ts';
import {
  approvalCheckScope,
  events,
  permissionScope,
  planWith,
  pr,
  replyScope,
  reportScopes,
  RUN,
  AT,
  seed,
  WEB_HEAD,
  type ApprovalPatch,
} from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness({ merge: { sleep: async () => undefined } })), current: () => h, token: true });

const NEW_HEAD = 'd'.repeat(40);
const atApproval = (spec: { minApprovals?: number; approvers?: string[] } = {}) =>
  planWith([
    { id: 'implement', kind: 'code' },
    { id: 'check', kind: 'gate' },
    { id: 'approve', kind: 'approval', ...spec },
    { id: 'ship', kind: 'merge' },
  ]);
const built = { implement: { prs: [pr('acme/web', 1, WEB_HEAD)], commits: { 'acme/web': WEB_HEAD } }, check: { commits: { 'acme/web': WEB_HEAD } } };
const reaction = (content: string, id = 4242) => nock(API).post(`/repos/acme/web/issues/comments/${id}/reactions`, { content }).reply(201, {});
const pullOk = (head = WEB_HEAD) => openPullScope('acme/web', 1, head);
const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

describe('who may decide', () => {
  it('a writer approves with a PR comment: the approval records the heads, the comment gets +1, and the PRs merge', async () => {
    await seed(h, atApproval(), built);
    const report = reportScopes();
    const checks: ApprovalPatch[] = [];
    let message = '';
    const scopes = [
      permissionScope('bob', 'write'),
      reaction('+1'),
      approvalCheckScope(checks),
      pullOk(),
      nock(API)
        .put('/repos/acme/web/pulls/1/merge', (b: { sha: string; commit_message: string }) => ((message = b.commit_message), b.sha === WEB_HEAD))
        .reply(200, { merged: true, sha: 'e'.repeat(40) }),
    ];
    await h.receive('issue_comment', events.prComment('LGTM\n/conveyor approve', 'bob'));
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.approvals).toEqual([expect.objectContaining({ step: 'approve', by: 'bob', heads: { 'acme/web': WEB_HEAD } })]);
    expect(run.status).toBe('succeeded');
    expect(message).toContain('Approved-by: bob');
    expect(message).toContain(`Conveyor-Run: ${RUN}`);
    expect(checks.at(-1)).toMatchObject({ status: 'completed', conclusion: 'success', actions: [] });
    expect(report.comments.at(-1)).toContain('✅ succeeded');
  });

  it('refuses a reader, a bot, the requester and a quoted command, each with a reply, and changes nothing', async () => {
    const before = await seed(h, atApproval(), built);
    const replies: string[] = [];
    const cases: Array<[ReturnType<typeof events.prComment>, nock.Scope[], RegExp]> = [
      [
        events.prComment('/conveyor approve', 'mallory'),
        [permissionScope('mallory', 'read')],
        /only people with write permission on acme\/web can `approve`.*you have read/,
      ],
      [events.prComment('/conveyor approve', 'helper[bot]', 'acme/web', 1, 4243, 'Bot'), [], /bots cannot/],
      [events.prComment('/conveyor approve', 'alice'), [permissionScope('alice', 'admin')], /alice started this run, so their approval does not count/],
      [events.prComment('> /conveyor approve\n\nAgreed with the above.', 'bob'), [], /inside a quote \(line 1\) does not count/],
    ];
    for (const [payload, scopes, text] of cases) {
      const reply = replyScope('acme/web', 1, replies);
      await h.receive('issue_comment', payload);
      allDone([...scopes, reply]);
      expect(replies.at(-1)).toMatch(text);
      expect(replies.at(-1)).toMatch(/Nothing changed\.$/);
    }
    const after = await h.conveyor.engine.get(RUN);
    expect(after.version).toBe(before.version);
    expect(after.approvals).toEqual([]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it("counts a team's approvers only when their membership is active", async () => {
    await seed(h, atApproval({ approvers: ['@acme/reviewers'] }), built);
    const replies: string[] = [];
    const refused = [
      permissionScope('dave', 'write'),
      nock(API).get('/orgs/acme/teams/reviewers/memberships/dave').reply(404, { message: 'Not Found' }),
      replyScope('acme/web', 1, replies),
    ];
    await h.receive('issue_comment', events.prComment('/conveyor approve', 'dave'));
    allDone(refused);
    expect(replies[0]).toMatch(/@dave you are not an approver of step `approve` \(approvers: @acme\/reviewers/);
    expect((await h.conveyor.engine.get(RUN)).approvals).toEqual([]);

    reportScopes();
    approvalCheckScope([]);
    const ok = [
      permissionScope('erin', 'maintain'),
      nock(API).get('/orgs/acme/teams/reviewers/memberships/erin').reply(200, { state: 'active', role: 'member' }),
      reaction('+1', 4244),
      pullOk(),
      nock(API)
        .put('/repos/acme/web/pulls/1/merge')
        .reply(200, { merged: true, sha: 'e'.repeat(40) }),
    ];
    await h.receive('issue_comment', events.prComment('/conveyor approve', 'erin', 'acme/web', 1, 4244));
    allDone(ok);
    expect((await h.conveyor.engine.get(RUN)).approvals.map((a) => a.by)).toEqual(['erin']);
  });

  it('two approvals required, given by the same person twice: still waiting, and the second is answered', async () => {
    await seed(h, atApproval({ minApprovals: 2 }), built);
    reportScopes();
    approvalCheckScope([]);
    const replies: string[] = [];
    const first = [permissionScope('bob', 'write'), reaction('+1')];
    await h.receive('issue_comment', events.prComment('/conveyor approve', 'bob'));
    allDone(first);
    // The second time in a review body (reviews have no reactions).
    const second = [permissionScope('bob', 'write'), replyScope('acme/web', 1, replies)];
    await h.receive('pull_request_review', events.review('/CONVEYOR APPROVE', 'bob'));
    allDone(second);
    expect(replies[0]).toMatch(/already recorded: `min-approvals` counts distinct people \(1 of 2\)/);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.approvals.map((a) => a.by)).toEqual(['bob']);
    expect(run.steps.approve).toMatchObject({ status: 'waiting', reason: 'waiting for approvals: 1 of 2' });
    expect(run.status).toBe('waiting');
  });

  it('a run whose issue is in another repository than its primary one: write is needed on both, wherever the command is given', async () => {
    const plan = atApproval();
    const elsewhere = { ...plan, changeSet: [{ ...plan.changeSet[0]!, repo: 'acme/app' }] };
    const before = await seed(h, elsewhere, { implement: { prs: [pr('acme/app', 3, WEB_HEAD)] }, check: {} });
    const replies: string[] = [];
    const scopes = [permissionScope('pat', 'write', 'acme/app'), permissionScope('pat', 'read'), replyScope('acme/web', 7, replies)];
    await h.receive('issue_comment', webhooks.comment('/conveyor approve', 'pat'));
    allDone(scopes);
    expect(replies).toEqual([
      "@pat only people with write permission on acme/web can `approve` Conveyor run `acme-web-7` (you have read there): acme/web is the repository of the run's issue, wherever the command is given. Nothing changed.",
    ]);
    // A Re-run on a step's check run (in the primary repository) by a writer of the repository only.
    const externalId = `${RUN}:check:1:0`;
    await h.conveyor.deps.links.saveAttempt({ externalId, runId: RUN, repo: 'acme/app', state: 'dispatched', head: WEB_HEAD, checkRunId: 103, at: AT });
    const rerun = [permissionScope('rita', 'read', 'acme/app'), replyScope('acme/web', 7, replies)];
    const payload = webhooks.checkRun('rerequested', { id: 103, name: 'conveyor / check', external_id: externalId, conclusion: 'success' }, 'rita');
    await h.receive('check_run', { ...payload, repository: repoOf('acme/app') });
    allDone(rerun);
    expect(replies[1]).toBe(
      '@rita asked to re-run step `check` of run `acme-web-7`, but only people with write permission on acme/app can (they have read). Nothing changed.',
    );
    expect((await h.conveyor.engine.get(RUN)).version).toBe(before.version);
  });

  it('an unknown command gets the list of commands', async () => {
    await seed(h, atApproval(), built);
    const replies: string[] = [];
    const scope = replyScope('acme/web', 1, replies);
    await h.receive('issue_comment', events.prComment('/conveyor aprove', 'bob'));
    allDone([scope]);
    expect(replies[0]).toContain('`aprove` is not a Conveyor command');
    for (const c of ['approve', 'reject', 'retry', 'restart', 'cancel', 'status', 'run']) expect(replies[0]).toContain(`\`/conveyor ${c}`);
  });
});

describe('pushes after an approval', () => {
  it('makes the approval stale, runs the gate again on the new head, and the approval waits again with the reason', async () => {
    await seed(h, atApproval({ minApprovals: 2 }), built, { events: [{ type: 'decision', at: '2025-03-01T09:30:00.000Z', decision: 'approve', by: 'bob' }] });
    // Conveyor's own push (its bot) changes nothing at all.
    h.calls.length = 0;
    await h.receive('pull_request', events.pull('synchronize', 'acme/web', 1, 'f'.repeat(40), 'conveyor-app[bot]', false, 'Bot'));
    expect(h.calls).toEqual([]);

    const dispatched: Dispatched[] = [];
    const old: ApprovalPatch[] = [];
    reportScopes();
    const scopes = [
      approvalCheckScope(old),
      dispatchScope('check', 702, dispatched),
      noSummaryOnHead(NEW_HEAD),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === NEW_HEAD)
        .reply(201, { id: 501, html_url: 'x', status: 'in_progress', output: {} }),
    ];
    await h.receive('pull_request', events.pull('synchronize', 'acme/web', 1, NEW_HEAD, 'mallory'));
    allDone(scopes);
    let run = await h.conveyor.engine.get(RUN);
    expect(run.approvals[0]?.stale).toEqual({ kind: 'pushed', by: 'mallory', repo: 'acme/web', head: NEW_HEAD });
    expect(run.steps.check).toMatchObject({ status: 'queued', attempt: 2 });
    expect(run.steps.approve?.status).toBe('pending');
    expect(dispatched[0]).toMatchObject({ externalId: `${RUN}:check:2:0`, headSha: NEW_HEAD });
    // The old head's approval check is closed as superseded.
    expect(old.at(-1)).toMatchObject({ status: 'completed', conclusion: 'neutral', actions: [] });

    // The gate passes on the new head: the approval waits again, saying why, on a new check run with its buttons.
    let created: ApprovalPatch & { head_sha?: string } = {};
    const again = [
      nock(API).persist().patch('/repos/acme/web/check-runs/501').reply(200, {}),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: ApprovalPatch & { name: string; head_sha: string }) => ((created = b), b.name === 'conveyor / approve'))
        .reply(201, { id: 601, html_url: 'y', status: 'in_progress', output: {} }),
    ];
    const result = sealedFor(await h.conveyor.engine.get(RUN), resultOf(RUN, 'check', 2, 0, 'success', { commits: { 'acme/web': NEW_HEAD } }));
    await h.receive('check_run', { ...events.checkCompleted(702, `${RUN}:check:2:0`, 'conveyor / check', renderResultText(result)) });
    allDone(again);
    run = await h.conveyor.engine.get(RUN);
    expect(run.steps.approve?.status).toBe('waiting');
    expect(run.steps.approve?.reason).toBe(
      `waiting for approvals: 0 of 2 (approvals are stale: mallory pushed ${NEW_HEAD.slice(0, 7)} to acme/web after the approval)`,
    );
    // Completed as action_required (the run waits for a person), its buttons there to press.
    expect(created).toMatchObject({ head_sha: NEW_HEAD, status: 'completed', conclusion: 'action_required' });
    expect(created.actions?.map((a) => a.identifier)).toEqual(['approve', 'reject']);
  });

  it("knows its own bot's pushes by a login asked of GitHub once (retried; a failed ask is asked again)", async () => {
    await h.close();
    h = await createHarness({ botLogin: undefined });
    const before = await seed(h, atApproval(), built, { events: [{ type: 'decision', at: '2025-03-01T09:30:00.000Z', decision: 'approve', by: 'bob' }] });
    const push = () => events.pull('synchronize', 'acme/web', 1, 'f'.repeat(40), 'conveyor-app[bot]', false, 'Bot');
    // Every try fails (the first and plugin-retry's three): the push's handling fails, naming the
    // call, and the answer is not kept.
    const down = nock(API).get('/app').times(4).reply(500, { message: 'Server Error' });
    (await h.probot.ready()).log.level = 'silent'; // else Probot prints the failed delivery whole
    await expect(h.receive('pull_request', push())).rejects.toThrow('GitHub GET /app failed (HTTP 500): Server Error');
    allDone([down]);
    // Asked again at the next push, through a passing error; then known.
    const asked = nock(API).get('/app').reply(502, 'Bad Gateway').get('/app').reply(200, { id: 1, slug: 'conveyor-app' });
    await h.receive('pull_request', push());
    await h.receive('pull_request', push());
    allDone([asked]);
    expect(h.calls.filter((c) => c.path === '/app')).toHaveLength(6);
    // Its own pushes changed nothing.
    expect((await h.conveyor.engine.get(RUN)).approvals).toEqual(before.approvals);
    expect((await h.conveyor.engine.get(RUN)).approvals[0]?.stale).toBeUndefined();
  });
});

describe('the approval check run', () => {
  it('waits with Approve and Reject buttons; a reader pressing Approve is refused, a writer approves', async () => {
    await seed(h, atApproval(), built, { leaveQueued: 'check', queuedCheckRun: 102 });
    reportScopes();
    let created: ApprovalPatch & { name?: string; head_sha?: string; external_id?: string } = {};
    const waits = nock(API)
      .post('/repos/acme/web/check-runs', (b: typeof created) => ((created = b), b.name === 'conveyor / approve'))
      .reply(201, { id: 600, html_url: 'y', status: 'in_progress', output: {} });
    const result = sealedFor(await h.conveyor.engine.get(RUN), resultOf(RUN, 'check', 1, 0, 'success', { commits: { 'acme/web': WEB_HEAD } }));
    await h.receive('check_run', events.checkCompleted(102, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(result)));
    allDone([waits]);
    expect(created).toMatchObject({ head_sha: WEB_HEAD, status: 'completed', conclusion: 'action_required', external_id: `${RUN}:approve:0:0` });
    expect(created.actions).toEqual([
      { label: 'Approve', description: 'Approve the current heads of the PRs', identifier: 'approve' },
      { label: 'Reject', description: 'Reject: the run waits for a person', identifier: 'reject' },
    ]);
    const check = { id: 600, external_id: `${RUN}:approve:0:0`, name: 'conveyor / approve' };

    const replies: string[] = [];
    const refused = [permissionScope('mallory', 'triage'), replyScope('acme/web', 1, replies)];
    await h.receive('check_run', events.button('approve', 'mallory', check));
    allDone(refused);
    expect(replies[0]).toMatch(/^@mallory only people with write permission on acme\/web can `approve`/);

    // Approved: GitHub keeps a completed check run's conclusion, so the decision is a new check run on the head.
    let decided: ApprovalPatch & { name?: string; head_sha?: string } = {};
    const ok = [
      permissionScope('carol', 'write'),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: typeof decided) => ((decided = b), b.name === 'conveyor / approve'))
        .reply(201, { id: 601, html_url: 'https://github.com/acme/web/runs/601', status: 'completed', output: {} }),
      pullOk(),
      nock(API)
        .put('/repos/acme/web/pulls/1/merge')
        .reply(200, { merged: true, sha: 'e'.repeat(40) }),
    ];
    await h.receive('check_run', events.button('approve', 'carol', check));
    allDone(ok);
    expect((await h.conveyor.engine.get(RUN)).status).toBe('succeeded');
    expect(decided).toMatchObject({ head_sha: WEB_HEAD, status: 'completed', conclusion: 'success', actions: [], output: { title: 'approved by @carol' } });
    // The step's record names the new one: the old one's buttons count no more.
    expect(await h.conveyor.deps.links.attempt(`${RUN}:approve:0:0`)).toMatchObject({ checkRunId: 601 });
    const version = (await h.conveyor.engine.get(RUN)).version;
    h.calls.length = 0;
    await h.receive('check_run', events.button('reject', 'carol', check));
    expect(h.calls).toEqual([]);
    expect((await h.conveyor.engine.get(RUN)).version).toBe(version);
  });

  it('Reject fails the approval step; the run waits for a person and the check run says who and why', async () => {
    await seed(h, atApproval(), built);
    reportScopes();
    const checks: ApprovalPatch[] = [];
    const scopes = [permissionScope('carol', 'admin'), approvalCheckScope(checks)];
    await h.receive('check_run', events.button('reject', 'carol', { id: 600, external_id: `${RUN}:approve:0:0`, name: 'conveyor / approve' }));
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.approve).toMatchObject({ status: 'failed', reason: 'rejected by carol' });
    expect(run.status).toBe('waiting');
    expect(run.steps.ship?.status).toBe('pending');
    expect(checks.at(-1)).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: 'rejected by carol' } });
  });
});

describe('approvals only where one is due', () => {
  const check = { id: 600, external_id: `${RUN}:approve:0:0`, name: 'conveyor / approve' };

  it('`/conveyor approve`, `/conveyor reject` and the Approve button while the gate runs are refused naming it; the approval that comes up afterwards waits', async () => {
    const before = await seed(h, atApproval(), built, { leaveQueued: 'check', queuedCheckRun: 102 });
    // The approval's check run as a page shown earlier left it (a button GitHub still delivers).
    await h.conveyor.deps.links.saveAttempt({
      externalId: check.external_id,
      runId: RUN,
      repo: 'acme/web',
      state: 'dispatched',
      head: WEB_HEAD,
      checkRunId: 600,
      at: AT,
    });
    const replies: string[] = [];
    for (const [body, id] of [
      ['/conveyor approve', 4242],
      ['/conveyor reject not like this', 4243],
    ] as const) {
      const scopes = [permissionScope('bob', 'write'), replyScope('acme/web', 1, replies)];
      await h.receive('issue_comment', events.prComment(body, 'bob', 'acme/web', 1, id));
      allDone(scopes);
    }
    const button = [permissionScope('carol', 'write'), replyScope('acme/web', 1, replies)];
    await h.receive('check_run', events.button('approve', 'carol', check));
    allDone(button);
    expect(replies).toEqual([
      '@bob run acme-web-7 is running `check`; nothing waits for an approval. Nothing changed.',
      '@bob run acme-web-7 is running `check`; nothing waits for an approval. Nothing changed.',
      '@carol run acme-web-7 is running `check`; step `approve` is pending, not waiting for an approval. Nothing changed.',
    ]);
    expect((await h.conveyor.engine.get(RUN)).version).toBe(before.version);

    // The gate passes: the approval waits, none counted, its check run with its buttons again.
    reportScopes();
    const checks: ApprovalPatch[] = [];
    const waits = approvalCheckScope(checks);
    const result = sealedFor(await h.conveyor.engine.get(RUN), resultOf(RUN, 'check', 1, 0, 'success', { commits: { 'acme/web': WEB_HEAD } }));
    await h.receive('check_run', events.checkCompleted(102, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(result)));
    allDone([waits]);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.approvals).toEqual([]);
    expect(run.steps.approve).toMatchObject({ status: 'waiting', reason: 'waiting for approvals: 0 of 1' });
    expect(checks.at(-1)).toMatchObject({
      status: 'completed',
      conclusion: 'action_required',
      output: { summary: expect.stringContaining('Approvals: 0 of 1.') },
    });
  });

  it("the Approve button of an older head's check run is refused: the approval is for the head the button was on", async () => {
    const before = await seed(h, atApproval(), built);
    const old = '0'.repeat(40);
    await h.conveyor.deps.links.saveAttempt({
      externalId: check.external_id,
      runId: RUN,
      repo: 'acme/web',
      state: 'dispatched',
      head: old,
      checkRunId: 600,
      at: AT,
    });
    const replies: string[] = [];
    const scopes = [permissionScope('carol', 'write'), replyScope('acme/web', 1, replies)];
    await h.receive('check_run', events.button('approve', 'carol', check));
    allDone(scopes);
    expect(replies).toEqual([
      '@carol the pull requests moved since this approval was asked for: acme/web is at aaaaaaa now, not 0000000. Look at them as they are now and approve again. Nothing changed.',
    ]);
    expect((await h.conveyor.engine.get(RUN)).version).toBe(before.version);
  });
});
