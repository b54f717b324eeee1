// Events of the run's pull requests. A push by anyone but Conveyor (its bot, known by identity)
// makes approvals stale and runs the gates and reviews again on the new heads (the reducer's
// `pr-pushed`). A PR closed without merging by a person who may cancel the run (write on its
// primary repository, deciders.ts) cancels it: its environments are torn down (the reducer's
// teardown effect), and its other PRs are left open with a comment saying why. Closed by anyone
// else (a sibling's triage member, a bot), it does not: Conveyor reopens the PR, or says why it
// cannot, and the run goes on. A PR merged, or removed from its merge queue, moves a merge step
// that waits for that queue.
import type { Run } from '../core/run/types.ts';
import type { AppDeps } from './deps.ts';
import { isBot, notAWriter } from './deciders.ts';
import { primaryRepo } from '../core/run/payload.ts';
import type { WebhookActor as Sender, WebhookPullRequest } from './webhooks.ts';

/** Runs of which this PR is one of the PRs: the active ones, or all. */
export function runsOf(deps: AppDeps, repo: string, number: number, which: 'active' | 'all' = 'active'): Promise<Run[]> {
  return deps.store.list({ pr: { repo, number }, ...(which === 'active' ? { status: ['running', 'waiting'] } : {}) });
}

export async function onPullRequestSynchronize(deps: AppDeps, repo: string, pr: WebhookPullRequest, sender: Sender): Promise<void> {
  const runs = await runsOf(deps, repo, pr.number);
  if (runs.length === 0) return;
  const own = await deps.isSelf(sender);
  for (const run of runs)
    await deps.engine.apply(run.id, { type: 'pr-pushed', at: deps.now(), repo, head: pr.head.sha, by: sender.login, ...(own ? { own } : {}) });
}

export async function onPullRequestClosed(deps: AppDeps, repo: string, pr: WebhookPullRequest, sender: Sender): Promise<void> {
  // Merged: a merge step waiting for its merge queue goes on with the next PR (core/run/queue.ts).
  if (pr.merged) return queueMoved(deps, repo, pr.number, 'merged');
  let kept: { run: Run; why: string } | undefined;
  for (const run of await runsOf(deps, repo, pr.number)) {
    const why = await mayNotCancel(deps, run, sender);
    if (why) {
      kept ??= { run, why };
      continue;
    }
    // What the cancel leaves under way is stopped by its own effects (the reducer's `stop`).
    const after = await deps.engine.apply(run.id, { type: 'pr-closed', at: deps.now(), repo, merged: false });
    // `run` is active (runsOf): cancelled now means this close cancelled it.
    if (after.status === 'cancelled') {
      await leaveOpen(deps, after, repo, `Conveyor run \`${run.id}\` was cancelled: @${sender.login} closed ${repo}#${pr.number} without merging it.`);
    }
  }
  if (kept) await reopen(deps, repo, pr.number, kept.run, sender, kept.why);
}

/** A merge queue removed the PR: its run's merge step goes on (it merged) or stops with the queue's reason. */
export function onPullRequestDequeued(deps: AppDeps, repo: string, pr: WebhookPullRequest, reason: string): Promise<void> {
  return queueMoved(deps, repo, pr.number, 'removed', reason);
}

async function queueMoved(deps: AppDeps, repo: string, number: number, change: 'merged' | 'removed', reason?: string): Promise<void> {
  for (const run of await runsOf(deps, repo, number)) {
    await deps.engine.apply(run.id, { type: 'merge-queue', at: deps.now(), change, pr: { repo, number }, ...(reason ? { reason } : {}) });
  }
}

/**
 * Why `sender` closing a PR does not cancel the run, in words; undefined when it does (Conveyor
 * itself, or a writer of the run's primary repository).
 */
async function mayNotCancel(deps: AppDeps, run: Run, sender: Sender): Promise<string | undefined> {
  if (await deps.isSelf(sender)) return undefined;
  const only = (repo: string, role: string) => `only a person with write permission on ${repo} (${role}) can stop it by closing one of its pull requests`;
  if (isBot(sender)) return `${only(primaryRepo(run.plan), "the run's primary repository")}, and bots never decide`;
  const denied = await notAWriter((await deps.githubOf(run)).people, run, sender.login);
  return denied ? `${only(denied.repo, denied.role)}, and you have ${denied.permission} there` : undefined;
}

/** Opens the PR again, or says why it could not; either way says the run goes on and who may stop it. */
async function reopen(deps: AppDeps, repo: string, number: number, run: Run, sender: Sender, why: string): Promise<void> {
  const github = await deps.githubOf(run);
  let outcome: string;
  try {
    await github.pulls.reopen(repo, number);
    outcome = `Conveyor reopened it, and run \`${run.id}\` goes on.`;
  } catch (e) {
    const said = (e as Error).message.replace(/\.$/, '');
    deps.log.warn(`could not reopen ${repo}#${number} of run ${run.id}: ${said}`, { run: run.id, repo, number });
    outcome = `Conveyor could not reopen it: ${said}. Run \`${run.id}\` goes on, but cannot merge this PR until it is open again (restore its branch and reopen it).`;
  }
  await github.comments.create(
    repo,
    number,
    `@${sender.login} closed this pull request, but that does not stop Conveyor run \`${run.id}\`: ${why}. ${outcome} To stop the run, a person with write permission on ${primaryRepo(run.plan)} comments \`/conveyor cancel\` on ${run.issue.repo}#${run.issue.number} (or closes a PR of the run).`,
  );
}

/** Comments on each open PR of a cancelled run (but `except`'s) that it is left open, and why. */
export async function leaveOpen(deps: AppDeps, run: Run, except: string | undefined, why: string): Promise<void> {
  const github = await deps.githubOf(run);
  const envs = run.environments.length > 0 || (run.removedEnvironments ?? []).length > 0 ? ' Its preview environments are torn down.' : '';
  for (const pr of run.prs) {
    if (pr.repo === except) continue;
    await github.comments.create(
      pr.repo,
      pr.number,
      `${why}${envs} This pull request is left open: merge or close it yourself, or start a new run on ${run.issue.repo}#${run.issue.number}.`,
    );
  }
}
