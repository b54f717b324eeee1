// What the GitHub App knows about a run on GitHub that the run itself does not hold: the check run
// and workflow run of each attempt (and how far its dispatch got, so that a dispatch interrupted by
// a crash is looked up on GitHub before it is done again), the tracking comment, and the summary
// check run of each head. Only GitHub's side uses it (the app and the workflow dispatcher), so it
// lives beside the GitHub adapter; the same store as the runs keeps it (adapters/store).

/**
 * How far the dispatch of an attempt got. `creating-check` is written before the check run is
 * created: a try that finds it looks on GitHub for the check run, then for the workflow run,
 * before making either. `dispatched` once the workflow was dispatched.
 */
export type DispatchState = 'creating-check' | 'dispatched';

export interface AttemptLink {
  externalId: string;
  runId: string;
  /** The repository the attempt's check run and workflow run belong to. */
  repo: string;
  state: DispatchState;
  head?: string;
  checkRunId?: number;
  checkRunUrl?: string;
  workflowRunId?: number;
  workflowRunUrl?: string;
  /** When the state last changed (ISO). */
  at: string;
}

export interface CommentLink {
  id: number;
  url: string;
}

export interface LinkStore {
  attempt(externalId: string): Promise<AttemptLink | undefined>;
  /** Every attempt of a run (all steps, attempts and epochs), ordered by external id. */
  attemptsOfRun(runId: string): Promise<AttemptLink[]>;
  /** The attempt whose check run this is, in this repository. */
  attemptByCheckRun(repo: string, checkRunId: number): Promise<AttemptLink | undefined>;
  /** The attempt whose workflow run this is, in this repository. */
  attemptByWorkflowRun(repo: string, workflowRunId: number): Promise<AttemptLink | undefined>;
  saveAttempt(link: AttemptLink): Promise<void>;
  comment(runId: string): Promise<CommentLink | undefined>;
  saveComment(runId: string, comment: CommentLink): Promise<void>;
  summary(runId: string, head: string): Promise<number | undefined>;
  saveSummary(runId: string, head: string, checkRunId: number): Promise<void>;
}
