// The app lost its access: the installation was deleted, or repositories were removed from it.
// Active runs there can do nothing more (every call to those repositories would fail): each is
// cancelled with why, and nothing more is asked of GitHub for it (no teardown, no report), but
// for taking a merge's PRs out of their queue: one left there would merge on its own, and a
// repository still reachable can have it dequeued (the engine says which could not be).
import type { AppDeps } from './deps.ts';
import { githubOriginOf } from '../core/run/origin.ts';

/** `repos`: the repositories removed, or undefined when the whole installation is gone. */
export async function onInstallationGone(deps: AppDeps, installationId: number, repos: string[] | undefined, why: string): Promise<void> {
  const gone = new Set(repos?.map((r) => r.toLowerCase()));
  for (const run of await deps.store.list({ status: ['running', 'waiting'] })) {
    if (githubOriginOf(run)?.installationId !== installationId) continue;
    const touches = repos === undefined || run.plan.changeSet.some((r) => gone.has(r.repo.toLowerCase())) || gone.has(run.issue.repo.toLowerCase());
    if (!touches) continue;
    await deps.engine.apply(run.id, { type: 'cancel', at: deps.now(), by: 'GitHub', reason: why, unreachable: true });
    deps.log.info(`run ${run.id} cancelled: ${why}`, { run: run.id });
  }
}
