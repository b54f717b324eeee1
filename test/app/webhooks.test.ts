// Webhook payloads that lack what the app reads of them (app/webhooks.ts): refused before anything
// is done, the field named; what GitHub sends of other apps' check runs still passes.
import { describe, expect, it } from 'vitest';
import { createHarness, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { events, planWith, pr, RUN, seed, WEB_HEAD } from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h });

/** A run waiting for two approvals, one given: a push by a person would make it stale. */
async function approvalWaiting() {
  const plan = planWith([
    { id: 'implement', kind: 'code' },
    { id: 'approve', kind: 'approval', minApprovals: 2 },
    { id: 'ship', kind: 'merge' },
  ]);
  return seed(
    h,
    plan,
    { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
    { events: [{ type: 'decision', at: '2025-03-01T09:30:00.000Z', decision: 'approve', by: 'bob' }] },
  );
}

describe('a payload without what the app reads', () => {
  it('a push whose head has no commit is refused naming pull_request.head.sha: the approval stays, nothing is asked of GitHub', async () => {
    const before = await approvalWaiting();
    const push = events.pull('synchronize', 'acme/web', 1, 'c'.repeat(40), 'dave');
    const headless = { ...push, pull_request: { ...push.pull_request, head: { ...push.pull_request.head, sha: undefined } } };
    await expect(h.receive('pull_request', headless)).rejects.toThrow(
      /GitHub's pull_request\.synchronize webhook \(delivery [^)]+\) does not hold what Conveyor reads of it \(pull_request\.head\.sha: .*\); nothing was done with it/,
    );
    const run = await h.conveyor.engine.get(RUN);
    expect(run.version).toBe(before.version);
    expect(run.approvals[0]?.stale).toBeUndefined();
    expect(h.calls).toEqual([]);
  });

  it("a check run of the app's without a name is refused naming check_run.name", async () => {
    await approvalWaiting();
    const completed = webhooks.checkRun('completed', { id: 5, name: 'conveyor / implement', external_id: `${RUN}:implement:1:0` });
    const nameless = { ...completed, check_run: { ...completed.check_run, name: undefined } };
    await expect(h.receive('check_run', nameless)).rejects.toThrow(/GitHub's check_run\.completed webhook .*\(check_run\.name: /);
    expect(h.calls).toEqual([]);
  });

  it("another app's check run with no external id, details URL or conclusion is read as GitHub sends it, and ignored", async () => {
    await approvalWaiting();
    const completed = webhooks.checkRun('completed', { id: 6, name: 'ci / test', external_id: 'x', details_url: null, conclusion: null });
    const foreign = { ...completed, check_run: { ...completed.check_run, external_id: null, app: { ...completed.check_run.app, id: 99 } } };
    await h.receive('check_run', foreign);
    expect(h.calls).toEqual([]);
  });
});
