// Opening the way back from a partial merge (core/run/revert.ts), for both hosts: the revert pull
// requests of what merged, through the forge, consumers first (the reverse of the merge's
// dependency order), linked to each other and to the runs, and the revert run that merges them
// once approved. The host checks who asks, cancels the original run, then starts what this returns.
import { pullRequestTitle } from '../core/github/pr-body.ts';
import type { RunOrigin, RunSettings } from '../core/run/origin.ts';
import type { PullRequestRef } from '../core/contract/wire.ts';
import { revertBody, revertPlan, revertRunId, revertTitle, type PartialMerge } from '../core/run/revert.ts';
import type { Run } from '../core/run/types.ts';
import { ConveyorError } from '../core/errors.ts';
import type { NewRun } from './engine.ts';
import { mergeOrder } from '../core/run/queue.ts';
import type { Forge, PullRequest } from './ports/forge.ts';

const ref = (pr: PullRequest): PullRequestRef => ({
  repo: pr.repo,
  number: pr.number,
  url: pr.url,
  branch: pr.branch,
  ...(pr.head ? { head: pr.head } : {}),
  ...(pr.nodeId ? { nodeId: pr.nodeId } : {}),
});

/**
 * 1. one revert PR per merged PR, consumers first, 2. each PR's body names the others (once they
 * all exist), 3. the revert run. A revert the forge refuses stops it, naming the revert PRs opened
 * before (they stay open: asked again, the forge answers each open one instead of opening another).
 */
export async function openReverts(
  forge: Forge,
  run: Run,
  partial: Extract<PartialMerge, { merged: unknown }>,
  /** `by`: who asked, the revert run's requester (the embedded mode has none, as its runs have none). */
  request: { by?: string; origin: RunOrigin; settings: RunSettings },
): Promise<NewRun & { prs: PullRequestRef[] }> {
  const merged = new Set(partial.merged.map((p) => p.repo));
  const order = mergeOrder(run)
    .filter((p) => merged.has(p.repo))
    .reverse();
  const title = revertTitle(pullRequestTitle(run.issue));
  const opened: PullRequest[] = [];
  for (const pr of order) {
    try {
      opened.push(await forge.revertPullRequest(pr.repo, pr.number, { title, body: revertBody(run, pr, [], partial.notMerged) }));
    } catch (e) {
      const before = opened.length ? ` The revert pull requests opened before it stay open: ${opened.map((p) => `${p.repo}#${p.number}`).join(', ')}.` : '';
      throw new ConveyorError('forge-failed', `could not open the revert of ${pr.repo}#${pr.number}: ${(e as Error).message.replace(/\.$/, '')}.${before}`, {
        cause: e,
      });
    }
  }
  const refs = opened.map(ref);
  if (refs.length > 1) {
    for (const [i, pr] of opened.entries()) {
      await forge.updatePullRequest(pr.repo, pr.number, { body: revertBody(run, order[i]!, refs, partial.notMerged) });
    }
  }
  return {
    id: revertRunId(run),
    plan: revertPlan(run.plan),
    issue: { ...run.issue, title: revertTitle(run.issue.title) },
    ...(request.by !== undefined ? { requester: request.by } : {}),
    origin: request.origin,
    settings: request.settings,
    prs: refs,
    revertOf: run.id,
  };
}
