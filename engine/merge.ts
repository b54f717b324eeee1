// The merge step, carried out by the app: the run's PRs are merged providers first, each merge
// commit carrying the run's trailers. A failure part-way says exactly which PRs are merged and
// which are not, and leaves the rest for a person.
import type { Run, RunEffect } from '../core/run/types.ts';
import { WIRE_VERSION, type PullRequestRef, type StepResult } from '../core/contract/wire.ts';
import { mergeTrailers } from '../core/github/trailers.ts';
import type { Forge } from './ports/forge.ts';

/** The run's PRs in merge order: the repositories of providers before their consumers'. */
export function mergeOrder(run: Run): PullRequestRef[] {
  const repoOf = new Map(Object.values(run.plan.services).map((s) => [s.name, s.repo]));
  const order: string[] = [];
  for (const wave of run.plan.deployWaves) {
    for (const service of wave) {
      const repo = repoOf.get(service);
      if (repo && !order.includes(repo)) order.push(repo);
    }
  }
  for (const r of run.plan.changeSet) if (!order.includes(r.repo)) order.push(r.repo);
  return order.flatMap((repo) => run.prs.filter((p) => p.repo === repo));
}

/** `Merged: a#1, b#2. Not merged: c#3.`: exactly where a merge that stopped part-way left the PRs. */
export function mergedAndNot(merged: readonly PullRequestRef[], rest: readonly PullRequestRef[]): string {
  const list = (xs: readonly PullRequestRef[]) => (xs.length ? xs.map((p) => `${p.repo}#${p.number}`).join(', ') : 'none');
  return `Merged: ${list(merged)}. Not merged: ${list(rest)}.`;
}

export async function mergeRun(forge: Forge, run: Run, effect: Extract<RunEffect, { type: 'merge' }>): Promise<StepResult> {
  const step = run.plan.steps.find((s) => s.id === effect.step);
  const method = step?.kind === 'merge' ? step.method : 'squash';
  const base = { version: WIRE_VERSION, runId: run.id, stepId: effect.step, mode: 'run', attempt: effect.attempt, epoch: effect.epoch } as const;
  const prs = mergeOrder(run);
  if (prs.length === 0) {
    return { ...base, conclusion: 'failure', summary: 'There is no pull request to merge.', prs: [], commits: {}, environments: [], error: { code: 'merge-failed', message: 'the run has no pull requests' } };
  }
  const merged: PullRequestRef[] = [];
  const commits: Record<string, string> = {};
  for (const pr of prs) {
    try {
      const title = `${run.issue.title} (#${run.issue.number})`;
      const message = mergeTrailers(run, pr);
      const merged_ = await forge.mergePullRequest(pr.repo, pr.number, { method, title, message, ...(pr.head ? { expectedHead: pr.head } : {}) });
      if (!merged_.merged) throw new Error('the forge did not merge it');
      commits[pr.repo] = merged_.sha;
      merged.push(pr);
    } catch (e) {
      const rest = prs.filter((p) => !merged.includes(p));
      const message = `merging ${pr.repo}#${pr.number} failed: ${(e as Error).message}. ${mergedAndNot(merged, rest)}`;
      return { ...base, conclusion: 'failure', summary: message, prs, commits, environments: [], error: { code: 'merge-failed', message } };
    }
  }
  const summary = `Merged ${merged.map((p) => `${p.repo}#${p.number}`).join(', ')} (${method}).`;
  return { ...base, conclusion: 'success', summary, prs, commits, environments: [] };
}
