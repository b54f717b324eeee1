// Compiled plans for tests, built directly (not through the plan compiler), so that run state
// machine tests depend only on the Plan types. A step without `needs` needs the step written
// before it, as in a configuration file.
import { digest } from '../../core/canonical.ts';
import { topologicalWaves } from '../../core/graph.ts';
import type { Plan, PlanStep } from '../../core/plan/types.ts';
import { inputsDigest, sealResult } from '../../core/contract/receipt.ts';
import type { StepPayload, StepResult } from '../../core/contract/wire.ts';
import type { Run, RunEvent } from '../../core/run/types.ts';
import { WIRE_VERSION } from '../../core/contract/wire.ts';
import type { RunOrigin } from '../../core/run/origin.ts';

export type StepSpec =
  | { id: string; kind: 'code'; needs?: string[] }
  | { id: string; kind: 'gate' | 'review'; needs?: string[]; repair?: number }
  | { id: string; kind: 'deploy'; needs?: string[] }
  | { id: string; kind: 'approval'; needs?: string[]; minApprovals?: number; approvers?: string[]; allowRequester?: boolean }
  | { id: string; kind: 'merge'; needs?: string[] }
  /** The pipeline's `ci` step; `waitMinutes` its timeout (default 60). */
  | { id: string; kind: 'ci'; needs?: string[]; repair?: number; waitMinutes?: number };

export function planStepOf(spec: StepSpec, previous: string | undefined): PlanStep {
  const common = { id: spec.id, needs: spec.needs ?? (previous ? [previous] : []), timeoutMinutes: 30 };
  switch (spec.kind) {
    case 'code':
      return { ...common, kind: 'code', agent: 'coder', writes: [] };
    case 'gate':
      return {
        ...common,
        kind: 'gate',
        run: 'npm test',
        in: [],
        ...(spec.repair !== undefined ? { repair: { agent: 'coder', maxAttempts: spec.repair } } : {}),
      };
    case 'review':
      return {
        ...common,
        kind: 'review',
        agent: 'reviewer',
        ...(spec.repair !== undefined ? { repair: { agent: 'coder', maxAttempts: spec.repair } } : {}),
      };
    case 'deploy':
      return { ...common, kind: 'deploy', services: [] };
    case 'approval':
      return {
        ...common,
        kind: 'approval',
        approvers: spec.approvers ?? [],
        minApprovals: spec.minApprovals ?? 1,
        allowRequester: spec.allowRequester ?? false,
      };
    case 'merge':
      return { ...common, kind: 'merge', method: 'squash' };
    case 'ci':
      return {
        ...common,
        timeoutMinutes: spec.waitMinutes ?? 60,
        kind: 'ci',
        ...(spec.repair !== undefined ? { repair: { agent: 'coder', maxAttempts: spec.repair } } : {}),
      };
  }
}

export function planOf(specs: StepSpec[], pipeline = 'default'): Plan {
  const steps = specs.map((s, i) => planStepOf(s, specs[i - 1]?.id));
  const byId = new Map(steps.map((s) => [s.id, s]));
  const waves = topologicalWaves(
    steps.map((s) => s.id),
    (id) => byId.get(id)?.needs ?? [],
  );
  const plan: Omit<Plan, 'hash'> = {
    pipeline,
    label: 'conveyor',
    service: 'web',
    involves: [],
    steps,
    waves,
    agents: {
      coder: { name: 'coder', run: 'true', model: 'anthropic/claude', timeoutMinutes: 30, env: {} },
      reviewer: { name: 'reviewer', run: 'true', model: 'openai/gpt', timeoutMinutes: 30, env: {} },
    },
    services: {
      web: { name: 'web', repo: 'acme/web', base: 'main', dependsOn: [], deploy: null },
    },
    changeSet: [{ repo: 'acme/web', base: 'main', role: 'primary', services: ['web'] }],
    deployWaves: [['web']],
  };
  return { ...plan, hash: digest(plan) };
}

/** The pipeline of DESIGN.md: code, gate with repair, review with repair, deploy, approval, merge. */
export function designPlan(): Plan {
  return planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate', repair: 2 },
    { id: 'review', kind: 'review', repair: 1, needs: ['implement'] },
    { id: 'preview', kind: 'deploy', needs: ['implement'] },
    { id: 'approve', kind: 'approval', needs: ['test', 'review', 'preview'] },
    { id: 'ship', kind: 'merge' },
  ]);
}

/** A step result as the action would report it. */
export function resultOf(
  runId: string,
  stepId: string,
  attempt: number,
  epoch: number,
  conclusion: StepResult['conclusion'],
  extra: Partial<StepResult> = {},
): StepResult {
  return {
    version: WIRE_VERSION,
    runId,
    step: stepId,
    mode: 'run',
    attempt,
    epoch,
    conclusion,
    summary: `${stepId} ${conclusion}`,
    prs: [],
    commits: {},
    environments: [],
    ...extra,
  };
}

/**
 * What the action answers to a payload when its step succeeds: a result for exactly that attempt
 * (a teardown reports as a run), sealed against the payload as the action seals it.
 */
export function successFor(payload: StepPayload, extra: Partial<StepResult> = {}): StepResult {
  const mode = payload.mode === 'teardown' ? 'run' : payload.mode;
  return sealResult(resultOf(payload.runId, payload.step.id, payload.attempt, payload.epoch, 'success', { mode, ...extra }), inputsDigest(payload));
}

/**
 * A result sealed as the action seals it: against the inputs its attempt recorded at dispatch
 * (the reducer trusts nothing else). A result of an attempt the run never dispatched stays unsealed.
 */
export function sealedFor(run: Run, result: StepResult): StepResult {
  const record = run.steps[result.step]?.attempts.findLast((a) => a.attempt === result.attempt && a.epoch === result.epoch);
  return record?.inputs ? sealResult(result, record.inputs) : result;
}

/**
 * The completion of the step's current attempt (its attempt, epoch and mode), sealed: against the
 * inputs its attempt recorded at dispatch, or for a merge the engine carries out itself, against
 * inputs of its own that come with the event.
 */
export function completionOf(run: Run, stepId: string, conclusion: StepResult['conclusion'], extra: Partial<StepResult> = {}): RunEvent {
  const s = run.steps[stepId];
  if (!s) throw new Error(`no step ${stepId}`);
  const result = resultOf(run.id, stepId, s.attempt, s.epoch, conclusion, { mode: s.mode, ...extra });
  const recorded = s.attempts.findLast((a) => a.attempt === s.attempt && a.epoch === s.epoch)?.inputs;
  const inputs = recorded ?? `merge:${stepId}:${s.attempt}:${s.epoch}`;
  return { type: 'step-completed', at: '2025-01-01T00:00:00.000Z', result: sealResult(result, inputs), ...(recorded ? {} : { inputs }) };
}

/** The origin of a run a test builds directly: the command line's, naming files no such test reads. */
export const TEST_ORIGIN: RunOrigin = {
  kind: 'embedded',
  configPath: '/nonexistent/conveyor.yml',
  remotes: '/nonexistent/remotes',
  approve: false,
  json: false,
};
