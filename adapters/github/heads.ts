// The commit a run's check runs go on: the head of the primary PR, or before the first PR exists,
// the head of the primary repository's base branch when the run started (read once per run).
import type { Run } from '../../core/run/types.ts';
import type { PayloadRepo } from '../../core/contract/wire.ts';
import type { Repos } from './forge/repos.ts';

/** Runs whose base head is remembered; far more than run at once before their first PR. */
const REMEMBERED_RUNS = 1024;

interface BaseHead {
  asked: Promise<string>;
  /** Once GitHub answered. */
  head?: string;
}

export class Heads {
  private readonly base = new Map<string, BaseHead>();

  /** The primary repository and the commit to put check runs on. */
  async of(run: Run, repos: PayloadRepo[], github: Pick<Repos, 'branchHead'>): Promise<{ repo: string; head: string }> {
    const { repo, base: branch, key, pr } = this.primaryOf(run, repos);
    if (pr?.head) {
      // The base head is not asked for again once the run has a PR.
      this.base.delete(key);
      return { repo, head: pr.head };
    }
    let base = this.base.get(key);
    if (!base) {
      const asked = github.branchHead(repo, branch);
      const entry: BaseHead = { asked };
      base = entry;
      this.remember(key, entry);
      asked.then(
        (head) => void (entry.head = head),
        () => {
          // Unless `adopt` put a head there meanwhile.
          if (this.base.get(key) === entry) this.base.delete(key);
        },
      );
    }
    return { repo, head: await base.asked };
  }

  /** The base head of a run about to start, read by its starter (a failed read is not adopted: `of` asks). */
  adopt(runId: string, base: string, head: string): void {
    this.remember(`${runId}\u0000${base}`, { asked: Promise.resolve(head), head });
  }

  /** The same, when it is known without asking GitHub (the PR's head, or a base head already read). */
  known(run: Run, repos: PayloadRepo[]): { repo: string; head: string } | undefined {
    const { repo, key, pr } = this.primaryOf(run, repos);
    const head = pr?.head ?? this.base.get(key)?.head;
    return head ? { repo, head } : undefined;
  }

  private remember(key: string, entry: BaseHead): void {
    this.base.set(key, entry);
    // A run that ends before its first PR never reaches the delete in `of`: the oldest goes.
    if (this.base.size > REMEMBERED_RUNS) this.base.delete(this.base.keys().next().value!);
  }

  private primaryOf(run: Run, repos: PayloadRepo[]) {
    const primary = repos.find((r) => r.role === 'primary') ?? repos[0];
    if (!primary) throw new Error(`run ${run.id} has no repositories`);
    return { repo: primary.repo, base: primary.base, key: `${run.id}\u0000${primary.base}`, pr: run.prs.find((p) => p.repo === primary.repo) ?? primary.pr };
  }
}
