// A result's first fields (core/contract/wire.ts's resultBase), and the failure result the error
// boundary reports.
import { resultBase, type ResultBase, type StepResult } from '../../core/contract/wire.ts';
import type { AttemptRef } from '../../core/contract/attempt-ref.ts';
import { ConveyorError } from '../../core/errors.ts';

export { resultBase as baseResult, type ResultBase };

/**
 * The attempt whatever arrived as the payload names, read leniently, so that even a bad payload's
 * failure says which attempt it belongs to where it can: what it lacks is empty (run, step),
 * attempt 1, epoch 0, mode `run`. The app counts such a result only for the attempt it names.
 */
export function attemptOfRaw(raw: unknown): AttemptRef {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const step = (o.step && typeof o.step === 'object' ? o.step : {}) as Record<string, unknown>;
  return {
    runId: typeof o.runId === 'string' ? o.runId : '',
    step: typeof step.id === 'string' ? step.id : '',
    mode: o.mode === 'repair' || o.mode === 'teardown' ? o.mode : 'run',
    attempt: typeof o.attempt === 'number' && Number.isInteger(o.attempt) && o.attempt > 0 ? o.attempt : 1,
    epoch: typeof o.epoch === 'number' && Number.isInteger(o.epoch) && o.epoch >= 0 ? o.epoch : 0,
  };
}

export function failureResult(base: ResultBase, error: unknown, scrub: (t: string) => string): StepResult {
  const code = error instanceof ConveyorError ? error.code : 'internal';
  const raw = error instanceof Error ? error.message : String(error);
  const message = scrub(raw);
  return {
    ...base,
    conclusion: 'failure',
    summary: `**Step failed (${code}):** ${message}`,
    error: { code, message },
  };
}
