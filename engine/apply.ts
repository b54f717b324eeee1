// Applying one event to a stored run: read, reduce, compare-and-swap. On a conflict (another
// handle or process wrote the run in between) the event is re-applied to the fresh run, so it is
// never lost, and never applied twice: a commit either happens whole or not at all.
import type { Run, Transition } from '../core/run/types.ts';
import { StoreError } from './ports/store.ts';
import type { EffectRef, RunStore } from './ports/store.ts';

/** Far beyond any real contention: each retry means another writer made progress. */
const MAX_CONFLICTS = 10_000;

/**
 * Returns the transition with run.version set to the stored version, and `committed`: whether it
 * was written. When the event changes nothing (the reducer returned the run it was given) and asks
 * for no effect, nothing is written.
 *
 * `done`: effects already carried out, marked done in the transaction of the first commit tried
 * (see RunStore.commit); when nothing is committed they are marked on their own, so they are
 * always written by the time this returns.
 *
 * `beforeCommit`: called with each transition just before its commit is tried (synchronously, so
 * that what it queues for the store's next write rides on that commit); what it returns is called
 * with whether that commit wrote the transition.
 */
export function applyEvent<E>(
  store: RunStore,
  runId: string,
  event: E,
  reduceFn: (run: Run, event: E) => Transition,
  done?: readonly EffectRef[],
  beforeCommit?: (run: Run, effects: Transition['effects']) => ((committed: boolean) => void) | undefined,
): Transition & { committed: boolean } {
  let marks = done?.length ? done : undefined;
  const commit = (run: Run, effects: Transition['effects']): boolean => {
    const settle = beforeCommit?.(run, effects);
    let ok = false;
    try {
      ok = store.commit(run, effects, marks);
    } finally {
      settle?.(ok);
    }
    marks = undefined;
    return ok;
  };
  let t: Transition & { committed: boolean };
  try {
    t = applyOnce(store, runId, event, reduceFn, commit);
  } catch (e) {
    try {
      if (marks) store.markEffectsDone(marks);
    } catch {
      // The first error says more; unwritten marks leave their effects pending for recovery.
    }
    throw e;
  }
  if (marks) store.markEffectsDone(marks);
  return t;
}

function applyOnce<E>(
  store: RunStore,
  runId: string,
  event: E,
  reduceFn: (run: Run, event: E) => Transition,
  commit: (run: Run, effects: Transition['effects']) => boolean,
): Transition & { committed: boolean } {
  // Optimistic: start from the run this handle last saw (the commit checks its version anyway).
  let run = store.peek?.(runId);
  let fresh = false;
  for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts++) {
    if (!run) {
      run = store.get(runId);
      fresh = true;
      if (!run) throw new StoreError('no-such-run', `There is no run "${runId}" in the store.`);
    }
    const t = reduceFn(run, event);
    if (t.run === run && t.effects.length === 0) {
      // A stale run may ignore what the stored one would not: only the stored run can say "nothing".
      if (fresh) return { ...t, committed: false };
      const stored = store.get(runId);
      if (stored === run) return { ...t, committed: false };
      run = stored;
      fresh = true;
      continue;
    }
    // The reducer keeps the version it was given; the store owns it.
    const next = t.run.version === run.version ? t.run : { ...t.run, version: run.version };
    if (commit(next, t.effects)) return { run: { ...next, version: run.version + 1 }, effects: t.effects, committed: true };
    run = undefined;
  }
  throw new StoreError('conflict', `Run "${runId}" kept changing under ${MAX_CONFLICTS} attempts to apply one event; is a process writing it in a loop?`);
}
