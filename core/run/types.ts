// A run: one pipeline working on one issue. The engine is a reducer over these types:
// (run, event) -> (run', effects). Runs are stored as JSON, so everything here is plain data.
import type { Plan } from '../plan/types.ts';
import type { Environment, ProtectedChange, PullRequestRef, SandboxReport, StepPayload, StepResult } from '../contract/wire.ts';
import type { Usage } from '../contract/usage.ts';
import type { AttemptRef } from '../contract/attempt-ref.ts';
import type { RunOrigin, RunSettings } from './origin.ts';

/** running: steps are under way; waiting: for a decision (approval) or for a person after a
 * failure (retry or cancel); succeeded and cancelled are terminal. */
export type RunStatus = 'running' | 'waiting' | 'succeeded' | 'cancelled';

export type StepStatus =
  | 'pending' // not started: its needs have not all succeeded
  | 'queued' // an attempt was dispatched and has not reported
  | 'waiting' // approval: waiting for decisions
  | 'succeeded'
  | 'failed'
  | 'cancelled';

export type AttemptMode = 'run' | 'repair';

export interface AttemptRecord {
  attempt: number;
  epoch: number;
  mode: AttemptMode;
  startedAt: string;
  finishedAt?: string;
  /** `interrupted`: the process driving the run was stopped by its user (Ctrl-C) and stopped the attempt with it. */
  conclusion?: StepResult['conclusion'] | 'lost' | 'interrupted';
  summary?: string;
  error?: { code: string; message: string };
  receipt?: string;
  /**
   * Digest of the inputs (payload) the attempt was dispatched with, as sent (cut to fit, where it
   * had to be): its result counts only when its receipt verifies against it.
   */
  inputs?: string;
  /** What a repair attempt was asked to address (kept so a re-dispatch after a loss carries it). */
  findings?: string;
  /** How its commands were isolated and what the sandbox blocked (repairs included). */
  sandbox?: SandboxReport;
  /** What its agents used, from its result (which the receipt seals); absent when none reported any. */
  usage?: Usage;
  /** A merge attempt that waits for a merge queue: what it enqueued, and what had merged (core/run/queue.ts). */
  queue?: MergeQueueWait;
}

/** A PR a merge attempt put in its base branch's merge queue. */
export interface QueueEntry {
  repo: string;
  number: number;
  /** The approved head it was enqueued pinned to (`expectedHeadOid`). */
  head: string;
  at: string;
  /** The queue merged it. */
  merged?: boolean;
}

export interface MergeQueueWait {
  entries: QueueEntry[];
  /** PRs (`repo#number`) merged when it last enqueued: directly, or by the queue. */
  merged: string[];
  /** When the sweeper last asked the forge how the queue stands. */
  lookedAt?: string;
  /** The run stopped waiting (cancelled): what the engine took out of the queue again, and what it could not. */
  dequeued?: QueueRemoval;
}

/** What a stopped merge attempt's dequeue did (PRs as `repo#number`). */
export interface QueueRemoval {
  at: string;
  removed: string[];
  failed: Array<{ pr: string; error: string }>;
}

export interface StepState {
  id: string;
  status: StepStatus;
  /** Current attempt: step, attempt and epoch identify it; results for any other are ignored. */
  attempt: number;
  epoch: number;
  mode: AttemptMode;
  /** Repairs used since the step last started from scratch (bounded by repair.maxAttempts). */
  repairs: number;
  /** Re-dispatches of a lost attempt (bounded). */
  losses: number;
  attempts: AttemptRecord[];
  /** The last result of a `run` attempt (not a repair's). */
  result?: StepResult;
  /** Why it waits or failed, in words for a person. */
  reason?: string;
}

/** Why an approval no longer counts. */
export type Staleness =
  /** Someone (a person, or another tool) pushed a new head after the approval. */
  | { kind: 'pushed'; by: string; repo: string; head: string }
  /** An agent of the run (a repair after the approval) wrote a new head. */
  | { kind: 'agent-wrote'; step: string; repo: string; head: string }
  /** The approval step ran again (a retry). */
  | { kind: 'retried'; by?: string }
  /** The stored result of a step before it did not verify: the step counts as not run, and runs again. */
  | { kind: 'unverified'; step: string }
  /** People asked for changes (`/conveyor fix`, a review requesting changes): the code step repairs, and what follows runs again. */
  | { kind: 'feedback'; by: string };

export interface Approval {
  step: string;
  by: string;
  at: string;
  /** Head commit of every PR when the approval was given; a later head makes it stale. */
  heads: Record<string, string>;
  /** Set when the approval no longer counts. */
  stale?: Staleness;
}

/** What people asked the coder to change, from the pull request or the command line. */
export interface Feedback {
  /** Unique per run, so a redelivered comment or review counts once: `comment:<id>`, `review:<id>`, `cli:<time>`. */
  id: string;
  by: string;
  at: string;
  source: 'comment' | 'review' | 'command-line';
  /** As written (sanitized and quoted when it is put in the prompt). */
  text: string;
  url?: string;
  /** A review's inline comments. */
  comments?: FeedbackComment[];
  /** The code step's repair attempt it went to; absent while it waits for the attempts under way. */
  taken?: { step: string; attempt: number };
  /** Why it was not given to the agent (the pull requests merged while it waited). */
  dropped?: string;
}

export interface FeedbackComment {
  path: string;
  line?: number;
  body: string;
}

export interface RunIssue {
  repo: string;
  number: number;
  title: string;
  body: string;
  url?: string;
  /** Who opened the issue (GitHub's login and id): the co-author of the commits made for it. */
  author?: { login: string; id: number };
}

export interface Run {
  id: string;
  /** Compare-and-swap version, owned by the store. */
  version: number;
  status: RunStatus;
  /** What the run waits for, in words (with the command that continues it). */
  waitingFor?: string;
  plan: Plan;
  issue: RunIssue;
  requester?: string;
  /** Who started the run and how (core/run/origin.ts): the GitHub App's installation, or the command line's files. */
  origin: RunOrigin;
  /** What holds for the whole run: the payload limit, whether environments are kept. */
  settings: RunSettings;
  steps: Record<string, StepState>;
  /** Latest PR of each repository of the change set. */
  prs: PullRequestRef[];
  /**
   * The run whose partial merge this run undoes (core/run/revert.ts): its PRs are revert PRs, and
   * its merge goes consumers first.
   */
  revertOf?: string;
  /** The protected paths (`protect`) each repository's change holds, at the head they were found at: the latest per repository (core/run/protect.ts). */
  protectedPaths?: ProtectedChange[];
  /** Latest outcome of each service's environment (torn-down ones move to removedEnvironments). */
  environments: Environment[];
  /** Environments that were torn down, latest per service. */
  removedEnvironments?: Environment[];
  /** Why a run was cancelled, in words. */
  reason?: string;
  /**
   * Set when the forge can no longer be reached for this run (the app was uninstalled, or lost
   * its repositories), with why: nothing more is asked of it, not even a teardown or a report.
   */
  unreachable?: string;
  approvals: Approval[];
  /** People's feedback in the order it came (absent until there is some). */
  feedback?: Feedback[];
  createdAt: string;
  updatedAt: string;
}

export type RunEvent =
  | { type: 'started'; at: string }
  /** `inputs`: only for a merge the engine carried out itself and sealed (a dispatched attempt's are in its record). */
  | { type: 'step-completed'; at: string; result: StepResult; inputs?: string }
  /** `environments`: what a lost deploy attempt had settled before it was lost (kept for its re-dispatch). */
  | { type: 'step-lost'; at: string; step: string; attempt: number; epoch: number; reason: string; environments?: Environment[] }
  /** A deploy attempt's environments as they settle, before its result. */
  | { type: 'environments-settled'; at: string; step: string; attempt: number; epoch: number; environments: Environment[] }
  /**
   * `team`: an approvers' `@org/team` the app verified `by` is an active member of (the reducer cannot ask GitHub).
   * `heads`: the head of each PR of the run when the decision was asked for (what its giver was shown); an
   * approval whose heads are no longer the PRs' is refused. Absent: the heads of the run it is applied to.
   */
  | { type: 'decision'; at: string; step?: string; decision: 'approve' | 'reject'; by: string; reason?: string; team?: string; heads?: Record<string, string> }
  /**
   * `budgetUsd`: the pipeline's `budget-usd` as the configuration says when the retry is asked for
   * (null: it has none now); the run goes on with it (see core/run/usage.ts). Absent: unchanged.
   */
  | { type: 'retry'; at: string; step?: string; by?: string; budgetUsd?: number | null }
  /** A person asks the coder for a change: the code step repairs with it once no attempt is under way. */
  | ({ type: 'feedback'; at: string } & Omit<Feedback, 'at' | 'taken' | 'dropped'>)
  /**
   * The person driving the run stopped it (Ctrl-C on `conveyor run`): the attempts under way are
   * stopped and recorded as interrupted, their steps failed, and the run waits for a retry (never
   * dispatched again on its own, as a lost attempt is). `reason`: who stopped it, and how to resume.
   */
  | { type: 'interrupted'; at: string; reason: string }
  /** `unreachable`: the forge itself is gone for this run (see Run.unreachable). */
  | { type: 'cancel'; at: string; by?: string; reason?: string; unreachable?: boolean }
  /**
   * `own`: the push was Conveyor's own (the app recognized its bot by identity; an agent's work is
   * judged from its result, see the reducer's repairs). Never inferred from the name `by`.
   */
  | { type: 'pr-pushed'; at: string; repo: string; head: string; by: string; own?: boolean }
  | { type: 'pr-closed'; at: string; repo: string; merged: boolean }
  /** The merge step's attempt enqueued PRs (or found them enqueued) and waits for the queue to merge them. */
  | {
      type: 'merge-enqueued';
      at: string;
      step: string;
      attempt: number;
      epoch: number;
      enqueued: Array<Pick<QueueEntry, 'repo' | 'number' | 'head'>>;
      merged: PullRequestRef[];
    }
  /**
   * A merge queue moved: a PR it held `merged`, or was `removed` (GitHub's `pull_request.dequeued`
   * `reason`, e.g. CI_FAILURE, MERGE_CONFLICT); `look`: the sweeper asks the merge step to look again.
   */
  | { type: 'merge-queue'; at: string; change: 'merged' | 'removed' | 'look'; pr?: { repo: string; number: number }; reason?: string }
  /**
   * The engine stopped a merge attempt that waited for a queue (its run was cancelled): the PRs it
   * took out of the queue, and those it could not, with why (they may still merge).
   */
  | {
      type: 'merge-dequeued';
      at: string;
      step: string;
      attempt: number;
      epoch: number;
      removed: Array<{ repo: string; number: number }>;
      failed: Array<{ repo: string; number: number; error: string }>;
    }
  /** `environments`: removed; `failed`: still up after the teardown tried (each with its `error`). */
  | { type: 'torn-down'; at: string; environments: Environment[]; failed?: Environment[] };

/**
 * Effects are keyed so that carrying one out twice does nothing the second time; those for one
 * attempt carry its ref, and their keys are its key's (core/contract/attempt-ref.ts).
 */
export interface DispatchEffect {
  type: 'dispatch';
  key: string;
  /** A step's attempt (a teardown is a `teardown` effect). */
  ref: AttemptRef & { mode: AttemptMode };
  /** Repairs only: what the repair agent should address (the payload's `findings`). */
  findings?: string;
  /** Exactly what is sent to the action (cut to fit the dispatcher's limit, where it had to be); its digest is the attempt's recorded inputs. */
  payload: StepPayload;
}

export type RunEffect =
  | DispatchEffect
  | { type: 'merge'; key: string; ref: AttemptRef & { mode: 'run' } }
  /** Judges the required checks of the PRs' heads (the `ci` step, in the app); judged again on each check's webhook until they settle. */
  | { type: 'ci'; key: string; ref: AttemptRef & { mode: 'run' } }
  /**
   * Stops an attempt under way that the run no longer waits for (it was cancelled): where it runs
   * (a workflow run, a step process) it is stopped, and its check run says why (`reason`); a merge
   * attempt waiting for a merge queue has the engine take its PRs out of the queue. Before
   * anything else of its transition is carried out (engine/engine.ts): a teardown must not race a
   * deploy still standing an environment up.
   */
  | { type: 'stop'; key: string; ref: AttemptRef & { mode: AttemptMode }; reason: string }
  | { type: 'teardown'; key: string; environments: Environment[] }
  | { type: 'report'; key: string }
  | { type: 'reply'; key: string; text: string };

export interface Transition {
  run: Run;
  effects: RunEffect[];
}

/** An effect as the reducer's parts make it: a dispatch gets its payload last, from the run it leads to (reducer.ts, withPayloads). */
export type DraftEffect = Exclude<RunEffect, DispatchEffect> | Omit<DispatchEffect, 'payload'>;

/** A transition as the reducer's parts make it, before its dispatches carry their payloads. */
export interface DraftTransition {
  run: Run;
  effects: DraftEffect[];
}
