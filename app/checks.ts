// Advancing runs from GitHub: a completed step check run carries the attempt's result; the Checks
// tab's Re-run retries the step; a workflow run that ended without a result, or an attempt the
// sweeper judged lost, is lost (the engine dispatches it again with the next epoch, at most twice).
import { STEP_CHECK_PREFIX, externalIdOf, parseExternalId, type AttemptId } from '../core/github/check-run.ts';
import type { Run } from '../core/run/types.ts';
import { latestRun } from '../engine/ports/store.ts';
import type { StepResult } from '../core/contract/wire.ts';
import { completedOutcome, parseWorkflowRunMarker } from '../adapters/dispatch/workflow.ts';
import { isBot } from './commands.ts';
import { canWrite, type AppDeps } from './deps.ts';
import type { AttemptLink } from '../adapters/store/links.ts';
import { tornDownEvent } from '../core/run/environments.ts';

interface CheckRunPayload {
  id: number;
  name: string;
  external_id: string | null;
  details_url?: string | null;
  html_url?: string | null;
  conclusion?: string | null;
  app?: { id: number } | null;
  output?: { summary?: string | null; text?: string | null };
}

/** Whether the attempt is the current one of its step (queued, same attempt and epoch), and not a teardown. */
export function currentAttempt(run: Run | undefined, id: AttemptId): boolean {
  const s = run?.steps[id.step];
  return !!s && !id.teardown && s.status === 'queued' && s.attempt === id.attempt && s.epoch === id.epoch;
}

/** Feeds a result read from a check run to the engine (the reducer ignores any but the current attempt). */
export async function feed(deps: AppDeps, run: Run, externalId: string, result: StepResult): Promise<void> {
  if (externalIdOf({ runId: result.runId, step: result.stepId, attempt: result.attempt, epoch: result.epoch, mode: result.mode }) !== externalId) {
    deps.log(`conveyor: check run ${externalId} holds the result of another attempt (${result.runId}:${result.stepId}:${result.attempt}:${result.epoch}); ignored`);
    return;
  }
  if (result.mode === 'teardown') {
    // The teardown was asked for the run's ready environments; what it did not remove stays, with why.
    const targets = run.environments.filter((e) => e.state === 'ready');
    await deps.engine.apply(run.id, tornDownEvent(targets, result.environments, result.error?.message ?? result.summary, deps.now()));
  }
  else await deps.engine.apply(run.id, { type: 'step-completed', at: deps.now(), result });
}

/**
 * Marks an attempt lost, then closes its check run (when `link` has one) so a late action finds it
 * no longer current. Judged on the latest run first: the caller's awaits (a read of GitHub) let the
 * attempt's result, or the same delivery handled at once by another handler, settle it meanwhile,
 * and then nothing is done (its check run is left as it is). Says whether it was lost here.
 */
export async function loseAttempt(deps: AppDeps, run: Run, id: AttemptId, link: AttemptLink | undefined, reason: string, conclusion: 'cancelled' | 'timed_out'): Promise<boolean> {
  // From this check to the event's commit nothing awaits (Engine.apply), so the loss is this one.
  if (!currentAttempt(latestRun(deps.store, run.id), id)) return false;
  const after = await deps.engine.apply(run.id, { type: 'step-lost', at: deps.now(), step: id.step, attempt: id.attempt, epoch: id.epoch, reason });
  if (link?.checkRunId === undefined) return true;
  const s = after.steps[id.step];
  const next = s && s.status === 'queued' && s.attempt === id.attempt ? `; dispatched again (dispatch ${s.epoch + 1})` : s?.status === 'failed' ? '; the step failed' : '';
  const client = await deps.clientOf(run);
  await client.updateCheckRun(link.repo, link.checkRunId, {
    status: 'completed',
    conclusion,
    completed_at: deps.now(),
    output: { title: `lost: ${reason}`.slice(0, 200), summary: `This attempt was lost: ${reason}${next}.` },
  });
  return true;
}

export async function onCheckRunCompleted(deps: AppDeps, check: CheckRunPayload): Promise<void> {
  if (check.app?.id !== deps.appId || !check.name.startsWith(STEP_CHECK_PREFIX)) return;
  const id = parseExternalId(check.external_id);
  if (!id) return;
  const run = latestRun(deps.store, id.runId);
  if (!run) return;
  const externalId = check.external_id!;
  // The workflow run's link, when the action gave one the record lacks (read only then).
  if (check.details_url && /\/actions\/runs\//.test(check.details_url)) {
    const link = deps.links.attempt(externalId);
    if (link && link.workflowRunUrl !== check.details_url) deps.links.saveAttempt({ ...link, workflowRunUrl: check.details_url, at: deps.now() }, link, { later: true });
  }
  const outcome = completedOutcome(check);
  if (outcome.kind === 'result') return feed(deps, run, externalId, outcome.result);
  // Its check run is completed already: nothing to close.
  await loseAttempt(deps, run, id, undefined, outcome.reason, 'cancelled');
}

export async function onCheckRunRerequested(deps: AppDeps, check: CheckRunPayload, sender: { login: string; type?: string }): Promise<void> {
  if (check.app?.id !== deps.appId || !check.name.startsWith(STEP_CHECK_PREFIX)) return;
  const id = parseExternalId(check.external_id);
  const run = id ? deps.store.get(id.runId) : undefined;
  if (!id || !run) return;
  if (isBot(sender)) return;
  const client = await deps.clientOf(run);
  const permission = await client.permission(run.issue.repo, sender.login);
  if (!canWrite(permission)) {
    await client.createComment(run.issue.repo, run.issue.number, `@${sender.login} asked to re-run step \`${id.step}\` of run \`${run.id}\`, but only people with write permission on ${run.issue.repo} can (they have ${permission}). Nothing changed.`);
    return;
  }
  await deps.engine.apply(run.id, { type: 'retry', at: deps.now(), step: id.step, by: sender.login });
}

interface WorkflowRunPayload {
  id: number;
  html_url: string;
  conclusion: string | null;
  display_title?: string | null;
  name?: string | null;
  run_number?: number;
}

export async function onWorkflowRunCompleted(deps: AppDeps, wr: WorkflowRunPayload): Promise<void> {
  const checkRunId = parseWorkflowRunMarker(wr.display_title ?? wr.name);
  let link = checkRunId !== undefined ? deps.links.attemptByCheckRun(checkRunId) : deps.links.attemptByWorkflowRun(wr.id);
  if (!link?.checkRunId) return;
  const id = parseExternalId(link.externalId);
  const run = id ? deps.store.get(id.runId) : undefined;
  if (!id || !run) return;
  if (link.workflowRunId !== wr.id) {
    const before = link;
    link = { ...link, workflowRunId: wr.id, workflowRunUrl: wr.html_url, at: deps.now() };
    deps.links.saveAttempt(link, before, { later: true });
  }
  if (!currentAttempt(run, id)) return;
  const client = await deps.clientOf(run);
  const check = await client.getCheckRun(link.repo, link.checkRunId!);
  if (check.status === 'completed') {
    // The result may be here before its own check_run webhook.
    const outcome = completedOutcome(check);
    if (outcome.kind === 'result') return feed(deps, run, link.externalId, outcome.result);
  }
  const reason = `workflow run ${wr.run_number !== undefined ? `#${wr.run_number} ` : ''}(${wr.html_url}) ended (${wr.conclusion ?? 'no conclusion'}) without reporting a result`;
  // Judged again after the call (by loseAttempt): the same delivery handled at once by another
  // handler (nothing records it), or the result's own webhook, may have settled the attempt meanwhile.
  await loseAttempt(deps, run, id, link, reason, 'cancelled');
}
