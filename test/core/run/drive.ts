// Drives a run through the reducer in tests: every transition is checked not to mutate its input.
import { expect } from 'vitest';
import { createRun, reduce } from '../../../core/run/reducer.ts';
import type { Run, RunEffect, RunEvent, Transition } from '../../../core/run/types.ts';
import type { Plan } from '../../../core/plan/types.ts';
import type { StepResult } from '../../../core/contract/wire.ts';
import { completionOf, TEST_ORIGIN } from '../../helpers/plans.ts';
import type { RunSettings } from '../../../core/run/origin.ts';

export const AT = '2025-01-01T00:00:00.000Z';

export function newRun(plan: Plan, settings: RunSettings = {}, requester = 'alice'): Run {
  return createRun({
    id: 'r1',
    plan,
    issue: { repo: 'acme/web', number: 7, title: 'Add a thing', body: 'Please' },
    requester,
    origin: TEST_ORIGIN,
    settings,
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

export function start(plan: Plan, settings: RunSettings = {}): Transition {
  return step(newRun(plan, settings), { type: 'started', at: AT });
}

/** A sealed result for the step's current attempt (see completionOf). */
export function current(run: Run, stepId: string, conclusion: StepResult['conclusion'], extra: Partial<StepResult> = {}): RunEvent {
  return { ...completionOf(run, stepId, conclusion, extra), at: AT } as RunEvent;
}

export function succeed(run: Run, ...stepIds: string[]): Run {
  let r = run;
  for (const id of stepIds) r = step(r, current(r, id, 'success')).run;
  return r;
}

export const types = (effects: RunEffect[]): string[] =>
  effects.map((e) =>
    e.type === 'dispatch' || e.type === 'merge' ? `${e.type}:${e.ref.step}:${e.ref.attempt}:${e.ref.epoch}${e.ref.mode === 'repair' ? ':repair' : ''}` : e.type,
  );

export const statuses = (run: Run): Record<string, string> => Object.fromEntries(run.plan.steps.map((p) => [p.id, run.steps[p.id]?.status ?? '?']));
