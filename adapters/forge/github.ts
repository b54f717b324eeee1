// The GitHub adapter: every call Conveyor makes to GitHub, on an Octokit configured once
// (adapters/github/octokit.ts: Probot's installation Octokit in the app, @octokit/rest in the
// action; retries, rate limits and pacing are its plugins' job, and every failure arrives as a
// GitHubApiError). The Forge port's methods are what the engine and the action's steps use; the
// rest (check runs, comments, permissions, workflow dispatch) only the app and the action's
// check-run reporter call, on this class directly. A 404 that means "not there" is `undefined`
// (or `none`) where callers ask whether something exists.
import { DEPLOYMENT_DESCRIPTION_MAX, fitCheckOutput, fitComment, PR_TITLE_MAX } from '../../core/github/limits.ts';
import type { DeploymentRequest, DeploymentStatus, Forge, MergeOptions, MergeResult, OpenPullRequest, PullRequest } from '../../engine/ports/forge.ts';
import { MergeRefused, splitRepo } from '../../engine/ports/forge.ts';
import { GitHubApiError, unlessAbsent } from '../github/errors.ts';
import { createGitHubOctokit, type GitHubOctokit, type GitHubOctokitOptions } from '../github/octokit.ts';

/** A check run as Conveyor reads it. */
export interface CheckRun {
  id: number;
  url: string;
  status: string;
  conclusion: string | null;
  externalId: string | null;
  detailsUrl: string | null;
  startedAt: string | null;
  output: { summary: string | null; text: string | null };
}

/** What a check run is created or updated with (GitHub's field names). */
export interface CheckRunWrite {
  name?: string;
  head_sha?: string;
  external_id?: string;
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'neutral' | 'cancelled' | 'timed_out' | 'action_required' | 'skipped';
  details_url?: string;
  started_at?: string;
  completed_at?: string;
  output?: { title: string; summary: string; text?: string };
  /** Buttons (at most three): label 20, description 40, identifier 20 characters. */
  actions?: Array<{ label: string; description: string; identifier: string }>;
}

/** A workflow run as Conveyor reads it: whether it started, and how it ended. */
export interface WorkflowRun {
  id: number;
  url: string;
  /** requested, queued, waiting, pending, in_progress or completed. */
  status: string;
  conclusion: string | null;
  /** When a runner started it (null before). */
  startedAt: string | null;
}

interface ApiWorkflowRun {
  id: number;
  html_url: string;
  status?: string | null;
  conclusion?: string | null;
  run_started_at?: string | null;
  display_title?: string;
  name?: string | null;
  /** Who started the run (a re-run keeps it; its `triggering_actor` is who re-ran it). */
  actor?: { login?: string | null } | null;
}

function toWorkflowRun(r: ApiWorkflowRun): WorkflowRun {
  return { id: r.id, url: r.html_url, status: r.status ?? 'queued', conclusion: r.conclusion ?? null, startedAt: r.run_started_at ?? null };
}

export type Reaction = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

interface ApiPull {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  state: string;
  draft?: boolean;
  node_id?: string;
  merged?: boolean;
  merged_at?: string | null;
  merge_commit_sha?: string | null;
  mergeable?: boolean | null;
  mergeable_state?: string;
  head: { ref: string; sha: string };
  base: { ref: string };
}

interface ApiCheckRun {
  id: number;
  html_url?: string | null;
  status: string;
  conclusion?: string | null;
  external_id?: string | null;
  details_url?: string | null;
  started_at?: string | null;
  output?: { summary?: string | null; text?: string | null } | null;
}

function toPullRequest(repo: string, p: ApiPull): PullRequest {
  const merged = Boolean(p.merged || p.merged_at);
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
    // Only a single PR's read has these (a list does not).
    ...(p.mergeable !== undefined ? { mergeable: p.mergeable } : {}),
    ...(p.mergeable_state !== undefined ? { mergeableState: p.mergeable_state } : {}),
    ...(p.draft !== undefined ? { draft: p.draft } : {}),
    ...(p.node_id ? { nodeId: p.node_id } : {}),
  };
}

function toCheckRun(c: ApiCheckRun): CheckRun {
  return {
    id: c.id,
    url: c.html_url ?? '',
    status: c.status,
    conclusion: c.conclusion ?? null,
    externalId: c.external_id ?? null,
    detailsUrl: c.details_url ?? null,
    startedAt: c.started_at ?? null,
    output: { summary: c.output?.summary ?? null, text: c.output?.text ?? null },
  };
}

const of = (repo: string) => {
  const { owner, name } = splitRepo(repo);
  return { owner, repo: name };
};

export class GitHubForge implements Forge {
  readonly octokit: GitHubOctokit;

  /** An Octokit of adapters/github/octokit.ts (the app's installation Octokit), or a token for one (the action's). */
  constructor(source: { octokit: GitHubOctokit } | GitHubOctokitOptions) {
    this.octokit = 'octokit' in source ? source.octokit : createGitHubOctokit(source);
  }

  // Pull requests (the Forge port).

  async findPullRequest(repo: string, branch: string): Promise<PullRequest | undefined> {
    const { owner } = splitRepo(repo);
    // One open PR per head branch at most: the first page holds it.
    const { data } = await this.octokit.rest.pulls.list({ ...of(repo), head: `${owner}:${branch}`, state: 'open', per_page: 10 });
    const found = (data as ApiPull[]).find((p) => p.head.ref === branch);
    return found ? toPullRequest(repo, found) : undefined;
  }

  async openPullRequest(pr: OpenPullRequest, how: { draft?: boolean } = {}): Promise<PullRequest> {
    const { data } = await this.octokit.rest.pulls.create({
      ...of(pr.repo),
      head: pr.branch,
      base: pr.base,
      title: pr.title.slice(0, PR_TITLE_MAX),
      body: fitComment(pr.body),
      ...(how.draft ? { draft: true } : {}),
    });
    return toPullRequest(pr.repo, data as ApiPull);
  }

  /**
   * The run's draft pull request, opened as the run starts so that its check runs live on it from
   * the first step: an empty commit on the base's head (its tree, the head as parent) through the
   * Git data API, the work branch at it, and a draft PR. A work branch that exists already (a
   * restart on the same branch) is kept as it is, and its open PR taken when there is one.
   */
  async openDraftPullRequest(pr: OpenPullRequest & { baseCommit: { sha: string; tree: string }; message: string }): Promise<PullRequest> {
    const commit = await this.octokit.rest.git.createCommit({ ...of(pr.repo), message: pr.message, tree: pr.baseCommit.tree, parents: [pr.baseCommit.sha] });
    try {
      await this.octokit.rest.git.createRef({ ...of(pr.repo), ref: `refs/heads/${pr.branch}`, sha: commit.data.sha });
    } catch (e) {
      // 422 "Reference already exists": the branch holds earlier work of this issue; an open PR of it is the run's.
      if (!(e instanceof GitHubApiError && e.status === 422)) throw e;
      const open = await this.findPullRequest(pr.repo, pr.branch);
      if (open) return open;
    }
    return this.openPullRequest(pr, { draft: true });
  }

  /** GraphQL's markPullRequestReadyForReview: REST cannot turn a draft into a PR ready to merge. */
  async markReadyForReview(pr: Pick<PullRequest, 'repo' | 'number' | 'nodeId'>): Promise<void> {
    const id = pr.nodeId ?? (await this.getPullRequest(pr.repo, pr.number)).nodeId;
    if (!id) throw new Error(`${pr.repo}#${pr.number} has no GraphQL id to mark it ready for review`);
    await this.octokit.graphql('mutation($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }', { id });
  }

  async updatePullRequest(repo: string, number: number, change: { title?: string; body?: string }): Promise<PullRequest> {
    const fitted = {
      ...(change.title !== undefined ? { title: change.title.slice(0, PR_TITLE_MAX) } : {}),
      ...(change.body !== undefined ? { body: fitComment(change.body) } : {}),
    };
    const { data } = await this.octokit.rest.pulls.update({ ...of(repo), pull_number: number, ...fitted });
    return toPullRequest(repo, data as ApiPull);
  }

  /** Opens a closed PR again; GitHub refuses (422, saying why) when its head branch is gone. */
  async reopenPullRequest(repo: string, number: number): Promise<void> {
    await this.octokit.rest.pulls.update({ ...of(repo), pull_number: number, state: 'open' });
  }

  /** With its mergeability (`mergeable: null` while GitHub computes it). */
  async getPullRequest(repo: string, number: number): Promise<PullRequest> {
    const { data } = await this.octokit.rest.pulls.get({ ...of(repo), pull_number: number });
    return toPullRequest(repo, data as ApiPull);
  }

  async listPullRequests(repo: string, options: { branches: string[]; state?: 'open' | 'closed' | 'all' }): Promise<PullRequest[]> {
    const { owner } = splitRepo(repo);
    const out: PullRequest[] = [];
    for (const branch of options.branches) {
      const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, {
        ...of(repo),
        head: `${owner}:${branch}`,
        state: options.state ?? 'all',
        per_page: 100,
      });
      for (const p of pulls as ApiPull[]) if (p.head.ref === branch) out.push(toPullRequest(repo, p));
    }
    return out.sort((a, b) => a.number - b.number);
  }

  /**
   * Not retried on a server error or a lost answer (`retries: 0`): a merge GitHub did whose answer
   * was lost must be judged again (read), not sent twice. A refusal is a GitHubApiError with its status.
   */
  async mergePullRequest(repo: string, number: number, options: MergeOptions): Promise<MergeResult> {
    try {
      const { data } = await this.octokit.rest.pulls.merge({
        ...of(repo),
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

  // Deployments (the Forge port).

  async createDeployment(request: DeploymentRequest): Promise<{ id: number }> {
    const { data, status } = await this.octokit.rest.repos.createDeployment({
      ...of(request.repo),
      ref: request.ref,
      environment: request.environment,
      description: request.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX),
      transient_environment: request.transient,
      production_environment: false,
      // A preview is not a release: no merging of the base into the ref, no required statuses.
      auto_merge: false,
      required_contexts: [],
    });
    const id = (data as { id?: number }).id;
    if (status !== 201 || typeof id !== 'number') {
      // 202: GitHub would merge the base into the ref first (auto_merge is off), and made nothing.
      const message = (data as { message?: string }).message ?? 'no deployment id in the answer';
      throw new GitHubApiError(
        status,
        'POST /repos/{owner}/{repo}/deployments',
        `${message} (no deployment of ${request.repo}@${request.ref.slice(0, 12)} was created)`,
        false,
      );
    }
    return { id };
  }

  async setDeploymentStatus(repo: string, id: number, status: DeploymentStatus): Promise<void> {
    await this.octokit.rest.repos.createDeploymentStatus({
      ...of(repo),
      deployment_id: id,
      state: status.state,
      ...(status.environmentUrl ? { environment_url: status.environmentUrl } : {}),
      ...(status.description ? { description: status.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX) } : {}),
    });
  }

  // Repository contents.

  /** A file's text at a ref, or undefined when there is no such file. */
  async readFile(repo: string, path: string, ref: string): Promise<string | undefined> {
    const answer = await unlessAbsent(this.octokit.rest.repos.getContent({ ...of(repo), path, ref }));
    const data = answer?.data;
    if (!data || Array.isArray(data) || data.type !== 'file' || !('content' in data) || typeof data.content !== 'string') return undefined;
    return Buffer.from(data.content, (data.encoding as BufferEncoding) || 'base64').toString('utf8');
  }

  /** The repository's default branch (GET /repos/{owner}/{repo}), or undefined when the installation cannot see it. */
  async defaultBranch(repo: string): Promise<string | undefined> {
    const answer = await unlessAbsent(this.octokit.rest.repos.get(of(repo)));
    return answer?.data.default_branch;
  }

  /** A branch's head commit and its tree (what an empty commit on it takes). */
  async branchCommit(repo: string, branch: string): Promise<{ sha: string; tree: string }> {
    const { data } = await this.octokit.rest.repos.getBranch({ ...of(repo), branch });
    return { sha: data.commit.sha, tree: data.commit.commit.tree.sha };
  }

  async branchHead(repo: string, branch: string): Promise<string> {
    const { data } = await this.octokit.rest.git.getRef({ ...of(repo), ref: `heads/${branch}` });
    return data.object.sha;
  }

  // Comments.

  async createComment(repo: string, issue: number, body: string): Promise<{ id: number; url: string }> {
    const { data } = await this.octokit.rest.issues.createComment({ ...of(repo), issue_number: issue, body: fitComment(body) });
    return { id: data.id, url: data.html_url };
  }

  async updateComment(repo: string, id: number, body: string): Promise<void> {
    await this.octokit.rest.issues.updateComment({ ...of(repo), comment_id: id, body: fitComment(body) });
  }

  /** The issue's comment holding `marker`, if any (the tracking comment after a lost record): every page is read until it is found. */
  async findComment(repo: string, issue: number, marker: string): Promise<{ id: number; url: string } | undefined> {
    for await (const { data } of this.octokit.paginate.iterator(this.octokit.rest.issues.listComments, { ...of(repo), issue_number: issue, per_page: 100 })) {
      const found = data.find((c) => c.body?.includes(marker));
      if (found) return { id: found.id, url: found.html_url };
    }
    return undefined;
  }

  async reactToComment(repo: string, commentId: number, content: Reaction): Promise<void> {
    await this.octokit.rest.reactions.createForIssueComment({ ...of(repo), comment_id: commentId, content });
  }

  // People.

  /** admin, maintain, write, triage, read or none (the collaborator permission API, never author_association). */
  async permission(repo: string, user: string): Promise<string> {
    const answer = await unlessAbsent(this.octokit.rest.repos.getCollaboratorPermissionLevel({ ...of(repo), username: user }));
    return answer?.data.permission ?? 'none';
  }

  /** A review's inline comments (the first 100: what feedback keeps), each with its file and line. */
  async reviewComments(repo: string, number: number, reviewId: number): Promise<Array<{ path: string; line?: number; body: string }>> {
    const { data } = await this.octokit.rest.pulls.listCommentsForReview({ ...of(repo), pull_number: number, review_id: reviewId, per_page: 100 });
    return data.map((c) => {
      const line = c.line ?? c.original_line ?? undefined;
      return { path: c.path, ...(typeof line === 'number' ? { line } : {}), body: c.body };
    });
  }

  /** active, pending or none: the user's membership of an organisation's team. */
  async teamMembership(org: string, team: string, user: string): Promise<string> {
    const answer = await unlessAbsent(this.octokit.rest.teams.getMembershipForUserInOrg({ org, team_slug: team, username: user }));
    return answer?.data.state ?? 'none';
  }

  // Check runs.

  async createCheckRun(repo: string, check: CheckRunWrite & { name: string; head_sha: string }): Promise<CheckRun> {
    const { data } = await this.octokit.rest.checks.create({ ...of(repo), ...check, ...(check.output ? { output: fitCheckOutput(check.output) } : {}) });
    return toCheckRun(data);
  }

  async updateCheckRun(repo: string, id: number, patch: CheckRunWrite): Promise<CheckRun> {
    const { data } = await this.octokit.rest.checks.update({
      ...of(repo),
      check_run_id: id,
      ...patch,
      ...(patch.output ? { output: fitCheckOutput(patch.output) } : {}),
    });
    return toCheckRun(data);
  }

  async getCheckRun(repo: string, id: number): Promise<CheckRun> {
    const { data } = await this.octokit.rest.checks.get({ ...of(repo), check_run_id: id });
    return toCheckRun(data);
  }

  /** The check run named `name` on `ref` with this external id (looked for before one is created). */
  async findCheckRun(repo: string, ref: string, name: string, externalId: string): Promise<CheckRun | undefined> {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.checks.listForRef, { ...of(repo), ref, check_name: name, filter: 'all', per_page: 100 });
    for await (const { data } of pages) {
      const found = data.find((c) => c.external_id === externalId);
      if (found) return toCheckRun(found);
    }
    return undefined;
  }

  // Workflows.

  /**
   * workflow_dispatch, asking for the run's id (`return_run_details`). A server that does not know
   * that parameter answers 204 without details, or 422 naming it: then it is sent again without.
   */
  async dispatchWorkflow(repo: string, workflow: string, ref: string, inputs: Record<string, string>): Promise<{ runId?: number; url?: string }> {
    const dispatch = { ...of(repo), workflow_id: workflow, ref, inputs };
    try {
      const { data } = await this.octokit.rest.actions.createWorkflowDispatch({ ...dispatch, return_run_details: true });
      const details = data as { workflow_run_id?: number; html_url?: string } | undefined;
      return details?.workflow_run_id ? { runId: details.workflow_run_id, ...(details.html_url ? { url: details.html_url } : {}) } : {};
    } catch (e) {
      if (!(e instanceof GitHubApiError && e.status === 422 && /return_run_details/.test(e.githubMessage))) throw e;
      await this.octokit.rest.actions.createWorkflowDispatch(dispatch);
      return {};
    }
  }

  /**
   * A run of `workflow` whose name holds `marker`, dispatched since `since` and started by
   * `startedBy`: anyone who may dispatch the workflow can give their run the same name, so a name
   * alone never says whose run it is.
   */
  async findWorkflowRun(repo: string, workflow: string, marker: string, since: string, startedBy: string): Promise<WorkflowRun | undefined> {
    const created = `>=${since.slice(0, 19)}Z`;
    const pages = this.octokit.paginate.iterator(this.octokit.rest.actions.listWorkflowRuns, {
      ...of(repo),
      workflow_id: workflow,
      event: 'workflow_dispatch',
      created,
      per_page: 100,
    });
    for await (const { data } of pages) {
      const found = (data as ApiWorkflowRun[]).find(
        (r) => (r.display_title ?? r.name ?? '').includes(marker) && (r.actor?.login ?? '').toLowerCase() === startedBy.toLowerCase(),
      );
      if (found) return toWorkflowRun(found);
    }
    return undefined;
  }

  /**
   * Asks GitHub to cancel a workflow run. True when asked; false when there is nothing to cancel:
   * the run already completed (409 "Cannot cancel a workflow run that is completed") or is gone (404).
   */
  async cancelWorkflowRun(repo: string, id: number): Promise<boolean> {
    try {
      await this.octokit.rest.actions.cancelWorkflowRun({ ...of(repo), run_id: id });
      return true;
    } catch (e) {
      if (e instanceof GitHubApiError && !e.credentials && (e.status === 409 || e.status === 404)) return false;
      throw e;
    }
  }

  async getWorkflowRun(repo: string, id: number): Promise<WorkflowRun> {
    const { data } = await this.octokit.rest.actions.getWorkflowRun({ ...of(repo), run_id: id });
    return toWorkflowRun(data as ApiWorkflowRun);
  }
}
