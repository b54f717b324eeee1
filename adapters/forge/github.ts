// The GitHub forge: Octokit REST on the global fetch (nock sees it; @actions/github's undici does
// not), base URL from GITHUB_API_URL for GitHub Enterprise Server.
import { Octokit } from '@octokit/rest';
import { ConveyorError } from '../../core/errors.ts';
import type { DeploymentRequest, DeploymentStatus, Forge, MergeOptions, MergeResult, OpenPullRequest, PullRequest } from '../../engine/ports/forge.ts';
import { splitRepo } from '../../engine/ports/forge.ts';

interface ApiPull {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  state: string;
  merged?: boolean;
  merged_at?: string | null;
  merge_commit_sha?: string | null;
  head: { ref: string; sha: string };
  base: { ref: string };
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
  };
}

async function forgeCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const status = (e as { status?: number }).status;
    throw new ConveyorError('forge-failed', `GitHub ${what} failed${status ? ` (HTTP ${status})` : ''}: ${(e as Error).message}`, { cause: e });
  }
}

export class GitHubForge implements Forge {
  private readonly octokit: Octokit;

  constructor(options: { token: string; apiUrl?: string; octokit?: Octokit }) {
    this.octokit =
      options.octokit ??
      new Octokit({
        auth: options.token,
        baseUrl: (options.apiUrl ?? 'https://api.github.com').replace(/\/+$/, ''),
        userAgent: 'conveyor',
        request: { fetch: (...args: Parameters<typeof fetch>) => fetch(...args) },
      });
  }

  async findPullRequest(repo: string, branch: string): Promise<PullRequest | undefined> {
    const { owner, name } = splitRepo(repo);
    const { data } = await forgeCall(`finding the PR of ${repo}:${branch}`, () =>
      this.octokit.rest.pulls.list({ owner, repo: name, head: `${owner}:${branch}`, state: 'open', per_page: 10 }),
    );
    const found = (data as ApiPull[]).find((p) => p.head.ref === branch);
    return found ? toPullRequest(repo, found) : undefined;
  }

  async openPullRequest(pr: OpenPullRequest): Promise<PullRequest> {
    const { owner, name } = splitRepo(pr.repo);
    const { data } = await forgeCall(`opening a PR in ${pr.repo}`, () =>
      this.octokit.rest.pulls.create({ owner, repo: name, head: pr.branch, base: pr.base, title: pr.title, body: pr.body }),
    );
    return toPullRequest(pr.repo, data as ApiPull);
  }

  async updatePullRequest(repo: string, number: number, change: { title?: string; body?: string }): Promise<PullRequest> {
    const { owner, name } = splitRepo(repo);
    const { data } = await forgeCall(`updating ${repo}#${number}`, () =>
      this.octokit.rest.pulls.update({ owner, repo: name, pull_number: number, ...change }),
    );
    return toPullRequest(repo, data as ApiPull);
  }

  async getPullRequest(repo: string, number: number): Promise<PullRequest> {
    const { owner, name } = splitRepo(repo);
    const { data } = await forgeCall(`reading ${repo}#${number}`, () =>
      this.octokit.rest.pulls.get({ owner, repo: name, pull_number: number }),
    );
    return toPullRequest(repo, data as ApiPull);
  }

  async listPullRequests(repo: string, options: { branches: string[]; state?: 'open' | 'closed' | 'all' }): Promise<PullRequest[]> {
    const { owner, name } = splitRepo(repo);
    const out: PullRequest[] = [];
    for (const branch of options.branches) {
      const { data } = await forgeCall(`listing the PRs of ${repo}:${branch}`, () =>
        this.octokit.rest.pulls.list({ owner, repo: name, head: `${owner}:${branch}`, state: options.state ?? 'all', per_page: 100 }),
      );
      for (const p of data as ApiPull[]) if (p.head.ref === branch) out.push(toPullRequest(repo, p));
    }
    return out.sort((a, b) => a.number - b.number);
  }

  async mergePullRequest(repo: string, number: number, options: MergeOptions): Promise<MergeResult> {
    const { owner, name } = splitRepo(repo);
    const { data } = await forgeCall(`merging ${repo}#${number}`, () =>
      this.octokit.rest.pulls.merge({
        owner,
        repo: name,
        pull_number: number,
        merge_method: options.method,
        commit_title: options.title,
        ...(options.message !== undefined ? { commit_message: options.message } : {}),
        ...(options.expectedHead ? { sha: options.expectedHead } : {}),
      }),
    );
    return { merged: data.merged, sha: data.sha };
  }

  async createDeployment(request: DeploymentRequest): Promise<{ id: number }> {
    const { owner, name } = splitRepo(request.repo);
    const { data, status } = await forgeCall(`creating a deployment of ${request.repo}@${request.ref.slice(0, 12)}`, () =>
      this.octokit.rest.repos.createDeployment({
        owner,
        repo: name,
        ref: request.ref,
        environment: request.environment,
        description: request.description,
        transient_environment: request.transient,
        production_environment: false,
        // A preview is not a release: no merging of the base into the ref, no required statuses.
        auto_merge: false,
        required_contexts: [],
      }),
    );
    const id = (data as { id?: number }).id;
    if (status !== 201 || typeof id !== 'number') {
      throw new ConveyorError('forge-failed', `GitHub did not create a deployment of ${request.repo}@${request.ref} (HTTP ${status}): ${(data as { message?: string }).message ?? 'no id in the answer'}`);
    }
    return { id };
  }

  async setDeploymentStatus(repo: string, id: number, status: DeploymentStatus): Promise<void> {
    const { owner, name } = splitRepo(repo);
    await forgeCall(`setting deployment ${id} of ${repo} to ${status.state}`, () =>
      this.octokit.rest.repos.createDeploymentStatus({
        owner,
        repo: name,
        deployment_id: id,
        state: status.state,
        ...(status.environmentUrl ? { environment_url: status.environmentUrl } : {}),
        ...(status.description ? { description: status.description.slice(0, 140) } : {}),
      }),
    );
  }
}
