// Ending an attempt on GitHub from the app's side: a `stop` effect (its run was cancelled: the
// check run is completed as cancelled and the workflow run cancelled), and a loss the run counted
// (its check run is closed, saying so and what comes next, so that a late action finds it retired).
import { attemptKey, type AttemptRef } from '../../../core/contract/attempt-ref.ts';
import type { Run } from '../../../core/run/types.ts';
import type { AttemptOutcome } from '../../../engine/ports/dispatcher.ts';
import { attemptFields } from '../../../lib/logger.ts';
import { findAttemptRun, queuedAt, type WorkflowContext } from './runs.ts';

/**
 * 1. Its check run is completed as cancelled, saying why: what people see, and what the action
 * watches for while it runs (it then stops its agent and writes nothing over it); 2. its workflow
 * run is cancelled, so the runner stops too. A workflow run that already ended (409) or is gone
 * (404) is fine: nothing is left to stop. Both are tried; a failure of either fails the effect,
 * which is tried again (the outbox keeps it).
 */
export async function stopAttempt(c: WorkflowContext, ref: AttemptRef, reason: string): Promise<void> {
  const link = await c.links.attempt(attemptKey(ref));
  if (link?.checkRunId === undefined) return;
  const run = await c.runOf(ref.runId);
  const github = await c.github(run);
  const problems: string[] = [];
  try {
    await github.checks.update(link.repo, link.checkRunId, {
      status: 'completed',
      conclusion: 'cancelled',
      completed_at: c.now(),
      output: { title: 'cancelled', summary: `This attempt was stopped: its run was cancelled (${reason}).` },
    });
  } catch (e) {
    problems.push(`its check run ${link.checkRunId}: ${(e as Error).message}`);
  }
  try {
    // Only the app's bot's run: a writer's run named for this check run is not the attempt's to cancel.
    const dispatchedAt = queuedAt(run, ref) ?? link.at;
    const workflowRun =
      link.workflowRunId ??
      (await findAttemptRun(github.workflows, { repo: link.repo, checkRunId: link.checkRunId, dispatchedAt }, await c.botLogin(), c.workflow))?.id;
    if (workflowRun !== undefined && (await github.workflows.cancel(link.repo, workflowRun)))
      c.log.info(`run ${ref.runId} cancelled: asked GitHub to cancel workflow run ${workflowRun} of step ${ref.step} in ${link.repo}`, {
        ...attemptFields(ref),
        repo: link.repo,
        workflowRun,
      });
  } catch (e) {
    problems.push(`its workflow run: ${(e as Error).message}`);
  }
  if (problems.length > 0) throw new Error(`could not stop step ${ref.step} of cancelled run ${ref.runId} in ${link.repo}: ${problems.join('; ')}`);
}

/** Closes the check run of an attempt whose loss the run counted (`after`: the run as the loss left it). */
export async function closeLost(c: WorkflowContext, ref: AttemptRef, loss: Extract<AttemptOutcome, { kind: 'lost' }>, after: Run): Promise<void> {
  const link = await c.links.attempt(attemptKey(ref));
  if (link?.checkRunId === undefined) return;
  const s = after.steps[ref.step];
  const next =
    s && s.status === 'queued' && s.attempt === ref.attempt
      ? `; dispatched again (dispatch ${s.epoch + 1})`
      : s?.status === 'failed'
        ? '; the step failed'
        : '';
  const github = await c.github(after);
  await github.checks.update(link.repo, link.checkRunId, {
    status: 'completed',
    conclusion: loss.close === 'timed-out' ? 'timed_out' : 'cancelled',
    completed_at: c.now(),
    output: { title: `lost: ${loss.reason}`.slice(0, 200), summary: `This attempt was lost: ${loss.reason}${next}.` },
  });
}
