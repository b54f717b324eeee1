// Advancing runs from GitHub: a completed step check run carries the attempt's result; the Checks
// tab's Re-run retries the step; a workflow run that ended without a result, or an attempt the
// sweeper judged lost, is lost (the engine dispatches it again with the next epoch, at most twice).
//
// A check run or workflow run counts only as the one the app recorded for the attempt, in the
// repository it dispatched to (never by its external id or title alone: anyone with an app can
// make a check run that names any attempt, and any workflow can put any text in its title); its
// result counts only when its receipt verifies (the reducer checks it).
import { STEP_CHECK_PREFIX } from '../core/github/check-run.ts';
import { attemptKey, isCurrent, parseAttemptKey, refOf, type AttemptRef } from '../core/contract/attempt-ref.ts';
import type { Run } from '../core/run/types.ts';
import type { StepResult } from '../core/contract/wire.ts';
import { completedOutcome, parseWorkflowRunMarker, WORKFLOW_FILE } from '../adapters/dispatch/workflow.ts';
import type { AppDeps } from './deps.ts';
import { isBot, notAWriter } from './deciders.ts';
import { currentBudget } from './start.ts';
import type { AttemptLink } from '../adapters/github/links.ts';
import { tornDownEvent } from '../core/run/environments.ts';
import type { WebhookActor, WebhookCheckRun, WebhookWorkflowRun } from './webhooks.ts';

/** Feeds a result read from a check run to the engine (the reducer ignores any but the current attempt). */
export async function feed(deps: AppDeps, run: Run, externalId: string, result: StepResult): Promise<void> {
  if (attemptKey(refOf(result)) !== externalId) {
    deps.log(`conveyor: check run ${externalId} holds the result of another attempt (${attemptKey(refOf(result))}); ignored`);
    return;
  }
  if (result.mode === 'teardown') {
    // The teardown was asked for the run's ready environments; what it did not remove stays, with why.
    const targets = run.environments.filter((e) => e.state === 'ready');
    await deps.engine.apply(run.id, tornDownEvent(targets, result.environments, result.error?.message ?? result.summary, deps.now()));
  } else await deps.engine.apply(run.id, { type: 'step-completed', at: deps.now(), result });
}

/**
 * Marks an attempt lost, then closes its check run (when `link` has one) so a late action finds it
 * no longer current. Judged on the latest run first: the caller's awaits (a read of GitHub) let the
 * attempt's result, or the same delivery handled at once by another handler, settle it meanwhile,
 * and then nothing is done (its check run is left as it is). Says whether it was lost here.
 */
export async function loseAttempt(
  deps: AppDeps,
  run: Run,
  id: AttemptRef,
  link: AttemptLink | undefined,
  reason: string,
  conclusion: 'cancelled' | 'timed_out',
): Promise<boolean> {
  if (id.mode === 'teardown' || !isCurrent(await deps.store.get(run.id), id)) return false;
  const after = await deps.engine.apply(run.id, { type: 'step-lost', at: deps.now(), step: id.step, attempt: id.attempt, epoch: id.epoch, reason });
  // The reducer ignores a loss of an attempt that settled meanwhile: only this loss closes the check run.
  const record = after.steps[id.step]?.attempts.findLast((r) => r.attempt === id.attempt && r.epoch === id.epoch);
  if (record?.conclusion !== 'lost' || record.summary !== reason) return false;
  if (link?.checkRunId === undefined) return true;
  const s = after.steps[id.step];
  const next =
    s && s.status === 'queued' && s.attempt === id.attempt ? `; dispatched again (dispatch ${s.epoch + 1})` : s?.status === 'failed' ? '; the step failed' : '';
  const github = await deps.githubOf(run);
  await github.checks.update(link.repo, link.checkRunId, {
    status: 'completed',
    conclusion,
    completed_at: deps.now(),
    output: { title: `lost: ${reason}`.slice(0, 200), summary: `This attempt was lost: ${reason}${next}.` },
  });
  return true;
}

/** The attempt whose check run this is, as the app recorded it in this repository: never the check run's own word. */
async function attemptOfCheckRun(deps: AppDeps, repo: string, check: WebhookCheckRun): Promise<{ link: AttemptLink; id: AttemptRef; run: Run } | undefined> {
  if (check.app?.id !== deps.appId || !check.name.startsWith(STEP_CHECK_PREFIX)) return undefined;
  const link = await deps.links.attemptByCheckRun(repo, check.id);
  if (!link || link.externalId !== check.external_id) {
    if (check.external_id && parseAttemptKey(check.external_id))
      deps.log(`conveyor: ignored check run ${check.id} in ${repo}: it names attempt ${check.external_id}, which the app did not dispatch to this check run`);
    return undefined;
  }
  const id = parseAttemptKey(link.externalId);
  const run = id ? await deps.store.get(id.runId) : undefined;
  return id && run ? { link, id, run } : undefined;
}

export async function onCheckRunCompleted(deps: AppDeps, repo: string, check: WebhookCheckRun): Promise<void> {
  const found = await attemptOfCheckRun(deps, repo, check);
  if (!found) return;
  const { link, id, run } = found;
  // The workflow run's link, when the action gave one the record lacks.
  if (check.details_url && /\/actions\/runs\//.test(check.details_url) && link.workflowRunUrl !== check.details_url) {
    await deps.links.saveAttempt({ ...link, workflowRunUrl: check.details_url, at: deps.now() });
  }
  const outcome = completedOutcome(check);
  if (outcome.kind === 'result') return feed(deps, run, link.externalId, outcome.result);
  // Its check run is completed already: nothing to close.
  await loseAttempt(deps, run, id, undefined, outcome.reason, 'cancelled');
}

export async function onCheckRunRerequested(deps: AppDeps, repo: string, check: WebhookCheckRun, sender: WebhookActor): Promise<void> {
  const found = await attemptOfCheckRun(deps, repo, check);
  if (!found) return;
  const { id, run } = found;
  if (isBot(sender)) return;
  const github = await deps.githubOf(run);
  const denied = await notAWriter(github.people, run, sender.login);
  if (denied) {
    await github.comments.create(
      run.issue.repo,
      run.issue.number,
      `@${sender.login} asked to re-run step \`${id.step}\` of run \`${run.id}\`, but only people with write permission on ${denied.repo} can (they have ${denied.permission}). Nothing changed.`,
    );
    return;
  }
  await deps.engine.apply(run.id, { type: 'retry', at: deps.now(), step: id.step, by: sender.login, ...(await currentBudget(github.repos, run)) });
}

/**
 * Where a dispatch could not say which workflow run it started (GitHub Enterprise Server before
 * dispatches returned run details), the run's title names the check run it works for: that counts
 * only for a workflow_dispatch run of this repository's Conveyor workflow that the app's own bot
 * started (anyone who may dispatch the workflow can give their run the same title), and only for
 * an attempt with no run recorded yet. The run is recorded as the attempt's from then on, and the
 * token broker answers only it.
 */
async function undeclaredRun(deps: AppDeps, repo: string, wr: WebhookWorkflowRun): Promise<AttemptLink | undefined> {
  const checkRunId = parseWorkflowRunMarker(wr.display_title);
  if (checkRunId === undefined || wr.event !== 'workflow_dispatch') return undefined;
  if (!wr.actor || !(await deps.isSelf(wr.actor))) return undefined;
  const link = await deps.links.attemptByCheckRun(repo, checkRunId);
  if (!link || link.workflowRunId !== undefined) return undefined;
  const recorded: AttemptLink = { ...link, workflowRunId: wr.id, workflowRunUrl: wr.html_url, at: deps.now() };
  await deps.links.saveAttempt(recorded);
  return recorded;
}

/**
 * A workflow run of the repository's Conveyor workflow ended: the attempt it ran is the one whose
 * dispatch recorded this run's id (the dispatch returns it). Anything else (another workflow,
 * another repository, a title that names a check run) is not Conveyor's to judge.
 */
export async function onWorkflowRunCompleted(deps: AppDeps, repo: string, wr: WebhookWorkflowRun): Promise<void> {
  if (wr.path !== `.github/workflows/${WORKFLOW_FILE}`) return;
  const link = (await deps.links.attemptByWorkflowRun(repo, wr.id)) ?? (await undeclaredRun(deps, repo, wr));
  if (!link?.checkRunId) return;
  const id = parseAttemptKey(link.externalId);
  const run = id ? await deps.store.get(id.runId) : undefined;
  if (!id || !run) return;
  if (id.mode === 'teardown' || !isCurrent(run, id)) return;
  const github = await deps.githubOf(run);
  const check = await github.checks.get(link.repo, link.checkRunId);
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
