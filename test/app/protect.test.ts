// Protected paths on GitHub (issue #29 item 3), driven through probot.receive with GitHub's API
// mocked by nock: the code step's result says which protected paths its change holds at which
// head; the approval's check run names what approving covers; the tracking comment and the summary
// check run show them; and a pipeline without an approval step stops before the merge as
// `protected-paths`, merging nothing (no merge call is mocked: nock refuses any).
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { renderResultText } from '../../core/github/check-run.ts';
import type { ProtectedChange } from '../../core/contract/wire.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { API, createHarness, type Harness, harnessPerTest, webhooks } from './harness.ts';
import { openPullScope } from './scopes.ts';
import { approvalCheckScope, events, permissionScope, planWith, pr, reportScopes, RUN, seed, WEB_HEAD, type ApprovalPatch } from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, token: true });

const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

const WORKFLOW: ProtectedChange = { repo: 'acme/web', head: WEB_HEAD, paths: ['.github/workflows/ci.yml', 'package.json'] };
const implemented = (guarded: ProtectedChange[]) => ({
  implement: { prs: [pr('acme/web', 1, WEB_HEAD)], commits: { 'acme/web': WEB_HEAD }, protected: guarded },
});

describe('protected paths on GitHub', () => {
  it('names them on the approval check run, the tracking comment and the summary; the approval of that head lets them merge', async () => {
    const plan = planWith([
      { id: 'implement', kind: 'code' },
      { id: 'approve', kind: 'approval' },
      { id: 'ship', kind: 'merge' },
    ]);
    await seed(h, plan, implemented([WORKFLOW]));
    const reports = reportScopes();
    const approvalChecks: ApprovalPatch[] = [];
    approvalCheckScope(approvalChecks);
    const merged: string[] = [];
    const scopes = [
      permissionScope('bob', 'write'),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .reply(201, {}),
      openPullScope('acme/web', 1, WEB_HEAD),
      nock(API)
        .put('/repos/acme/web/pulls/1/merge', (b: { sha: string }) => merged.push(b.sha) > 0)
        .reply(200, { merged: true, sha: 'm1' }),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor approve', 'bob'));
    allDone(scopes);
    expect(merged).toEqual([WEB_HEAD]);
    const run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('succeeded');
    expect(run.protectedPaths).toEqual([WORKFLOW]);

    // The approval's check run says what approving covered.
    const approved = approvalChecks.find((c) => c.conclusion === 'success');
    expect(approved?.output?.summary).toContain(
      'This approval covers the protected paths (`protect`) the change holds at these heads: acme/web#1: `.github/workflows/ci.yml`, `package.json`.',
    );
    // The tracking comment and the summary check run show them, approved at the head that holds them.
    const line =
      '**Protected paths** (merged only after an approval of their heads): [acme/web#1](https://github.com/acme/web/pull/1): `.github/workflows/ci.yml`, `package.json` (approved at this head)';
    expect(reports.comments.at(-1)).toContain(line);
    expect(reports.summaries.at(-1)?.output?.summary).toContain(line);
  });

  it('stops a pipeline without an approval step before the merge as protected-paths, naming the files, with no merge call', async () => {
    const plan = planWith([
      { id: 'implement', kind: 'code' },
      { id: 'check', kind: 'gate' },
      { id: 'ship', kind: 'merge' },
    ]);
    await seed(h, plan, implemented([WORKFLOW]), { leaveQueued: 'check', queuedCheckRun: 710 });
    const reports = reportScopes();
    h.calls.length = 0;
    let run = await h.conveyor.engine.get(RUN);
    const passed = sealedFor(run, resultOf(RUN, 'check', 1, 0, 'success', { commits: { 'acme/web': WEB_HEAD } }));
    await h.receive('check_run', events.checkCompleted(710, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(passed)));
    allDone(reports.scopes);
    run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('waiting');
    expect(run.steps.ship?.status).toBe('failed');
    expect(run.steps.ship?.result?.error?.code).toBe('protected-paths');
    expect(run.steps.ship?.result?.error?.message).toBe(
      'not merging: the change holds protected paths (`protect`) that no approval saw at the current heads: acme/web#1: `.github/workflows/ci.yml`, `package.json`. Pipeline `default` has no approval step, so no person can approve them: add one before the merge (or narrow `protect`) and `/conveyor restart`, or merge the pull requests yourself after looking at them.',
    );
    // Not even a read of the PR: nothing was asked of GitHub but the reports (the PR body's status section among them).
    expect(h.calls.filter((c) => /\/pulls\//.test(c.path) && !(c.method === 'PATCH' && /\/pulls\/\d+$/.test(c.path)))).toEqual([]);
    expect(reports.comments.at(-1)).toContain('(needs an approval of this head)');
  });

  it('merges a change that holds no protected path without an approval step', async () => {
    const plan = planWith([
      { id: 'implement', kind: 'code' },
      { id: 'check', kind: 'gate' },
      { id: 'ship', kind: 'merge' },
    ]);
    await seed(h, plan, implemented([{ repo: 'acme/web', head: WEB_HEAD, paths: [] }]), { leaveQueued: 'check', queuedCheckRun: 710 });
    const reports = reportScopes();
    const scopes = [openPullScope('acme/web', 1, WEB_HEAD), nock(API).put('/repos/acme/web/pulls/1/merge').reply(200, { merged: true, sha: 'm1' })];
    let run = await h.conveyor.engine.get(RUN);
    const passed = sealedFor(run, resultOf(RUN, 'check', 1, 0, 'success', { commits: { 'acme/web': WEB_HEAD } }));
    await h.receive('check_run', events.checkCompleted(710, `${RUN}:check:1:0`, 'conveyor / check', renderResultText(passed)));
    allDone([...scopes, ...reports.scopes]);
    run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('succeeded');
    expect(reports.comments.at(-1)).not.toContain('Protected paths');
  });
});
