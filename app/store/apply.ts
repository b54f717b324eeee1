// Applying one event to a stored run: read, reduce, compare-and-swap. On a conflict (another
// handle or process wrote the run in between) the event is re-applied to the fresh run, so it is
// never lost, and never applied twice: a commit either happens whole or not at all.
import type { Run, Transition } from '../../core/run/types.ts';
import { StoreError } from './port.ts';
import type { RunStore } from './port.ts';

/** Far beyond any real contention: each retry means another writer made progress. */
const MAX_CONFLICTS = 10_000;

/**
 * Returns the transition with run.version set to the stored version. When the event changes
 * nothing (the reducer returned the run it was given) and asks for no effect, nothing is written.
 */
export function applyEvent<E>(
  store: RunStore,
  runId: string,
  event: E,
  reduceFn: (run: Run, event: E) => Transition,
): Transition {
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
      if (fresh) return t;
      const stored = store.get(runId);
      if (stored === run) return t;
      run = stored;
      fresh = true;
      continue;
    }
    // The reducer keeps the version it was given; the store owns it.
    const next = t.run.version === run.version ? t.run : { ...t.run, version: run.version };
    if (store.commit(next, t.effects)) return { run: { ...next, version: run.version + 1 }, effects: t.effects };
    run = undefined;
  }
  throw new StoreError('conflict', `Run "${runId}" kept changing under ${MAX_CONFLICTS} attempts to apply one event; is a process writing it in a loop?`);
}
