// What a compiled step refers to: the agents it may run and the services it names.
import type { PlanStep } from './types.ts';

/** Agents a step may run: its own, its repair agent, a gate's author. */
export function agentsOfStep(step: PlanStep): string[] {
  switch (step.kind) {
    case 'code':
      return [step.agent];
    case 'gate':
      return [...(step.repair ? [step.repair.agent] : []), ...(step.author !== undefined ? [step.author] : [])];
    case 'review':
      return [step.agent, ...(step.repair ? [step.repair.agent] : [])];
    case 'ci':
      return step.repair ? [step.repair.agent] : [];
    default:
      return [];
  }
}

/** Services a step names explicitly (gate `in`, deploy `services`). */
export function servicesOfStep(step: PlanStep): string[] {
  if (step.kind === 'gate') return step.in;
  if (step.kind === 'deploy') return step.services;
  return [];
}
