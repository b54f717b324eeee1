// The Forge port: what Conveyor needs from a code host to open, link and merge pull requests.
// Two adapters: GitHub (adapters/github/forge/forge.ts, on Octokit) and Local (bare repositories
// plus a SQLite file of PRs). The action opens PRs, deployments and reviews through it, and the
// embedded mode merges through it; what only GitHub has (check runs, comments, permissions, workflow
// dispatch) the app calls on GitHub's modules themselves (adapters/github/forge/github.ts).

import type { ObservedCheckRun, ObservedStatus, RequiredCheck } from '../../core/steps/ci-checks.ts';

export type PullRequestState = 'open' | 'closed' | 'merged';
export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface PullRequest {
  repo: string;
  number: number;
  url: string;
  /** Head (work) branch name. */
  branch: string;
  /** Head commit. */
  head: string;
  base: string;
  title: string;
  body: string;
  state: PullRequestState;
  /** The merge commit on the base, once merged. */
  mergeCommit?: string;
  /** Whether it merges cleanly into its base; null while the forge is still computing it. Read of one PR only. */
  mergeable?: boolean | null;
  /** GitHub's finer verdict (clean, dirty, behind, blocked, unstable, unknown...). Read of one PR only. */
  mergeableState?: string;
  draft?: boolean;
  /** GitHub's GraphQL id (what marking a draft ready for review takes). */
  nodeId?: string;
}

export interface OpenPullRequest {
  repo: string;
  branch: string;
  base: string;
  title: string;
  body: string;
}

export interface MergeOptions {
  method: MergeMethod;
  /** First line of the merge (or squash) commit. */
  title: string;
  /** The rest of the message, e.g. a trailer block. */
  message?: string;
  /** Merge only if the head is still this commit. */
  expectedHead?: string;
}

export interface MergeResult {
  merged: boolean;
  /** Commit on the base after the merge. */
  sha: string;
  /** The forge's word on it (GitHub's `message`), when it gave one. */
  message?: string;
}

/**
 * A merge the forge refused: `conflict` when the PR does not merge cleanly into its base (or must
 * be brought up to date with it first); the merge policy then has the conflict repaired instead.
 */
export class MergeRefused extends Error {
  constructor(
    message: string,
    readonly conflict: boolean,
  ) {
    super(message);
    this.name = 'MergeRefused';
  }
}

/** A GitHub Deployment of a preview environment (transient: it goes away with the run). */
export interface DeploymentRequest {
  repo: string;
  /** The commit deployed (the PR's head, or the base's when the run did not change the repository). */
  ref: string;
  /** The environment's name: its CONVEYOR_ENV_ID. */
  environment: string;
  description: string;
  transient: boolean;
}

export type DeploymentState = 'in_progress' | 'success' | 'failure' | 'inactive';

export interface DeploymentStatus {
  state: DeploymentState;
  environmentUrl?: string;
  description?: string;
}

export type ReviewEvent = 'COMMENT' | 'REQUEST_CHANGES';
/** GitHub's states of a submitted review (`PENDING` is one not submitted yet). */
export type ReviewState = 'COMMENTED' | 'CHANGES_REQUESTED' | 'APPROVED' | 'DISMISSED' | 'PENDING';

/** A review comment on a line of the PR's diff, on its new side (GitHub's `side: RIGHT`). */
export interface ReviewLineComment {
  path: string;
  line: number;
  body: string;
}

/** A pull request review to post. Conveyor never approves: approving is for people. */
export interface ReviewRequest {
  repo: string;
  number: number;
  /** The commit reviewed: its diff is what the comments' lines are on. */
  commit: string;
  event: ReviewEvent;
  body: string;
  comments: ReviewLineComment[];
}

export interface Review {
  id: number;
  url: string;
  state: ReviewState;
  body: string;
  /** Who posted it (a login; the app's bot on GitHub). */
  author: string;
  commit?: string;
  /** Its comments on lines, where the forge gives them with the review (the local one). */
  comments?: ReviewLineComment[];
  /** Why it was dismissed, where the forge keeps it with the review (the local one). */
  dismissal?: string;
}

/**
 * A review the forge refused for a reason the poster can do something about: `own-pull-request`
 * (GitHub lets no one request changes on a PR they opened: post it as a comment), `lines` (a
 * comment's line is not in the diff as the forge sees it: put the findings in the body).
 */
export class ReviewRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'own-pull-request' | 'lines',
  ) {
    super(message);
    this.name = 'ReviewRefused';
  }
}

/** A file of a tree as git records it: a file, an executable file, a symbolic link, a submodule's commit. */
export type TreeMode = '100644' | '100755' | '120000' | '160000';

/**
 * One path of a tree the forge makes on top of another (`base`): its object by id (one the forge
 * holds), its text inline (the forge writes the blob), or `null`, which removes the path.
 */
export type TreeEntry = { path: string; mode: TreeMode } & ({ sha: string } | { content: string } | { sha: null });

/** A commit the forge made: its id and whether the forge signed it (GitHub's `verification`). */
export interface MadeCommit {
  sha: string;
  verified: boolean;
  /** The forge's word on the signature (GitHub's `verification.reason`: `valid`, `unsigned`...). */
  reason?: string;
}

/** A branch update the forge refused, in its words: someone else moved (or made) the branch. */
export type BranchUpdate = { updated: true } | { updated: false; message: string };

/**
 * Commits made by the forge itself (GitHub's Git data API: blobs, trees, commits, refs), which
 * the forge signs: what a branch that requires signed commits takes. The local forge has none.
 */
export interface GitData {
  /** Writes a file's bytes as a blob; returns its id. */
  createBlob(repo: string, content: Buffer): Promise<string>;
  /** The tree `base` with `entries` applied; returns its id. */
  createTree(repo: string, base: string, entries: readonly TreeEntry[]): Promise<string>;
  /** A commit of `tree` on `parents`, authored and committed by the token's own account (so the forge may sign it). */
  createCommit(repo: string, commit: { message: string; tree: string; parents: readonly string[] }): Promise<MadeCommit>;
  /** Creates `branch` at `sha`; refused when it exists. */
  createBranch(repo: string, branch: string, sha: string): Promise<BranchUpdate>;
  /** Moves `branch` to `sha` only as a fast-forward: refused when the branch holds anything `sha` does not. */
  advanceBranch(repo: string, branch: string, sha: string): Promise<BranchUpdate>;
  /**
   * Moves `branch` to `sha`, whatever it held, only while it is at `expected` (git's
   * `--force-with-lease`): a branch started over from its base replaces its old head. Refused when
   * it is elsewhere or gone.
   */
  moveBranch(repo: string, branch: string, sha: string, expected: string): Promise<BranchUpdate>;
}

/**
 * What a base branch requires of a merge into it (GitHub's rulesets: `GET /rules/branches/{branch}`;
 * the local forge: a settings file beside the bare repository). `mergeQueue`: only a merge queue
 * may merge into it (the merge step enqueues instead). `upToDate`: a PR must hold the branch's
 * latest commit before it merges (the merge step has the base merged in first, and the gates run
 * again on that head). Classic branch protection's "up to date" shows instead as the PR's
 * `mergeableState` `behind` (reading that protection needs the Administration permission).
 */
export interface BranchRules {
  mergeQueue: boolean;
  upToDate: boolean;
}

/**
 * A merge queue that the forge runs (GitHub's, or the local forge's): a PR is enqueued pinned to
 * the head that was approved, and the queue merges it later, or removes it saying why.
 */
export interface MergeQueue {
  /** Enqueues the PR only while its head is `expectedHead`; a MergeRefused when the forge refuses. */
  enqueue(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>, expectedHead: string): Promise<void>;
  /** Whether the PR is in its base branch's queue now (enqueued and neither merged nor removed). */
  holds(repo: string, number: number): Promise<boolean>;
  /**
   * Takes the PR out of its queue (its run was cancelled): true when it did, false when the queue
   * did not hold it (it merged, was removed, or never got in), which is no failure. Throws when
   * the forge refuses to remove a PR it still holds.
   */
  dequeue(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>): Promise<boolean>;
}

export interface Forge {
  /** The open pull request whose head is `branch` in `repo`, if any. */
  findPullRequest(repo: string, branch: string): Promise<PullRequest | undefined>;
  openPullRequest(pr: OpenPullRequest): Promise<PullRequest>;
  updatePullRequest(repo: string, number: number, change: { title?: string; body?: string }): Promise<PullRequest>;
  getPullRequest(repo: string, number: number): Promise<PullRequest>;
  /** Pull requests of `repo` whose head branch is one of `branches` (a run's work branches). */
  listPullRequests(repo: string, options: { branches: string[]; state?: 'open' | 'closed' | 'all' }): Promise<PullRequest[]>;
  mergePullRequest(repo: string, number: number, options: MergeOptions): Promise<MergeResult>;
  /**
   * Opens a pull request that reverts a merged one (what it brought into its base, undone on the
   * base as it is now), ready for review, on a branch the forge names (GitHub's
   * `revert-<number>-<branch>`). Asked again while that revert PR is open, it answers that one
   * (a command redelivered after a failure opens no second revert). A ConveyorError `forge-failed`
   * when it is not merged or its revert does not apply cleanly.
   */
  revertPullRequest(repo: string, number: number, pr: { title: string; body: string }): Promise<PullRequest>;
  /**
   * A draft becomes ready for review (merging refuses drafts): the action does it once the code
   * step pushed the run's change into its draft PR. Forges without drafts (local) leave it out.
   */
  markReadyForReview?(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>): Promise<void>;
  /** Posts a submitted review; a ReviewRefused when the forge refused it for its event or its lines. */
  createReview(request: ReviewRequest): Promise<Review>;
  /** Every review of the PR, oldest first. */
  listReviews(repo: string, number: number): Promise<Review[]>;
  /** Dismisses a review that requests changes (or approves); forges refuse it for a comment. */
  dismissReview(repo: string, number: number, id: number, message: string): Promise<void>;
  /** Replaces a review's body (its comments on lines stay). */
  editReview(repo: string, number: number, id: number, body: string): Promise<void>;
  /** Deployments show preview environments on the PR; forges without them (local) leave these out. */
  createDeployment?(request: DeploymentRequest): Promise<{ id: number }>;
  setDeploymentStatus?(repo: string, id: number, status: DeploymentStatus): Promise<void>;
  /** Commits made by the forge itself, which it signs (GitHub); forges without them (local) leave it out: steps push with git. */
  gitData?: GitData;
  /** The repository's own CI: what base branches require, what heads have (GitHub); forges without CI (local) leave it out. */
  ci?: CiReader;
  /** What `branch` of `repo` requires of a merge into it; forges without rules leave it out (none). */
  branchRules?(repo: string, branch: string): Promise<BranchRules>;
  /** How many commits of `base` the commit `head` lacks (0: up to date with it). */
  commitsBehind?(repo: string, base: string, head: string): Promise<number>;
  /** The forge's merge queue; forges without one leave it out. */
  mergeQueue?: MergeQueue;
  /** Releases what the adapter holds open (the local forge's database). */
  close?(): void;
}

/**
 * What a base branch requires and what other apps reported on a commit: the `ci` step waits on it,
 * and a merge blocked by it names the checks.
 */
export interface CiReader {
  /** The checks `branch` requires (branch protection and rulesets), each once per source; none when it requires none. */
  requiredChecks(repo: string, branch: string): Promise<RequiredCheck[]>;
  /** The latest check run of each name and the latest status of each context on `sha` (every page). */
  commitChecks(repo: string, sha: string): Promise<{ checkRuns: ObservedCheckRun[]; statuses: ObservedStatus[] }>;
  /** A GitHub Actions job's log (its last part where it is long); undefined where it cannot be read. */
  jobLog(repo: string, jobId: number): Promise<string | undefined>;
}

export function splitRepo(repo: string): { owner: string; name: string } {
  const [owner, name] = repo.split('/');
  if (!owner || !name) throw new Error(`repository "${repo}" is not "owner/name"`);
  return { owner, name };
}
