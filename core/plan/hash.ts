// The plan hash pins a run to what it was started with. It is taken over the compiled plan, where
// every default is written out and every set is in one order, so it changes exactly when what
// runs changes, not when the file is merely reformatted.
import { digest } from '../canonical.ts';
import type { Plan } from './types.ts';

/**
 * SHA-256 (hex) of the canonical JSON of the plan without its `hash` and its `budgetUsd`: a budget
 * says how much may be spent, not what runs, so a run whose budget was raised is still on the
 * pipeline it started with (and `retry` goes on).
 */
export function hashPlan(plan: Omit<Plan, 'hash'> | Plan): string {
  const { hash: _hash, budgetUsd: _budget, ...rest } = plan as Plan;
  return digest(rest);
}

/** True when the plan's `hash` matches its content (e.g. a plan read back from a store). */
export function verifyPlanHash(plan: Plan): boolean {
  return plan.hash === hashPlan(plan);
}
