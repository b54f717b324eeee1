// A cancelled run stops the attempts it had under way (`/conveyor cancel`, `/conveyor restart`, a
// PR closed without merging): 1. each attempt's check run is completed as cancelled, saying why —
// what people see, and what the action watches for while it runs (it then stops its agent and
// writes nothing over it); 2. its workflow run is cancelled on GitHub, so the runner stops too. An
// attempt whose workflow run already ended (409) or is gone (404) is fine: nothing is left to stop.
import { attemptKey } from '../core/contract/attempt-ref.ts';
import type { Run } from '../core/run/types.ts';
import { findAttemptRun } from '../adapters/dispatch/workflow.ts';
import { findRecord } from '../core/run/draft.ts';
import type { AppDeps } from './deps.ts';

/** Stops what `before` had under way, when `after` is that run cancelled by this change (not one cancelled already). */
export async function stopAttempts(deps: AppDeps, before: Run, after: Run): Promise<void> {
  if (after.status !== 'cancelled' || before.status === 'cancelled' || after.unreachable) return;
  const github = await deps.githubOf(after);
  for (const step of Object.values(before.steps)) {
    if (step.status !== 'queued' || step.attempt === 0) continue;
    // A merge runs in the app: only its conflict repairs (and every other kind's attempts) have a record here.
    const link = await deps.links.attempt(attemptKey({ runId: before.id, step: step.id, attempt: step.attempt, epoch: step.epoch, mode: step.mode }));
    if (link?.checkRunId === undefined) continue;
    try {
      await github.checks.update(link.repo, link.checkRunId, {
        status: 'completed',
        conclusion: 'cancelled',
        completed_at: deps.now(),
        output: { title: 'cancelled', summary: `This attempt was stopped: its run was cancelled (${after.reason ?? 'no reason given'}).` },
      });
      // Only the app's bot's run: a writer's run named for this check run is not the attempt's to cancel.
      const dispatchedAt = findRecord(step, step.attempt, step.epoch)?.startedAt ?? link.at;
      const workflowRun =
        link.workflowRunId ??
        (await findAttemptRun(github.workflows, { repo: link.repo, checkRunId: link.checkRunId, dispatchedAt }, await deps.botLogin()))?.id;
      if (workflowRun !== undefined && (await github.workflows.cancel(link.repo, workflowRun)))
        deps.log(`conveyor: run ${before.id} cancelled: asked GitHub to cancel workflow run ${workflowRun} of step ${step.id} in ${link.repo}`);
    } catch (e) {
      // One attempt's trouble does not keep the others running; its workflow run ends at its timeout anyway.
      deps.log(`conveyor: could not stop step ${step.id} of cancelled run ${before.id} in ${link.repo}: ${(e as Error).message}`);
    }
  }
}
