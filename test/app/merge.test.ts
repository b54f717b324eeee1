// The merge step on GitHub and the end of a run: providers' PRs merge first, a PR whose
// mergeability is still being computed is asked again, a conflict is resolved by a code attempt
// and merged after, and a merge that stops part-way says exactly where it stopped (closing a run:
// closing.test.ts). Driven through probot.receive, nock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { renderResultText } from '../../core/github/check-run.ts';
import { parseStepPayload } from '../../core/contract/wire.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { API, createHarness, tokenScope, webhooks, type Harness } from './harness.ts';
import { configScope, dispatchScope, openPullScope, noSummaryOnHead, workflowRunsScope, type Dispatched } from './scopes.ts';
import {
  API_HEAD,
  approvalCheckScope,
  approveByComment,
  events,
  fleetBuilt as built,
  fleetPlan as plan,
  LIB_HEAD,
  permissionScope,
  pr,
  readyEnv,
  reportScopes,
  RUN,
  seed,
  WEB_HEAD,
} from './decisions-setup.ts';

let h: Harness;
let sleeps: number[];
beforeEach(async () => {
  nock.disableNetConnect();
  sleeps = [];
  h = await createHarness({ merge: { polls: 5, baseMs: 100, sleep: async (ms) => void sleeps.push(ms) } });
  tokenScope();
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

const RESOLVED = '4'.repeat(40);
const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

const pull = openPullScope;

/** Merges as GitHub would, recording the order and the commit messages. */
function mergeScope(
  repo: string,
  number: number,
  order: string[],
  messages: Record<string, string>,
  reply: [number, object] = [200, { merged: true, sha: `m-${repo}` }],
) {
  return nock(API)
    .put(`/repos/${repo}/pulls/${number}/merge`, (b: { commit_message: string; merge_method: string }) => {
      order.push(`${repo}#${number}`);
      messages[repo] = b.commit_message;
      return b.merge_method === 'squash';
    })
    .reply(...reply);
}

const approve = () => approveByComment(h);

describe('merging on GitHub', () => {
  it('merges three repositories providers first, asking again while GitHub computes mergeability', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const order: string[] = [];
    const messages: Record<string, string> = {};
    const scopes = [
      pull('acme/lib', 3, LIB_HEAD, { mergeable: null, mergeable_state: 'unknown' }),
      pull('acme/lib', 3, LIB_HEAD, { mergeable: null, mergeable_state: 'unknown' }),
      pull('acme/lib', 3, LIB_HEAD),
      pull('acme/api', 2, API_HEAD, { mergeable_state: 'unstable' }),
      pull('acme/web', 1, WEB_HEAD),
      mergeScope('acme/lib', 3, order, messages),
      mergeScope('acme/api', 2, order, messages),
      mergeScope('acme/web', 1, order, messages),
      // Merged: the environments are torn down (the deploy step's teardown, dispatched).
      dispatchScope('preview', 901, []),
    ];
    await approve();
    allDone(scopes);
    expect(order).toEqual(['acme/lib#3', 'acme/api#2', 'acme/web#1']);
    expect(sleeps).toEqual([100, 200]);
    expect(messages['acme/api']).toContain('Resolves acme/web#7.');
    expect(messages['acme/api']).toContain(`Conveyor-Run: ${RUN}`);
    expect(messages['acme/api']).toContain('Approved-by: bob');
    const run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('succeeded');
    expect(run.steps.ship?.result?.summary).toBe('Merged acme/lib#3, acme/api#2, acme/web#1 (squash).');
  });

  /** Seeds a run up to its approval and approves it: acme/web#1 conflicts, so a repair of `ship` is dispatched (check run 801). */
  async function approveIntoConflict(): Promise<Dispatched[]> {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const dispatched: Dispatched[] = [];
    const conflict = [
      pull('acme/lib', 3, LIB_HEAD),
      pull('acme/api', 2, API_HEAD),
      pull('acme/web', 1, WEB_HEAD, { mergeable: false, mergeable_state: 'dirty' }),
      dispatchScope('ship', 801, dispatched),
    ];
    await approve();
    allDone(conflict);
    return dispatched;
  }

  it('the sweeper catches a conflict repair whose workflow never started, and dispatches it again', async () => {
    const dispatched = await approveIntoConflict();
    expect((await h.conveyor.engine.get(RUN)).steps.ship).toMatchObject({ status: 'queued', mode: 'repair', attempt: 2, epoch: 0 });

    h.clock.now = new Date(Date.parse(h.clock.now) + 11 * 60_000).toISOString();
    const lost = [
      nock(API)
        .get('/repos/acme/web/check-runs/801')
        .reply(200, { id: 801, status: 'queued', conclusion: null, external_id: `${RUN}:ship:2:0`, output: {} }),
      workflowRunsScope([]),
      nock(API)
        .patch('/repos/acme/web/check-runs/801', (b: { conclusion: string }) => b.conclusion === 'cancelled')
        .reply(200, {}),
      dispatchScope('ship', 802, dispatched),
    ];
    const report = await h.conveyor.sweep();
    await h.conveyor.idle();
    expect(report.lost).toEqual([`${RUN}:ship:2:0`]);
    allDone(lost);
    expect((await h.conveyor.engine.get(RUN)).steps.ship).toMatchObject({ status: 'queued', mode: 'repair', attempt: 2, epoch: 1 });
    expect(dispatched.map((d) => d.externalId)).toEqual([`${RUN}:ship:2:0`, `${RUN}:ship:2:1`]);
  });

  it('a conflicting PR is resolved by a code attempt on its work branch; the approval, given on the old head, is asked for again; then it is merged', async () => {
    const dispatched = await approveIntoConflict();
    let run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ship).toMatchObject({ status: 'queued', mode: 'repair', attempt: 2, repairs: 1 });
    const payload = parseStepPayload(dispatched[0]!.inputs.payload!);
    expect(payload.ok).toBe(true);
    if (!payload.ok) return;
    expect(payload.payload).toMatchObject({ mode: 'repair', step: { id: 'ship', kind: 'merge' }, coder: { agent: 'coder' } });
    expect(Object.keys(payload.payload.agents)).toEqual(['coder']);
    expect(payload.payload.findings).toContain('- acme/web#1: it conflicts with `main`');
    expect(dispatched[0]!.externalId).toBe(`${RUN}:ship:2:0`);

    // The repair pushed a merge of the base into conveyor/web-7: a head nobody approved. The
    // approval goes stale and waits again; nothing merges yet.
    const moved = [
      // The summary and the approval's check runs move to the new head.
      noSummaryOnHead(RESOLVED),
      nock(API)
        .persist()
        .post(
          '/repos/acme/web/check-runs',
          (b: { name: string; head_sha: string }) => ['conveyor', 'conveyor / approve'].includes(b.name) && b.head_sha === RESOLVED,
        )
        .reply(201, { id: 502, html_url: 'x', status: 'completed', output: {} }),
    ];
    nock(API)
      .persist()
      .patch(/\/repos\/acme\/web\/check-runs\/50\d/)
      .reply(200, {});
    h.calls.length = 0;
    const repaired = sealedFor(
      await h.conveyor.engine.get(RUN),
      resultOf(RUN, 'ship', 2, 0, 'success', { mode: 'repair', prs: [pr('acme/web', 1, RESOLVED)], commits: { 'acme/web': RESOLVED } }),
    );
    await h.receive('check_run', events.checkCompleted(801, `${RUN}:ship:2:0`, 'conveyor / ship', renderResultText(repaired)));
    allDone(moved);
    // Nothing merged, nor even asked whether it could be, before the approval is given again (the
    // reports' writes of each PR body's status section aside: they say the approval waits again).
    expect(h.calls.filter((c) => /\/pulls\//.test(c.path) && !(c.method === 'PATCH' && /\/pulls\/\d+$/.test(c.path)))).toEqual([]);
    run = await h.conveyor.engine.get(RUN);
    expect(run.approvals.map((a) => a.stale)).toEqual([{ kind: 'agent-wrote', step: 'ship', repo: 'acme/web', head: RESOLVED }]);
    expect(run.steps.approve).toMatchObject({
      status: 'waiting',
      reason: expect.stringContaining('approvals are stale: the agent of step "ship" wrote 4444444 to acme/web after the approval'),
    });
    expect(run.steps.ship).toMatchObject({ status: 'pending', repairs: 1 });

    // Approved again, on the resolved head: merging is tried again, on that head.
    const order: string[] = [];
    const messages: Record<string, string> = {};
    const again = [
      pull('acme/lib', 3, LIB_HEAD),
      pull('acme/api', 2, API_HEAD),
      pull('acme/web', 1, RESOLVED),
      mergeScope('acme/lib', 3, order, messages),
      mergeScope('acme/api', 2, order, messages),
      nock(API)
        .put('/repos/acme/web/pulls/1/merge', (b: { sha: string }) => (order.push('acme/web#1'), b.sha === RESOLVED))
        .reply(200, { merged: true, sha: 'm-web' }),
      dispatchScope('preview', 902, []),
    ];
    await approve();
    allDone(again);
    run = await h.conveyor.engine.get(RUN);
    expect(order).toEqual(['acme/lib#3', 'acme/api#2', 'acme/web#1']);
    expect(run.status).toBe('succeeded');
    expect(run.steps.ship).toMatchObject({ status: 'succeeded', attempt: 3, mode: 'run' });
  });

  it('a PR that cannot be merged after another was stops the run, saying exactly which are merged', async () => {
    await seed(h, plan(), built);
    const report = reportScopes();
    approvalCheckScope([]);
    const order: string[] = [];
    const scopes = [
      pull('acme/lib', 3, LIB_HEAD),
      pull('acme/api', 2, API_HEAD),
      pull('acme/web', 1, WEB_HEAD),
      mergeScope('acme/lib', 3, order, {}),
      mergeScope('acme/api', 2, order, {}, [405, { message: 'Base branch was modified. Review and try the merge again.' }]),
    ];
    await approve();
    allDone(scopes);
    expect(order).toEqual(['acme/lib#3', 'acme/api#2']);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('waiting');
    expect(run.steps.ship?.status).toBe('failed');
    expect(run.steps.ship?.reason).toMatch(
      /merging acme\/api#2 failed \(HTTP 405\) Base branch was modified.*Merged: acme\/lib#3\. Not merged: acme\/api#2, acme\/web#1\./,
    );
    expect(run.waitingFor).toMatch(/retry or cancel: step "ship" failed/);
    expect(report.comments.at(-1)).toContain('Not merged: acme/api#2, acme/web#1');
    // Nothing was torn down: the run did not end.
    expect(run.environments).toEqual([readyEnv]);
  });

  it('does not merge a PR a person turned back into a draft, and says what to do; a retry after they mark it ready merges', async () => {
    // The run knows acme/web#1 as ready (the action marked its draft ready after its push); a
    // person since turned it back into a draft to hold the merge. The merge leaves it so.
    await seed(h, plan(), built);
    const report = reportScopes();
    approvalCheckScope([]);
    const order: string[] = [];
    const readied = nock(API)
      .post('/graphql')
      .reply(200, { data: { markPullRequestReadyForReview: { pullRequest: { isDraft: false } } } });
    const held = [
      pull('acme/lib', 3, LIB_HEAD),
      pull('acme/api', 2, API_HEAD),
      pull('acme/web', 1, WEB_HEAD, { draft: true, node_id: 'PR_web_1', mergeable: null }),
    ];
    await approve();
    allDone(held);
    expect(readied.isDone()).toBe(false);
    expect(order).toEqual([]);
    let run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('waiting');
    expect(run.steps.ship?.reason).toContain(
      'not merging: acme/web#1: it is a draft (mark it ready for review, then `/conveyor retry`). Merged: none. Not merged: acme/lib#3, acme/api#2, acme/web#1.',
    );
    expect(report.comments.at(-1)).toMatch(/> ❌ \*\*`ship` failed\*\*: .*acme\/web#1: it is a draft .*mark it ready for review/);
    expect(report.comments.at(-1)).toContain('comment `/conveyor retry ship`');

    // They mark it ready and retry: it merges.
    const merged = [
      permissionScope('bob', 'write'),
      configScope(),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .reply(201, {}),
      pull('acme/lib', 3, LIB_HEAD),
      pull('acme/api', 2, API_HEAD),
      pull('acme/web', 1, WEB_HEAD, { draft: false, node_id: 'PR_web_1' }),
      mergeScope('acme/lib', 3, order, {}),
      mergeScope('acme/api', 2, order, {}),
      mergeScope('acme/web', 1, order, {}),
      dispatchScope('preview', 901, []),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor retry', 'bob'));
    allDone(merged);
    expect(order).toEqual(['acme/lib#3', 'acme/api#2', 'acme/web#1']);
    expect(readied.isDone()).toBe(false);
    run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('succeeded');
  });

  it('does not merge anything while a PR is blocked by its required checks', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const scopes = [pull('acme/lib', 3, LIB_HEAD), pull('acme/api', 2, API_HEAD, { mergeable_state: 'blocked' }), pull('acme/web', 1, WEB_HEAD)];
    await approve();
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ship?.reason).toContain(
      'not merging: acme/api#2: its required checks or reviews do not pass. Merged: none. Not merged: acme/lib#3, acme/api#2, acme/web#1.',
    );
  });
});
