// Workflow runs on GitHub: the dispatch of an attempt's run of conveyor.yml, the search for the run
// a dispatch did not name, its cancellation and its state.
import { GitHubApiError } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams, type Rest } from './api.ts';

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

/** `actor` is who started the run (a re-run keeps it; its `triggering_actor` is who re-ran it). */
type ApiWorkflowRun = Rest['actions']['getWorkflowRun']['response']['data'];

/** The answer to a dispatch with `return_run_details`: the types of @octokit/rest predate that parameter and say 204, no body. */
interface DispatchDetails {
  workflow_run_id?: number;
  html_url?: string;
}

function toWorkflowRun(r: ApiWorkflowRun): WorkflowRun {
  return { id: r.id, url: r.html_url, status: r.status ?? 'queued', conclusion: r.conclusion ?? null, startedAt: r.run_started_at ?? null };
}

export class Workflows {
  constructor(private readonly octokit: GitHubOctokit) {}

  /**
   * workflow_dispatch, asking for the run's id (`return_run_details`). A server that does not know
   * that parameter answers 204 without details, or 422 naming it: then it is sent again without.
   */
  async dispatch(repo: string, workflow: string, ref: string, inputs: Record<string, string>): Promise<{ runId?: number; url?: string }> {
    const dispatch = { ...repoParams(repo), workflow_id: workflow, ref, inputs };
    try {
      const { data } = await this.octokit.rest.actions.createWorkflowDispatch({ ...dispatch, return_run_details: true });
      const details = data as DispatchDetails | undefined;
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
  async find(repo: string, workflow: string, marker: string, since: string, startedBy: string): Promise<WorkflowRun | undefined> {
    const created = `>=${since.slice(0, 19)}Z`;
    const pages = this.octokit.paginate.iterator(this.octokit.rest.actions.listWorkflowRuns, {
      ...repoParams(repo),
      workflow_id: workflow,
      event: 'workflow_dispatch',
      created,
      per_page: 100,
    });
    for await (const { data } of pages) {
      const found = data.find((r) => (r.display_title ?? r.name ?? '').includes(marker) && (r.actor?.login ?? '').toLowerCase() === startedBy.toLowerCase());
      if (found) return toWorkflowRun(found);
    }
    return undefined;
  }

  /**
   * Asks GitHub to cancel a workflow run. True when asked; false when there is nothing to cancel:
   * the run already completed (409 "Cannot cancel a workflow run that is completed") or is gone (404).
   */
  async cancel(repo: string, id: number): Promise<boolean> {
    try {
      await this.octokit.rest.actions.cancelWorkflowRun({ ...repoParams(repo), run_id: id });
      return true;
    } catch (e) {
      if (e instanceof GitHubApiError && !e.credentials && (e.status === 409 || e.status === 404)) return false;
      throw e;
    }
  }

  async get(repo: string, id: number): Promise<WorkflowRun> {
    const { data } = await this.octokit.rest.actions.getWorkflowRun({ ...repoParams(repo), run_id: id });
    return toWorkflowRun(data);
  }
}
