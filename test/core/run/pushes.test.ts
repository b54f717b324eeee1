// The reducer's rules added for GitHub decisions: a push re-runs gates and reviews before an
// approval can count again; a merge conflict is repaired by a code attempt of the merge step.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, statuses, step, succeed, types } from './drive.ts';

const pr = { repo: 'acme/web', number: 1, url: 'u', branch: 'conveyor/web-7', head: 'aaa1111' };
const conflict = { error: { code: 'merge-conflict' as const, message: 'acme/web#1 conflicts' }, findings: 'resolve acme/web#1' };

/** A merge that needs a gate: `test` must pass on the head the merge merges. */
const gatedMerge = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate' },
  { id: 'ship', kind: 'merge', needs: ['implement', 'test'] },
]);

/** The gated merge with the code and the gate done: `ship` is under way. */
function mergeQueued(): Run {
  let run = start(gatedMerge).run;
  run = step(run, current(run, 'implement', 'success', { prs: [pr] })).run;
  run = succeed(run, 'test');
  expect(statuses(run)).toEqual({ implement: 'succeeded', test: 'succeeded', ship: 'queued' });
  return run;
}

const pushed = (run: Run, head: string): Run => step(run, { type: 'pr-pushed', at: AT, repo: 'acme/web', head, by: 'mallory' }).run;

describe('a push after an approval', () => {
  it('runs the gate and review again (new attempts), puts the steps after them back to pending, and the approval waits with the reason', () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate', repair: 1 },
      { id: 'review', kind: 'review', needs: ['implement'] },
      { id: 'approve', kind: 'approval', needs: ['test', 'review'], minApprovals: 2 },
      { id: 'ship', kind: 'merge' },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr] })).run;
    run = succeed(run, 'test', 'review');
    run = step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' }).run;
    const t = step(run, { type: 'pr-pushed', at: AT, repo: 'acme/web', head: 'ccc3333', by: 'mallory' });
    expect(statuses(t.run)).toEqual({ implement: 'succeeded', test: 'queued', review: 'queued', approve: 'pending', ship: 'pending' });
    expect(types(t.effects)).toEqual(['dispatch:test:2:0', 'dispatch:review:2:0', 'report']);
    expect(t.run.approvals[0]?.stale).toEqual({ kind: 'pushed', by: 'mallory', repo: 'acme/web', head: 'ccc3333' });
    let after = succeed(t.run, 'test', 'review');
    expect(after.steps.approve).toMatchObject({
      status: 'waiting',
      reason: 'waiting for approvals: 0 of 2 (approvals are stale: mallory pushed ccc3333 to acme/web after the approval)',
    });
    // A late result of the old head's attempt changes nothing.
    after = step(after, current(run, 'test', 'failure')).run;
    expect(after.steps.test?.status).toBe('succeeded');
  });
});

describe('a merge conflict', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'ship', kind: 'merge' },
  ]);

  it('dispatches a repair of the merge step with the findings, then merges again; at most twice', () => {
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr] })).run;
    let t = step(run, current(run, 'ship', 'failure', conflict));
    expect(types(t.effects)).toEqual(['dispatch:ship:2:0:repair', 'report']);
    expect(t.effects[0]).toMatchObject({ findings: 'resolve acme/web#1' });
    t = step(t.run, current(t.run, 'ship', 'success', { mode: 'repair', prs: [{ ...pr, head: 'ddd4444' }] }));
    expect(types(t.effects)).toEqual(['merge:ship:3:0', 'report']);
    expect(t.run.prs[0]?.head).toBe('ddd4444');
    t = step(t.run, current(t.run, 'ship', 'failure', conflict));
    t = step(t.run, current(t.run, 'ship', 'success', { mode: 'repair' }));
    t = step(t.run, current(t.run, 'ship', 'failure', conflict));
    expect(t.run.steps.ship).toMatchObject({ status: 'failed' });
    expect(t.run.steps.ship?.reason).toMatch(/^merge failed after 2 repairs \(max-attempts 2\): merge-conflict/);
  });

  it('a conflict repair after an approval makes it stale: the gate and review run again on the new head, the approval waits, and only then the merge', () => {
    const approved = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate' },
      { id: 'review', kind: 'review', needs: ['implement'] },
      { id: 'approve', kind: 'approval', needs: ['test', 'review'] },
      { id: 'ship', kind: 'merge' },
    ]);
    let run = start(approved).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr] })).run;
    run = succeed(run, 'test', 'review');
    run = step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' }).run;
    run = step(run, current(run, 'ship', 'failure', conflict)).run;
    expect(run.steps.ship).toMatchObject({ status: 'queued', mode: 'repair' });
    // The repair (Conveyor's own agent) pushes a head nobody approved or tested.
    const t = step(run, current(run, 'ship', 'success', { mode: 'repair', prs: [{ ...pr, head: 'eee5555' }] }));
    expect(t.run.approvals[0]?.stale).toEqual({ kind: 'agent-wrote', step: 'ship', repo: 'acme/web', head: 'eee5555' });
    expect(statuses(t.run)).toEqual({ implement: 'succeeded', test: 'queued', review: 'queued', approve: 'pending', ship: 'pending' });
    expect(types(t.effects)).toEqual(['dispatch:test:2:0', 'dispatch:review:2:0', 'report']);
    let after = succeed(t.run, 'test', 'review');
    expect(after.steps.approve).toMatchObject({
      status: 'waiting',
      reason: 'waiting for approvals: 0 of 1 (approvals are stale: the agent of step "ship" wrote eee5555 to acme/web after the approval)',
    });
    expect(after.steps.ship?.status).toBe('pending');
    const approvedAgain = step(after, { type: 'decision', at: AT, decision: 'approve', by: 'carol' });
    expect(types(approvedAgain.effects)).toEqual(['merge:ship:3:0', 'report']);
    expect(approvedAgain.run.approvals.filter((a) => !a.stale).map((a) => [a.by, a.heads['acme/web']])).toEqual([['carol', 'eee5555']]);
    // The repairs of the merge stay counted: a second conflict after that is repaired once more, then the step fails.
    after = step(approvedAgain.run, current(approvedAgain.run, 'ship', 'failure', conflict)).run;
    expect(after.steps.ship).toMatchObject({ mode: 'repair', repairs: 2 });
  });

  it('any other merge failure is not repaired', () => {
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr] })).run;
    const t = step(run, current(run, 'ship', 'failure', { error: { code: 'merge-failed', message: 'Merged: none.' } }));
    expect(t.run.steps.ship?.status).toBe('failed');
  });
});

describe('a merge under way when someone pushes', () => {
  // Found by the property test: the merge is left to finish, but what would follow it must wait
  // for the gate the push re-ran, or the pushed head would be merged untested.
  const underWay = () => pushed(mergeQueued(), 'eee5555');

  it('a conflict is not repaired before the gate passes again on the pushed head; then the merge starts afresh', () => {
    const run = underWay();
    expect(statuses(run)).toEqual({ implement: 'succeeded', test: 'queued', ship: 'queued' });
    const t = step(run, current(run, 'ship', 'failure', conflict));
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.ship).toMatchObject({ status: 'pending', repairs: 0, reason: 'waits for "test" to succeed again (a push made it run again)' });
    const after = step(t.run, current(t.run, 'test', 'success'));
    expect(types(after.effects)).toEqual(['merge:ship:2:0', 'report']);
  });

  it('a repair that ends while the gate runs again does not merge; a lost merge is not dispatched again', () => {
    let run = mergeQueued();
    run = step(run, current(run, 'ship', 'failure', conflict)).run;
    run = pushed(run, 'eee5555');
    expect(run.steps.ship).toMatchObject({ status: 'queued', mode: 'repair' });
    let t = step(run, current(run, 'ship', 'success', { mode: 'repair' }));
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.ship?.status).toBe('pending');

    const lostRun = underWay();
    const s = lostRun.steps.ship!;
    t = step(lostRun, { type: 'step-lost', at: AT, step: 'ship', attempt: s.attempt, epoch: s.epoch, reason: 'the app restarted' });
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.ship).toMatchObject({ status: 'pending', reason: 'waits for "test" to succeed again (a push made it run again)' });
  });
});

describe('a step after an approval a push made stale', () => {
  it('runs on, but a lost attempt of it waits for the approval instead of being dispatched again', () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'approve', kind: 'approval', needs: ['implement'] },
      { id: 'deploy', kind: 'deploy', needs: ['approve'] },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr] })).run;
    run = step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' }).run;
    run = step(run, { type: 'pr-pushed', at: AT, repo: 'acme/web', head: 'eee5555', by: 'mallory' }).run;
    expect(statuses(run)).toEqual({ implement: 'succeeded', approve: 'waiting', deploy: 'queued' });
    const s = run.steps.deploy!;
    const t = step(run, { type: 'step-lost', at: AT, step: 'deploy', attempt: s.attempt, epoch: s.epoch, reason: 'the runner vanished' });
    expect(types(t.effects)).toEqual(['report']);
    expect(t.run.steps.deploy).toMatchObject({ status: 'pending', losses: 0 });
    const approved = step(t.run, { type: 'decision', at: AT, decision: 'approve', by: 'carol' });
    expect(types(approved.effects)).toEqual(['dispatch:deploy:2:0', 'report']);
  });
});

describe('a merge that fails while the steps it needs run again after a push', () => {
  it('waits for them and merges afresh, instead of failing the run (the merge found the head moved by the push)', () => {
    const run = pushed(mergeQueued(), 'fff6666');
    const moved = { error: { code: 'merge-failed' as const, message: 'acme/web#1: its head moved to fff6666 since the run checked aaa1111' } };
    const t = step(run, current(run, 'ship', 'failure', moved));
    expect(t.run.status).toBe('running');
    expect(t.run.steps.ship).toMatchObject({ status: 'pending', reason: 'waits for "test" to succeed again (a push made it run again)' });
    expect(t.run.steps.ship?.attempts.at(-1)).toMatchObject({ conclusion: 'failure' });
    const after = step(t.run, current(t.run, 'test', 'success'));
    expect(types(after.effects)).toEqual(['merge:ship:2:0', 'report']);
  });

  it('fails as before when nothing it needs is running again', () => {
    const run = mergeQueued();
    const t = step(run, current(run, 'ship', 'failure', { error: { code: 'merge-failed' as const, message: 'blocked' } }));
    expect(t.run.steps.ship?.status).toBe('failed');
    expect(t.run.status).toBe('waiting');
  });
});
