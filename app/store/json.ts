// Runs as stored JSON, and the freezing that lets a store share the runs it hands out.
import type { Run } from '../../core/run/types.ts';

/** JSON text of the run without its plan (stored once, apart). */
export function serializeRun(run: Run): string {
  const { plan: _plan, ...rest } = run;
  return JSON.stringify(rest);
}

/** Freezes a value and everything in it; stops at parts already frozen (they were frozen whole). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
