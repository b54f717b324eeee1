// The Dispatcher port: start one step attempt somewhere (a child process here, a workflow run on
// GitHub) and learn how it ended.
import type { Environment, StepPayload, StepResult } from '../../core/contract/wire.ts';
import type { AttemptRef } from '../../core/contract/attempt-ref.ts';

export type AttemptOutcome =
  | { kind: 'result'; result: StepResult }
  /** The attempt ended without reporting (the process died, the workflow vanished); a deploy's
   * environments that settled before that come along, so a re-dispatch does not redo them. */
  | { kind: 'lost'; reason: string; environments?: Environment[] }
  /** Started elsewhere (a workflow run); its result arrives later as an event. */
  | { kind: 'dispatched' };

/** What an attempt tells while it runs (a deploy: each environment as it settles). */
export interface AttemptHooks {
  onEnvironments?(environments: Environment[]): void;
}

export interface Dispatcher {
  /**
   * Runs the attempt to its end, or starts it where it reports back by itself (`dispatched`). Idempotent per (run, step, attempt, epoch, mode): asking again
   * for an attempt that already reported returns its result instead of running it twice.
   */
  run(payload: StepPayload, hooks?: AttemptHooks): Promise<AttemptOutcome>;
  /**
   * Before the engine takes over a run that another process was driving: settle attempts that
   * process left behind (a result written after it died is kept; a still-running leftover is
   * stopped). Returns the outcome of each queued attempt that finished or was stopped.
   */
  recover(payload: StepPayload): Promise<AttemptOutcome | undefined>;
  /**
   * Carries out a `stop` effect: stops the attempt where it runs, whichever process started it
   * (the run no longer waits for it: it was cancelled), and says why where people look (`reason`).
   * An attempt that already ended, or never started, is left as it is; asking twice stops once.
   * Its `run`, wherever it is awaited, then ends as lost.
   */
  stop(ref: AttemptRef, reason: string): Promise<void>;
}
