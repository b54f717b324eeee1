// What a run's agents used, and its budget. Each attempt's record keeps the usage its result
// reported (the result's receipt seals it, and a result counts only once its receipt verifies), so
// a step's usage is the sum over its attempts (failed ones and repairs cost money too) and the
// run's the sum over its steps.
//
// The budget (`pipelines.<name>.budget-usd`) lives in the run's plan as `budgetUsd`, outside the
// plan hash (core/plan/hash.ts): it says how much may be spent, not what runs. A retry carries the
// configuration's value as it is then (the command line compiles the file again, the app reads it
// from the default branch) and the reducer puts it in the plan, so raising the budget and retrying
// goes on without the retry being refused as a changed pipeline. Before an attempt that runs an
// agent is dispatched, a run that has spent its budget stops instead: the step fails with
// `budget-exhausted`, saying what was spent on what.
import { describeUsage, formatUsd, MAX_USD, sumUsage, type Usage } from '../contract/usage.ts';
import type { StepPayload } from '../contract/wire.ts';
import type { PlanStep } from '../plan/types.ts';
import type { AttemptMode, Run, StepState } from './types.ts';

/** How a step stopped by the budget says so: its reason starts with this. */
export const BUDGET_EXHAUSTED = 'budget-exhausted';

/** Every attempt of the step, summed (undefined while none reported any usage). */
export function stepUsage(step: StepState | undefined): Usage | undefined {
  return step ? sumUsage(step.attempts.map((a) => a.usage)) : undefined;
}

/** Every attempt of every step, summed. */
export function runUsage(run: Run): Usage | undefined {
  return sumUsage(run.plan.steps.map((p) => stepUsage(run.steps[p.id])));
}

/** What the run has spent in US dollars, as its agents reported it. */
export function spentUsd(run: Run): number {
  return runUsage(run)?.costUsd ?? 0;
}

/** Whether an attempt of this step in this mode runs an agent (a dispatch the budget may stop). */
export function runsAgent(step: PlanStep, mode: AttemptMode): boolean {
  if (mode === 'repair') return true;
  switch (step.kind) {
    case 'code':
    case 'review':
      return true;
    case 'gate':
      return step.author !== undefined;
    default:
      return false;
  }
}

/**
 * Why the run may not start an agent attempt of `stepId` now, or undefined when it may: it has a
 * budget and has spent it. Says what was spent on what, and how to go on.
 */
export function budgetBlocks(run: Run, stepId: string, mode: AttemptMode): string | undefined {
  const budget = run.plan.budgetUsd;
  const step = run.plan.steps.find((s) => s.id === stepId);
  if (budget === undefined || !step || !runsAgent(step, mode)) return undefined;
  const spent = spentUsd(run);
  // A cost at the ceiling is a sum that stopped there (core/contract/usage.ts): at least that much
  // was spent, maybe more, so it exhausts a budget set above the ceiling too.
  const capped = spent >= MAX_USD;
  if (spent < budget && !capped) return undefined;
  const what = run.plan.steps
    .map((p) => ({ id: p.id, usd: stepUsage(run.steps[p.id])?.costUsd }))
    .filter((x) => x.usd !== undefined && x.usd > 0)
    .map((x) => `"${x.id}" ${formatUsd(x.usd!)}`)
    .join(', ');
  return (
    `${BUDGET_EXHAUSTED}: the run has spent ${formatUsd(spent)}${capped ? " (Conveyor's ceiling: at least that)" : ''} of its ${formatUsd(budget)} budget${what ? ` (${what})` : ''}, ` +
    `so no more agent attempts start; raise pipelines.${run.plan.pipeline}.budget-usd and retry to go on`
  );
}

/** What the run used before an attempt of `stepId`, for its check run (absent while nothing was reported and there is no budget). */
export function usageSoFar(run: Run, stepId: string): Pick<StepPayload, 'usageSoFar'> {
  const step = stepUsage(run.steps[stepId]);
  const all = runUsage(run);
  const budget = run.plan.budgetUsd;
  if (!step && !all && budget === undefined) return {};
  return { usageSoFar: { ...(step ? { step } : {}), ...(all ? { run: all } : {}), ...(budget !== undefined ? { budgetUsd: budget } : {}) } };
}

/** One line for people: the run's usage, and its budget when it has one (undefined when there is neither). */
export function describeRunUsage(run: Run): string | undefined {
  const all = runUsage(run);
  const budget = run.plan.budgetUsd;
  if (!all && budget === undefined) return undefined;
  const parts = [all ? describeUsage(all) : 'nothing reported yet'];
  if (budget !== undefined) parts.push(`budget ${formatUsd(budget)}`);
  return parts.join(' · ');
}
