// Which steps of a pipeline changed between two compiled plans: what `/conveyor retry` shows when
// it refuses to resume a run whose pipeline changed under it.
import { canonicalJson } from '../canonical.ts';
import { agentsOfStep, servicesOfStep } from './steps.ts';
import type { Plan, PlanStep } from './types.ts';

export interface StepDiff {
  /** A step id, or PIPELINE_ENTRY for a change to the pipeline as a whole (label, services). */
  step: string;
  /** Absent when the step was added. */
  before?: object;
  /** Absent when the step was removed. */
  after?: object;
}

export const PIPELINE_ENTRY = '(pipeline)';

/**
 * Steps whose behaviour differs: the step itself, or an agent or service it uses. Steps of
 * `after` come first in its order, then removed ones. Empty exactly when the hashes are equal.
 */
export function planDiff(before: Plan, after: Plan): StepDiff[] {
  const diffs: StepDiff[] = [];
  const beforeSteps = new Map(before.steps.map((s) => [s.id, s]));
  const afterIds = new Set(after.steps.map((s) => s.id));
  for (const step of after.steps) {
    const old = beforeSteps.get(step.id);
    const a = footprint(after, step);
    if (!old) diffs.push({ step: step.id, after: a });
    else {
      const b = footprint(before, old);
      if (canonicalJson(a) !== canonicalJson(b)) diffs.push({ step: step.id, before: b, after: a });
    }
  }
  for (const step of before.steps) {
    if (!afterIds.has(step.id)) diffs.push({ step: step.id, before: footprint(before, step) });
  }
  const b = pipelineFootprint(before);
  const a = pipelineFootprint(after);
  const pipelineChanged = canonicalJson(a) !== canonicalJson(b);
  // Step order alone (same steps, same needs) can change the waves' inner order; and a change no
  // step's footprint covers must still be shown, or retry would refuse without saying why.
  if (pipelineChanged || (diffs.length === 0 && before.hash !== after.hash)) {
    diffs.push({ step: PIPELINE_ENTRY, before: { ...b, waves: before.waves }, after: { ...a, waves: after.waves } });
  }
  return diffs;
}

/** Everything that decides what one step does. */
function footprint(plan: Plan, step: PlanStep): object {
  const agents = Object.fromEntries(agentsOfStep(step).map((n) => [n, plan.agents[n]]));
  if (step.kind === 'approval') return { step, agents };
  // Every other kind acts on the change set's repositories (or deploys its services).
  const names = new Set([...plan.changeSet.flatMap((r) => r.services), ...servicesOfStep(step)]);
  const services = Object.fromEntries([...names].sort().map((n) => [n, plan.services[n]]));
  return {
    step,
    agents,
    services,
    changeSet: plan.changeSet,
    ...(step.kind === 'deploy' && { deployWaves: plan.deployWaves }),
  };
}

function pipelineFootprint(plan: Plan): object {
  return { pipeline: plan.pipeline, label: plan.label, service: plan.service, involves: plan.involves };
}
