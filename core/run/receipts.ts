// Receipts of a run's steps: whether a stored result verifies against the inputs the engine
// recorded when it dispatched the attempt, and what a retry does with one that does not.
import { digest } from '../canonical.ts';
import { verifyReceipt } from '../contract/receipt.ts';
import type { StepResult } from '../contract/wire.ts';
import type { Run, StepState } from './types.ts';

/** The inputs digest the engine recorded for the attempt that produced the step's result. */
export function recordedInputs(step: StepState): string | undefined {
  const r = step.result;
  if (!r) return undefined;
  for (let i = step.attempts.length - 1; i >= 0; i--) {
    const a = step.attempts[i];
    if (a && a.attempt === r.attempt && a.epoch === r.epoch && a.mode === r.mode) return a.inputs;
  }
  return undefined;
}

/** True when the step has a stored result whose receipt verifies against what was dispatched. */
export function stepVerifies(step: StepState | undefined): boolean {
  if (!step?.result) return false;
  return verifyReceipt(step.result, recordedInputs(step));
}

/** Inputs of a merge the app carries out itself: which attempt merged which PR heads. */
export function mergeInputsDigest(run: Run, attempt: { step: string; attempt: number; epoch: number }): string {
  return digest({ runId: run.id, merge: { step: attempt.step, attempt: attempt.attempt, epoch: attempt.epoch }, prs: run.prs });
}

/**
 * Steps that succeeded whose stored result does not verify (edited in the store, or never sealed
 * for what was sent), in plan order: they count as not run. Approvals carry no result (their
 * approvals are the record).
 */
export function unverifiedSteps(run: Run): string[] {
  return run.plan.steps.filter((p) => p.kind !== 'approval' && run.steps[p.id]?.status === 'succeeded' && !stepVerifies(run.steps[p.id])).map((p) => p.id);
}

/**
 * Whether a result may count for the current attempt of its step: its receipt must verify against
 * the inputs recorded when the attempt was dispatched (or, for a merge the engine carried out
 * itself, the inputs it sealed with). Why not, in words, when it may not.
 */
export function untrustedResult(step: StepState, result: StepResult, inputs: string | undefined): string | undefined {
  const record = step.attempts.findLast((a) => a.attempt === step.attempt && a.epoch === step.epoch);
  const expected = record?.inputs ?? inputs;
  if (!expected) return 'no inputs were recorded for its attempt to verify it against';
  if (!result.receipt) return 'it carries no receipt';
  if (!verifyReceipt(result, expected)) return 'its receipt does not verify against the payload that was sent';
  return undefined;
}
