// One step attempt, named: its run, its step, its attempt number, its epoch (the dispatch: a lost
// attempt goes again as the same attempt with the next epoch) and its mode. Everything that names
// an attempt (a check run's external id, an effect's key, the token exchange, an attempt's folder
// in the embedded mode, a transcript's artifact) takes it from here, so that the app, the
// dispatchers, the command line and the action agree on one identity and one string form of it.
import { z } from 'zod';

/** `repair` runs the step's repair agent on the work branch; `teardown` removes environments. */
export const ATTEMPT_MODES = ['run', 'repair', 'teardown'] as const;

/** A step id as plans have them (core/config's schema): lowercase letters, digits, - and _. */
export const STEP_ID = /^[a-z][a-z0-9_-]*$/;

export const attemptRefSchema = z.object({
  runId: z.string().min(1),
  step: z.string().regex(STEP_ID, { error: 'must be a step id (lowercase letters, digits, - and _)' }),
  attempt: z.number().int().positive(),
  epoch: z.number().int().nonnegative(),
  mode: z.enum(ATTEMPT_MODES),
});

export type AttemptRef = z.infer<typeof attemptRefSchema>;

/** The ref of a payload (its step is the plan's step) or of anything carrying a ref's fields (a result): those fields alone. */
export function refOf(x: Omit<AttemptRef, 'step'> & { step: string | { id: string } }): AttemptRef {
  return { runId: x.runId, step: typeof x.step === 'string' ? x.step : x.step.id, attempt: x.attempt, epoch: x.epoch, mode: x.mode };
}

/**
 * The attempt's one string form, `run:step:attempt:epoch`, with `:teardown` for a teardown (whose
 * numbers are its own: the run's version when it was asked for). It is what GitHub keeps as the
 * check run's external id, and it is the format every Conveyor before this one wrote, so both read
 * the other's. A run and a repair attempt of a step never share a number, so the key leaves their
 * mode out. Unique per attempt and stable across tries of one dispatch.
 */
export function attemptKey(ref: AttemptRef): string {
  return `${ref.runId}:${ref.step}:${ref.attempt}:${ref.epoch}${ref.mode === 'teardown' ? ':teardown' : ''}`;
}

/**
 * Reads a key back; undefined for anything that is not one. Run ids may not contain `:`, step ids
 * never do. The key does not tell a run attempt from a repair (see attemptKey): the ref of a step
 * attempt's key says `run`, and nothing that reads a key judges by that (isCurrent does not).
 * Attempt 0 is the key of what is no attempt at all (an approval step's check run).
 */
export function parseAttemptKey(text: string | null | undefined): AttemptRef | undefined {
  if (!text) return undefined;
  const parts = text.split(':');
  const teardown = parts[parts.length - 1] === 'teardown';
  if (teardown) parts.pop();
  if (parts.length !== 4) return undefined;
  const [runId, step, attempt, epoch] = parts as [string, string, string, string];
  if (!runId || !STEP_ID.test(step) || !/^\d+$/.test(attempt) || !/^\d+$/.test(epoch)) return undefined;
  return { runId, step, attempt: Number(attempt), epoch: Number(epoch), mode: teardown ? 'teardown' : 'run' };
}

/** The key of something that concerns one attempt (an effect: `…:dispatch`, `…:merge`, `…:stop`). */
export function attemptKeyFor(ref: AttemptRef, what: string): string {
  return `${attemptKey(ref)}:${what}`;
}

/** The attempt's folder, below where its runs' folders are (`<run>/<step>.<mode>.<attempt>.<epoch>`): the embedded mode keeps its payload, result and logs there. */
export function attemptFolder(ref: AttemptRef): string {
  return `${ref.runId}/${ref.step}.${ref.mode}.${ref.attempt}.${ref.epoch}`;
}

/**
 * The attempt's name after `prefix` (`<prefix>-<run>-<step>.<mode>.<attempt>.<epoch>`), for what
 * must be named apart across a repository's workflow runs: its transcript's artifact
 * (`conveyor-transcript-…`; a re-dispatched attempt runs in a workflow run of its own, but a name
 * that says all of the attempt can never clash) and the file on the runner it is made of.
 * Characters GitHub refuses in artifact names (`" : < > | * ? \ /`, line breaks) become `-`; the
 * run id is the only part that could hold one.
 */
export function attemptName(ref: AttemptRef, prefix: string): string {
  return `${prefix}-${ref.runId}-${ref.step}.${ref.mode}.${ref.attempt}.${ref.epoch}`.replace(/[":<>|*?\\/\r\n]/g, '-');
}

/** The attempt in words, for logs and refusals. */
export function describeAttempt(ref: AttemptRef): string {
  return `run ${ref.runId} step ${ref.step} attempt ${ref.attempt} dispatch ${ref.epoch + 1}${ref.mode === 'teardown' ? ' (teardown)' : ''}`;
}

/**
 * What isCurrent reads of a run (core/run's Run has it; this module sits below core/run, which
 * builds on the wire contract).
 */
export interface RunState {
  steps: Readonly<Record<string, { status: string; attempt: number; epoch: number } | undefined>>;
  plan: { steps: ReadonlyArray<{ id: string; kind: string }> };
  environments: ReadonlyArray<{ state: string }>;
}

/**
 * Whether the attempt is the one the run waits for: a step attempt while it is its step's queued
 * attempt (same attempt and epoch: a later attempt, a loss, a retry or a cancel retires it); a
 * teardown while the deploy step's environments are not all removed. The app judges results,
 * losses and token requests by it, the engine its effects; the reducer, which alone changes a
 * run, ignores whatever is not current.
 */
export function isCurrent(run: RunState | undefined, ref: AttemptRef): boolean {
  if (!run) return false;
  if (ref.mode === 'teardown') return run.plan.steps.find((s) => s.id === ref.step)?.kind === 'deploy' && run.environments.some((e) => e.state === 'ready');
  const s = run.steps[ref.step];
  return !!s && s.status === 'queued' && s.attempt === ref.attempt && s.epoch === ref.epoch;
}
