// The run state machine: reduce(run, event) -> (run', effects), pure. The engine stores run' and
// its effects in one compare-and-swap write and carries the effects out, so every rule here must
// hold under duplicate, late and reordered events:
// - a step attempt is (step, attempt, epoch); a result or loss for any other attempt is ignored;
// - an event that changes nothing returns the input run object itself and no effects (the engine
//   can skip the write: `transition.run === run`); a refusal returns the input run and one `reply`;
// - every transition that changes the run ends with a `report` effect keyed by the new version.
// Environments that were torn down leave run.environments and are kept in run.removedEnvironments.
import type { Plan } from '../plan/types.ts';
import type { PullRequestRef } from '../contract/wire.ts';
import { decide, prPushed } from './approvals.ts';
import { coderAgent, describeFailure, Draft, findRecord, isTerminal, MAX_CONFLICT_REPAIRS, MAX_LOSSES, mergeBy, planStep, renderFindings, reply } from './draft.ts';
import type { Run, RunEvent, RunIssue, StepState, Transition } from './types.ts';
import { environmentsSettled, lateEnvironments, mergeEnvironments, tornDown } from './environments.ts';

export {
  currentAttempt,
  nextWave,
  isTerminal,
  validApprovals,
  renderFindings,
  dispatchKey,
  MAX_LOSSES,
  MAX_CONFLICT_REPAIRS,
  CONVEYOR_ACTOR,
} from './draft.ts';

export function createRun(input: {
  id: string;
  plan: Plan;
  issue: RunIssue;
  requester?: string;
  options: Record<string, unknown>;
  at: string;
}): Run {
  const steps: Record<string, StepState> = {};
  for (const p of input.plan.steps) {
    steps[p.id] = { id: p.id, status: 'pending', attempt: 0, epoch: 0, mode: 'run', repairs: 0, losses: 0, attempts: [] };
  }
  const run: Run = {
    id: input.id,
    version: 0,
    status: 'running',
    plan: input.plan,
    issue: input.issue,
    options: input.options,
    steps,
    prs: [],
    environments: [],
    approvals: [],
    createdAt: input.at,
    updatedAt: input.at,
  };
  if (input.requester !== undefined) run.requester = input.requester;
  return run;
}

const unchanged = (run: Run): Transition => ({ run, effects: [] });

export function reduce(run: Run, event: RunEvent): Transition {
  if (isTerminal(run)) return onTerminal(run, event);
  switch (event.type) {
    case 'started':
      return started(run, event.at);
    case 'step-completed':
      return completed(run, event, event.at);
    case 'step-lost':
      return lost(run, event);
    case 'decision':
      return decide(run, event);
    case 'retry':
      return retry(run, event);
    case 'cancel':
      return cancel(run, event.at, cancelReason(event.by, event.reason));
    case 'pr-pushed':
      return prPushed(run, event);
    case 'pr-closed': {
      const pr = run.prs.find((p) => p.repo === event.repo);
      if (event.merged || !pr) return unchanged(run);
      return cancel(run, event.at, `PR ${pr.repo}#${pr.number} was closed without merging`);
    }
    case 'torn-down':
      return tornDown(run, event);
    case 'environments-settled':
      return environmentsSettled(run, event);
  }
}

/** Terminal runs stay terminal; only the bookkeeping of their teardown still applies. */
function onTerminal(run: Run, event: RunEvent): Transition {
  if (event.type === 'torn-down') return tornDown(run, event);
  if (event.type === 'environments-settled' || event.type === 'step-lost') return lateEnvironments(run, event.environments ?? [], event.at);
  if (event.type === 'step-completed') return lateEnvironments(run, event.result.environments, event.at);
  if (event.type === 'decision' || event.type === 'retry' || event.type === 'cancel') {
    return reply(run, event, `Run ${run.id} has ended (${run.status}${run.reason ? `: ${run.reason}` : ''}); there is nothing left to ${event.type === 'decision' ? event.decision : event.type}.`);
  }
  return unchanged(run);
}

function started(run: Run, at: string): Transition {
  // A second `started` (or one after anything ran) changes nothing.
  if (Object.values(run.steps).some((s) => s.status !== 'pending' || s.attempts.length > 0)) return unchanged(run);
  const d = new Draft(run, at);
  d.advance();
  d.settle();
  return d.finish();
}

function completed(run: Run, event: Extract<RunEvent, { type: 'step-completed' }>, at: string): Transition {
  const result = event.result;
  const s = run.steps[result.stepId];
  if (result.runId !== run.id || !s || s.status !== 'queued') return unchanged(run);
  if (result.attempt !== s.attempt || result.epoch !== s.epoch || result.mode !== s.mode) return unchanged(run);
  const p = planStep(run, s.id);
  if (!p) return unchanged(run);

  const d = new Draft(run, at);
  d.finishAttempt(s.id, { conclusion: result.conclusion, summary: result.summary, error: result.error, receipt: result.receipt, inputs: event.inputs, sandbox: result.sandbox });
  const ok = result.conclusion !== 'failure';
  if (ok && (p.kind === 'code' || s.mode === 'repair') && result.prs.length > 0) d.run.prs = mergePrs(d.run.prs, result.prs);
  if (result.environments.length > 0) d.run.environments = mergeEnvironments(d.run.environments, result.environments);

  const step = d.step(s.id);
  const unmet = unmetNeeds(run, p);
  if (unmet.length > 0 && !(ok && s.mode === 'run')) {
    // Whatever would follow (a repair, running the step again, or failing: a merge that finds the
    // head moved by the push fails) waits until the re-run needs have succeeded on the new head.
    waitForNeeds(d, s.id, unmet);
  } else if (s.mode === 'repair') {
    // A repair that finished (even with nothing to change) is judged by running the step again.
    if (ok) d.dispatch(s.id, s.attempt + 1, 0, 'run');
    else d.fail(s.id, `repair attempt ${s.attempt} failed: ${describeFailure(result)}`);
  } else {
    step.result = result;
    const repair = p.kind === 'gate' || p.kind === 'review' ? p.repair : conflictRepair(run, p.kind, result);
    if (ok) {
      step.status = 'succeeded';
      step.reason = undefined;
    } else if (repair && s.repairs < repair.maxAttempts) {
      step.repairs = s.repairs + 1;
      d.dispatch(s.id, s.attempt + 1, 0, 'repair', renderFindings(result));
    } else {
      const after = repair ? ` after ${s.repairs} repair${s.repairs === 1 ? '' : 's'} (max-attempts ${repair.maxAttempts})` : '';
      d.fail(s.id, `${p.kind} failed${after}: ${describeFailure(result)}`);
    }
  }
  d.advance();
  d.settle();
  return d.finish();
}

function lost(run: Run, event: Extract<RunEvent, { type: 'step-lost' }>): Transition {
  const s = run.steps[event.step];
  if (!s || s.status !== 'queued' || s.attempt !== event.attempt || s.epoch !== event.epoch) return unchanged(run);
  const d = new Draft(run, event.at);
  const findings = findRecord(s, s.attempt, s.epoch)?.findings;
  d.finishAttempt(s.id, { conclusion: 'lost', summary: event.reason });
  // What the lost attempt settled stays settled: its re-dispatch deploys only the rest.
  if (event.environments?.length) d.run.environments = mergeEnvironments(d.run.environments, event.environments);
  const p = planStep(run, s.id);
  const unmet = p ? unmetNeeds(run, p) : [];
  if (unmet.length > 0) {
    waitForNeeds(d, s.id, unmet);
  } else if (s.losses < MAX_LOSSES) {
    d.step(s.id).losses = s.losses + 1;
    d.dispatch(s.id, s.attempt, s.epoch + 1, s.mode, findings);
  } else {
    d.fail(s.id, `attempt ${s.attempt} was lost ${s.losses + 1} times (last: ${event.reason})`);
  }
  d.settle();
  return d.finish();
}

/** The steps a step needs that have not succeeded (now). */
function unmetNeeds(run: Run, p: { needs: string[] }): string[] {
  return p.needs.filter((n) => run.steps[n]?.status !== 'succeeded');
}

/**
 * A step under way when someone pushed was left to finish (a merge, while the steps it needs run
 * again on the new head; or a step after an approval the push made stale). What would follow it
 * (a merge's conflict repair, merging again after one, or dispatching a lost attempt again) waits
 * for them instead, as its first attempt did: no attempt starts before everything it needs has
 * succeeded on the heads it would work on.
 */
function waitForNeeds(d: Draft, id: string, unmet: string[]): void {
  d.resetStep(id, `waits for ${unmet.map((n) => `"${n}"`).join(', ')} to succeed again (a push made ${unmet.length === 1 ? 'it' : 'them'} run again)`);
}

function retry(run: Run, event: Extract<RunEvent, { type: 'retry' }>): Transition {
  if (run.status === 'running') {
    return reply(run, event, `Run ${run.id} is still running; retry applies once it waits for a person.`);
  }
  const order = run.plan.steps.map((p) => p.id);
  let from: number;
  if (event.step !== undefined) {
    from = order.indexOf(event.step);
    if (from < 0) return reply(run, event, `Run ${run.id} has no step "${event.step}" (steps: ${order.join(', ')}).`);
  } else {
    from = order.findIndex((id) => run.steps[id]?.status !== 'succeeded');
    if (from < 0) return unchanged(run);
  }
  const d = new Draft(run, event.at);
  const reset = new Set(order.slice(from));
  for (const id of reset) d.resetStep(id);
  const who = event.by ? ` by ${event.by}` : '';
  if (run.approvals.some((a) => reset.has(a.step) && !a.stale)) {
    d.run.approvals = run.approvals.map((a) => (reset.has(a.step) && !a.stale ? { ...a, stale: `step retried${who}` } : a));
  }
  d.advance();
  d.settle();
  return d.finish();
}

function cancel(run: Run, at: string, reason: string): Transition {
  const d = new Draft(run, at);
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (s?.status === 'queued' || s?.status === 'waiting') {
      const w = d.step(p.id);
      w.status = 'cancelled';
      w.reason = reason;
    }
  }
  d.run.status = 'cancelled';
  d.run.waitingFor = undefined;
  d.run.reason = reason;
  d.teardown();
  return d.finish();
}

function cancelReason(by: string | undefined, why: string | undefined): string {
  return `cancelled${by ? ` by ${by}` : ''}${why ? `: ${why}` : ''}`;
}

/**
 * A merge that found a PR conflicting with its base is repaired like a gate: a code attempt of the
 * merge step (the first code step's agent) merges the base into the work branch and resolves the
 * conflict, then merging is tried again; at most MAX_CONFLICT_REPAIRS times.
 */
function conflictRepair(run: Run, kind: string, result: { error?: { code: string } }): { agent: string; maxAttempts: number } | undefined {
  if (kind !== 'merge' || result.error?.code !== 'merge-conflict') return undefined;
  const agent = coderAgent(run);
  return agent !== undefined ? { agent, maxAttempts: MAX_CONFLICT_REPAIRS } : undefined;
}

/** Latest PR per repository, keeping the order repositories first appeared in. */
function mergePrs(current: readonly PullRequestRef[], incoming: readonly PullRequestRef[]): PullRequestRef[] {
  return mergeBy(current, incoming, (p) => p.repo);
}
