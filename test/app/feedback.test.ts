// People's feedback on GitHub (issue #17 item 4): `/conveyor fix` in a comment and a review
// requesting changes send the coder back with the text; the approvals given before go stale and
// the gates run again. Driven through probot.receive with GitHub's API mocked by nock.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { renderResultText } from '../../core/github/check-run.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { API, createHarness, type Harness, harnessPerTest } from './harness.ts';
import { dispatchScope, noSummaryOnHead, type Dispatched } from './scopes.ts';
import {
  API_HEAD,
  approvalCheckScope,
  events,
  permissionScope,
  planWith,
  pr,
  replyScope,
  reportScopes,
  RUN,
  seed,
  WEB_HEAD,
  type ApprovalPatch,
} from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness({ merge: { sleep: async () => undefined } })), current: () => h, token: true });

const NEW_HEAD = 'd'.repeat(40);
const plan = planWith([
  { id: 'implement', kind: 'code' },
  { id: 'check', kind: 'gate' },
  { id: 'approve', kind: 'approval', minApprovals: 2 },
  { id: 'ship', kind: 'merge' },
]);
const built = { implement: { prs: [pr('acme/web', 1, WEB_HEAD)], commits: { 'acme/web': WEB_HEAD } }, check: { commits: { 'acme/web': WEB_HEAD } } };
const approvedByBob = { events: [{ type: 'decision' as const, at: '2025-03-01T09:30:00.000Z', decision: 'approve' as const, by: 'bob' }] };
const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
  // Nothing the app asked of GitHub went unanswered.
  expect(h.logged.filter((l) => /Error/.test(l))).toEqual([]);
};
const payloadOf = (d: Dispatched | undefined): StepPayload => JSON.parse(d?.inputs.payload ?? '{}') as StepPayload;

describe('/conveyor fix', () => {
  it('from a writer: the code step repairs with the text; afterwards the approvals are stale and the gate runs again', async () => {
    await seed(h, plan, built, approvedByBob);
    reportScopes();
    const dispatched: Dispatched[] = [];
    const old: ApprovalPatch[] = [];
    const scopes = [
      permissionScope('carol', 'write'),
      nock(API).post('/repos/acme/web/issues/comments/4242/reactions', { content: '+1' }).reply(201, {}),
      approvalCheckScope(old),
      dispatchScope('implement', 710, dispatched),
    ];
    await h.receive(
      'issue_comment',
      events.prComment('Close, but:\n/conveyor fix rename `getThing` to `fetchThing`\nand keep the old name as an alias.', 'carol'),
    );
    allDone(scopes);
    let run = await h.conveyor.engine.get(RUN);
    expect(run.steps.implement).toMatchObject({ status: 'queued', attempt: 2, mode: 'repair' });
    expect(run.approvals[0]?.stale).toEqual({ kind: 'feedback', by: 'carol' });
    const payload = payloadOf(dispatched[0]);
    expect(payload.mode).toBe('repair');
    // Its check run is named as a repair: its tick is not the code step's first verdict.
    expect(dispatched[0]?.name).toBe('conveyor / implement (repair 1)');
    expect(payload.findings).toContain('### From @carol, in a `/conveyor fix` comment (https://github.com/acme/web/pull/1#issuecomment-4242)');
    expect(payload.findings).toContain('```text\nrename `getThing` to `fetchThing`\nand keep the old name as an alias.\n```');
    // The approval no longer waits (its buttons go): it waits again once the gate has run.
    expect(old.at(-1)).toMatchObject({ status: 'queued', actions: [] });

    // The repair pushes a new head: the gate runs again on it.
    const again: Dispatched[] = [];
    const gate = [
      dispatchScope('check', 711, again),
      noSummaryOnHead(NEW_HEAD),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === NEW_HEAD)
        .reply(201, { id: 501, html_url: 'x', status: 'in_progress', output: {} }),
    ];
    const repaired = sealedFor(
      run,
      resultOf(RUN, 'implement', 2, 0, 'success', { mode: 'repair', prs: [pr('acme/web', 1, NEW_HEAD)], commits: { 'acme/web': NEW_HEAD } }),
    );
    await h.receive('check_run', events.checkCompleted(710, `${RUN}:implement:2:0`, 'conveyor / implement', renderResultText(repaired)));
    allDone(gate);
    run = await h.conveyor.engine.get(RUN);
    expect(run.steps.check).toMatchObject({ status: 'queued', attempt: 2 });
    expect(again[0]).toMatchObject({ externalId: `${RUN}:check:2:0`, headSha: NEW_HEAD });

    // The gate passes: the approval waits again, saying why bob's approval no longer counts.
    const approval = [
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor / approve' && b.head_sha === NEW_HEAD)
        .reply(201, { id: 601, html_url: 'y', status: 'in_progress', output: {} }),
      nock(API).persist().patch('/repos/acme/web/check-runs/501').reply(200, {}),
    ];
    const passed = sealedFor(run, resultOf(RUN, 'check', 2, 0, 'success', { commits: { 'acme/web': NEW_HEAD } }));
    await h.receive('check_run', events.checkCompleted(711, `${RUN}:check:2:0`, 'conveyor / check', renderResultText(passed)));
    allDone(approval);
    run = await h.conveyor.engine.get(RUN);
    expect(run.steps.approve?.status).toBe('waiting');
    expect(run.steps.approve?.reason).toBe(
      'waiting for approvals: 0 of 2 (approvals are stale: carol asked for changes, which the coder makes before the steps after it run again)',
    );
  });

  it('from a reader or a bot is refused with a reply; quoted, it only says it does not count; in a code block, nothing at all', async () => {
    const before = await seed(h, plan, built);
    const replies: string[] = [];
    const cases: Array<[ReturnType<typeof events.prComment>, nock.Scope[], RegExp]> = [
      [
        events.prComment('/conveyor fix do it my way', 'mallory'),
        [permissionScope('mallory', 'read')],
        /only people with write permission on acme\/web can `fix`.*you have read/,
      ],
      [
        events.prComment('/conveyor fix do it my way', 'helper[bot]', 'acme/web', 1, 4243, 'Bot'),
        [],
        /bots cannot give Conveyor commands \(`\/conveyor fix`\)/,
      ],
      [events.prComment('> /conveyor fix do it my way\n\nAs mallory said.', 'bob'), [], /inside a quote \(line 1\) does not count/],
    ];
    for (const [payload, scopes, text] of cases) {
      const reply = replyScope('acme/web', 1, replies);
      await h.receive('issue_comment', payload);
      allDone([...scopes, reply]);
      expect(replies.at(-1)).toMatch(text);
    }
    h.calls.length = 0;
    await h.receive('issue_comment', events.prComment('Try this:\n```\n/conveyor fix do it my way\n```', 'bob', 'acme/web', 1, 4244));
    expect(h.calls).toEqual([]);
    const after = await h.conveyor.engine.get(RUN);
    expect(after.version).toBe(before.version);
    expect(after.feedback).toBeUndefined();
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('a review requesting changes', () => {
  it('sends its body and its inline comments, each with file and line, to the coder', async () => {
    await seed(h, plan, built, approvedByBob);
    reportScopes();
    const dispatched: Dispatched[] = [];
    const replies: string[] = [];
    const scopes = [
      permissionScope('carol', 'maintain'),
      nock(API)
        .get('/repos/acme/web/pulls/1/reviews/3131/comments')
        .query({ per_page: '100' })
        .reply(200, [
          { path: 'src/thing.ts', line: 12, original_line: 12, body: 'This throws on an empty list.' },
          { path: 'README.md', line: null, original_line: 3, body: 'Document the alias.' },
        ]),
      approvalCheckScope([]),
      dispatchScope('implement', 720, dispatched),
      replyScope('acme/web', 1, replies),
    ];
    await h.receive('pull_request_review', events.review('Two things before this can merge.', 'carol', 'acme/web', 1, 'changes_requested'));
    allDone(scopes);
    const findings = payloadOf(dispatched[0]).findings ?? '';
    expect(findings).toContain('### From @carol, in a pull request review requesting changes (https://github.com/acme/web/pull/1#pullrequestreview-3131)');
    expect(findings).toContain('```text\nTwo things before this can merge.\n```');
    expect(findings).toContain('On `src/thing.ts` line 12:\n\n```text\nThis throws on an empty list.\n```');
    expect(findings).toContain('On `README.md` line 3:');
    expect(replies).toEqual(['@carol Conveyor sent your review and its 2 comments to the coder (step `implement`); the steps after it run again.']);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.approvals[0]?.stale).toEqual({ kind: 'feedback', by: 'carol' });
    expect(run.feedback).toEqual([
      expect.objectContaining({ id: 'review:acme/web:3131', by: 'carol', source: 'review', taken: { step: 'implement', attempt: 2 } }),
    ]);

    // The same review delivered again (a new delivery id) counts once.
    h.calls.length = 0;
    const redelivered = [
      permissionScope('carol', 'maintain'),
      nock(API).get('/repos/acme/web/pulls/1/reviews/3131/comments').query({ per_page: '100' }).reply(200, []),
    ];
    await h.receive('pull_request_review', events.review('Two things before this can merge.', 'carol', 'acme/web', 1, 'changes_requested'));
    allDone(redelivered);
    expect((await h.conveyor.engine.get(RUN)).feedback).toHaveLength(1);
  });

  it("from a reader gets a reply; a bot's, or one on a PR of no run, changes nothing and says nothing", async () => {
    await seed(h, plan, built);
    const replies: string[] = [];
    const scopes = [permissionScope('mallory', 'read'), replyScope('acme/web', 1, replies)];
    await h.receive('pull_request_review', events.review('No.', 'mallory', 'acme/web', 1, 'changes_requested'));
    allDone(scopes);
    expect(replies).toEqual([
      "@mallory your review was not sent to Conveyor's coder: only people with write permission on acme/web can ask it for changes (you have read there): acme/web is the run's primary repository, wherever the review is. Nothing changed.",
    ]);

    h.calls.length = 0;
    await h.receive('pull_request_review', events.review('Nit.', 'lint-bot[bot]', 'acme/web', 1, 'changes_requested', 'Bot'));
    await h.receive('pull_request_review', events.review('Unrelated.', 'carol', 'acme/web', 99, 'changes_requested'));
    expect(h.calls).toEqual([]);
    expect((await h.conveyor.engine.get(RUN)).feedback).toBeUndefined();
  });
});

describe('feedback from a sibling repository', () => {
  const fleet = planWith(
    [
      { id: 'implement', kind: 'code' },
      { id: 'check', kind: 'gate' },
      { id: 'approve', kind: 'approval', minApprovals: 2 },
      { id: 'ship', kind: 'merge' },
    ],
    true,
  );
  const onBoth = { implement: { prs: [pr('acme/web', 1, WEB_HEAD), pr('acme/api', 2, API_HEAD)] } };

  it("a writer of a sibling only (`/conveyor fix`, a review requesting changes) is refused on the run's sibling PR: the run is unchanged", async () => {
    const before = await seed(h, fleet, onBoth, approvedByBob);
    const replies: string[] = [];
    const fix = [permissionScope('sam', 'read'), replyScope('acme/api', 2, replies)];
    await h.receive('issue_comment', events.prComment('/conveyor fix rewrite the client', 'sam', 'acme/api', 2, 5151));
    allDone(fix);
    const review = [permissionScope('sam', 'read'), replyScope('acme/api', 2, replies)];
    await h.receive('pull_request_review', events.review('Rewrite the client.', 'sam', 'acme/api', 2, 'changes_requested'));
    allDone(review);
    expect(replies).toEqual([
      "@sam only people with write permission on acme/web can `fix` Conveyor run `acme-web-7` (you have read there): acme/web is the run's primary repository, wherever the command is given. Nothing changed.",
      "@sam your review was not sent to Conveyor's coder: only people with write permission on acme/web can ask it for changes (you have read there): acme/web is the run's primary repository, wherever the review is. Nothing changed.",
    ]);
    // Never asked where the comment was written: write on acme/api counts for nothing here.
    expect(h.calls.filter((c) => c.path.includes('/collaborators/')).map((c) => c.path)).toEqual([
      '/repos/acme/web/collaborators/sam/permission',
      '/repos/acme/web/collaborators/sam/permission',
    ]);
    const after = await h.conveyor.engine.get(RUN);
    expect(after.version).toBe(before.version);
    expect(after.feedback).toBeUndefined();
    expect(after.approvals[0]?.stale).toBeUndefined();
  });

  it('a writer of the primary repository asks for changes on the sibling PR: taken', async () => {
    await seed(h, fleet, onBoth);
    reportScopes();
    const dispatched: Dispatched[] = [];
    const scopes = [
      permissionScope('carol', 'write'),
      nock(API).post('/repos/acme/api/issues/comments/5152/reactions', { content: '+1' }).reply(201, {}),
      approvalCheckScope([]),
      dispatchScope('implement', 730, dispatched),
    ];
    await h.receive('issue_comment', events.prComment('/conveyor fix keep the old name', 'carol', 'acme/api', 2, 5152));
    allDone(scopes);
    expect(payloadOf(dispatched[0]).findings).toContain('### From @carol, in a `/conveyor fix` comment (https://github.com/acme/api/pull/2#issuecomment-5152)');
  });
});
