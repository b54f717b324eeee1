// Environments go stale when the code they were deployed from changes: a repair after a deploy (or
// a push to a pull request) that writes to a repository the deploy stood an environment up from.
// The deploy step then runs again, before the steps after it that used its environments: they go
// back to pending, so the next wave deploys first and they run on what it stands up. The deploy
// itself redeploys only what changed (the services of the repositories that moved, and their
// consumers: core/steps/deploy-plan.ts, keptOutcomes) and keeps the rest.
import { deploysBefore } from '../plan/environments.ts';
import type { PullRequestRef } from '../contract/wire.ts';
import type { Draft } from './draft.ts';
import type { Run } from './types.ts';

/** The repositories whose PR head `prs` moves (a PR the run did not have yet counts as moved). */
export function movedRepos(run: Run, prs: readonly PullRequestRef[]): string[] {
  return prs.filter((pr) => pr.head && run.prs.find((p) => p.repo === pr.repo)?.head !== pr.head).map((pr) => pr.repo);
}

/**
 * Puts back to pending every deploy step that succeeded and stood an environment up from one of
 * `repos`, and every step after it that has run or runs (a merge under way or done aside: it merges
 * the heads it was given; a deploy under way is left to finish: its environments are its own; a
 * code step keeps its work).
 * `only`: consider only the deploys this step needs (a repair's step), else every deploy. `keep`:
 * the step whose repairs stay counted (the one whose repair wrote). Says whether any deploy runs again.
 */
export function redeployStale(d: Draft, repos: readonly string[], why: string, options: { only?: string; keep?: string } = {}): boolean {
  const run = d.run;
  const candidates = options.only !== undefined ? deploysBefore(run.plan, options.only) : run.plan.steps.filter((p) => p.kind === 'deploy');
  const stale = candidates.filter(
    (p) =>
      p.kind === 'deploy' &&
      run.steps[p.id]?.status === 'succeeded' &&
      p.services.some((s) => run.plan.services[s]?.deploy && repos.includes(run.plan.services[s].repo)),
  );
  if (stale.length === 0) return false;
  const names = stale.map((p) => `"${p.id}"`).join(', ');
  for (const p of stale) d.resetStep(p.id, `runs again: ${why}, which its environments were deployed from`);
  const after = new Set(stale.map((p) => p.id));
  for (const p of run.plan.steps) {
    if (after.has(p.id) || !deploysBefore(run.plan, p.id).some((x) => after.has(x.id))) continue;
    const status = run.steps[p.id]?.status;
    const mine = p.id === options.keep;
    if (!mine && (status === undefined || status === 'pending' || status === 'cancelled')) continue;
    if (!mine && (p.kind === 'merge' || p.kind === 'deploy') && (status === 'queued' || status === 'succeeded')) continue;
    // A code step's work is the change itself: it saw the environments as context, and doing it
    // again would redo the change the redeploy is for (the steps after it judge the new environments).
    if (!mine && p.kind === 'code') continue;
    const repairs = run.steps[p.id]!.repairs;
    d.resetStep(p.id, `runs again once ${names} ${stale.length === 1 ? 'has' : 'have'} deployed again (${why})`);
    // Still the same failure being repaired: its repairs stay counted (max-attempts bounds the loop).
    if (mine) d.step(p.id).repairs = repairs;
  }
  return true;
}
