// The workflow dispatcher, whole: GitHub Actions runs each step attempt. It dispatches (a check
// run, then a workflow_dispatch: dispatch.ts), learns how an attempt ended (its check run or its
// workflow run completed: completion.ts; an attempt that never started or ran too long: sweep.ts),
// and stops or closes one (stop.ts). Whatever it learns is an attempt's end that the app hands to
// Engine.settle, the one way an end reaches its run; the engine carries out its `stop` effects
// and closes the attempts whose loss counted through it. The app's webhook handlers are glue
// around these methods.
import type { Dispatcher, Ended } from '../../../engine/ports/dispatcher.ts';
import type { AttemptRef } from '../../../core/contract/attempt-ref.ts';
import type { Run } from '../../../core/run/types.ts';
import type { AttemptLink } from '../../github/links.ts';
import { attemptOfCheckRun, checkRunCompleted, workflowRunCompleted, type CheckRunSeen, type WorkflowRunSeen } from './completion.ts';
import { dispatchAttempt, recoverAttempt } from './dispatch.ts';
import { contextOf, type WorkflowDispatcherOptions } from './runs.ts';
import { closeLost, stopAttempt } from './stop.ts';
import { sweep, type Settle, type SweepMemory, type SweepOptions, type SweepReport } from './sweep.ts';

export { WORKFLOW_FILE, findAttemptRun, type WorkflowDispatcherOptions } from './runs.ts';
export { QUEUED_MINUTES, sweepMemory, type Settle, type SweepMemory, type SweepOptions, type SweepReport } from './sweep.ts';
export type { CheckRunSeen, WorkflowRunSeen } from './completion.ts';

export interface WorkflowDispatcher extends Dispatcher {
  /** A check run of the app's completed (check_run.completed): the end of the attempt it is, if it is one. */
  checkRunCompleted(repo: string, check: CheckRunSeen): Promise<Ended | undefined>;
  /** A run of the Conveyor workflow ended (workflow_run.completed): the end of the attempt it ran, if it ended without its result counting yet. */
  workflowRunCompleted(repo: string, run: WorkflowRunSeen): Promise<Ended | undefined>;
  /** The attempt a check run of the app's is, as the app recorded it in this repository (a Re-run of it retries its step). */
  attemptOfCheckRun(repo: string, check: CheckRunSeen): Promise<{ link: AttemptLink; ref: AttemptRef; run: Run } | undefined>;
  /** Judges the attempts of running runs old enough to judge (see sweep.ts), each end found handed to `settle`. */
  sweep(settle: Settle, options?: SweepOptions, memory?: SweepMemory): Promise<SweepReport>;
}

export function createWorkflowDispatcher(options: WorkflowDispatcherOptions): WorkflowDispatcher {
  const c = contextOf(options);
  return {
    run: (payload) => dispatchAttempt(c, payload),
    recover: (payload) => recoverAttempt(c, payload),
    stop: (ref, reason) => stopAttempt(c, ref, reason),
    closeLost: (ref, loss, after) => closeLost(c, ref, loss, after),
    checkRunCompleted: (repo, check) => checkRunCompleted(c, repo, check),
    workflowRunCompleted: (repo, run) => workflowRunCompleted(c, repo, run),
    attemptOfCheckRun: (repo, check) => attemptOfCheckRun(c, repo, check),
    sweep: (settle, sweepOptions, memory) => sweep(c, settle, sweepOptions, memory),
  };
}
