// Runs as stored JSON, and the freezing that lets a store share the runs it hands out.
import type { Run } from '../../core/run/types.ts';

/** JSON text of the run without its plan (stored once, apart). */
export function serializeRun(run: Run): string {
  const { plan: _plan, ...rest } = run;
  return JSON.stringify(rest);
}

/**
 * Under tests (vitest, NODE_ENV=test, or CONVEYOR_FREEZE_RUNS=1) runs a store takes are frozen
 * whole, so that code changing a shared run in place fails loudly there. Elsewhere only the run
 * object itself is frozen: freezing every new part costs a third of a bare write per transition.
 */
const FREEZE_WHOLE = process.env.VITEST !== undefined || process.env.NODE_ENV === 'test' || process.env.CONVEYOR_FREEZE_RUNS === '1';

/** Freezes a run the store is given (see FREEZE_WHOLE), and returns it. */
export function freezeRun<T extends object>(run: T): T {
  return FREEZE_WHOLE ? deepFreeze(run) : Object.freeze(run);
}

/** Freezes a value and everything in it; stops at parts already frozen (they were frozen whole). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
