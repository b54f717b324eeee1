// Every default of `.github/conveyor.yml` in one place: the validator and the plan compiler must
// agree on them, and the plan hash depends on them.
import type { AgentConfig, StepConfig, StepKind } from './schema.ts';
import { presetHosts } from './model-api.ts';

export const DEFAULT_LABEL = 'conveyor';
export const DEFAULT_PIPELINE = 'default';
export const DEFAULT_BASE = 'main';
/** The runner of a step's workflow job when neither the step nor its pipeline says (the workflow template's fallback too). */
export const DEFAULT_RUNS_ON = 'ubuntu-latest';
export const DEFAULT_MERGE_METHOD = 'squash' as const;
export const DEFAULT_MAX_ATTEMPTS = 2;
export const DEFAULT_MIN_APPROVALS = 1;
export const DEFAULT_ALLOW_REQUESTER = false;
export const DEFAULT_AGENT_TIMEOUT_MINUTES = 45;
/** No output and no change in the workspace for this long: the agent is stopped and its attempt runs again. */
export const DEFAULT_STALL_MINUTES = 15;
/** Times an agent runs again, after a backoff, when its model's vendor is unavailable (429, 529, 5xx). */
export const DEFAULT_VENDOR_RETRIES = 3;
/** Long enough for `npm ci` of a large repository or a CLI's install, short of most steps' own timeouts. */
export const DEFAULT_SETUP_TIMEOUT_MINUTES = 15;
export const DEFAULT_DEPLOY_TIMEOUT_MINUTES = 15;
/** The id of the step the pipeline's `ci` compiles to (a written step may not take it). */
export const CI_STEP_ID = 'ci';
/** How long the `ci` step waits for the required checks on the run's final heads. */
export const DEFAULT_CI_WAIT_MINUTES = 60;
export const DEFAULT_SANDBOX = 'best-effort' as const;

/**
 * The hosts an agent may reach when its `network` says nothing: what its preset's CLI needs (its
 * model vendor's API, its own update host where it insists). A plain `run` needs nothing.
 */
export function defaultAgentHosts(agent: AgentConfig): string[] {
  return agent.preset ? presetHosts(agent.preset, agent.provider) : [];
}

/** Step timeouts by kind, in minutes. An approval waits for people and is never timed out by
 * Conveyor; its value stays inside the 1..360 range every `timeout-minutes` takes. */
export const DEFAULT_STEP_TIMEOUT_MINUTES: Readonly<Record<StepKind, number>> = {
  code: 60,
  gate: 30,
  review: 30,
  deploy: 30,
  approval: 360,
  merge: 10,
};

/** `conveyor` for the pipeline named `default`, `conveyor:<name>` for any other. */
export function defaultLabel(pipeline: string): string {
  return pipeline === DEFAULT_PIPELINE ? DEFAULT_LABEL : `${DEFAULT_LABEL}:${pipeline}`;
}

export function labelOf(pipeline: string, label: string | undefined): string {
  return label ?? defaultLabel(pipeline);
}

/**
 * The steps a step waits for: its `needs` when written (even `[]`), else the step before it, so
 * that steps run in the order written.
 */
export function needsOf(steps: readonly Pick<StepConfig, 'id' | 'needs'>[], index: number): string[] {
  const step = steps[index];
  if (step?.needs !== undefined) return [...step.needs];
  const before = index > 0 ? steps[index - 1] : undefined;
  return before === undefined ? [] : [before.id];
}
