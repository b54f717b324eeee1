// Decisions on approval steps, and pushes that make approvals stale. Who may decide at all (write
// permission on the primary repository, not a bot) is checked by the app before the event exists;
// the rules that depend on the plan and the run (only while an approval waits, for the heads its
// giver saw; named approvers, the requester, how many approvals) live here.
import type { PlanStep } from '../plan/types.ts';
import { approvalReason, Draft, planStep, reply, staleApprovalsNote, validApprovals } from './draft.ts';
import type { Approval, Run, RunEvent, Staleness, DraftTransition } from './types.ts';
import { redeployStale } from './redeploy.ts';

type ApprovalStep = Extract<PlanStep, { kind: 'approval' }>;
const same = (a: string, b: string | undefined): boolean => b !== undefined && a.toLowerCase() === b.toLowerCase();

export function decide(run: Run, event: Extract<RunEvent, { type: 'decision' }>): DraftTransition {
  const due = dueApproval(run, event.step, event.decision);
  if ('refused' in due) return reply(run, event, due.refused);
  const target = due.step;
  if (!isApprover(target.approvers, event.by, event.team)) {
    return reply(run, event, `${event.by} is not an approver of step "${target.id}" (approvers: ${target.approvers.join(', ')}).`);
  }

  if (event.decision === 'reject') {
    const d = new Draft(run, event.at);
    d.fail(target.id, `rejected by ${event.by}${event.reason ? `: ${event.reason}` : ''}`);
    d.settle();
    return d.finish();
  }

  // An approval is for what its giver was shown (rejecting heads that moved still rejects).
  const moved = event.heads ? movedHeads(run, event.heads) : undefined;
  if (moved) return reply(run, event, `the pull requests moved since this approval was asked for: ${moved}. Look at them as they are now and approve again.`);
  if (same(event.by, run.requester) && !target.allowRequester) {
    return reply(run, event, `${event.by} started this run, so their approval does not count for step "${target.id}" (it does not allow the requester).`);
  }
  const have = validApprovals(run, target.id);
  // The same person approving twice is a duplicate: one person is one approval.
  if (have.some((a) => same(a.by, event.by))) return { run, effects: [] };

  const d = new Draft(run, event.at);
  const approval: Approval = { step: target.id, by: event.by, at: event.at, heads: prHeads(run) };
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
 * The approval step a decision is for, only while it waits: the named one, else the one that
 * waits. Anything else is refused naming where the run stands, and nothing is kept for later: an
 * approval is for heads someone looked at, never for the step that comes up after a gate, a
 * repair or a push nobody has seen yet.
 */
export function dueApproval(run: Run, step: string | undefined, decision = 'decide'): { step: ApprovalStep } | { refused: string } {
  if (step === undefined) {
    const waiting = run.plan.steps.find((p): p is ApprovalStep => p.kind === 'approval' && run.steps[p.id]?.status === 'waiting');
    return waiting ? { step: waiting } : { refused: `${runState(run)}; nothing waits for an approval.` };
  }
  const p = planStep(run, step);
  if (!p) return { refused: `Run ${run.id} has no step "${step}".` };
  if (p.kind !== 'approval') return { refused: `Step "${p.id}" is a ${p.kind} step, not an approval: there is nothing to ${decision}.` };
  const status = run.steps[p.id]?.status ?? 'unknown';
  if (status !== 'waiting') return { refused: `${runState(run)}; step \`${p.id}\` is ${status}, not waiting for an approval.` };
  return { step: p };
}

/** Where a run stands, in words: "run web-60 is running `test`", "... waits for a retry or a cancel (step `test` failed)". */
export function runState(run: Run): string {
  if (run.status === 'succeeded' || run.status === 'cancelled') return `run ${run.id} has ended (${run.status})`;
  const steps = run.plan.steps.map((p) => run.steps[p.id]).filter((s) => s !== undefined);
  const queued = steps.filter((s) => s.status === 'queued').map((s) => `\`${s.id}\`${s.mode === 'repair' ? ' (a repair)' : ''}`);
  if (queued.length > 0) return `run ${run.id} is running ${words(queued)}`;
  const failed = steps.filter((s) => s.status === 'failed').map((s) => `\`${s.id}\``);
  if (failed.length > 0) return `run ${run.id} waits for a retry or a cancel (step${failed.length > 1 ? 's' : ''} ${words(failed)} failed)`;
  const waiting = steps.filter((s) => s.status === 'waiting').map((s) => `\`${s.id}\``);
  if (waiting.length > 0) return `run ${run.id} waits for an approval of ${words(waiting)}`;
  return `run ${run.id} waits for a retry or a cancel`;
}

function words(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The head of each of the run's PRs: what an approval is for. */
export function prHeads(run: Run): Record<string, string> {
  const heads: Record<string, string> = {};
  for (const pr of run.prs) if (pr.head) heads[pr.repo] = pr.head;
  return heads;
}

/** How the run's PR heads differ from those someone decided on, in words; undefined when they are the same. */
function movedHeads(run: Run, seen: Readonly<Record<string, string>>): string | undefined {
  const now = prHeads(run);
  const short = (sha: string) => sha.slice(0, 7);
  const diffs: string[] = [];
  for (const repo of [...new Set([...Object.keys(now), ...Object.keys(seen)])]) {
    const [is, was] = [now[repo], seen[repo]];
    if (is === was) continue;
    if (is === undefined) diffs.push(`${repo} has no pull request head now`);
    else if (was === undefined) diffs.push(`${repo} is at ${short(is)} now, and was not there then`);
    else diffs.push(`${repo} is at ${short(is)} now, not ${short(was)}`);
  }
  return diffs.length > 0 ? diffs.join('; ') : undefined;
}

/**
 * Whether `by` may decide a step with these approvers: anyone (no approvers), a named user (`bob`
 * or `@bob`), or a member of a named `@org/team` (the app checked membership and names the team).
 */
export function isApprover(approvers: readonly string[], by: string, team: string | undefined): boolean {
  if (approvers.length === 0) return true;
  const bare = (a: string) => a.replace(/^@/, '');
  return approvers.some((a) => (a.includes('/') ? team !== undefined && same(bare(a), bare(team)) : same(bare(a), by)));
}

/**
 * Someone other than Conveyor pushed to one of the run's PRs. Approvals given on an older head no
 * longer count; the gate and review steps that ran (or run) on an older head run again on the new
 * heads (new attempts, repairs reset), and the steps after them go back to pending, so an approval
 * waits for them before it can count again. A merge already under way is left to finish: it
 * merges only the heads it was given. An approval with nothing to re-run before it waits again.
 */
export function prPushed(run: Run, event: Extract<RunEvent, { type: 'pr-pushed' }>): DraftTransition {
  const pr = run.prs.find((p) => p.repo === event.repo);
  if (!pr || pr.head === event.head || event.own) return { run, effects: [] };
  const d = new Draft(run, event.at);
  d.run.prs = run.prs.map((p) => (p.repo === event.repo ? { ...p, head: event.head } : p));
  headMoved(d, { kind: 'pushed', by: event.by, repo: event.repo, head: event.head });
  // The environments deployed from the older head are stale too: they are deployed again first.
  redeployStale(d, [event.repo], `${event.by} pushed ${event.head.slice(0, 7)} to ${event.repo}`);
  d.advance();
  d.settle();
  return d.finish();
}

/**
 * A new head of one of the run's PRs that no gate, review or person has seen (a push by someone
 * else, or an agent's repair after an approval): approvals given on another head no longer count;
 * the gates and reviews that ran on an older head run again, and every step after them goes back
 * to pending, so an approval waits for them before it can count again. A merge under way is left
 * to finish (it merges only the heads it was given). An approval with nothing to re-run before it
 * waits again. Says whether any approval went stale.
 */
export function headMoved(d: Draft, why: Extract<Staleness, { repo: string; head: string }>): boolean {
  const run = d.base;
  let staled = false;
  d.run.approvals = d.run.approvals.map((a) => {
    if (a.stale || a.heads[why.repo] === why.head) return a;
    staled = true;
    return { ...a, stale: why };
  });
  const rerun = stepsToRerun(run);
  const what = why.kind === 'pushed' ? `${why.by} pushed` : `the agent of step "${why.step}" wrote`;
  for (const id of rerun) d.resetStep(id, `runs again: ${what} ${why.head.slice(0, 7)} to ${why.repo}`);
  for (const p of run.plan.steps) {
    if (p.kind !== 'approval' || rerun.has(p.id)) continue;
    const s = run.steps[p.id];
    if (s?.status !== 'succeeded' && s?.status !== 'waiting') continue;
    const have = validApprovals(d.run, p.id).length;
    if (have >= p.minApprovals) continue;
    const w = d.step(p.id);
    w.status = 'waiting';
    w.reason = approvalReason(have, p.minApprovals) + staleApprovalsNote(why);
  }
  return staled;
}

/** Gates and reviews that started on an older head, and every step after them that is not a merge under way or done. */
function stepsToRerun(run: Run): Set<string> {
  const out = new Set<string>();
  for (const p of run.plan.steps) {
    const status = run.steps[p.id]?.status;
    if (status === undefined || status === 'pending' || status === 'cancelled') continue;
    const checks = (p.kind === 'gate' || p.kind === 'review') && status !== 'waiting';
    const after = p.needs.some((n) => out.has(n));
    if (!checks && !after) continue;
    if (p.kind === 'merge' && (status === 'queued' || status === 'succeeded')) continue;
    out.add(p.id);
  }
  return out;
}
