// Drives a run through the reducer in tests: every transition is checked not to mutate its input.
import { expect } from 'vitest';
import { createRun, reduce } from '../../../core/run/reducer.ts';
import type { Run, RunEffect, RunEvent, Transition } from '../../../core/run/types.ts';
import type { Plan } from '../../../core/plan/types.ts';
import type { StepResult } from '../../../core/contract/wire.ts';
import { resultOf } from '../../helpers/plans.ts';
import { sealResult } from '../../../core/contract/receipt.ts';

export const AT = '2025-01-01T00:00:00.000Z';

export function newRun(plan: Plan, options: Record<string, unknown> = {}, requester = 'alice'): Run {
  return createRun({
    id: 'r1',
    plan,
    issue: { repo: 'acme/web', number: 7, title: 'Add a thing', body: 'Please' },
    requester,
    options,
    at: AT,
  });
}

/** reduce, asserting purity; the store's version bump is simulated when the run changed. */
export function step(run: Run, event: RunEvent): Transition {
  const before = JSON.stringify(run);
  const t = reduce(run, event);
  expect(JSON.stringify(run)).toBe(before);
  if (t.run === run) return t;
  return { run: { ...t.run, version: run.version + 1 }, effects: t.effects };
}

export function start(plan: Plan, options: Record<string, unknown> = {}): Transition {
  return step(newRun(plan, options), { type: 'started', at: AT });
}

/**
 * A result for the step's current attempt (its attempt, epoch and mode), sealed as the action seals
 * it: against the inputs its attempt recorded at dispatch, or for a merge the engine carries out
 * itself, against inputs of its own that come with the event.
 */
export function current(run: Run, stepId: string, conclusion: StepResult['conclusion'], extra: Partial<StepResult> = {}): RunEvent {
  const s = run.steps[stepId];
  if (!s) throw new Error(`no step ${stepId}`);
  const result = resultOf(run.id, stepId, s.attempt, s.epoch, conclusion, { mode: s.mode, ...extra });
  const recorded = s.attempts.findLast((a) => a.attempt === s.attempt && a.epoch === s.epoch)?.inputs;
  const inputs = recorded ?? `merge:${stepId}:${s.attempt}:${s.epoch}`;
  return { type: 'step-completed', at: AT, result: sealResult(result, inputs), ...(recorded ? {} : { inputs }) };
}

export function succeed(run: Run, ...stepIds: string[]): Run {
  let r = run;
  for (const id of stepIds) r = step(r, current(r, id, 'success')).run;
  return r;
}

export const types = (effects: RunEffect[]): string[] => effects.map((e) => (e.type === 'dispatch' || e.type === 'merge' ? `${e.type}:${e.step}:${e.attempt}:${e.epoch}${e.type === 'dispatch' && e.mode === 'repair' ? ':repair' : ''}` : e.type));

export const statuses = (run: Run): Record<string, string> =>
  Object.fromEntries(run.plan.steps.map((p) => [p.id, run.steps[p.id]?.status ?? '?']));
