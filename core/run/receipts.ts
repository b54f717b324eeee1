// Receipts of a run's steps: whether a stored result verifies against the inputs the engine
// recorded when it dispatched the attempt, and what a retry does with one that does not.
import { digest } from '../canonical.ts';
import { verifyReceipt } from '../contract/receipt.ts';
import type { Run, RunEvent, StepState } from './types.ts';

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
 * Steps that succeeded, in plan order before the first step that did not, whose stored result does
 * not verify: they count as not run. Approvals carry no result (their approvals are the record).
 */
export function unverifiedSteps(run: Run): string[] {
  const out: string[] = [];
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (s?.status !== 'succeeded') break;
    if (p.kind === 'approval') continue;
    if (!stepVerifies(s)) out.push(p.id);
  }
  return out;
}

/**
 * A plain retry resumes from the first step that did not succeed; a step before it whose stored
 * result does not verify counts as not run, so the retry starts there instead.
 */
export function verifiedRetry(run: Run, event: RunEvent): RunEvent {
  if (event.type !== 'retry' || event.step !== undefined) return event;
  const first = unverifiedSteps(run)[0];
  return first === undefined ? event : { ...event, step: first };
}
