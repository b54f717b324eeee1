// Decisions on approval steps, and pushes that make approvals stale. Who may decide at all (write
// permission, not a bot) is checked by the app before the event exists; the rules that depend on
// the plan (named approvers, the requester, how many approvals) live here.
import type { PlanStep } from '../plan/types.ts';
import { approvalReason, CONVEYOR_ACTOR, Draft, reply, validApprovals } from './draft.ts';
import type { Approval, Run, RunEvent, Transition } from './types.ts';

type ApprovalStep = Extract<PlanStep, { kind: 'approval' }>;
const same = (a: string, b: string | undefined): boolean => b !== undefined && a.toLowerCase() === b.toLowerCase();

export function decide(run: Run, event: Extract<RunEvent, { type: 'decision' }>): Transition {
  let target: ApprovalStep | undefined;
  if (event.step !== undefined) {
    const p = run.plan.steps.find((s) => s.id === event.step);
    if (!p) return reply(run, event, `Run ${run.id} has no step "${event.step}".`);
    if (p.kind !== 'approval') return reply(run, event, `Step "${p.id}" is a ${p.kind} step, not an approval: there is nothing to ${event.decision}.`);
    const status = run.steps[p.id]?.status;
    if (status !== 'waiting') return reply(run, event, `Step "${p.id}" is not waiting for a decision (it is ${status ?? 'unknown'}).`);
    target = p;
  } else {
    target = run.plan.steps.find(
      (p): p is ApprovalStep => p.kind === 'approval' && run.steps[p.id]?.status === 'waiting',
    );
    if (!target) return reply(run, event, `Run ${run.id} is not waiting for an approval (it is ${run.status}).`);
  }
  if (target.approvers.length > 0 && !target.approvers.some((a) => same(a, event.by))) {
    return reply(run, event, `${event.by} is not an approver of step "${target.id}" (approvers: ${target.approvers.join(', ')}).`);
  }

  if (event.decision === 'reject') {
    const d = new Draft(run, event.at);
    d.fail(target.id, `rejected by ${event.by}${event.reason ? `: ${event.reason}` : ''}`);
    d.settle();
    return d.finish();
  }

  if (same(event.by, run.requester) && !target.allowRequester) {
    return reply(run, event, `${event.by} started this run, so their approval does not count for step "${target.id}" (it does not allow the requester).`);
  }
  const have = validApprovals(run, target.id);
  // The same person approving twice is a duplicate: one person is one approval.
  if (have.some((a) => same(a.by, event.by))) return { run, effects: [] };

  const d = new Draft(run, event.at);
  const heads: Record<string, string> = {};
  for (const pr of run.prs) if (pr.head) heads[pr.repo] = pr.head;
  const approval: Approval = { step: target.id, by: event.by, at: event.at, heads };
  d.run.approvals = [...run.approvals, approval];
  const s = d.step(target.id);
  if (have.length + 1 >= target.minApprovals) {
    s.status = 'succeeded';
    s.reason = undefined;
  } else {
    s.reason = approvalReason(have.length + 1, target.minApprovals);
  }
  d.advance();
  d.settle();
  return d.finish();
}

/**
 * Someone other than Conveyor pushed to one of the run's PRs: approvals given on an older head no
 * longer count, and an approval step that lost its approvals waits again. Steps after it that
 * already started are left to finish (a merge checks the heads it merges itself).
 */
export function prPushed(run: Run, event: Extract<RunEvent, { type: 'pr-pushed' }>): Transition {
  const pr = run.prs.find((p) => p.repo === event.repo);
  if (!pr || pr.head === event.head || same(event.by, CONVEYOR_ACTOR)) return { run, effects: [] };
  const d = new Draft(run, event.at);
  d.run.prs = run.prs.map((p) => (p.repo === event.repo ? { ...p, head: event.head } : p));
  const why = `${event.by} pushed ${event.head.slice(0, 7)} to ${event.repo} after the approval`;
  d.run.approvals = run.approvals.map((a) => (a.stale || a.heads[event.repo] === event.head ? a : { ...a, stale: why }));
  for (const p of run.plan.steps) {
    if (p.kind !== 'approval') continue;
    const s = run.steps[p.id];
    if (s?.status !== 'succeeded' && s?.status !== 'waiting') continue;
    const have = validApprovals(d.run, p.id).length;
    if (have >= p.minApprovals) continue;
    const w = d.step(p.id);
    w.status = 'waiting';
    w.reason = `${approvalReason(have, p.minApprovals)} (approvals are stale: ${why})`;
  }
  d.settle();
  return d.finish();
}
