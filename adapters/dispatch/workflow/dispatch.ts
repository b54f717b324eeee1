// Dispatching one step attempt: a check run `conveyor / <step>` (a repair's named
// `conveyor / <step> (repair N)`; queued, its external id the attempt's key) on the primary PR's head, then a workflow_dispatch of the repository's
// conveyor.yml with the payload as one input. The result comes back later through the check run
// (completion.ts), so a dispatch answers `dispatched`.
//
// Never twice for one attempt: a record is written before the check run is created, and a try
// that finds one (left by a try that died) looks on GitHub for the check run, then for the
// workflow run (one the app's bot started), before it makes either.
import { dispatchInputs } from '../../../core/contract/payload-fit.ts';
import { repairNumber, stepCheckName } from '../../../core/github/check-run.ts';
import { attemptKey, refOf } from '../../../core/contract/attempt-ref.ts';
import type { Run } from '../../../core/run/types.ts';
import { defaultBranchOf } from '../../../core/run/origin.ts';
import type { StepPayload } from '../../../core/contract/wire.ts';
import type { AttemptOutcome } from '../../../engine/ports/dispatcher.ts';
import type { AttemptLink } from '../../github/links.ts';
import { checkRunsHead } from '../../github/heads.ts';
import { completedOutcome, findAttemptRun, queuedAt, type WorkflowContext } from './runs.ts';

/** The payload with the time until which its attempt stays current (its queueing + `keepsCurrentMs`). */
function withCurrentUntil(run: Run, payload: StepPayload, keepsCurrentMs: number | undefined): StepPayload {
  const queued = keepsCurrentMs !== undefined ? queuedAt(run, refOf(payload)) : undefined;
  if (!queued || payload.mode === 'teardown') return payload;
  return { ...payload, currentUntil: new Date(Date.parse(queued) + keepsCurrentMs!).toISOString() };
}

export async function dispatchAttempt(c: WorkflowContext, payload: StepPayload): Promise<AttemptOutcome> {
  const run = await c.runOf(payload.runId);
  const github = await c.github(run);
  const externalId = attemptKey(refOf(payload));
  // What an earlier try of this attempt recorded: it may have made the check run, or even the workflow run.
  const stored = await c.links.attempt(externalId);
  const { repo, head } = stored?.head ? { repo: stored.repo, head: stored.head } : checkRunsHead(run, payload.repos);
  let link: AttemptLink = stored ?? { externalId, runId: run.id, repo, state: 'creating-check', head, at: c.now() };
  const save = async (patch: Partial<AttemptLink>) => {
    link = { ...link, ...patch, at: c.now() };
    await c.links.saveAttempt(link);
  };

  // 1. The check run, found where an earlier try may have made it, else made after its record.
  let madeCheck = false;
  if (link.checkRunId === undefined) {
    // A repair is named as one (`conveyor / test (repair 1)`), from the run's records: the same name each try computes.
    const repair = payload.mode === 'repair' ? repairNumber(run.steps[payload.step.id], payload.attempt) : undefined;
    const name = stepCheckName(payload.step.id, { mode: payload.mode, ...(repair ? { repair } : {}) });
    const earlier = stored ? await github.checks.find(repo, head, name, externalId) : undefined;
    if (!stored) await save({});
    const check =
      earlier ??
      (await github.checks.create(repo, {
        name,
        head_sha: head,
        external_id: externalId,
        status: 'queued',
        output: {
          title: `queued: attempt ${payload.attempt}`,
          summary: `Conveyor run \`${run.id}\`, step \`${payload.step.id}\` (${payload.step.kind}, ${payload.mode}), attempt ${payload.attempt}${payload.epoch > 0 ? `, dispatch ${payload.epoch + 1}` : ''}: waiting for its workflow run.`,
        },
      }));
    madeCheck = earlier === undefined;
    await save({ checkRunId: check.id, checkRunUrl: check.url });
  }
  const checkRunId = link.checkRunId!;

  // 2. The workflow run: looked for when an earlier try may have started it, else dispatched.
  if (link.state !== 'dispatched') {
    // A writer's run named for this check run is not this attempt's: recorded, the token broker would answer it.
    const earlier =
      stored && !madeCheck ? await findAttemptRun(github.workflows, { repo, checkRunId, dispatchedAt: stored.at }, await c.botLogin(), c.workflow) : undefined;
    if (earlier) {
      await save({ state: 'dispatched', workflowRunId: earlier.id, workflowRunUrl: earlier.url });
    } else {
      // Routing and the app's promise, not inputs of the step: receipts leave `app` and
      // `currentUntil` out. The reducer fitted the payload with room for them (core/contract/payload-fit.ts).
      const sent = withCurrentUntil(run, payload, c.keepsCurrentMs);
      const text = JSON.stringify(sent);
      const started = await github.workflows.dispatch(repo, c.workflow, defaultBranchOf(run), dispatchInputs(payload, text, checkRunId));
      await save({
        state: 'dispatched',
        ...(started.runId ? { workflowRunId: started.runId } : {}),
        ...(started.url ? { workflowRunUrl: started.url } : {}),
      });
    }
  }
  return { kind: 'dispatched' };
}

/** A late result is kept; an attempt still queued or running is left to the sweeper's clock. */
export async function recoverAttempt(c: WorkflowContext, payload: StepPayload): Promise<AttemptOutcome | undefined> {
  const link = await c.links.attempt(attemptKey(refOf(payload)));
  if (link?.checkRunId === undefined) return undefined;
  const github = await c.github(await c.runOf(payload.runId));
  const check = await github.checks.get(link.repo, link.checkRunId);
  return check.status === 'completed' ? completedOutcome(check) : undefined;
}
