// How a dispatched attempt ends on GitHub: its check run completed (carrying the action's result,
// or completed by someone else without one), or its workflow run ended without a result. Each
// answers the attempt's end for Engine.settle, or nothing when the event is none of the attempt's.
//
// A check run or workflow run counts only as the one the app recorded for the attempt, in the
// repository it dispatched to (never by its external id or title alone: anyone with an app can
// make a check run that names any attempt, and any workflow can put any text in its title); its
// result counts only when its receipt verifies (the reducer checks it).
import { STEP_CHECK_PREFIX } from '../../../core/github/check-run.ts';
import { isCurrent, parseAttemptKey, type AttemptRef } from '../../../core/contract/attempt-ref.ts';
import type { Run } from '../../../core/run/types.ts';
import type { Ended } from '../../../engine/ports/dispatcher.ts';
import type { AttemptLink } from '../../github/links.ts';
import { attemptFields } from '../../../lib/logger.ts';
import { completedOutcome, parseWorkflowRunMarker, resultFor, type WorkflowContext } from './runs.ts';

/** What the dispatcher reads of a check run a webhook names (the app checks the delivery holds it: app/webhooks.ts). */
export interface CheckRunSeen {
  id: number;
  name: string;
  external_id: string | null;
  details_url?: string | null;
  conclusion?: string | null;
  app?: { id: number } | null;
  output?: { summary?: string | null; text?: string | null } | null;
}

/** What the dispatcher reads of a workflow run a webhook names. */
export interface WorkflowRunSeen {
  id: number;
  html_url: string;
  conclusion: string | null;
  path?: string | null;
  event?: string | null;
  display_title?: string | null;
  run_number?: number;
  actor?: { login: string; type?: string | null } | null;
}

/** The attempt whose check run this is, as the app recorded it in this repository: never the check run's own word. */
export async function attemptOfCheckRun(
  c: WorkflowContext,
  repo: string,
  check: CheckRunSeen,
): Promise<{ link: AttemptLink; ref: AttemptRef; run: Run } | undefined> {
  if (c.appId === undefined || check.app?.id !== c.appId || !check.name.startsWith(STEP_CHECK_PREFIX)) return undefined;
  const link = await c.links.attemptByCheckRun(repo, check.id);
  if (!link || link.externalId !== check.external_id) {
    const named = parseAttemptKey(check.external_id);
    if (named)
      c.log.warn(`ignored check run ${check.id} in ${repo}: it names attempt ${check.external_id}, which the app did not dispatch to this check run`, {
        ...attemptFields(named),
        repo,
        checkRun: check.id,
      });
    return undefined;
  }
  const ref = parseAttemptKey(link.externalId);
  const run = ref ? await c.store.get(ref.runId) : undefined;
  return ref && run ? { link, ref, run } : undefined;
}

/** check_run.completed: the result the action wrote into it, or the loss of an attempt whose check run someone else completed. */
export async function checkRunCompleted(c: WorkflowContext, repo: string, check: CheckRunSeen): Promise<Ended | undefined> {
  const found = await attemptOfCheckRun(c, repo, check);
  if (!found) return undefined;
  const { link, ref } = found;
  // The workflow run's link, when the action gave one the record lacks.
  if (check.details_url && /\/actions\/runs\//.test(check.details_url) && link.workflowRunUrl !== check.details_url) {
    await c.links.saveAttempt({ ...link, workflowRunUrl: check.details_url, at: c.now() });
  }
  const outcome = completedOutcome(check);
  if (outcome.kind === 'result') return resultFor(c, link, outcome.result);
  // A teardown's check run completed without a result says nothing of its environments. Else the
  // attempt is lost; its check run is completed already: nothing to close.
  return ref.mode === 'teardown' ? undefined : { ref, outcome };
}

/**
 * Where a dispatch could not say which workflow run it started (GitHub Enterprise Server before
 * dispatches returned run details), the run's title names the check run it works for: that counts
 * only for a workflow_dispatch run of this repository's Conveyor workflow that the app's own bot
 * started (anyone who may dispatch the workflow can give their run the same title), and only for
 * an attempt with no run recorded yet. The run is recorded as the attempt's from then on, and the
 * token broker answers only it.
 */
async function undeclaredRun(c: WorkflowContext, repo: string, wr: WorkflowRunSeen): Promise<AttemptLink | undefined> {
  const checkRunId = parseWorkflowRunMarker(wr.display_title);
  if (checkRunId === undefined || wr.event !== 'workflow_dispatch') return undefined;
  if (!wr.actor || wr.actor.type !== 'Bot' || wr.actor.login !== (await c.botLogin())) return undefined;
  const link = await c.links.attemptByCheckRun(repo, checkRunId);
  if (!link || link.workflowRunId !== undefined) return undefined;
  const recorded: AttemptLink = { ...link, workflowRunId: wr.id, workflowRunUrl: wr.html_url, at: c.now() };
  await c.links.saveAttempt(recorded);
  return recorded;
}

/**
 * workflow_run.completed: a run of the repository's Conveyor workflow ended. The attempt it ran is
 * the one whose dispatch recorded this run's id (the dispatch returns it); anything else (another
 * workflow, another repository, a title that names a check run) is not Conveyor's to judge. Its
 * result may be in the check run before that check run's own webhook; else the attempt is lost
 * (and its check run closed, once the loss counts: it is still open).
 */
export async function workflowRunCompleted(c: WorkflowContext, repo: string, wr: WorkflowRunSeen): Promise<Ended | undefined> {
  if (wr.path !== `.github/workflows/${c.workflow}`) return undefined;
  const link = (await c.links.attemptByWorkflowRun(repo, wr.id)) ?? (await undeclaredRun(c, repo, wr));
  if (!link?.checkRunId) return undefined;
  const ref = parseAttemptKey(link.externalId);
  const run = ref ? await c.store.get(ref.runId) : undefined;
  // A teardown has no step attempt to retire: its check run's own webhook says how it went.
  if (!ref || !run || ref.mode === 'teardown' || !isCurrent(run, ref)) return undefined;
  const github = await c.github(run);
  const check = await github.checks.get(link.repo, link.checkRunId);
  if (check.status === 'completed') {
    const outcome = completedOutcome(check);
    if (outcome.kind === 'result') return resultFor(c, link, outcome.result);
  }
  const reason = `workflow run ${wr.run_number !== undefined ? `#${wr.run_number} ` : ''}(${wr.html_url}) ended (${wr.conclusion ?? 'no conclusion'}) without reporting a result`;
  // Judged again by the run (Engine.settle): the same delivery handled at once elsewhere, or the
  // result's own webhook, may have settled the attempt meanwhile.
  return { ref, outcome: { kind: 'lost', reason, close: 'lost' } };
}
