// A run from the label to its last step, on GitHub: the app dispatches each step as a workflow run
// with its check run, the real action (a child process) reads the check run and completes it with
// the result in one call, and the completed check run advances the run.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import nock from 'nock';
import { parseResultText } from '../../core/github/check-run.ts';
import { PR_STATUS_END, PR_STATUS_START } from '../../core/github/pr-body.ts';
import { createRemotes, tempDir, removeDir, type Remotes } from '../helpers/repos.ts';
import { API, createHarness, fakeCheckRuns, tokenScope, webhooks, type Harness } from './harness.ts';
import { DRAFT_SHA, configScope, dispatchScope, draftPrScope, openPullScope, runDispatched, type Dispatched, permissionScope } from './scopes.ts';

let h: Harness;
let remotes: Remotes;
let work: string;
let fake: Awaited<ReturnType<typeof fakeCheckRuns>>;

beforeEach(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  h = await createHarness();
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
  work = tempDir('conveyor-runner-');
  fake = await fakeCheckRuns();
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
  remotes.cleanup();
  removeDir(work);
  await fake.close();
});

describe('GitHub mode: label to last step', () => {
  it('runs code, gate and merge, each step a workflow run reporting through its check run', async () => {
    const dispatched: Dispatched[] = [];
    const commentRecords = vi.spyOn(h.conveyor.deps.links, 'saveComment');
    const start = [
      tokenScope(),
      configScope(),
      permissionScope('alice', 'write'),
      draftPrScope(),
      dispatchScope('implement', 101, dispatched),
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => b.body.includes('conveyor:tracking'))
        .reply(201, { id: 900, html_url: 'https://github.com/acme/web/issues/7#issuecomment-900' }),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === DRAFT_SHA)
        .reply(201, { id: 500, html_url: 'x', status: 'in_progress', output: {} }),
    ];
    await h.receive('issues', webhooks.labeled());
    for (const s of start) expect(s.isDone()).toBe(true);
    expect(dispatched).toHaveLength(1);
    const first = dispatched[0]!;
    expect(first.headSha).toBe(DRAFT_SHA);
    expect(first.externalId).toBe('acme-web-7:implement:1:0');
    expect(first.inputs.step).toBe('implement · attempt 1');
    // The app keeps the attempt current for the sweeper's queued window (10 minutes from 10:00):
    // an action that starts well before then does not read its check run back. This one's clock
    // is long past it, so it reads it first (below).
    expect(JSON.parse(first.inputs.payload!)).toMatchObject({ currentUntil: '2025-03-01T10:10:00.000Z' });

    // The payload carries the run's draft PR with its GraphQL id (for the action to mark it ready
    // after its push; test/action/code-ready.e2e.test.ts and test/app/api-calls.test.ts prove that
    // against GitHub: here the action pushes to local bare repositories, a forge without drafts).
    expect(JSON.parse(first.inputs.payload!)).toMatchObject({ repos: [{ pr: { number: 1, draft: true, nodeId: 'PR_1' } }] });

    // The runner: the action reads its check run, runs the agent, completes it in one call.
    const implement = await runDispatched(first, fake, remotes.url, work);
    expect(implement.out.code, implement.out.stdout + implement.out.stderr).toBe(0);
    expect(fake.requests).toEqual(['GET /repos/acme/web/check-runs/101', 'PATCH /repos/acme/web/check-runs/101']);
    expect(implement.check).toMatchObject({ status: 'completed', conclusion: 'success', details_url: `${remotes.url}/acme/web/actions/runs/777` });
    const parsed = parseResultText(implement.check.output?.text, implement.check.output?.summary);
    expect(parsed.ok && parsed.result.prs[0]?.branch).toBe('conveyor/web-7');
    const prHead = remotes.head('acme/web', 'conveyor/web-7')!;
    expect(remotes.show('acme/web', 'conveyor/web-7', 'feature.txt')).toBe('done');

    // Its completion dispatches the gate on the PR's head and refreshes what people see.
    h.calls.length = 0;
    const next = [
      dispatchScope('check', 102, dispatched),
      nock(API)
        .patch('/repos/acme/web/issues/comments/900', (b: { body: string }) => b.body.includes('✅ succeeded'))
        .reply(200, {}),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === prHead)
        .reply(201, { id: 501, html_url: 'x', status: 'in_progress', output: {} }),
      // The summary left on the draft's first head is completed: nothing stays running there.
      nock(API)
        .patch('/repos/acme/web/check-runs/500', (b: { status: string; conclusion: string }) => b.status === 'completed' && b.conclusion === 'neutral')
        .reply(200, {}),
      // The PR body the code attempt wrote is read once, and its status section written as the run
      // moves on (app/pr-status.ts): here, and after the gate and the merge below.
      nock(API)
        .get('/repos/acme/web/issues/1')
        .reply(200, { number: 1, body: `The body the action wrote.\n\n${PR_STATUS_START}\nsee the tracking comment\n${PR_STATUS_END}` }),
      nock(API)
        .persist()
        .patch('/repos/acme/web/pulls/1', (b: { body?: string }) => b.body?.startsWith('The body the action wrote.') === true)
        .reply(200, { number: 1, html_url: 'x', state: 'open', head: { ref: 'conveyor/web-7', sha: prHead }, base: { ref: 'main' } }),
    ];
    await h.receive('check_run', webhooks.checkRun('completed', implement.check as never));
    for (const s of next) expect(s.isDone()).toBe(true);
    expect(dispatched[1]!.headSha).toBe(prHead);
    expect(h.calls.length).toBeLessThanOrEqual(7);
    expect(h.calls.map((c) => `${c.method} ${c.path}`).sort()).toEqual([
      'GET /repos/acme/web/issues/1',
      'PATCH /repos/acme/web/check-runs/500',
      'PATCH /repos/acme/web/issues/comments/900',
      'PATCH /repos/acme/web/pulls/1',
      'POST /repos/acme/web/actions/workflows/conveyor.yml/dispatches',
      'POST /repos/acme/web/check-runs',
      'POST /repos/acme/web/check-runs',
    ]);

    const gate = await runDispatched(dispatched[1]!, fake, remotes.url, work, 778);
    expect(gate.out.code, gate.out.stdout + gate.out.stderr).toBe(0);
    expect(gate.check.conclusion).toBe('success');

    // The gate's completion runs the merge step in the app, through the GitHub API.
    const last = [
      // The merge step first checks the PR is open, at the head the run saw, not a draft (an action
      // on GitHub marks it ready after its push), and mergeable: one read, nothing marked here.
      openPullScope('acme/web', 1, prHead, { draft: false, node_id: 'PR_1' }),
      nock(API)
        .put('/repos/acme/web/pulls/1/merge', (b: { merge_method: string; sha: string }) => b.merge_method === 'squash' && b.sha === prHead)
        .reply(200, { merged: true, sha: 'c'.repeat(40) }),
      // One or two reports, depending on how the two transitions coalesce.
      nock(API)
        .persist()
        .patch('/repos/acme/web/issues/comments/900', (b: { body: string }) => comments.push(b.body) > 0)
        .reply(200, {}),
      nock(API)
        .persist()
        .patch('/repos/acme/web/check-runs/501', (b: { status: string; conclusion?: string }) => summaries.push(b) > 0)
        .reply(200, {}),
    ];
    const comments: string[] = [];
    const summaries: Array<{ status: string; conclusion?: string }> = [];
    const finalSummary: unknown[] = [];
    const unmatched = (req: unknown) => void finalSummary.push(req);
    nock.emitter.on('no match', unmatched);
    try {
      await h.receive('check_run', webhooks.checkRun('completed', gate.check as never));
    } finally {
      nock.emitter.removeListener('no match', unmatched);
    }
    const run = await h.conveyor.engine.get('acme-web-7');
    expect(run.status).toBe('succeeded');
    expect(Object.values(run.steps).map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    for (const s of last) expect(s.isDone()).toBe(true);
    expect(finalSummary).toEqual([]);
    expect(comments.at(-1)).toContain('✅ succeeded');
    // The PR is the draft the app opened when the run started (the action pushed to its branch and kept it).
    expect(comments.at(-1)).toContain('**Pull requests:** [acme/web#1](https://github.com/acme/web/pull/1)');
    expect(summaries.at(-1)).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(nock.pendingMocks()).toEqual([]);
    // The tracking comment is recorded once, when it is made; its edits write no record.
    expect(commentRecords.mock.calls).toEqual([['acme-web-7', { id: 900, url: 'https://github.com/acme/web/issues/7#issuecomment-900' }]]);
    expect(await h.conveyor.deps.links.comment('acme-web-7')).toEqual({ id: 900, url: 'https://github.com/acme/web/issues/7#issuecomment-900' });
  }, 120_000);
});
