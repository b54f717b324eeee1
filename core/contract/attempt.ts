// What one step attempt runs, read from its payload alone: the agent (the step's own, a repair's,
// a gate's author) and the services whose deploys or teardowns it runs, and so the variables it
// may be given by name. The action runs by it; the embedded mode's dispatcher passes exactly these
// variables to the step process, and no others.
import { isGitHubTokenName } from '../config/secret-names.ts';
import type { StepPayload } from './wire.ts';

/** The agent the attempt runs, or undefined when it runs none (a plain gate, a deploy, a teardown). */
export function agentOfAttempt(payload: StepPayload): string | undefined {
  const step = payload.step;
  if (payload.mode === 'teardown') return undefined;
  if (payload.mode === 'repair') {
    // A merge step's repair resolves a conflict with the base: the coder's work.
    if (step.kind === 'code') return step.agent;
    if (step.kind === 'merge') return payload.coder?.agent;
    return 'repair' in step && step.repair ? step.repair.agent : undefined;
  }
  if (step.kind === 'code' || step.kind === 'review') return step.agent;
  if (step.kind === 'gate') return step.author;
  return undefined;
}

/** The services whose deploy or teardown commands the attempt runs. */
export function deployingServices(payload: StepPayload): string[] {
  if (payload.mode === 'teardown') return [...new Set(payload.environments.map((e) => e.service))];
  if (payload.mode === 'run' && payload.step.kind === 'deploy') return payload.step.services;
  return [];
}

/** The variables the attempt's commands are given by name (never a GitHub token), sorted. */
export function attemptSecretNames(payload: StepPayload): string[] {
  const agent = agentOfAttempt(payload);
  const names = [...(agent ? (payload.agents[agent]?.secrets ?? []) : []), ...deployingServices(payload).flatMap((s) => payload.services[s]?.secrets ?? [])];
  return [...new Set(names)].filter((n) => !isGitHubTokenName(n)).sort();
}

/** Every variable the payload says is given by name to some command of the run: no other command gets it. */
export function byNameOf(payload: StepPayload): Set<string> {
  return new Set([...(payload.byName ?? []), ...[...Object.values(payload.agents), ...Object.values(payload.services)].flatMap((x) => x.secrets ?? [])]);
}
