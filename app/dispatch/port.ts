// The Dispatcher port: start one step attempt somewhere (a child process here, a workflow run on
// GitHub) and learn how it ended.
import type { StepPayload, StepResult } from '../../core/wire.ts';

export type AttemptOutcome =
  | { kind: 'result'; result: StepResult }
  /** The attempt ended without reporting (the process died, the workflow vanished). */
  | { kind: 'lost'; reason: string }
  /** Started elsewhere (a workflow run); its result arrives later as an event. */
  | { kind: 'dispatched' };

export interface Dispatcher {
  /**
   * Runs the attempt to its end, or starts it where it reports back by itself (`dispatched`). Idempotent per (run, step, attempt, epoch, mode): asking again
   * for an attempt that already reported returns its result instead of running it twice.
   */
  run(payload: StepPayload): Promise<AttemptOutcome>;
  /**
   * Before the engine takes over a run that another process was driving: settle attempts that
   * process left behind (a result written after it died is kept; a still-running leftover is
   * stopped). Returns the outcome of each queued attempt that finished or was stopped.
   */
  recover(payload: StepPayload): Promise<AttemptOutcome | undefined>;
}
