// Check runs on GitHub: each step attempt's `conveyor / <step>` (the workflow dispatcher makes it,
// the action completes it), the approval's with its buttons, and the summary `conveyor` of a head.
// Outputs are fitted to GitHub's limits here, once, on the way out.
import { fitCheckOutput } from '../../../core/github/limits.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams, type Rest } from './api.ts';

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

type ApiCheckRun = Rest['checks']['get']['response']['data'];
type ApiCheckRunWrite = Rest['checks']['update']['parameters'];

/**
 * What a check run is created or updated with: GitHub's own fields, but an output always titled
 * (what fitCheckOutput cuts) and without annotations or images, which Conveyor never sends.
 * Buttons (`actions`, at most three): label 20, description 40, identifier 20 characters.
 */
export type CheckRunWrite = Partial<Pick<ApiCheckRunWrite, 'name' | 'external_id' | 'details_url' | 'started_at' | 'completed_at' | 'actions'>> & {
  head_sha?: string;
  status?: NonNullable<ApiCheckRunWrite['status']>;
  conclusion?: NonNullable<ApiCheckRunWrite['conclusion']>;
  output?: { title: string; summary: string; text?: string };
};

// GitHub answers with every field; the `??` keep what an older server (or a partial answer) leaves out from reading as undefined.
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

export class CheckRuns {
  constructor(private readonly octokit: GitHubOctokit) {}

  async create(repo: string, check: CheckRunWrite & { name: string; head_sha: string }): Promise<CheckRun> {
    const { data } = await this.octokit.rest.checks.create({
      ...repoParams(repo),
      ...check,
      ...(check.output ? { output: fitCheckOutput(check.output) } : {}),
    });
    return toCheckRun(data);
  }

  async update(repo: string, id: number, patch: CheckRunWrite): Promise<CheckRun> {
    const { data } = await this.octokit.rest.checks.update({
      ...repoParams(repo),
      check_run_id: id,
      ...patch,
      ...(patch.output ? { output: fitCheckOutput(patch.output) } : {}),
    });
    return toCheckRun(data);
  }

  async get(repo: string, id: number): Promise<CheckRun> {
    const { data } = await this.octokit.rest.checks.get({ ...repoParams(repo), check_run_id: id });
    return toCheckRun(data);
  }

  /**
   * The check run named `name` on `ref` with this external id (looked for before one is created):
   * the newest, where there are several (a completed check run cannot change its state, so the app
   * makes a new one of the same name; GitHub lists them in no documented order, ids grow with time).
   */
  async find(repo: string, ref: string, name: string, externalId: string): Promise<CheckRun | undefined> {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.checks.listForRef, {
      ...repoParams(repo),
      ref,
      check_name: name,
      filter: 'all',
      per_page: 100,
    });
    let newest: ApiCheckRun | undefined;
    for await (const { data } of pages) {
      for (const c of data) if (c.external_id === externalId && (!newest || c.id > newest.id)) newest = c;
    }
    return newest && toCheckRun(newest);
  }
}
