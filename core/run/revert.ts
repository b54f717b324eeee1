// A way back from a partial merge. When a run's merge stopped after some of its pull requests
// merged (a consumer refused after its provider went in), `/conveyor revert` (`conveyor revert RUN`)
// opens one revert pull request per merged one and starts a new run, `<run>-revert`, to merge them.
// That run is an ordinary run with the least new machinery: its plan is the original's with only
// its approval steps (or one default approval when it had none: a revert changes a base branch
// like any change, and a person must see it) and its merge step; its PRs are the revert PRs; and
// `revertOf` names the run it undoes, which makes its merge go consumers first (the reverse of the
// original's order, engine/merge.ts) and its merge commits say what they revert. Pure.
import type { PullRequestRef } from '../contract/wire.ts';
import type { Plan, PlanStep } from '../plan/types.ts';
import type { Run } from './types.ts';
import { DEFAULT_ALLOW_REQUESTER, DEFAULT_MIN_APPROVALS, DEFAULT_STEP_TIMEOUT_MINUTES } from '../config/defaults.ts';

/** Where a merge that stopped part-way left the run's PRs; or why the run has nothing to revert. */
export type PartialMerge = { step: string; merged: PullRequestRef[]; notMerged: PullRequestRef[] } | { refused: string };

export function revertRunId(run: Pick<Run, 'id'>): string {
  return `${run.id}-revert`;
}

/**
 * The PRs a merge that stopped part-way merged (its result's `commits`) and those it did not. Only
 * a run whose merge step failed after merging some (not all) of its PRs has something to revert:
 * a revert run itself does not (its own partial merge is for a person to finish or undo by hand).
 */
export function partialMerge(run: Run): PartialMerge {
  if (run.revertOf !== undefined) {
    return {
      refused: `run \`${run.id}\` is itself the revert of run \`${run.revertOf}\`: retry it (\`/conveyor retry\`) to merge the rest of its revert pull requests, or revert what it merged by hand.`,
    };
  }
  const merge = run.plan.steps.find((p) => p.kind === 'merge');
  const state = merge ? run.steps[merge.id] : undefined;
  if (!merge || !state) return { refused: `run \`${run.id}\` has no merge step, so nothing of it was merged.` };
  if (state.status === 'succeeded') {
    return { refused: `run \`${run.id}\` merged all its pull requests: revert them with your forge's own revert, as for any merged change.` };
  }
  const commits = state.status === 'failed' ? (state.result?.commits ?? {}) : {};
  const merged = run.prs.filter((p) => commits[p.repo] !== undefined);
  if (merged.length === 0) {
    return {
      refused: `run \`${run.id}\`'s merge step (\`${merge.id}\`) has not merged any pull request (it is ${state.status}), so there is nothing to revert.`,
    };
  }
  return { step: merge.id, merged, notMerged: run.prs.filter((p) => commits[p.repo] === undefined) };
}

/**
 * The revert run's plan: the original's approval steps, every one waiting at once, then its merge
 * step once they all succeeded. The original's hash is kept: it names the pipeline the run came from.
 */
export function revertPlan(plan: Plan): Plan {
  const approvals = plan.steps.filter((p): p is Extract<PlanStep, { kind: 'approval' }> => p.kind === 'approval').map((p) => ({ ...p, needs: [] }));
  const original = plan.steps.find((p) => p.kind === 'merge');
  const gates: PlanStep[] = approvals.length
    ? approvals
    : [
        {
          id: original?.id === 'approve' ? 'approve-revert' : 'approve',
          kind: 'approval',
          needs: [],
          timeoutMinutes: DEFAULT_STEP_TIMEOUT_MINUTES.approval,
          approvers: [],
          minApprovals: DEFAULT_MIN_APPROVALS,
          allowRequester: DEFAULT_ALLOW_REQUESTER,
        },
      ];
  const merge: PlanStep = {
    ...(original?.kind === 'merge' ? original : { id: 'merge', kind: 'merge', method: 'squash', timeoutMinutes: DEFAULT_STEP_TIMEOUT_MINUTES.merge }),
    needs: gates.map((g) => g.id),
  };
  return { ...plan, steps: [...gates, merge], waves: [gates.map((g) => g.id), [merge.id]] };
}

export function revertTitle(title: string): string {
  return `Revert "${title}"`;
}

/**
 * The body of each revert PR: what it reverts, which run stopped part-way, the revert run, and
 * its sibling revert PRs (`all`, in the order they merge: consumers first), this one marked.
 */
export function revertBody(run: Run, pr: PullRequestRef, all: readonly PullRequestRef[], notMerged: readonly PullRequestRef[]): string {
  const name = (p: PullRequestRef) => `${p.repo}#${p.number}`;
  const lines = [
    `Reverts ${name(pr)}, merged by Conveyor run \`${run.id}\` for ${run.issue.repo}#${run.issue.number}, whose merge stopped part-way${notMerged.length ? ` (not merged: ${notMerged.map(name).join(', ')})` : ''}.`,
    '',
    `Conveyor run \`${revertRunId(run)}\` merges the revert pull requests, consumers first, once they are approved (\`/conveyor approve\` on ${run.issue.repo}#${run.issue.number} or on one of them).`,
  ];
  if (all.length > 1) {
    lines.push('', 'Revert pull requests of this run, in the order they merge:', ...all.map((p) => `- ${name(p)}${p.repo === pr.repo ? ' (this one)' : ''}`));
  }
  return lines.join('\n');
}
