import { describe, expect, it } from 'vitest';
import { isApprover } from '../../../core/run/approvals.ts';
import { reduce } from '../../../core/run/reducer.ts';
import type { Run, RunEvent } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, statuses, step, succeed, types } from './drive.ts';

const pr = (repo: string, head: string) => ({ repo, number: 4, url: `u/${repo}`, branch: 'conveyor/web-7', head });

function atApproval(spec: { minApprovals?: number; approvers?: string[]; allowRequester?: boolean } = {}): Run {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'approve', kind: 'approval', ...spec },
    { id: 'ship', kind: 'merge' },
  ]);
  const run = start(plan).run;
  return step(run, current(run, 'implement', 'success', { prs: [pr('acme/web', 'aaa1111'), pr('acme/api', 'bbb2222')] })).run;
}
const approve = (by: string, stepId?: string): RunEvent => ({ type: 'decision', at: AT, decision: 'approve', by, ...(stepId ? { step: stepId } : {}) });
const replyText = (t: { effects: { type: string }[] }): string => {
  const e = t.effects[0];
  return e && 'text' in e ? String(e.text) : '';
};

describe('decisions', () => {
  it('an approval records who approved which heads and continues the run', () => {
    const run = atApproval();
    expect(run.waitingFor).toBe('approval of step "approve": waiting for approvals: 0 of 1');
    const t = step(run, approve('bob'));
    expect(t.run.approvals).toEqual([{ step: 'approve', by: 'bob', at: AT, heads: { 'acme/web': 'aaa1111', 'acme/api': 'bbb2222' } }]);
    expect(statuses(t.run)).toMatchObject({ approve: 'succeeded', ship: 'queued' });
    expect(types(t.effects)).toEqual(['merge:ship:1:0', 'report']);
  });

  it('counts distinct approvers up to minApprovals; the same person twice is one', () => {
    let run = atApproval({ minApprovals: 2 });
    run = step(run, approve('bob')).run;
    expect(run.steps.approve).toMatchObject({ status: 'waiting', reason: 'waiting for approvals: 1 of 2' });
    const dup = step(run, approve('BOB'));
    expect(dup.run).toBe(run);
    expect(dup.effects).toEqual([]);
    run = step(run, approve('carol')).run;
    expect(run.steps.approve?.status).toBe('succeeded');
  });

  it('the requester counts only when the step allows it', () => {
    const refused = step(atApproval(), approve('alice'));
    expect(refused.run.steps.approve?.status).toBe('waiting');
    expect(refused.effects).toHaveLength(1);
    expect(replyText(refused)).toMatch(/alice started this run/);
    expect(step(atApproval({ allowRequester: true }), approve('alice')).run.steps.approve?.status).toBe('succeeded');
  });

  it('only named approvers count', () => {
    const run = atApproval({ approvers: ['Carol'] });
    expect(replyText(step(run, approve('bob')))).toBe('bob is not an approver of step "approve" (approvers: Carol).');
    expect(step(run, approve('carol')).run.steps.approve?.status).toBe('succeeded');
  });

  it("a named team's approver counts only when the app named the team it verified", () => {
    const run = atApproval({ approvers: ['@acme/reviewers', '@bob'] });
    expect(isApprover(['@acme/reviewers', '@bob'], 'bob', undefined)).toBe(true);
    expect(isApprover(['@acme/reviewers'], 'acme/reviewers', undefined)).toBe(false); // a login is never a team
    expect(isApprover(['@acme/reviewers'], 'dave', 'acme/other')).toBe(false);
    expect(isApprover([], 'anyone', undefined)).toBe(true);
    expect(replyText(reduce(run, approve('dave')))).toMatch(/dave is not an approver of step "approve"/);
    const t = reduce(run, { type: 'decision', at: AT, decision: 'approve', by: 'dave', team: '@ACME/Reviewers' });
    expect(t.run.approvals.map((a) => a.by)).toEqual(['dave']);
  });

  it('reject fails the approval step and the run waits, saying who and why', () => {
    const t = step(atApproval(), { type: 'decision', at: AT, decision: 'reject', by: 'bob', reason: 'too risky' });
    expect(t.run.steps.approve).toMatchObject({ status: 'failed', reason: 'rejected by bob: too risky' });
    expect(t.run.status).toBe('waiting');
    expect(t.run.waitingFor).toContain('retry or cancel');
    expect(t.run.steps.ship?.status).toBe('pending');
  });

  it('refuses decisions when nothing waits, naming what the run is doing, or on a step that is not an approval', () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate', repair: 1 },
      { id: 'approve', kind: 'approval' },
    ]);
    const running = start(plan).run;
    const gating = succeed(running, 'implement');
    const repairing = step(gating, current(gating, 'test', 'failure')).run;
    const failed = step(repairing, current(repairing, 'test', 'failure')).run;
    expect(failed.status).toBe('waiting');
    const reject: RunEvent = { type: 'decision', at: AT, decision: 'reject', by: 'bob' };
    const cases: [Run, RunEvent, RegExp][] = [
      [running, approve('bob'), /^run r1 is running `implement`; nothing waits for an approval\.$/],
      [gating, approve('bob'), /^run r1 is running `test`; nothing waits for an approval\.$/],
      [gating, reject, /^run r1 is running `test`; nothing waits for an approval\.$/],
      [repairing, approve('bob'), /^run r1 is running `test` \(a repair\); nothing waits for an approval\.$/],
      [failed, approve('bob'), /^run r1 waits for a retry or a cancel \(step `test` failed\); nothing waits for an approval\.$/],
      [running, approve('bob', 'implement'), /"implement" is a code step, not an approval/],
      [gating, approve('bob', 'approve'), /^run r1 is running `test`; step `approve` is pending, not waiting for an approval\.$/],
      [running, approve('bob', 'zzz'), /has no step "zzz"/],
    ];
    for (const [run, event, text] of cases) {
      const t = step(run, event);
      expect(t.run).toBe(run);
      expect(t.effects).toHaveLength(1);
      expect(t.effects[0]?.type).toBe('reply');
      expect(replyText(t)).toMatch(text);
    }
  });
});

describe('decisions only where one is due', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate', repair: 1 },
    { id: 'approve', kind: 'approval' },
    { id: 'ship', kind: 'merge' },
  ]);

  it('an approval given while the gate and its repair run is kept for nothing: the approval step that comes up afterwards still waits', () => {
    let run = succeed(start(plan).run, 'implement');
    for (const decision of ['approve', 'reject'] as const) {
      const t = step(run, { type: 'decision', at: AT, decision, by: 'bob' });
      expect(t.run).toBe(run);
      expect(types(t.effects)).toEqual(['reply']);
    }
    // The gate fails, its repair writes a new head, the gate passes on it: only then is an approval due.
    run = step(run, current(run, 'test', 'failure')).run;
    expect(step(run, approve('bob')).run).toBe(run);
    run = step(run, current(run, 'test', 'success', { mode: 'repair', prs: [pr('acme/web', 'ccc3333')] })).run;
    run = succeed(run, 'test');
    expect(run.approvals).toEqual([]);
    expect(run.steps.approve).toMatchObject({ status: 'waiting', reason: 'waiting for approvals: 0 of 1' });
    expect(run.steps.ship?.status).toBe('pending');
  });

  it('an approval counts only for the heads its giver decided on: heads that moved since, or a PR opened since, refuse it', () => {
    const run = atApproval();
    const seen = { 'acme/web': 'aaa1111', 'acme/api': 'bbb2222' };
    const ok = step(run, { ...approve('bob'), heads: seen } as RunEvent);
    expect(ok.run.approvals.map((a) => a.heads)).toEqual([seen]);
    const moved = step(run, { ...approve('bob'), heads: { ...seen, 'acme/api': 'old0000' } } as RunEvent);
    expect(moved.run).toBe(run);
    expect(replyText(moved)).toBe(
      'the pull requests moved since this approval was asked for: acme/api is at bbb2222 now, not old0000. Look at them as they are now and approve again.',
    );
    const fewer = step(run, { ...approve('bob'), heads: { 'acme/web': 'aaa1111' } } as RunEvent);
    expect(fewer.run).toBe(run);
    expect(replyText(fewer)).toMatch(/acme\/api is at bbb2222 now, and was not there then/);
    // A rejection needs no head: rejecting what moved is still a rejection.
    const rejected = step(run, { type: 'decision', at: AT, decision: 'reject', by: 'bob', heads: { 'acme/web': 'x' } });
    expect(rejected.run.steps.approve?.status).toBe('failed');
  });
});

describe('pushes after an approval', () => {
  it('a push by someone else makes approvals stale and the approval waits again', () => {
    let run = atApproval({ minApprovals: 1 });
    // Hold the merge back so that the approval is succeeded but nothing merged yet.
    run = step(run, approve('bob')).run;
    const t = step(run, { type: 'pr-pushed', at: AT, repo: 'acme/api', head: 'ccc3333', by: 'mallory' });
    expect(t.run.approvals[0]?.stale).toEqual({ kind: 'pushed', by: 'mallory', repo: 'acme/api', head: 'ccc3333' });
    expect(t.run.steps.approve?.status).toBe('waiting');
    expect(t.run.steps.approve?.reason).toMatch(/approvals are stale/);
    expect(t.run.prs.find((p) => p.repo === 'acme/api')?.head).toBe('ccc3333');
    // A fresh approval records the new head.
    const again = step({ ...t.run, steps: { ...t.run.steps, ship: { ...t.run.steps.ship!, status: 'succeeded' } } }, approve('bob'));
    expect(again.run.approvals[1]?.heads['acme/api']).toBe('ccc3333');
  });

  it("Conveyor's own pushes, known heads and unknown repos change nothing", () => {
    const run = step(atApproval({ minApprovals: 2 }), approve('bob')).run;
    for (const e of [
      { type: 'pr-pushed', at: AT, repo: 'acme/api', head: 'ddd', by: 'conveyor[bot]', own: true },
      { type: 'pr-pushed', at: AT, repo: 'acme/api', head: 'bbb2222', by: 'mallory' },
      { type: 'pr-pushed', at: AT, repo: 'acme/nope', head: 'eee', by: 'mallory' },
    ] as RunEvent[]) {
      expect(reduce(run, e).run).toBe(run);
    }
  });

  it('a person whose login is Conveyor, in any case, is a person: their push makes approvals stale', () => {
    const run = step(atApproval({ minApprovals: 2 }), approve('bob')).run;
    for (const by of ['conveyor', 'Conveyor', 'CONVEYOR']) {
      const t = step(run, { type: 'pr-pushed', at: AT, repo: 'acme/api', head: 'fff6666', by });
      expect(t.run.approvals[0]?.stale).toEqual({ kind: 'pushed', by, repo: 'acme/api', head: 'fff6666' });
    }
  });
});

describe('retry', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'a', kind: 'gate', needs: ['implement'] },
    { id: 'b', kind: 'gate', needs: ['implement'] },
    { id: 'c', kind: 'review', needs: ['a', 'b'] },
  ]);
  function failedAtA(): Run {
    let run = succeed(start(plan).run, 'implement');
    run = step(run, current(run, 'a', 'failure')).run;
    return succeed(run, 'b');
  }

  it('keeps the succeeded prefix in plan order, resets the rest, and dispatches with growing attempts', () => {
    const run = failedAtA();
    expect(run.status).toBe('waiting');
    const t = step(run, { type: 'retry', at: AT, by: 'bob' });
    // b succeeded but comes after a in plan order: it runs again too.
    expect(statuses(t.run)).toEqual({ implement: 'succeeded', a: 'queued', b: 'queued', c: 'pending' });
    expect(types(t.effects)).toEqual(['dispatch:a:2:0', 'dispatch:b:2:0', 'report']);
    expect(t.run.steps.a).toMatchObject({ repairs: 0, losses: 0, reason: undefined, result: undefined });
    expect(t.run.steps.a?.attempts).toHaveLength(2);
    // A late result of the old attempt can no longer match.
    const late = { type: 'step-completed', at: AT, result: { ...run.steps.a!.result!, conclusion: 'success' } } as RunEvent;
    expect(reduce(t.run, late).run).toBe(t.run);
  });

  it('with a step, resets that step and every step after it in plan order', () => {
    const t = step(failedAtA(), { type: 'retry', at: AT, step: 'implement' });
    expect(types(t.effects)).toEqual(['dispatch:implement:2:0', 'report']);
    expect(statuses(t.run)).toEqual({ implement: 'queued', a: 'pending', b: 'pending', c: 'pending' });
  });

  it('is refused on a running run, an unknown step and an ended run', () => {
    const running = start(plan).run;
    expect(replyText(step(running, { type: 'retry', at: AT }))).toMatch(/still running/);
    expect(replyText(step(failedAtA(), { type: 'retry', at: AT, step: 'zz' }))).toMatch(/no step "zz" \(steps: implement, a, b, c\)/);
    const ended = step(failedAtA(), { type: 'cancel', at: AT }).run;
    const t = step(ended, { type: 'retry', at: AT });
    expect(t.run).toBe(ended);
    expect(replyText(t)).toMatch(/has ended \(cancelled/);
  });

  it('retrying a rejected approval makes earlier approvals stale', () => {
    let run = atApproval({ minApprovals: 2 });
    run = step(run, approve('bob')).run;
    run = step(run, { type: 'decision', at: AT, decision: 'reject', by: 'carol' }).run;
    const t = step(run, { type: 'retry', at: AT, by: 'dave' });
    expect(t.run.steps.approve).toMatchObject({ status: 'waiting', reason: 'waiting for approvals: 0 of 2' });
    expect(t.run.approvals[0]?.stale).toEqual({ kind: 'retried', by: 'dave' });
  });
});

describe('cancel, closed PRs, teardown, terminal runs', () => {
  const env = { service: 'web', envId: 'r1-web', state: 'ready' as const, url: 'http://w' };
  function withEnv(): Run {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'preview', kind: 'deploy' },
      { id: 'approve', kind: 'approval' },
      { id: 'ship', kind: 'merge' },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr('acme/web', 'a1')] })).run;
    return step(run, current(run, 'preview', 'success', { environments: [env] })).run;
  }

  it('cancel ends the run, cancels queued and waiting steps and tears environments down', () => {
    const run = withEnv();
    const t = step(run, { type: 'cancel', at: AT, by: 'bob', reason: 'wrong issue' });
    expect(t.run.status).toBe('cancelled');
    expect(t.run.reason).toBe('cancelled by bob: wrong issue');
    expect(statuses(t.run)).toEqual({ implement: 'succeeded', preview: 'succeeded', approve: 'cancelled', ship: 'pending' });
    expect(t.effects).toEqual([
      { type: 'teardown', key: `r1:teardown:${run.version + 1}`, environments: [env] },
      { type: 'report', key: `r1:report:${run.version + 1}` },
    ]);
  });

  it('cancel stops each attempt under way, as dispatched, before its teardown; an unreachable run has nothing stopped', () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'preview', kind: 'deploy', needs: ['implement'] },
      { id: 'test', kind: 'gate', needs: ['implement'], repair: 1 },
      { id: 'ship', kind: 'merge', needs: ['preview', 'test'] },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr('acme/web', 'a1')] })).run;
    // The gate fails into its repair (attempt 2), lost once (epoch 1); the deploy has settled an environment and goes on.
    run = step(run, current(run, 'test', 'failure')).run;
    run = step(run, { type: 'step-lost', at: AT, step: 'test', attempt: 2, epoch: 0, reason: 'gone' }).run;
    run = step(run, { type: 'environments-settled', at: AT, step: 'preview', attempt: 1, epoch: 0, environments: [env] }).run;
    const t = step(run, { type: 'cancel', at: AT, by: 'bob', reason: 'wrong issue' });
    const reason = 'cancelled by bob: wrong issue';
    expect(t.effects).toEqual([
      { type: 'stop', key: 'r1:preview:1:0:stop', ref: { runId: 'r1', step: 'preview', attempt: 1, epoch: 0, mode: 'run' }, reason },
      { type: 'stop', key: 'r1:test:2:1:stop', ref: { runId: 'r1', step: 'test', attempt: 2, epoch: 1, mode: 'repair' }, reason },
      { type: 'teardown', key: `r1:teardown:${run.version + 1}`, environments: [env] },
      { type: 'report', key: `r1:report:${run.version + 1}` },
    ]);
    // A second cancel, a retry or a late result of the stopped attempts stop nothing more.
    for (const e of [{ type: 'cancel', at: AT } as RunEvent, { type: 'retry', at: AT } as RunEvent, current(run, 'preview', 'success')]) {
      expect(reduce(t.run, e).effects.filter((x) => x.type === 'stop')).toEqual([]);
    }
    // Where GitHub can no longer be reached, nothing is asked of it.
    expect(step(run, { type: 'cancel', at: AT, by: 'GitHub', reason: 'uninstalled', unreachable: true }).effects).toEqual([]);
  });

  it('a merge the engine carries out itself has nothing to stop; its conflict repair, dispatched, is stopped', () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'ship', kind: 'merge' },
    ]);
    let run = start(plan).run;
    run = step(run, current(run, 'implement', 'success', { prs: [pr('acme/web', 'a1')] })).run;
    expect(types(step(run, { type: 'cancel', at: AT }).effects)).toEqual(['report']);
    const conflict = { error: { code: 'merge-conflict' as const, message: 'conflicts' }, findings: 'resolve it' };
    run = step(run, current(run, 'ship', 'failure', conflict)).run;
    expect(run.steps.ship).toMatchObject({ status: 'queued', mode: 'repair', attempt: 2 });
    expect(types(step(run, { type: 'cancel', at: AT }).effects)).toEqual(['stop', 'report']);
  });

  it('a PR closed unmerged cancels; merged or unknown PRs change nothing', () => {
    const run = withEnv();
    const t = step(run, { type: 'pr-closed', at: AT, repo: 'acme/web', merged: false });
    expect(t.run.status).toBe('cancelled');
    expect(t.run.reason).toBe('PR acme/web#4 was closed without merging');
    expect(reduce(run, { type: 'pr-closed', at: AT, repo: 'acme/web', merged: true }).run).toBe(run);
    expect(reduce(run, { type: 'pr-closed', at: AT, repo: 'acme/x', merged: false }).run).toBe(run);
  });

  it('terminal runs stay terminal; torn-down still moves environments to removedEnvironments', () => {
    const ended = step(withEnv(), { type: 'cancel', at: AT }).run;
    const events: RunEvent[] = [
      { type: 'started', at: AT },
      current(ended, 'implement', 'success'),
      { type: 'step-lost', at: AT, step: 'implement', attempt: 1, epoch: 0, reason: 'x' },
      { type: 'pr-pushed', at: AT, repo: 'acme/web', head: 'zz', by: 'm' },
      { type: 'pr-closed', at: AT, repo: 'acme/web', merged: false },
    ];
    for (const e of events) expect(reduce(ended, e)).toEqual({ run: ended, effects: [] });
    for (const e of [approve('bob'), { type: 'cancel', at: AT } as RunEvent]) {
      const t = reduce(ended, e);
      expect(t.run).toBe(ended);
      expect(types(t.effects)).toEqual(['reply']);
    }
    const t = step(ended, { type: 'torn-down', at: AT, environments: [env] });
    expect(t.run.status).toBe('cancelled');
    expect(t.run.environments).toEqual([]);
    expect(t.run.removedEnvironments).toEqual([env]);
    expect(types(t.effects)).toEqual(['report']);
    expect(reduce(t.run, { type: 'torn-down', at: AT, environments: [env] }).run).toBe(t.run);
  });

  it('a refusal redelivered replies with the same key', () => {
    const ended = step(withEnv(), { type: 'cancel', at: AT }).run;
    const e: RunEvent = { type: 'retry', at: AT, by: 'bob' };
    expect(reduce(ended, e).effects[0]?.key).toBe(reduce(ended, e).effects[0]?.key);
    expect(reduce(ended, e).effects[0]?.key).not.toBe(reduce(ended, { ...e, by: 'carol' }).effects[0]?.key);
  });
});
