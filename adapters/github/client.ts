// The GitHub calls the app makes, each retried with backoff on retryable errors (retry.ts). They
// go through the lean requester of rest.ts, built from an installation's Octokit (Probot's: its
// base URL, token and fetch, so GHE and nock work as they do for Octokit itself).
import { splitRepo } from '../../engine/ports/forge.ts';
import { enc, GitHubCredentialsError, restOf, type GitHubRest, type Octokit } from './rest.ts';
import { withRetry, type RetryOptions } from './retry.ts';

export interface CheckRunInfo {
  id: number;
  url: string;
  status: string;
  conclusion: string | null;
  externalId: string | null;
  detailsUrl: string | null;
  startedAt: string | null;
  output: { summary: string | null; text: string | null };
}

export interface CheckRunWrite {
  name?: string;
  head_sha?: string;
  external_id?: string;
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'neutral' | 'cancelled' | 'timed_out' | 'action_required' | 'skipped';
  details_url?: string;
  completed_at?: string;
  output?: { title: string; summary: string; text?: string };
}

interface ApiCheckRun {
  id: number;
  html_url: string | null;
  status: string;
  conclusion: string | null;
  external_id: string | null;
  details_url: string | null;
  started_at: string | null;
  output: { summary: string | null; text: string | null };
}

function checkRunInfo(c: ApiCheckRun): CheckRunInfo {
  return {
    id: c.id,
    url: c.html_url ?? '',
    status: c.status,
    conclusion: c.conclusion,
    externalId: c.external_id,
    detailsUrl: c.details_url,
    startedAt: c.started_at,
    output: { summary: c.output?.summary ?? null, text: c.output?.text ?? null },
  };
}

/** The HTTP status of a failed call: rest.ts's error, or the one withRetry wrapped. */
export function httpStatus(e: unknown): number | undefined {
  const err = e as { status?: unknown; cause?: { status?: unknown } } | undefined;
  const s = err?.status ?? err?.cause?.status;
  return typeof s === 'number' ? s : undefined;
}

/** `undefined` on 404 (what is asked for is not there), any other failure as it was. */
async function unlessMissing<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    // A 404 when asking for the token is a missing installation, not a missing file or member.
    if (httpStatus(e) === 404 && !(e instanceof GitHubCredentialsError)) return undefined;
    throw e;
  }
}

/** A pull request as the merge step judges it. */
export interface ApiPull {
  state: string;
  merged: boolean;
  merge_commit_sha: string | null;
  mergeable: boolean | null;
  mergeable_state: string;
  draft?: boolean;
  head: { sha: string };
  base: { ref: string };
}

export class GitHubClient {
  private readonly rest: GitHubRest;

  constructor(
    /** An installation's Octokit: the requester takes its base URL, fetch and auth (see rest.ts). */
    octokit: Octokit,
    private readonly retry: RetryOptions = {},
    rest?: GitHubRest,
  ) {
    this.rest = rest ?? restOf(octokit, retry.sleep ? { sleep: retry.sleep } : {});
  }

  private call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return withRetry(what, fn, this.retry);
  }

  private async get<T>(what: string, path: string, query?: Record<string, string | number | undefined>): Promise<T> {
    return (await this.call(what, () => this.rest.request<T>('GET', path, query ? { query } : {}))).data;
  }

  /** As `get`, but `undefined` when GitHub answers 404: what is asked for is not there. */
  private async find<T>(what: string, path: string, query?: Record<string, string | number | undefined>): Promise<T | undefined> {
    return (await this.call(what, () => unlessMissing(this.rest.request<T>('GET', path, query ? { query } : {}))))?.data;
  }

  private async send<T>(what: string, method: 'POST' | 'PATCH' | 'PUT', path: string, body: unknown): Promise<T> {
    return (await this.call(what, () => this.rest.request<T>(method, path, { body }))).data;
  }

  /** As `send`, for a change whose answer nobody reads (edits of what people see). */
  private async change(what: string, method: 'POST' | 'PATCH', path: string, body: unknown): Promise<void> {
    await this.call(what, () => this.rest.request(method, path, { body, discard: true }));
  }

  /** A file's text at a ref, or undefined when there is no such file. */
  async readFile(repo: string, path: string, ref: string): Promise<string | undefined> {
    const data = await this.find<{ type?: string; content?: string; encoding?: string } | unknown[]>(`reading ${path} of ${repo}@${ref}`, `${repoPath(repo)}/contents/${enc(path)}`, { ref });
    if (!data || Array.isArray(data) || data.type !== 'file' || typeof data.content !== 'string') return undefined;
    return Buffer.from(data.content, (data.encoding as BufferEncoding) || 'base64').toString('utf8');
  }

  async branchHead(repo: string, branch: string): Promise<string> {
    const data = await this.get<{ object: { sha: string } }>(`reading the head of ${repo}:${branch}`, `${repoPath(repo)}/git/ref/${enc(`heads/${branch}`)}`);
    return data.object.sha;
  }

  async createComment(repo: string, issue: number, body: string): Promise<{ id: number; url: string }> {
    const data = await this.send<{ id: number; html_url: string }>(`commenting on ${repo}#${issue}`, 'POST', `${repoPath(repo)}/issues/${issue}/comments`, { body });
    return { id: data.id, url: data.html_url };
  }

  async updateComment(repo: string, id: number, body: string): Promise<void> {
    await this.change(`editing comment ${id} in ${repo}`, 'PATCH', `${repoPath(repo)}/issues/comments/${id}`, { body });
  }

  /** The issue's comment holding `marker`, if any (the tracking comment after a lost record). */
  async findComment(repo: string, issue: number, marker: string): Promise<{ id: number; url: string } | undefined> {
    const data = await this.get<Array<{ id: number; html_url: string; body?: string | null }>>(`listing the comments of ${repo}#${issue}`, `${repoPath(repo)}/issues/${issue}/comments`, { per_page: 100 });
    const found = data.find((c) => c.body?.includes(marker));
    return found ? { id: found.id, url: found.html_url } : undefined;
  }

  /** admin, write, read or none (the collaborator permission API, never author_association). */
  async permission(repo: string, user: string): Promise<string> {
    const data = await this.find<{ permission: string }>(`reading the permission of ${user} on ${repo}`, `${repoPath(repo)}/collaborators/${enc(user)}/permission`);
    return data?.permission ?? 'none';
  }

  async createCheckRun(repo: string, check: CheckRunWrite & { name: string; head_sha: string }): Promise<CheckRunInfo> {
    return checkRunInfo(await this.send<ApiCheckRun>(`creating check run "${check.name}" in ${repo}`, 'POST', `${repoPath(repo)}/check-runs`, check));
  }

  async updateCheckRun(repo: string, id: number, patch: CheckRunWrite): Promise<void> {
    await this.change(`updating check run ${id} in ${repo}`, 'PATCH', `${repoPath(repo)}/check-runs/${id}`, patch);
  }

  async getCheckRun(repo: string, id: number): Promise<CheckRunInfo> {
    return checkRunInfo(await this.get<ApiCheckRun>(`reading check run ${id} in ${repo}`, `${repoPath(repo)}/check-runs/${id}`));
  }

  /** The check run named `checkName` on `ref` with this external id (look before creating). */
  async findCheckRun(repo: string, ref: string, checkName: string, externalId: string): Promise<CheckRunInfo | undefined> {
    const data = await this.get<{ check_runs: ApiCheckRun[] }>(`listing check runs "${checkName}" of ${repo}@${ref.slice(0, 7)}`, `${repoPath(repo)}/commits/${enc(ref)}/check-runs`, {
      check_name: checkName,
      filter: 'all',
      per_page: 100,
    });
    const found = data.check_runs.find((c) => c.external_id === externalId);
    return found ? checkRunInfo(found) : undefined;
  }

  /**
   * workflow_dispatch, asking for the run's id (`return_run_details`). A server that does not know
   * that parameter answers 204 without details, or 422 naming it: then it is sent again without.
   */
  async dispatchWorkflow(repo: string, workflow: string, ref: string, inputs: Record<string, string>): Promise<{ runId?: number; url?: string }> {
    const path = `${repoPath(repo)}/actions/workflows/${enc(workflow)}/dispatches`;
    const what = `dispatching workflow ${workflow} of ${repo}@${ref}`;
    try {
      const data = await this.send<{ workflow_run_id?: number; html_url?: string } | undefined>(what, 'POST', path, { ref, inputs, return_run_details: true });
      return data && typeof data === 'object' && data.workflow_run_id ? { runId: data.workflow_run_id, ...(data.html_url ? { url: data.html_url } : {}) } : {};
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      if (httpStatus(cause) === 422 && /return_run_details/.test((cause as Error).message)) {
        await this.send(what, 'POST', path, { ref, inputs });
        return {};
      }
      throw e;
    }
  }

  /** A workflow run of `workflow` whose name holds `marker`, created since `since` (look before dispatching). */
  async findWorkflowRun(repo: string, workflow: string, marker: string, since: string): Promise<{ id: number; url: string } | undefined> {
    const data = await this.get<{ workflow_runs: Array<{ id: number; html_url: string; display_title?: string | null; name?: string | null }> }>(
      `listing runs of workflow ${workflow} in ${repo}`,
      `${repoPath(repo)}/actions/workflows/${enc(workflow)}/runs`,
      { event: 'workflow_dispatch', created: `>=${since.slice(0, 19)}Z`, per_page: 100 },
    );
    const found = data.workflow_runs.find((r) => (r.display_title ?? r.name ?? '').includes(marker));
    return found ? { id: found.id, url: found.html_url } : undefined;
  }

  /** A pull request as the merge step judges it (one read, not retried by the caller again). */
  async getPull(repo: string, number: number): Promise<ApiPull> {
    return this.get<ApiPull>(`reading ${repo}#${number}`, `${repoPath(repo)}/pulls/${number}`);
  }

  /**
   * Merges a pull request. Not retried: a merge that GitHub did but whose answer was lost must be
   * judged (read) again, not sent twice; a refusal keeps its HTTP status for the caller.
   */
  async mergePull(repo: string, number: number, merge: { merge_method: string; commit_title: string; commit_message: string; sha?: string }): Promise<{ merged: boolean; sha: string; message?: string }> {
    return (await this.rest.request<{ merged: boolean; sha: string; message?: string }>('PUT', `${repoPath(repo)}/pulls/${number}/merge`, { body: merge })).data;
  }

  /** active, pending or none: the user's membership of an organisation's team. */
  async teamMembership(org: string, team: string, user: string): Promise<string> {
    const data = await this.find<{ state: string }>(`reading the membership of ${user} in @${org}/${team}`, `/orgs/${enc(org)}/teams/${enc(team)}/memberships/${enc(user)}`);
    return data?.state ?? 'none';
  }

  async reactToComment(repo: string, commentId: number, content: string): Promise<void> {
    await this.change(`reacting to comment ${commentId} in ${repo}`, 'POST', `${repoPath(repo)}/issues/comments/${commentId}/reactions`, { content });
  }
}

function repoPath(repo: string): string {
  const { owner, name } = splitRepo(repo);
  return `/repos/${enc(owner)}/${enc(name)}`;
}
