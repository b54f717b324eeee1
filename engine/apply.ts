// Applying one event to a stored run: read, reduce, compare-and-swap. On a conflict (another
// handler, process or replica wrote the run in between) the event is applied again to the fresh
// run, so it is never lost, and never applied twice: a commit happens whole or not at all.
import type { Run, Transition } from '../core/run/types.ts';
import { StoreError, type EffectClaim, type RunStore } from './ports/store.ts';

/** Far beyond any real contention: each retry means another writer made progress. */
const MAX_CONFLICTS = 1000;

/**
 * Returns the transition with run.version set to the stored version, whether it was written, and
 * the keys of its effects that `claim` now holds (see RunStore.commit). When the event changes
 * nothing (the reducer returned the run it was given) and asks for no effect, nothing is written.
 */
export async function applyEvent<E>(
  store: RunStore,
  runId: string,
  event: E,
  reduce: (run: Run, event: E) => Transition,
  claim?: EffectClaim,
): Promise<Transition & { committed: boolean; claimed: string[] }> {
  for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts++) {
    const run = await store.get(runId);
    if (!run) throw new StoreError('no-such-run', `There is no run "${runId}" in the store.`);
    const t = reduce(run, event);
    if (t.run === run && t.effects.length === 0) return { ...t, committed: false, claimed: [] };
    // The reducer keeps the version it was given; the store owns it.
    const next = { ...t.run, version: run.version };
    const written = await store.commit(next, t.effects, claim);
    if (written) return { run: { ...next, version: run.version + 1 }, effects: t.effects, committed: true, claimed: written.claimed };
  }
  throw new StoreError('conflict', `Run "${runId}" kept changing under ${MAX_CONFLICTS} attempts to apply one event; is a process writing it in a loop?`);
}
