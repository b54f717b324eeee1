// The commit a run's check runs go on: the head of its primary repository's pull request. A run
// the app starts has that PR from its start (its draft PR, app/start.ts, opened before the run is
// stored), so there is no earlier commit to put them on, and nothing to ask GitHub for.
import type { Run } from '../../core/run/types.ts';
import type { PayloadRepo } from '../../core/contract/wire.ts';
import { ConveyorError } from '../../core/errors.ts';

/** The primary repository and the commit to put check runs on. */
export function checkRunsHead(run: Pick<Run, 'id' | 'prs'>, repos: readonly PayloadRepo[]): { repo: string; head: string } {
  const primary = repos.find((r) => r.role === 'primary') ?? repos[0];
  if (!primary) throw new ConveyorError('internal', `run ${run.id} has no repositories`);
  const own = run.prs.find((p) => p.repo === primary.repo) ?? primary.pr;
  // A run with no PR in its primary repository (a revert of what merged in the others) has its check runs on its first PR.
  const pr = own ?? run.prs.find((p) => p.head);
  const head = pr?.head;
  if (!pr || !head) {
    throw new ConveyorError(
      'forge-failed',
      `run ${run.id} has no pull request in ${primary.repo} to put its check runs on (the app opens a draft one as a run starts): cancel the run and start it again`,
    );
  }
  return { repo: pr.repo, head };
}
