// Which preview environments each step of a plan sees: a step that needs a deploy step (directly or
// through the steps between them) runs against the environments that deploy stood up. Gates,
// reviews and every repair get their URLs; a deploy gets all of them anyway (it resumes from them),
// and an approval runs no command.
import type { Plan, PlanStep } from './types.ts';

type DeployStep = Extract<PlanStep, { kind: 'deploy' }>;

/** The deploy steps `stepId` needs, directly or through other steps, in plan order. */
export function deploysBefore(plan: Plan, stepId: string): DeployStep[] {
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const stack = [...(byId.get(stepId)?.needs ?? [])];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(byId.get(id)?.needs ?? []));
  }
  return plan.steps.filter((s): s is DeployStep => s.kind === 'deploy' && seen.has(s.id));
}

/**
 * The services whose environments `stepId` is given: those the deploy steps before it stand up
 * (services with a `deploy`), in the plan's deploy order. None for a deploy or an approval.
 */
export function environmentsSeenBy(plan: Plan, stepId: string): string[] {
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step || step.kind === 'deploy' || step.kind === 'approval') return [];
  const names = new Set(deploysBefore(plan, stepId).flatMap((d) => d.services.filter((s) => plan.services[s]?.deploy)));
  const order = plan.deployWaves.flat();
  return [...names].sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
}

function rank(order: readonly string[], name: string): number {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}
