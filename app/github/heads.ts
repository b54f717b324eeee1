// The commit a run's check runs go on: the head of the primary PR, or before the first PR exists,
// the head of the primary repository's base branch when the run started (read once per run).
import type { Run } from '../../core/run/types.ts';
import type { PayloadRepo } from '../../core/wire.ts';
import type { GitHubClient } from './client.ts';

/** Runs whose base head is remembered; far more than run at once before their first PR. */
const REMEMBERED_RUNS = 1024;

export class Heads {
  private readonly base = new Map<string, Promise<string>>();

  /** The primary repository and the commit to put check runs on. */
  async of(run: Run, repos: PayloadRepo[], client: GitHubClient): Promise<{ repo: string; head: string }> {
    const primary = repos.find((r) => r.role === 'primary') ?? repos[0];
    if (!primary) throw new Error(`run ${run.id} has no repositories`);
    const key = `${run.id}\u0000${primary.base}`;
    const pr = run.prs.find((p) => p.repo === primary.repo) ?? primary.pr;
    if (pr?.head) {
      // The base head is not asked for again once the run has a PR.
      this.base.delete(key);
      return { repo: primary.repo, head: pr.head };
    }
    let head = this.base.get(key);
    if (!head) {
      head = client.branchHead(primary.repo, primary.base);
      this.base.set(key, head);
      // A run that ends before its first PR never reaches the delete above: the oldest goes.
      if (this.base.size > REMEMBERED_RUNS) this.base.delete(this.base.keys().next().value!);
      head.catch(() => this.base.delete(key));
    }
    return { repo: primary.repo, head: await head };
  }
}
