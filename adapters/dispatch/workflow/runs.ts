// What the workflow dispatcher's parts share: the options they run with, and how an attempt shows
// on GitHub: the workflow file, the marker a workflow run's name carries of its check run, the
// workflow run of an attempt whose dispatch said none, and what a completed check run says.
import { parseResultText } from '../../../core/github/check-run.ts';
import { attemptKey, parseAttemptKey, refOf, type AttemptRef } from '../../../core/contract/attempt-ref.ts';
import type { StepResult } from '../../../core/contract/wire.ts';
import type { Run } from '../../../core/run/types.ts';
import type { AttemptOutcome, Ended } from '../../../engine/ports/dispatcher.ts';
import type { RunStore } from '../../../engine/ports/store.ts';
import type { AttemptLink, LinkStore } from '../../github/links.ts';
import type { GitHub } from '../../github/forge/github.ts';
import type { Workflows, WorkflowRun } from '../../github/forge/workflows.ts';
import { attemptFields, silentLogger, type Logger } from '../../../lib/logger.ts';

export const WORKFLOW_FILE = 'conveyor.yml';

export interface WorkflowDispatcherOptions {
  store: RunStore;
  links: LinkStore;
  /** GitHub as the run's installation sees it. */
  github(run: Run): Promise<GitHub>;
  /** The app's bot login (`<slug>[bot]`): an interrupted dispatch's workflow run counts only when the bot started it. */
  botLogin(): Promise<string>;
  /** The app's id: only its own check runs are attempts' (default: none is, so no webhook is taken). */
  appId?: number;
  workflow?: string;
  now?: () => string;
  log?: Logger;
  /**
   * How long after an attempt is queued the app keeps it current whatever else happens (the
   * sweeper's queued window): the payload tells the action until when, so it need not read its
   * check run back (`currentUntil`). Absent: the payload says nothing, and the action reads it.
   */
  keepsCurrentMs?: number;
}

/** The options with their defaults, as every part of the dispatcher reads them. */
export interface WorkflowContext extends Omit<WorkflowDispatcherOptions, 'now' | 'log' | 'workflow'> {
  workflow: string;
  now(): string;
  log: Logger;
  /** The stored run; throws when there is none. */
  runOf(runId: string): Promise<Run>;
}

export function contextOf(options: WorkflowDispatcherOptions): WorkflowContext {
  return {
    ...options,
    workflow: options.workflow ?? WORKFLOW_FILE,
    now: options.now ?? (() => new Date().toISOString()),
    log: options.log ?? silentLogger,
    async runOf(runId) {
      const run = await options.store.get(runId);
      if (!run) throw new Error(`no run ${runId} in the store`);
      return run;
    },
  };
}

/** How the workflow run's name marks the check run it works for (see workflows/conveyor.yml). */
export function workflowRunMarker(checkRunId: number): string {
  return `[check run ${checkRunId}]`;
}

export function parseWorkflowRunMarker(title: string | null | undefined): number | undefined {
  const m = /\[check run (\d+)\]/.exec(title ?? '');
  return m ? Number(m[1]) : undefined;
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

/** When the attempt was queued (its dispatch came after): the start of its record. */
export function queuedAt(run: Run, ref: AttemptRef): string | undefined {
  return run.steps[ref.step]?.attempts.findLast((a) => a.attempt === ref.attempt && a.epoch === ref.epoch)?.startedAt;
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

/**
 * A result read from the check run the app recorded for an attempt: it is that attempt's end only
 * when it names that attempt (the reducer then judges it by its receipt); else it is ignored, said
 * in the log.
 */
export function resultFor(c: WorkflowContext, link: AttemptLink, result: StepResult): Ended | undefined {
  const ref = refOf(result);
  if (attemptKey(ref) === link.externalId) return { ref, outcome: { kind: 'result', result } };
  const own = parseAttemptKey(link.externalId);
  c.log.warn(`check run ${link.externalId} holds the result of another attempt (${attemptKey(ref)}); ignored`, {
    ...(own ? attemptFields(own) : {}),
    repo: link.repo,
    checkRun: link.checkRunId,
  });
  return undefined;
}
