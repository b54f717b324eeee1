// The GitHub calls the app makes, each retried with backoff on retryable errors (retry.ts), on
// an installation's Octokit (Probot's, on the global fetch, so nock sees it in tests).
import type { ProbotOctokit } from 'probot';
import { splitRepo } from '../forge/port.ts';
import { withRetry, type RetryOptions } from './retry.ts';

export type Octokit = InstanceType<typeof ProbotOctokit>;

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

export function checkRunInfo(c: ApiCheckRun): CheckRunInfo {
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

const status = (e: unknown): number | undefined => (e as { status?: number }).status;

export class GitHubClient {
  constructor(
    readonly octokit: Octokit,
    private readonly retry: RetryOptions = {},
  ) {}

  private call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return withRetry(what, fn, this.retry);
  }

  /** A file's text at a ref, or undefined when there is no such file. */
  async readFile(repo: string, path: string, ref: string): Promise<string | undefined> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`reading ${path} of ${repo}@${ref}`, () =>
      this.octokit.rest.repos.getContent({ owner, repo: name, path, ref }).catch((e: unknown) => {
        if (status(e) === 404) return { data: undefined };
        throw e;
      }),
    );
    if (!data || Array.isArray(data) || data.type !== 'file' || !('content' in data)) return undefined;
    return Buffer.from(data.content, (data.encoding as BufferEncoding) || 'base64').toString('utf8');
  }

  async branchHead(repo: string, branch: string): Promise<string> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`reading the head of ${repo}:${branch}`, () => this.octokit.rest.git.getRef({ owner, repo: name, ref: `heads/${branch}` }));
    return data.object.sha;
  }

  async createComment(repo: string, issue: number, body: string): Promise<{ id: number; url: string }> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`commenting on ${repo}#${issue}`, () => this.octokit.rest.issues.createComment({ owner, repo: name, issue_number: issue, body }));
    return { id: data.id, url: data.html_url };
  }

  async updateComment(repo: string, id: number, body: string): Promise<void> {
    const { owner, name } = splitRepo(repo);
    await this.call(`editing comment ${id} in ${repo}`, () => this.octokit.rest.issues.updateComment({ owner, repo: name, comment_id: id, body }));
  }

  /** The issue's comment holding `marker`, if any (the tracking comment after a lost record). */
  async findComment(repo: string, issue: number, marker: string): Promise<{ id: number; url: string } | undefined> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`listing the comments of ${repo}#${issue}`, () => this.octokit.rest.issues.listComments({ owner, repo: name, issue_number: issue, per_page: 100 }));
    const found = data.find((c) => c.body?.includes(marker));
    return found ? { id: found.id, url: found.html_url } : undefined;
  }

  /** admin, write, read or none (the collaborator permission API, never author_association). */
  async permission(repo: string, user: string): Promise<string> {
    const { owner, name } = splitRepo(repo);
    try {
      const { data } = await this.call(`reading the permission of ${user} on ${repo}`, () =>
        this.octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo: name, username: user }),
      );
      return data.permission;
    } catch (e) {
      if (status((e as { cause?: unknown }).cause) === 404) return 'none';
      throw e;
    }
  }

  async createCheckRun(repo: string, check: CheckRunWrite & { name: string; head_sha: string }): Promise<CheckRunInfo> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`creating check run "${check.name}" in ${repo}`, () => this.octokit.rest.checks.create({ owner, repo: name, ...check }));
    return checkRunInfo(data as ApiCheckRun);
  }

  async updateCheckRun(repo: string, id: number, patch: CheckRunWrite): Promise<void> {
    const { owner, name } = splitRepo(repo);
    await this.call(`updating check run ${id} in ${repo}`, () => this.octokit.rest.checks.update({ owner, repo: name, check_run_id: id, ...patch }));
  }

  async getCheckRun(repo: string, id: number): Promise<CheckRunInfo> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`reading check run ${id} in ${repo}`, () => this.octokit.rest.checks.get({ owner, repo: name, check_run_id: id }));
    return checkRunInfo(data as ApiCheckRun);
  }

  /** The check run named `checkName` on `ref` with this external id (look before creating). */
  async findCheckRun(repo: string, ref: string, checkName: string, externalId: string): Promise<CheckRunInfo | undefined> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`listing check runs "${checkName}" of ${repo}@${ref.slice(0, 7)}`, () =>
      this.octokit.rest.checks.listForRef({ owner, repo: name, ref, check_name: checkName, filter: 'all', per_page: 100 }),
    );
    const found = (data.check_runs as ApiCheckRun[]).find((c) => c.external_id === externalId);
    return found ? checkRunInfo(found) : undefined;
  }

  /**
   * workflow_dispatch, asking for the run's id (`return_run_details`). A server that does not know
   * that parameter answers 204 without details, or 422 naming it: then it is sent again without.
   */
  async dispatchWorkflow(repo: string, workflow: string, ref: string, inputs: Record<string, string>): Promise<{ runId?: number; url?: string }> {
    const { owner, name } = splitRepo(repo);
    const route = 'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches' as const;
    const what = `dispatching workflow ${workflow} of ${repo}@${ref}`;
    try {
      const res = await this.call(what, () => this.octokit.request(route, { owner, repo: name, workflow_id: workflow, ref, inputs, return_run_details: true } as never));
      const data = (res as { data?: { workflow_run_id?: number; html_url?: string } }).data;
      return data && typeof data === 'object' && data.workflow_run_id ? { runId: data.workflow_run_id, ...(data.html_url ? { url: data.html_url } : {}) } : {};
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      if (status(cause) === 422 && /return_run_details/.test((cause as Error).message)) {
        await this.call(what, () => this.octokit.request(route, { owner, repo: name, workflow_id: workflow, ref, inputs }));
        return {};
      }
      throw e;
    }
  }

  /** A workflow run of `workflow` whose name holds `marker`, created since `since` (look before dispatching). */
  async findWorkflowRun(repo: string, workflow: string, marker: string, since: string): Promise<{ id: number; url: string } | undefined> {
    const { owner, name } = splitRepo(repo);
    const { data } = await this.call(`listing runs of workflow ${workflow} in ${repo}`, () =>
      this.octokit.rest.actions.listWorkflowRuns({ owner, repo: name, workflow_id: workflow, event: 'workflow_dispatch', created: `>=${since.slice(0, 19)}Z`, per_page: 100 }),
    );
    const found = data.workflow_runs.find((r) => (r.display_title ?? r.name ?? '').includes(marker));
    return found ? { id: found.id, url: found.html_url } : undefined;
  }
}
