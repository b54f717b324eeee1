// Events of the run's pull requests. A push by anyone but Conveyor (its bot, known by identity)
// makes approvals stale and runs the gates and reviews again on the new heads (the reducer's
// `pr-pushed`). A PR closed without merging cancels the run: its environments are torn down (the
// reducer's teardown effect), and its other PRs are left open with a comment saying why.
import type { Run } from '../core/run/types.ts';
import type { AppDeps } from './deps.ts';
import { stopAttempts } from './cancel.ts';

interface PullPayload {
  number: number;
  merged?: boolean | null;
  head: { sha: string };
}

/** Runs of which this PR is one of the PRs: the active ones, or all. */
export function runsOf(deps: AppDeps, repo: string, number: number, which: 'active' | 'all' = 'active'): Promise<Run[]> {
  return deps.store.list({ pr: { repo, number }, ...(which === 'active' ? { status: ['running', 'waiting'] } : {}) });
}

export async function onPullRequestSynchronize(
  deps: AppDeps,
  repo: string,
  pr: PullPayload,
  sender: { login: string; type?: string | null; id?: number },
): Promise<void> {
  const runs = await runsOf(deps, repo, pr.number);
  if (runs.length === 0) return;
  const own = await deps.isSelf(sender);
  for (const run of runs)
    await deps.engine.apply(run.id, { type: 'pr-pushed', at: deps.now(), repo, head: pr.head.sha, by: sender.login, ...(own ? { own } : {}) });
}

export async function onPullRequestClosed(deps: AppDeps, repo: string, pr: PullPayload, sender: { login: string }): Promise<void> {
  if (pr.merged) return;
  for (const run of await runsOf(deps, repo, pr.number)) {
    const after = await deps.engine.apply(run.id, { type: 'pr-closed', at: deps.now(), repo, merged: false });
    await stopAttempts(deps, run, after);
    // `run` is active (runsOf): cancelled now means this close cancelled it.
    if (after.status === 'cancelled') {
      await leaveOpen(deps, after, repo, `Conveyor run \`${run.id}\` was cancelled: @${sender.login} closed ${repo}#${pr.number} without merging it.`);
    }
  }
}

/** Comments on each open PR of a cancelled run (but `except`'s) that it is left open, and why. */
export async function leaveOpen(deps: AppDeps, run: Run, except: string | undefined, why: string): Promise<void> {
  const github = await deps.githubOf(run);
  const envs = run.environments.length > 0 || (run.removedEnvironments ?? []).length > 0 ? ' Its preview environments are torn down.' : '';
  for (const pr of run.prs) {
    if (pr.repo === except) continue;
    await github.createComment(
      pr.repo,
      pr.number,
      `${why}${envs} This pull request is left open: merge or close it yourself, or start a new run on ${run.issue.repo}#${run.issue.number}.`,
    );
  }
}
