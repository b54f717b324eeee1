// Protected paths (`pipelines.<name>.protect`): what the run knows of them and whether people saw
// them. The attempts that push report, per repository and head, the protected paths its PR would
// merge (the result's `protected`, sealed by its receipt); the run keeps the latest per repository.
// A change holding one merges only after an approval step succeeded with approvals of that very
// head: approvals are for the heads their givers saw (core/run/approvals.ts). Pure.
import { protectOf } from '../config/protect.ts';
import type { PlanStep } from '../plan/types.ts';
import type { ProtectedChange, PullRequestRef } from '../contract/wire.ts';
import { mergeBy } from './draft.ts';
import { code } from '../text.ts';
import type { Run } from './types.ts';

export interface ProtectedPr {
  pr: PullRequestRef;
  paths: string[];
  /** Protected paths past those named (the result counted them). */
  more: number;
  /** The head the paths were found at is not the PR's head now (someone pushed since): the paths are those known, the push's own are not. */
  stale: boolean;
}

/** The run's records with a result's added: the latest per repository. */
export function recordProtected(current: readonly ProtectedChange[] | undefined, incoming: readonly ProtectedChange[]): ProtectedChange[] {
  return mergeBy(current ?? [], incoming, (r) => r.repo);
}

/** The run's PRs that hold protected paths, as far as the run knows (nothing when the plan protects nothing). */
export function protectedPrs(run: Run): ProtectedPr[] {
  if (protectOf(run.plan).length === 0) return [];
  return run.prs.flatMap((pr) => {
    const record = run.protectedPaths?.find((r) => r.repo === pr.repo);
    if (!record || record.paths.length === 0) return [];
    return [{ pr, paths: record.paths, more: record.more ?? 0, stale: pr.head !== undefined && record.head !== pr.head }];
  });
}

type ApprovalStep = Extract<PlanStep, { kind: 'approval' }>;

/** Whether an approval step of the run succeeded with enough approvals that saw `pr` at its head now. */
export function approvedAtHead(run: Run, pr: PullRequestRef): boolean {
  if (!pr.head) return false;
  return run.plan.steps.some((p): p is ApprovalStep => {
    if (p.kind !== 'approval' || run.steps[p.id]?.status !== 'succeeded') return false;
    const saw = run.approvals.filter((a) => a.step === p.id && !a.stale && a.heads[pr.repo] === pr.head);
    return saw.length >= p.minApprovals;
  });
}

/** The protected changes no approval saw: what the merge refuses to merge. */
export function unapprovedProtected(run: Run): ProtectedPr[] {
  return protectedPrs(run).filter((p) => !approvedAtHead(run, p.pr));
}

/** At most `max` paths, each in a code span (agents name files: never Markdown), then how many more: `a`, `b` and 3 more. */
export function listPaths(paths: readonly string[], max = 10, more = 0): string {
  const shown = paths
    .slice(0, max)
    .map((p) => code(p))
    .join(', ');
  const rest = Math.max(0, paths.length - max) + more;
  return rest > 0 ? `${shown} and ${rest} more` : shown;
}

/** `acme/web#3: .github/workflows/ci.yml, package.json; acme/api#4: go.mod` */
export function describeProtected(prs: readonly ProtectedPr[], max = 10): string {
  return prs.map((p) => `${p.pr.repo}#${p.pr.number}: ${listPaths(p.paths, max, p.more)}`).join('; ');
}

/**
 * Why the merge does not go ahead, or undefined when every protected change was approved at its
 * head. A pipeline without an approval step has no way to approve: it says what to change.
 */
export function protectedRefusal(run: Run): string | undefined {
  const unseen = unapprovedProtected(run);
  if (unseen.length === 0) return undefined;
  const what = `the change holds protected paths (\`protect\`) that no approval saw at the current heads: ${describeProtected(unseen)}`;
  const hasApproval = run.plan.steps.some((p) => p.kind === 'approval');
  if (!hasApproval) {
    return `not merging: ${what}. Pipeline \`${run.plan.pipeline}\` has no approval step, so no person can approve them: add one before the merge (or narrow \`protect\`) and \`/conveyor restart\`, or merge the pull requests yourself after looking at them.`;
  }
  return `not merging: ${what}. An approval of these heads is needed: \`/conveyor retry\` from the approval step asks for one.`;
}
