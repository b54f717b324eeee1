// The identity part of a step result, and the failure result the error boundary reports.
import type { StepPayload, StepResult } from '../../core/contract/wire.ts';
import { WIRE_VERSION } from '../../core/contract/wire.ts';
import { ConveyorError } from '../../core/errors.ts';

export function baseResult(payload: StepPayload): Omit<StepResult, 'conclusion' | 'summary'> {
  return {
    version: WIRE_VERSION,
    runId: payload.runId,
    stepId: payload.step.id,
    mode: payload.mode,
    attempt: payload.attempt,
    epoch: payload.epoch,
    prs: [],
    commits: {},
    environments: [],
  };
}

/** Identity read leniently from whatever the payload was, so even a bad payload's failure says
 * which attempt it belongs to when it can. */
export function identityOf(raw: unknown): Omit<StepResult, 'conclusion' | 'summary'> {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const step = (o.step && typeof o.step === 'object' ? o.step : {}) as Record<string, unknown>;
  const posInt = (v: unknown, d: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : d);
  const mode = o.mode === 'repair' || o.mode === 'teardown' ? o.mode : 'run';
  return {
    version: WIRE_VERSION,
    runId: typeof o.runId === 'string' ? o.runId : '',
    stepId: typeof step.id === 'string' ? step.id : '',
    mode,
    attempt: posInt(o.attempt, 1),
    epoch: typeof o.epoch === 'number' && Number.isInteger(o.epoch) && o.epoch >= 0 ? o.epoch : 0,
    prs: [],
    commits: {},
    environments: [],
  };
}

export function failureResult(identity: Omit<StepResult, 'conclusion' | 'summary'>, error: unknown, scrub: (t: string) => string): StepResult {
  const code = error instanceof ConveyorError ? error.code : 'internal';
  const raw = error instanceof Error ? error.message : String(error);
  const message = scrub(raw);
  return {
    ...identity,
    conclusion: 'failure',
    summary: `**Step failed (${code}):** ${message}`,
    error: { code, message },
  };
}
