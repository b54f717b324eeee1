// The workflow dispatcher: one step attempt is a check run `conveyor / <step>` (queued, its
// external id naming the attempt) on the primary PR's head, then a workflow_dispatch of the
// repository's conveyor.yml with the payload as one input. The result comes back later through
// the check run (check_run.completed), so `run` answers `dispatched`.
//
// Never twice for one attempt: a record is written before the check run is created, and a try
// that finds one (left by a try that died) looks on GitHub for the check run, then for the
// workflow run (one the app's bot started), before it makes either.
import { sentLength } from '../../core/contract/payload-fit.ts';
import { parseResultText, stepCheckName } from '../../core/github/check-run.ts';
import { attemptKey, refOf } from '../../core/contract/attempt-ref.ts';
import type { Run } from '../../core/run/types.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import type { RunStore } from '../../engine/ports/store.ts';
import type { AttemptOutcome, Dispatcher } from '../../engine/ports/dispatcher.ts';
import type { AttemptLink, LinkStore } from '../github/links.ts';
import type { GitHub } from '../github/forge/github.ts';
import type { Workflows, WorkflowRun } from '../github/forge/workflows.ts';
import type { Heads } from '../github/heads.ts';
import { DISPATCH_INPUTS_LIMIT } from '../../core/contract/payload-fit.ts';

export const WORKFLOW_FILE = 'conveyor.yml';

export interface WorkflowDispatcherOptions {
  store: RunStore;
  links: LinkStore;
  heads: Heads;
  /** GitHub as the run's installation sees it. */
  github(run: Run): Promise<GitHub>;
  /** The app's bot login (`<slug>[bot]`): an interrupted dispatch's workflow run counts only when the bot started it. */
  botLogin(): Promise<string>;
  workflow?: string;
  /** Characters all inputs may take together (GitHub: 65,535). */
  inputsLimit?: number;
  /**
   * The app's public URL (CONVEYOR_PUBLIC_URL), carried in each payload for actions of earlier
   * versions; this action trades its OIDC token only where the workflow says (its own CONVEYOR_PUBLIC_URL).
   */
  appUrl?: string;
  now?: () => string;
  log?: (line: string) => void;
  /**
   * How long after an attempt is queued the app keeps it current whatever else happens (the
   * sweeper's queued window): the payload tells the action until when, so it need not read its
   * check run back (`currentUntil`). Absent: the payload says nothing, and the action reads it.
   */
  keepsCurrentMs?: number;
}

/** How the workflow run's name marks the check run it works for (see workflows/conveyor.yml). */
export function workflowRunMarker(checkRunId: number): string {
  return `[check run ${checkRunId}]`;
}

/**
 * How much earlier than the app's record of a dispatch GitHub may date the workflow run it started:
 * the record is written after the dispatch call returns, on a clock that may be minutes apart from
 * GitHub's (GitHub Enterprise Server runs on its own host).
 */
export const CREATED_SLACK_MS = 10 * 60_000;

/**
 * The workflow run of an attempt whose dispatch said no run id (GitHub Enterprise Server): the one
 * whose name holds the marker of the attempt's check run, among the runs the app's bot started
 * (anyone who may dispatch the workflow can give their run the same name), made no earlier than
 * `dispatchedAt` less the slack.
 */
export function findAttemptRun(
  workflows: Pick<Workflows, 'find'>,
  attempt: { repo: string; checkRunId: number; dispatchedAt: string },
  botLogin: string,
  workflow = WORKFLOW_FILE,
): Promise<WorkflowRun | undefined> {
  const since = new Date(Date.parse(attempt.dispatchedAt) - CREATED_SLACK_MS).toISOString();
  return workflows.find(attempt.repo, workflow, workflowRunMarker(attempt.checkRunId), since, botLogin);
}

export function parseWorkflowRunMarker(title: string | null | undefined): number | undefined {
  const m = /\[check run (\d+)\]/.exec(title ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * What a completed check run says of its attempt: the result the action wrote into it, or why the
 * attempt is lost (it was completed by someone or something else before the action reported).
 */
export function completedOutcome(check: {
  conclusion?: string | null;
  output?: { text?: string | null; summary?: string | null } | null;
}): Extract<AttemptOutcome, { kind: 'result' | 'lost' }> {
  const parsed = parseResultText(check.output?.text, check.output?.summary);
  return parsed.ok
    ? { kind: 'result', result: parsed.result }
    : { kind: 'lost', reason: `its check run was completed (${check.conclusion ?? 'no conclusion'}) without a result: ${parsed.message}` };
}

/** The payload with the time until which its attempt stays current (its queueing + `keepsCurrentMs`). */
function withCurrentUntil(run: Run, payload: StepPayload, keepsCurrentMs: number | undefined): StepPayload {
  const queued =
    keepsCurrentMs !== undefined
      ? run.steps[payload.step.id]?.attempts.findLast((a) => a.attempt === payload.attempt && a.epoch === payload.epoch)?.startedAt
      : undefined;
  if (!queued || payload.mode === 'teardown') return payload;
  return { ...payload, currentUntil: new Date(Date.parse(queued) + keepsCurrentMs!).toISOString() };
}

export function createWorkflowDispatcher(options: WorkflowDispatcherOptions): Dispatcher {
  const now = options.now ?? (() => new Date().toISOString());
  const workflow = options.workflow ?? WORKFLOW_FILE;
  const limit = options.inputsLimit ?? DISPATCH_INPUTS_LIMIT;
  const { links } = options;

  const runOf = async (runId: string): Promise<Run> => {
    const run = await options.store.get(runId);
    if (!run) throw new Error(`no run ${runId} in the store`);
    return run;
  };

  return {
    async run(payload) {
      const run = await runOf(payload.runId);
      const github = await options.github(run);
      const externalId = attemptKey(refOf(payload));
      // What an earlier try of this attempt recorded: it may have made the check run, or even the workflow run.
      const stored = await links.attempt(externalId);
      const { repo, head } = stored?.head ? { repo: stored.repo, head: stored.head } : await options.heads.of(run, payload.repos, github.repos);
      let link: AttemptLink = stored ?? { externalId, runId: run.id, repo, state: 'creating-check', head, at: now() };
      const save = async (patch: Partial<AttemptLink>) => {
        link = { ...link, ...patch, at: now() };
        await links.saveAttempt(link);
      };

      // 1. The check run, found where an earlier try may have made it, else made after its record.
      let madeCheck = false;
      if (link.checkRunId === undefined) {
        const name = stepCheckName(payload.step.id);
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
          stored && !madeCheck
            ? await findAttemptRun(github.workflows, { repo, checkRunId, dispatchedAt: stored.at }, await options.botLogin(), workflow)
            : undefined;
        if (earlier) {
          await save({ state: 'dispatched', workflowRunId: earlier.id, workflowRunUrl: earlier.url });
        } else {
          const label = `${payload.step.id} · attempt ${payload.attempt}${payload.mode === 'run' ? '' : ` (${payload.mode})`}`;
          const fixed = { step: label, 'check-run': String(checkRunId) };
          // The reducer fitted the payload to the run's limit; what is sent must still fit GitHub's.
          // Routing and the app's promise, not inputs of the step: receipts leave `app` and `currentUntil` out.
          const sent = withCurrentUntil(run, payload, options.keepsCurrentMs);
          const text = JSON.stringify(options.appUrl ? { ...sent, app: { url: options.appUrl } } : sent);
          const size = sentLength(text) + sentLength(JSON.stringify(fixed));
          if (size > limit)
            return { kind: 'lost', reason: `the step payload takes ${size} characters of the workflow inputs, over GitHub's limit of ${limit}` };
          const ref =
            typeof run.options.defaultBranch === 'string' ? run.options.defaultBranch : (payload.repos.find((r) => r.role === 'primary')?.base ?? 'main');
          const started = await github.workflows.dispatch(repo, workflow, ref, { payload: text, ...fixed });
          await save({
            state: 'dispatched',
            ...(started.runId ? { workflowRunId: started.runId } : {}),
            ...(started.url ? { workflowRunUrl: started.url } : {}),
          });
        }
      }
      return { kind: 'dispatched' };
    },

    /**
     * 1. Its check run is completed as cancelled, saying why: what people see, and what the action
     * watches for while it runs (it then stops its agent and writes nothing over it); 2. its
     * workflow run is cancelled, so the runner stops too. A workflow run that already ended (409)
     * or is gone (404) is fine: nothing is left to stop. Both are tried; a failure of either fails
     * the effect, which is tried again.
     */
    async stop(ref, reason) {
      const link = await links.attempt(attemptKey(ref));
      if (link?.checkRunId === undefined) return;
      const run = await runOf(ref.runId);
      const github = await options.github(run);
      const problems: string[] = [];
      try {
        await github.checks.update(link.repo, link.checkRunId, {
          status: 'completed',
          conclusion: 'cancelled',
          completed_at: now(),
          output: { title: 'cancelled', summary: `This attempt was stopped: its run was cancelled (${reason}).` },
        });
      } catch (e) {
        problems.push(`its check run ${link.checkRunId}: ${(e as Error).message}`);
      }
      try {
        // Only the app's bot's run: a writer's run named for this check run is not the attempt's to cancel.
        const dispatchedAt = run.steps[ref.step]?.attempts.findLast((a) => a.attempt === ref.attempt && a.epoch === ref.epoch)?.startedAt ?? link.at;
        const workflowRun =
          link.workflowRunId ??
          (await findAttemptRun(github.workflows, { repo: link.repo, checkRunId: link.checkRunId, dispatchedAt }, await options.botLogin(), workflow))?.id;
        if (workflowRun !== undefined && (await github.workflows.cancel(link.repo, workflowRun)))
          options.log?.(`conveyor: run ${ref.runId} cancelled: asked GitHub to cancel workflow run ${workflowRun} of step ${ref.step} in ${link.repo}`);
      } catch (e) {
        problems.push(`its workflow run: ${(e as Error).message}`);
      }
      if (problems.length > 0) throw new Error(`could not stop step ${ref.step} of cancelled run ${ref.runId} in ${link.repo}: ${problems.join('; ')}`);
    },

    /** A late result is kept; an attempt still queued or running is left to the sweeper's clock. */
    async recover(payload): Promise<AttemptOutcome | undefined> {
      const link = await links.attempt(attemptKey(refOf(payload)));
      if (link?.checkRunId === undefined) return undefined;
      const github = await options.github(await runOf(payload.runId));
      const check = await github.checks.get(link.repo, link.checkRunId);
      return check.status === 'completed' ? completedOutcome(check) : undefined;
    },
  };
}
