// The repository's own CI as GitHub reports it (the Forge port's CiReader): the checks a branch
// requires, from its branch protection (`contexts` and `checks`, in GET /branches/{branch}, which
// read access shows) and its rulesets (`required_status_checks` rules), the check runs and commit
// statuses on a commit (every page, 100 a page), and a GitHub Actions job's log, cut to its end
// where it is long (failures and verdicts are printed last). Judging them is core/steps/ci-checks.ts.
import type { CiReader } from '../../../engine/ports/forge.ts';
import type { ObservedCheckRun, ObservedStatus, RequiredCheck } from '../../../core/steps/ci-checks.ts';
import { unlessAbsent } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams } from './api.ts';

/** How much of a job's log is kept for its failing lines: its last part. */
export const JOB_LOG_MAX = 1_048_576;

export class GitHubCi implements CiReader {
  constructor(private readonly octokit: GitHubOctokit) {}

  async requiredChecks(repo: string, branch: string): Promise<RequiredCheck[]> {
    const out: RequiredCheck[] = [];
    const answer = await unlessAbsent(this.octokit.rest.repos.getBranch({ ...repoParams(repo), branch }));
    const protection = answer?.data.protection?.required_status_checks;
    const withApp = new Set<string>();
    for (const c of protection?.checks ?? []) {
      // `app_id` null: any app may report it.
      out.push({ context: c.context, ...(typeof c.app_id === 'number' ? { appId: c.app_id } : {}) });
      withApp.add(c.context);
    }
    for (const context of protection?.contexts ?? []) if (!withApp.has(context)) out.push({ context });
    const rules = await unlessAbsent(this.octokit.paginate(this.octokit.rest.repos.getBranchRules, { ...repoParams(repo), branch, per_page: 100 }));
    for (const rule of rules ?? []) {
      if (rule.type !== 'required_status_checks') continue;
      const checks = (rule.parameters as { required_status_checks?: Array<{ context: string; integration_id?: number }> } | undefined)?.required_status_checks;
      for (const c of checks ?? []) out.push({ context: c.context, ...(typeof c.integration_id === 'number' ? { appId: c.integration_id } : {}) });
    }
    return out;
  }

  async commitChecks(repo: string, sha: string): Promise<{ checkRuns: ObservedCheckRun[]; statuses: ObservedStatus[] }> {
    const runs = await this.octokit.paginate(this.octokit.rest.checks.listForRef, { ...repoParams(repo), ref: sha, filter: 'latest', per_page: 100 });
    const checkRuns = runs.map((c): ObservedCheckRun => ({
      id: c.id,
      name: c.name,
      status: c.status,
      conclusion: c.conclusion ?? null,
      ...(c.app?.id !== undefined ? { appId: c.app.id } : {}),
      ...(c.app?.slug ? { appSlug: c.app.slug } : {}),
      ...(c.html_url ? { url: c.html_url } : {}),
      ...(c.output?.title ? { title: c.output.title } : {}),
      ...(c.output?.summary ? { summary: c.output.summary } : {}),
    }));
    const listed = await this.octokit.paginate(this.octokit.rest.repos.listCommitStatusesForRef, { ...repoParams(repo), ref: sha, per_page: 100 });
    // Newest first: the first of each context is where it stands.
    const statuses: ObservedStatus[] = [];
    for (const s of listed) {
      if (statuses.some((x) => x.context === s.context)) continue;
      statuses.push({
        context: s.context,
        state: s.state,
        ...(s.description ? { description: s.description } : {}),
        ...(s.target_url ? { url: s.target_url } : {}),
      });
    }
    return { checkRuns, statuses };
  }

  async jobLog(repo: string, jobId: number): Promise<string | undefined> {
    // GitHub answers with a redirect to the log's storage, which Octokit follows.
    const answer = await unlessAbsent(this.octokit.rest.actions.downloadJobLogsForWorkflowRun({ ...repoParams(repo), job_id: jobId }));
    const data: unknown = answer?.data;
    const text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : undefined;
    if (text === undefined) return undefined;
    return text.length > JOB_LOG_MAX ? text.slice(-JOB_LOG_MAX) : text;
  }
}
