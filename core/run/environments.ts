// The reducer's rules for preview environments: outcomes recorded as a deploy attempt settles them
// (so a re-dispatch deploys only the rest), environments that turn up after the run ended (torn
// down at once), and teardown bookkeeping (removed ones leave run.environments; ones that would not
// go stay, with the error, so people see them and `conveyor teardown` can try again).
import type { Environment } from '../contract/wire.ts';
import { Draft, mergeBy } from './draft.ts';
import type { Run, RunEvent, DraftTransition } from './types.ts';

/** Latest outcome per service, keeping the order services first appeared in. */
export function mergeEnvironments(current: readonly Environment[], incoming: readonly Environment[]): Environment[] {
  return mergeBy(current, incoming, (e) => e.service);
}

const same = (a: Environment, b: Environment): boolean => JSON.stringify(a) === JSON.stringify(b);
/** One environment of one service: what a teardown removes (or fails to). */
const sameTarget = (a: Environment, b: Environment): boolean => a.service === b.service && a.envId === b.envId;

/** Outcomes of the current attempt of a deploy step, reported while it runs. */
export function environmentsSettled(run: Run, event: Extract<RunEvent, { type: 'environments-settled' }>): DraftTransition {
  const s = run.steps[event.step];
  if (!s || s.status !== 'queued' || s.attempt !== event.attempt || s.epoch !== event.epoch) return { run, effects: [] };
  const fresh = event.environments.filter((e) => !run.environments.some((c) => same(c, e)));
  if (fresh.length === 0) return { run, effects: [] };
  const d = new Draft(run, event.at);
  d.run.environments = mergeEnvironments(run.environments, fresh);
  return d.finish();
}

/**
 * A run that ended (cancelled while a deploy ran, say) can still learn of environments that came
 * up: they are recorded and torn down at once, unless the run keeps its environments.
 */
export function lateEnvironments(run: Run, envs: readonly Environment[], at: string): DraftTransition {
  const known = (e: Environment) =>
    run.environments.some((c) => c.envId === e.envId && c.url === e.url) || (run.removedEnvironments ?? []).some((c) => c.envId === e.envId && c.url === e.url);
  const late = envs.filter((e) => e.state === 'ready' && !known(e));
  if (late.length === 0) return { run, effects: [] };
  const d = new Draft(run, at);
  d.run.environments = mergeEnvironments(run.environments, late);
  if (run.settings.keepEnvs !== true) d.effects.push({ type: 'teardown', key: `${run.id}:teardown:${run.version + 1}`, environments: late });
  return d.finish();
}

/**
 * The event a teardown attempt ends with: what it removed, and every target it did not remove,
 * kept on the run with the reason (for people, and for `conveyor teardown` to try again).
 */
export function tornDownEvent(targets: readonly Environment[], removed: Environment[], why: string, at: string): Extract<RunEvent, { type: 'torn-down' }> {
  const failed = targets.filter((e) => !removed.some((r) => sameTarget(r, e))).map((e) => ({ ...e, error: why }));
  return { type: 'torn-down', at, environments: removed, ...(failed.length ? { failed } : {}) };
}

export function tornDown(run: Run, event: Extract<RunEvent, { type: 'torn-down' }>): DraftTransition {
  const gone = (e: Environment): boolean => event.environments.some((t) => sameTarget(t, e));
  const failed = (event.failed ?? []).filter((f) => run.environments.some((e) => sameTarget(e, f) && !gone(e)));
  if (!run.environments.some(gone) && failed.length === 0) return { run, effects: [] };
  const d = new Draft(run, event.at);
  d.run.environments = run.environments
    .filter((e) => !gone(e))
    .map((e) => {
      const f = failed.find((x) => sameTarget(x, e));
      // The time makes each failed try a change of its own: the next `conveyor teardown` is a new attempt.
      return f ? { ...e, error: `teardown failed (${event.at}): ${f.error ?? 'no reason given'}` } : e;
    });
  if (run.environments.some(gone)) d.run.removedEnvironments = mergeEnvironments(run.removedEnvironments ?? [], run.environments.filter(gone));
  d.settle();
  return d.finish();
}
