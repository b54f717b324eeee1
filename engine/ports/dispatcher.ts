// The Dispatcher port: start one step attempt somewhere (a child process here, a workflow run on
// GitHub), stop it, and learn how it ended. However the end is learned (the answer to a dispatch,
// a recovery, a webhook, the sweeper), it reaches the run one way: Engine.settle.
import type { Environment, StepPayload, StepResult } from '../../core/contract/wire.ts';
import type { AttemptRef } from '../../core/contract/attempt-ref.ts';
import type { Run } from '../../core/run/types.ts';

export type AttemptOutcome =
  | { kind: 'result'; result: StepResult }
  /**
   * The attempt ended without reporting (the process died, the workflow vanished); a deploy's
   * environments that settled before that come along, so a re-dispatch does not redo them.
   * `close`: where it ran it may still look open (its check run), and a late runner would take it
   * for current: once the loss counts, the dispatcher closes it (`closeLost`), saying it was lost
   * or that it ran past its timeout.
   */
  | { kind: 'lost'; reason: string; environments?: Environment[]; close?: 'lost' | 'timed-out' }
  /** Started elsewhere (a workflow run); its result arrives later as an event. */
  | { kind: 'dispatched' };

/** How an attempt ended: what Engine.settle takes. */
export type AttemptEnd = Exclude<AttemptOutcome, { kind: 'dispatched' }>;

/** An attempt's end as a dispatcher learned it on its own (a webhook, the sweeper), for Engine.settle. */
export interface Ended {
  ref: AttemptRef;
  outcome: AttemptEnd;
}

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
  /**
   * Closes where it ran an attempt whose loss (`close` set) the run just counted, so that a late
   * runner finds it retired; `after`: the run as the loss left it (what comes next).
   */
  closeLost?(ref: AttemptRef, loss: Extract<AttemptOutcome, { kind: 'lost' }>, after: Run): Promise<void>;
}
