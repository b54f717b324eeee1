// `/conveyor revert`, from a writer of the run's primary repository (app/commands.ts checked who
// asks, as for every steering command): on a run whose merge stopped part-way, the revert PRs of
// what merged are opened on GitHub (engine/revert.ts: GraphQL revertPullRequest, so the app runs
// no git), the run is cancelled (the store keeps one active run per issue and pipeline, and the
// rest of it must not merge after its revert), and the revert run starts, waiting for its approval.
import { partialMerge, revertRunId } from '../core/run/revert.ts';
import type { Run } from '../core/run/types.ts';
import type { NewRun } from '../engine/engine.ts';
import { openReverts } from '../engine/revert.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import type { AppDeps } from './deps.ts';

/** Started (the revert run's id), or refused with why and what changed, in words for the person who asked. */
export async function revertRun(deps: AppDeps, github: GitHub, run: Run, by: string): Promise<{ started: string } | { refused: string }> {
  const partial = partialMerge(run);
  if ('refused' in partial) return { refused: `${partial.refused} Nothing changed.` };
  const existing = await deps.store.get(revertRunId(run));
  if (existing) {
    return {
      refused: `run \`${existing.id}\` already reverts run \`${run.id}\` (it is ${existing.status}); its tracking comment shows where it stands. Nothing changed.`,
    };
  }
  let next: NewRun;
  try {
    next = await openReverts(github.forge, run, partial, {
      by,
      origin: run.origin,
      settings: { ...run.settings, payloadLimit: deps.payloadLimit },
    });
  } catch (e) {
    return { refused: `Conveyor could not revert what run \`${run.id}\` merged: ${(e as Error).message} Run \`${run.id}\` goes on as it was.` };
  }
  if (run.status === 'running' || run.status === 'waiting') {
    await deps.engine.apply(run.id, { type: 'cancel', at: deps.now(), by, reason: `reverting what it merged: run \`${next.id}\`` });
  }
  // Nothing of a run this process starts can be on GitHub yet: its reports need not look first.
  deps.reporter.markNew(next.id);
  await deps.engine.start(next);
  return { started: next.id };
}
