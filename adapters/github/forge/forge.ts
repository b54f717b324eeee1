// The Forge port on GitHub (engine/ports/forge.ts): what the engine's merge policy and the action's
// steps ask of a code host, carried out by the pull-request, review and deployment modules over one
// Octokit. What only GitHub has (check runs, comments, people, workflow runs) is not the port's:
// the app and the action reach it through those modules themselves (github.ts).
import type {
  BranchRules,
  DeploymentRequest,
  DeploymentStatus,
  Forge,
  MergeOptions,
  MergeResult,
  OpenPullRequest,
  PullRequest,
  Review,
  ReviewRequest,
} from '../../../engine/ports/forge.ts';
import { createGitHubOctokit, type GitHubOctokit, type GitHubOctokitOptions } from '../octokit.ts';
import { Deployments } from './deployments.ts';
import { GitHubGitData } from './git-data.ts';
import { GitHubCi } from './ci.ts';
import { Pulls } from './pulls.ts';
import { GitHubMergeQueue } from './queue.ts';
import { Reviews } from './reviews.ts';

/** An Octokit of adapters/github/octokit.ts (the app's installation Octokit), or a token for one (the action's). */
export type GitHubSource = { octokit: GitHubOctokit } | GitHubOctokitOptions;

export function octokitOf(source: GitHubSource): GitHubOctokit {
  return 'octokit' in source ? source.octokit : createGitHubOctokit(source);
}

export class GitHubForge implements Forge {
  readonly pulls: Pulls;
  readonly deployments: Deployments;
  readonly reviews: Reviews;
  readonly gitData: GitHubGitData;
  readonly ci: GitHubCi;
  readonly mergeQueue: GitHubMergeQueue;

  constructor(source: GitHubSource) {
    const octokit = octokitOf(source);
    this.pulls = new Pulls(octokit);
    this.deployments = new Deployments(octokit);
    this.reviews = new Reviews(octokit);
    this.gitData = new GitHubGitData(octokit);
    this.ci = new GitHubCi(octokit);
    this.mergeQueue = new GitHubMergeQueue(octokit);
  }

  branchRules(repo: string, branch: string): Promise<BranchRules> {
    return this.mergeQueue.branchRules(repo, branch);
  }

  commitsBehind(repo: string, base: string, head: string): Promise<number> {
    return this.mergeQueue.commitsBehind(repo, base, head);
  }

  findPullRequest(repo: string, branch: string): Promise<PullRequest | undefined> {
    return this.pulls.find(repo, branch);
  }

  openPullRequest(pr: OpenPullRequest): Promise<PullRequest> {
    return this.pulls.open(pr);
  }

  updatePullRequest(repo: string, number: number, change: { title?: string; body?: string }): Promise<PullRequest> {
    return this.pulls.update(repo, number, change);
  }

  getPullRequest(repo: string, number: number): Promise<PullRequest> {
    return this.pulls.get(repo, number);
  }

  listPullRequests(repo: string, options: { branches: string[]; state?: 'open' | 'closed' | 'all' }): Promise<PullRequest[]> {
    return this.pulls.list(repo, options);
  }

  mergePullRequest(repo: string, number: number, options: MergeOptions): Promise<MergeResult> {
    return this.pulls.merge(repo, number, options);
  }

  revertPullRequest(repo: string, number: number, pr: { title: string; body: string }): Promise<PullRequest> {
    return this.pulls.revert(repo, number, pr);
  }

  markReadyForReview(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>): Promise<void> {
    return this.pulls.markReadyForReview(pr);
  }

  createReview(request: ReviewRequest): Promise<Review> {
    return this.reviews.create(request);
  }

  listReviews(repo: string, number: number): Promise<Review[]> {
    return this.reviews.list(repo, number);
  }

  dismissReview(repo: string, number: number, id: number, message: string): Promise<void> {
    return this.reviews.dismiss(repo, number, id, message);
  }

  editReview(repo: string, number: number, id: number, body: string): Promise<void> {
    return this.reviews.edit(repo, number, id, body);
  }

  createDeployment(request: DeploymentRequest): Promise<{ id: number }> {
    return this.deployments.create(request);
  }

  setDeploymentStatus(repo: string, id: number, status: DeploymentStatus): Promise<void> {
    return this.deployments.setStatus(repo, id, status);
  }
}
