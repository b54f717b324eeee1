// GitHub Deployments of preview environments (the Forge port's optional part): one per service
// and commit, transient, never production, and its statuses as the environment comes and goes.
import { DEPLOYMENT_DESCRIPTION_MAX } from '../../../core/github/limits.ts';
import type { DeploymentRequest, DeploymentStatus } from '../../../engine/ports/forge.ts';
import { GitHubApiError } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams } from './api.ts';

export class Deployments {
  constructor(private readonly octokit: GitHubOctokit) {}

  async create(request: DeploymentRequest): Promise<{ id: number }> {
    const { data, status } = await this.octokit.rest.repos.createDeployment({
      ...repoParams(request.repo),
      ref: request.ref,
      environment: request.environment,
      description: request.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX),
      transient_environment: request.transient,
      production_environment: false,
      // A preview is not a release: no merging of the base into the ref, no required statuses.
      auto_merge: false,
      required_contexts: [],
    });
    // 201 is the deployment; 202 is `{ message }`: GitHub would merge the base into the ref first (auto_merge is off), and made nothing.
    const answer: { id?: unknown; message?: unknown } = data;
    const id = answer.id;
    if (status !== 201 || typeof id !== 'number') {
      const message = typeof answer.message === 'string' ? answer.message : 'no deployment id in the answer';
      throw new GitHubApiError(
        status,
        'POST /repos/{owner}/{repo}/deployments',
        `${message} (no deployment of ${request.repo}@${request.ref.slice(0, 12)} was created)`,
        false,
      );
    }
    return { id };
  }

  async setStatus(repo: string, id: number, status: DeploymentStatus): Promise<void> {
    await this.octokit.rest.repos.createDeploymentStatus({
      ...repoParams(repo),
      deployment_id: id,
      state: status.state,
      ...(status.environmentUrl ? { environment_url: status.environmentUrl } : {}),
      ...(status.description ? { description: status.description.slice(0, DEPLOYMENT_DESCRIPTION_MAX) } : {}),
    });
  }
}
