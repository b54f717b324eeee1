// Pull requests on GitHub: find, open (the run's draft among them), update, reopen, read, list,
// merge, revert, mark ready for review, and a review's inline comments. Most of it is the Forge port's
// (forge.ts delegates); the draft, the reopen and the review comments only the app asks for.
import { z } from 'zod';
import { ConveyorError } from '../../../core/errors.ts';
import { fitComment, PR_TITLE_MAX } from '../../../core/github/limits.ts';
import type { MergeOptions, MergeResult, OpenPullRequest, PullRequest } from '../../../engine/ports/forge.ts';
import { MergeRefused, splitRepo } from '../../../engine/ports/forge.ts';
import { GitHubApiError, graphqlRefusal } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams, type Rest } from './api.ts';

/** A pull request as one read (GET, POST, PATCH) answers it: with its mergeability. */
type ApiPull = Rest['pulls']['get']['response']['data'];
/** A pull request as a list answers it: without `merged`, `mergeable` and `mergeable_state`. */
type ApiListedPull = Rest['pulls']['list']['response']['data'][number];

function toPullRequest(repo: string, p: ApiPull | ApiListedPull): PullRequest {
  // Only a single PR's read has these (a list does not).
  const mergeable = 'mergeable' in p ? p.mergeable : undefined;
  const mergeableState = 'mergeable_state' in p ? p.mergeable_state : undefined;
  const merged = Boolean(('merged' in p && p.merged) || p.merged_at);
  return {
    repo,
    number: p.number,
    url: p.html_url,
    branch: p.head.ref,
    head: p.head.sha,
    base: p.base.ref,
    title: p.title,
    body: p.body ?? '',
    state: merged ? 'merged' : p.state === 'open' ? 'open' : 'closed',
    ...(merged && p.merge_commit_sha ? { mergeCommit: p.merge_commit_sha } : {}),
    ...(mergeable !== undefined ? { mergeable } : {}),
    ...(mergeableState !== undefined ? { mergeableState } : {}),
    ...(p.draft !== undefined ? { draft: p.draft } : {}),
    ...(p.node_id ? { nodeId: p.node_id } : {}),
  };
}

const REVERT_PULL_REQUEST = `mutation($input: RevertPullRequestInput!) {
  revertPullRequest(input: $input) {
    revertPullRequest { id number url headRefName headRefOid baseRefName title body state merged isDraft }
  }
}`;

/** What GitHub answers revertPullRequest with: the new PR (`revertPullRequest`). */
const revertAnswer = z.object({
  revertPullRequest: z.object({
    revertPullRequest: z.object({
      id: z.string(),
      number: z.number().int().positive(),
      url: z.string(),
      headRefName: z.string(),
      headRefOid: z.string(),
      baseRefName: z.string(),
      title: z.string(),
      body: z.string(),
      state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
      merged: z.boolean(),
      isDraft: z.boolean(),
    }),
  }),
});

/** The branch GitHub reverts PR `number` of head branch `branch` on. */
export const revertBranch = (number: number, branch: string): string => `revert-${number}-${branch}`;

export class Pulls {
  constructor(private readonly octokit: GitHubOctokit) {}

  async find(repo: string, branch: string): Promise<PullRequest | undefined> {
    const { owner } = splitRepo(repo);
    // One open PR per head branch at most: the first page holds it.
    const { data } = await this.octokit.rest.pulls.list({ ...repoParams(repo), head: `${owner}:${branch}`, state: 'open', per_page: 10 });
    const found = data.find((p) => p.head.ref === branch);
    return found ? toPullRequest(repo, found) : undefined;
  }

  async open(pr: OpenPullRequest, how: { draft?: boolean } = {}): Promise<PullRequest> {
    const { data } = await this.octokit.rest.pulls.create({
      ...repoParams(pr.repo),
      head: pr.branch,
      base: pr.base,
      title: pr.title.slice(0, PR_TITLE_MAX),
      body: fitComment(pr.body),
      ...(how.draft ? { draft: true } : {}),
    });
    return toPullRequest(pr.repo, data);
  }

  /**
   * The run's draft pull request, opened as the run starts so that its check runs live on it from
   * the first step: an empty commit on the base's head (its tree, the head as parent) through the
   * Git data API, the work branch at it, and a draft PR. A work branch that exists already (a
   * restart on the same branch) is kept as it is, and its open PR taken when there is one.
   */
  async openDraft(pr: OpenPullRequest & { baseCommit: { sha: string; tree: string }; message: string }): Promise<PullRequest> {
    const at = repoParams(pr.repo);
    const commit = await this.octokit.rest.git.createCommit({ ...at, message: pr.message, tree: pr.baseCommit.tree, parents: [pr.baseCommit.sha] });
    try {
      await this.octokit.rest.git.createRef({ ...at, ref: `refs/heads/${pr.branch}`, sha: commit.data.sha });
    } catch (e) {
      // 422 "Reference already exists": the branch holds earlier work of this issue; an open PR of it is the run's.
      if (!(e instanceof GitHubApiError && e.status === 422)) throw e;
      const open = await this.find(pr.repo, pr.branch);
      if (open) return open;
    }
    return this.open(pr, { draft: true });
  }

  /** GraphQL's markPullRequestReadyForReview: REST cannot turn a draft into a PR ready to merge. */
  async markReadyForReview(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>): Promise<void> {
    const id = pr.nodeId ?? (await this.get(pr.repo, pr.number)).nodeId;
    if (!id) throw new Error(`${pr.repo}#${pr.number} has no GraphQL id to mark it ready for review`);
    await this.octokit.graphql('mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }', { id });
  }

  /**
   * GraphQL's revertPullRequest (REST has no revert): GitHub makes the revert commit on a new branch
   * of its own naming and opens the PR, so the app runs no git. Its answer is checked (zod) before
   * it becomes a PullRequest; a refusal (not merged, a revert that does not apply) is a
   * ConveyorError `forge-failed` naming the PR and GitHub's words. GitHub opens another revert PR
   * each time it is asked: a revert PR already open on its branch (`revert-<number>-<branch>`:
   * the command given again after a failure past this point, a delivery GitHub made again) is
   * answered instead.
   */
  async revert(repo: string, number: number, pr: { title: string; body: string }): Promise<PullRequest> {
    const original = await this.get(repo, number);
    const open = await this.find(repo, revertBranch(number, original.branch));
    if (open) return open;
    if (!original.nodeId) throw new ConveyorError('forge-failed', `${repo}#${number} has no GraphQL id to revert it by`);
    let answer: unknown;
    try {
      answer = await this.octokit.graphql(REVERT_PULL_REQUEST, {
        input: { pullRequestId: original.nodeId, title: pr.title.slice(0, PR_TITLE_MAX), body: fitComment(pr.body), draft: false },
      });
    } catch (e) {
      // A GraphQL refusal comes as an answer with `errors` (HTTP 200); a failed call as a GitHubApiError.
      if (e instanceof GitHubApiError) throw e;
      throw new ConveyorError('forge-failed', `GitHub did not revert ${repo}#${number}: ${graphqlRefusal(e)}`, { cause: e });
    }
    const parsed = revertAnswer.safeParse(answer);
    if (!parsed.success)
      throw new ConveyorError('forge-failed', `GitHub's answer to reverting ${repo}#${number} is not a pull request: ${z.prettifyError(parsed.error)}`);
    const p = parsed.data.revertPullRequest.revertPullRequest;
    return {
      repo,
      number: p.number,
      url: p.url,
      branch: p.headRefName,
      head: p.headRefOid,
      base: p.baseRefName,
      title: p.title,
      body: p.body,
      state: p.merged ? 'merged' : p.state === 'OPEN' ? 'open' : 'closed',
      draft: p.isDraft,
      nodeId: p.id,
    };
  }

  async update(repo: string, number: number, change: { title?: string; body?: string }): Promise<PullRequest> {
    const fitted = {
      ...(change.title !== undefined ? { title: change.title.slice(0, PR_TITLE_MAX) } : {}),
      ...(change.body !== undefined ? { body: fitComment(change.body) } : {}),
    };
    const { data } = await this.octokit.rest.pulls.update({ ...repoParams(repo), pull_number: number, ...fitted });
    return toPullRequest(repo, data);
  }

  /** Opens a closed PR again; GitHub refuses (422, saying why) when its head branch is gone. */
  async reopen(repo: string, number: number): Promise<void> {
    await this.octokit.rest.pulls.update({ ...repoParams(repo), pull_number: number, state: 'open' });
  }

  /** With its mergeability (`mergeable: null` while GitHub computes it). */
  async get(repo: string, number: number): Promise<PullRequest> {
    const { data } = await this.octokit.rest.pulls.get({ ...repoParams(repo), pull_number: number });
    return toPullRequest(repo, data);
  }

  /**
   * A PR's body alone, read as its issue's: a read of the PR itself (get) has GitHub start computing
   * its mergeability, which a body does not need.
   */
  async body(repo: string, number: number): Promise<string> {
    const { data } = await this.octokit.rest.issues.get({ ...repoParams(repo), issue_number: number });
    return data.body ?? '';
  }

  async list(repo: string, options: { branches: string[]; state?: 'open' | 'closed' | 'all' }): Promise<PullRequest[]> {
    const { owner } = splitRepo(repo);
    const out: PullRequest[] = [];
    for (const branch of options.branches) {
      const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, {
        ...repoParams(repo),
        head: `${owner}:${branch}`,
        state: options.state ?? 'all',
        per_page: 100,
      });
      for (const p of pulls) if (p.head.ref === branch) out.push(toPullRequest(repo, p));
    }
    return out.sort((a, b) => a.number - b.number);
  }

  /**
   * Not retried on a server error or a lost answer (`retries: 0`): a merge GitHub did whose answer
   * was lost must be judged again (read), not sent twice. A refusal is a GitHubApiError with its status.
   */
  async merge(repo: string, number: number, options: MergeOptions): Promise<MergeResult> {
    try {
      const { data } = await this.octokit.rest.pulls.merge({
        ...repoParams(repo),
        pull_number: number,
        merge_method: options.method,
        commit_title: options.title,
        ...(options.message !== undefined ? { commit_message: options.message } : {}),
        ...(options.expectedHead ? { sha: options.expectedHead } : {}),
        request: { retries: 0 },
      });
      return { merged: data.merged, sha: data.sha, ...(!data.merged && data.message ? { message: data.message } : {}) };
    } catch (e) {
      // 405: not mergeable (a conflict, or behind a base that protection wants merged in); 409: the
      // head moved under the merge. Either way the work branch must take the base in again.
      if (e instanceof GitHubApiError && (e.status === 405 || e.status === 409)) throw new MergeRefused(`(HTTP ${e.status}) ${e.githubMessage}`, true);
      throw e;
    }
  }

  /** A review's inline comments (the first 100: what feedback keeps), each with its file and line. */
  async reviewComments(repo: string, number: number, reviewId: number): Promise<Array<{ path: string; line?: number; body: string }>> {
    const { data } = await this.octokit.rest.pulls.listCommentsForReview({ ...repoParams(repo), pull_number: number, review_id: reviewId, per_page: 100 });
    return data.map((c) => {
      const line = c.line ?? c.original_line ?? undefined;
      return { path: c.path, ...(typeof line === 'number' ? { line } : {}), body: c.body };
    });
  }
}
