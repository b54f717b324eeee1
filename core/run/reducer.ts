// The run state machine: reduce(run, event) -> (run', effects), pure. The engine stores run' and
// its effects in one compare-and-swap write and carries the effects out, so every rule here must
// hold under duplicate, late and reordered events:
// - a step attempt is (step, attempt, epoch); a result or loss for any other attempt is ignored;
// - an event that changes nothing returns the input run object itself and no effects (the engine
//   can skip the write: `transition.run === run`); a refusal returns the input run and one `reply`;
// - every transition that changes the run ends with a `report` effect keyed by the new version;
// - a cancel stops every attempt it leaves behind (a `stop` effect each, before its teardown).
// Environments that were torn down leave run.environments and are kept in run.removedEnvironments.
import type { Plan } from '../plan/types.ts';
import type { Environment, PullRequestRef, StepResult } from '../contract/wire.ts';
import { decide, headMoved, prPushed } from './approvals.ts';
import {
  capped,
  coderAgent,
  describeFailure,
  Draft,
  REASON_MAX,
  findRecord,
  isTerminal,
  MAX_CONFLICT_REPAIRS,
  MAX_LOSSES,
  mergeBy,
  planStep,
  renderFindings,
  reply,
} from './draft.ts';
import type { DraftTransition, Run, RunEvent, RunIssue, Staleness, StepState, Transition } from './types.ts';
import type { RunOrigin, RunSettings } from './origin.ts';
import { environmentsSettled, lateEnvironments, mergeEnvironments, tornDown } from './environments.ts';
import { buildPayload } from './payload.ts';
import { movedRepos, redeployStale } from './redeploy.ts';
import { mergeDequeued, mergeEnqueued, mergeQueueChanged } from './queue.ts';
import { boundedFeedback } from './feedback.ts';
import { recordProtected } from './protect.ts';
import { untrustedResult, unverifiedSteps } from './receipts.ts';
import { fitPayload } from '../contract/payload-fit.ts';
import { inputsDigest } from '../contract/receipt.ts';

export { currentAttempt, nextWave, isTerminal, validApprovals, renderFindings, MAX_LOSSES, MAX_CONFLICT_REPAIRS } from './draft.ts';

export function createRun(input: {
  id: string;
  plan: Plan;
  issue: RunIssue;
  requester?: string;
  origin: RunOrigin;
  settings?: RunSettings;
  at: string;
  /** PRs the run has from its start (GitHub mode: the draft PR of the primary repository). */
  prs?: PullRequestRef[];
  /** The run this one reverts (core/run/revert.ts). */
  revertOf?: string;
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
    origin: input.origin,
    settings: input.settings ?? {},
    steps,
    prs: input.prs ? [...input.prs] : [],
    environments: [],
    approvals: [],
    createdAt: input.at,
    updatedAt: input.at,
  };
  if (input.requester !== undefined) run.requester = input.requester;
  if (input.revertOf !== undefined) run.revertOf = input.revertOf;
  return run;
}

const unchanged = (run: Run): DraftTransition => ({ run, effects: [] });

export function reduce(run: Run, event: RunEvent): Transition {
  // An unchanged run has no dispatch to build (a dispatch records its attempt): its effects pass as they are.
  return withPayloads(reduceVerified(run, event));
}

/**
 * Every stored result is checked before the run acts on it: a succeeded step whose result does not
 * verify against its receipt (edited in the store) counts as not run, and the run goes back to it
 * first (as a retry from that step would), whatever the event.
 */
function reduceVerified(run: Run, event: RunEvent): DraftTransition {
  if (isTerminal(run)) return onTerminal(run, event);
  const unverified = unverifiedSteps(run);
  if (unverified.length === 0) return reduceEvent(run, event);
  const first = distrust(run, unverified, event.at);
  const second = reduceEvent(first.run, event);
  const all = [...first.effects, ...second.effects].filter((e, i, list) => list.findIndex((x) => x.key === e.key) === i);
  // One report, last (both transitions report the same version), after the second's replies too.
  const effects = [...all.filter((e) => e.type !== 'report'), ...all.filter((e) => e.type === 'report')];
  return { run: second.run, effects };
}

function distrust(run: Run, unverified: string[], at: string): DraftTransition {
  const order = run.plan.steps.map((p) => p.id);
  const from = Math.min(...unverified.map((id) => order.indexOf(id)));
  const reset = new Set(order.slice(from));
  const d = new Draft(run, at);
  for (const id of reset) d.resetStep(id);
  const stale: Staleness = { kind: 'unverified', step: order[from]! };
  d.run.approvals = run.approvals.map((a) => (reset.has(a.step) && !a.stale ? { ...a, stale } : a));
  d.advance();
  d.settle();
  const t = d.finish();
  const which = unverified.map((s) => `"${s}"`).join(', ');
  const text = `the stored result of step${unverified.length > 1 ? 's' : ''} ${which} does not verify against its receipt: it counts as not run, and the run resumes from step "${order[from]}".`;
  return { run: t.run, effects: [{ type: 'reply', key: `${run.id}:reply:unverified:${run.version}`, text }, ...t.effects] };
}

/**
 * Each dispatch carries exactly the payload the action gets (cut to fit the dispatch's inputs,
 * `settings.payloadLimit`, where it has to be: the one fit, contract/payload-fit.ts), and its
 * attempt records that payload's digest: the result counts only if sealed against it, whoever
 * carries the dispatch out or recovers it later.
 */
function withPayloads(t: DraftTransition): Transition {
  const limit = t.run.settings.payloadLimit;
  const effects = t.effects.map((e) => {
    if (e.type !== 'dispatch') return e;
    const { ref } = e;
    const built = buildPayload(t.run, ref);
    const payload = limit === undefined ? built : fitPayload(built, limit).payload;
    const s = t.run.steps[ref.step]!;
    const inputs = inputsDigest(payload);
    t.run.steps[ref.step] = {
      ...s,
      attempts: s.attempts.map((r) => (r.attempt === ref.attempt && r.epoch === ref.epoch && r.mode === ref.mode ? { ...r, inputs } : r)),
    };
    return { ...e, payload };
  });
  return { run: t.run, effects };
}

function reduceEvent(run: Run, event: RunEvent): DraftTransition {
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
    case 'feedback':
      return feedback(run, event);
    case 'interrupted':
      return interrupted(run, event);
    case 'cancel':
      return cancel(run, event.at, cancelReason(event.by, event.reason), event.unreachable === true);
    case 'pr-pushed':
      return prPushed(run, event);
    case 'pr-closed': {
      const pr = run.prs.find((p) => p.repo === event.repo);
      if (event.merged || !pr) return unchanged(run);
      return cancel(run, event.at, `PR ${pr.repo}#${pr.number} was closed without merging`);
    }
    case 'merge-enqueued':
      return mergeEnqueued(run, event);
    case 'merge-queue':
      return mergeQueueChanged(run, event);
    case 'merge-dequeued':
      return mergeDequeued(run, event);
    case 'torn-down':
      return tornDown(run, event);
    case 'environments-settled':
      return environmentsSettled(run, event);
  }
}

/** Terminal runs stay terminal; only the bookkeeping of their teardown still applies. */
function onTerminal(run: Run, event: RunEvent): DraftTransition {
  if (event.type === 'torn-down') return tornDown(run, event);
  // A cancel's stop of a merge that waited for its queue reports what it took out of the queue.
  if (event.type === 'merge-dequeued') return mergeDequeued(run, event);
  if (event.type === 'environments-settled' || event.type === 'step-lost') return lateEnvironments(run, event.environments ?? [], event.at);
  if (event.type === 'step-completed') return lateEnvironments(run, event.result.environments, event.at);
  if (event.type === 'decision' || event.type === 'retry' || event.type === 'cancel' || event.type === 'feedback') {
    const what = event.type === 'decision' ? event.decision : event.type === 'feedback' ? 'fix: open a new issue for the change' : event.type;
    return reply(run, event, `Run ${run.id} has ended (${run.status}${run.reason ? `: ${run.reason}` : ''}); there is nothing left to ${what}.`);
  }
  return unchanged(run);
}

function started(run: Run, at: string): DraftTransition {
  // A second `started` (or one after anything ran) changes nothing.
  if (Object.values(run.steps).some((s) => s.status !== 'pending' || s.attempts.length > 0)) return unchanged(run);
  const d = new Draft(run, at);
  d.advance();
  d.settle();
  return d.finish();
}

function completed(run: Run, event: Extract<RunEvent, { type: 'step-completed' }>, at: string): DraftTransition {
  const result = event.result;
  const s = run.steps[result.step];
  if (result.runId !== run.id || !s || s.status !== 'queued') return unchanged(run);
  if (result.attempt !== s.attempt || result.epoch !== s.epoch || result.mode !== s.mode) return unchanged(run);
  const p = planStep(run, s.id);
  if (!p) return unchanged(run);

  const untrusted = untrustedResult(s, result, event.inputs);
  if (untrusted) {
    const said = result.error ? ` (it said: ${result.error.code}: ${result.error.message.slice(0, 300)})` : '';
    return lost(run, {
      type: 'step-lost',
      at,
      step: s.id,
      attempt: s.attempt,
      epoch: s.epoch,
      reason: `the result of attempt ${s.attempt} was not trusted: ${untrusted}${said}`,
    });
  }
  const record = {
    conclusion: result.conclusion,
    summary: result.summary,
    error: result.error,
    receipt: result.receipt,
    inputs: event.inputs,
    sandbox: result.sandbox,
    usage: result.usage,
  };
  // An agent that stalled said nothing about the work: its attempt counts as lost, not as a verdict.
  if (result.error?.code === 'agent-stalled') return redispatchLost(run, s, at, record, `the agent stalled (${result.error.message.slice(0, 300)})`);
  const d = new Draft(run, at);
  d.finishAttempt(s.id, record);
  const ok = result.conclusion !== 'failure';
  if (ok && (p.kind === 'code' || s.mode === 'repair') && result.prs.length > 0) d.run.prs = mergePrs(d.run.prs, result.prs);
  if (result.environments.length > 0) d.run.environments = mergeEnvironments(d.run.environments, result.environments);
  // What a head holds is true of that head whatever became of the attempt (keyed by head, core/run/protect.ts).
  if (result.protected?.length) d.run.protectedPaths = recordProtected(d.run.protectedPaths, result.protected);

  const step = d.step(s.id);
  const unmet = unmetNeeds(run, p);
  // A deploy left to finish while a deploy it needs runs again (core/run/redeploy.ts) keeps what it
  // stood up (recorded above) and deploys again after it: it was told the providers' old URLs.
  if (unmet.length > 0 && !(ok && s.mode === 'run' && p.kind !== 'deploy')) {
    // Whatever would follow (a repair, running the step again, or failing: a merge that finds the
    // head moved by the push fails) waits until the re-run needs have succeeded on the new head.
    waitForNeeds(d, s.id, unmet);
    if (ok && s.mode === 'repair') redeployStale(d, movedRepos(run, result.prs), `the repair of step "${s.id}" changed them`, { only: s.id });
  } else if (s.mode === 'repair' && p.kind === 'code') {
    // The changes people asked for (see Draft.takeFeedback): the steps after it were reset and
    // their approvals made stale when it was dispatched, so they run again once it succeeds.
    if (ok) {
      // Its sealed result is now the step's: the code on the PRs is what this attempt wrote.
      step.result = result;
      step.status = 'succeeded';
      step.reason = undefined;
    } else d.fail(s.id, `the changes asked for (attempt ${s.attempt}) failed: ${describeFailure(result)}`);
  } else if (s.mode === 'repair') {
    if (!ok) d.fail(s.id, `repair attempt ${s.attempt} failed: ${describeFailure(result)}`);
    // A repair that wrote heads nobody has checked since an approval (or resolved a merge
    // conflict) is checked again like a push: gates and reviews run on the new heads, stale
    // approvals wait for people again, and only then does the step run.
    // A repair of a failed required check wrote heads the gates and reviews have not judged: they run again first, as after a conflict repair.
    else {
      const rechecked = rewroteCheckedHeads(d, run, s.id, result.prs, p.kind === 'merge' || p.kind === 'ci');
      // What it wrote to a repository a deploy before this step stood an environment up from makes
      // that environment stale: the deploy runs again first, then this step (core/run/redeploy.ts).
      const moved = movedRepos(run, result.prs);
      const redeployed = redeployStale(d, moved, `the repair of step "${s.id}" changed ${moved.join(', ')}`, { only: s.id, keep: s.id });
      if (!rechecked && !redeployed) d.dispatch(s.id, s.attempt + 1, 0, 'run');
    }
  } else {
    step.result = result;
    const repair = p.kind === 'gate' || p.kind === 'review' || p.kind === 'ci' ? p.repair : conflictRepair(run, p.kind, result);
    if (ok) {
      step.status = 'succeeded';
      step.reason = undefined;
    } else if (repair && s.repairs < repair.maxAttempts && judgesTheWork(p.kind, result)) {
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

function lost(run: Run, event: Extract<RunEvent, { type: 'step-lost' }>): DraftTransition {
  const s = run.steps[event.step];
  if (!s || s.status !== 'queued' || s.attempt !== event.attempt || s.epoch !== event.epoch) return unchanged(run);
  return redispatchLost(run, s, event.at, { conclusion: 'lost', summary: event.reason }, event.reason, event.environments);
}

/**
 * The current attempt ended without judging the work (its runner vanished, its agent stalled): it
 * is dispatched again as the same attempt with the next epoch (a repair keeps its findings), at
 * most MAX_LOSSES times, then the step fails. No repair is spent on it.
 */
function redispatchLost(
  run: Run,
  s: StepState,
  at: string,
  record: Parameters<Draft['finishAttempt']>[1],
  reason: string,
  environments?: readonly Environment[],
): DraftTransition {
  const d = new Draft(run, at);
  const findings = findRecord(s, s.attempt, s.epoch)?.findings;
  d.finishAttempt(s.id, record);
  // What the lost attempt settled stays settled: its re-dispatch deploys only the rest.
  if (environments?.length) d.run.environments = mergeEnvironments(d.run.environments, environments);
  const p = planStep(run, s.id);
  const unmet = p ? unmetNeeds(run, p) : [];
  if (unmet.length > 0) {
    waitForNeeds(d, s.id, unmet);
  } else if (s.losses < MAX_LOSSES) {
    d.step(s.id).losses = s.losses + 1;
    d.dispatch(s.id, s.attempt, s.epoch + 1, s.mode, findings);
  } else {
    d.fail(s.id, `attempt ${s.attempt} was lost ${s.losses + 1} times (last: ${reason})`);
  }
  d.settle();
  return d.finish();
}

/**
 * Error codes that say nothing a repair agent could change: the step fails without spending a
 * repair. An agent its sandbox refused a host, or whose vendor stayed unavailable through its
 * retries (made within the attempt), did no work to judge.
 */
const NOT_THE_WORK = new Set([
  'setup-failed',
  'reviewer-no-verdict',
  'sandbox-unavailable',
  'output-refused',
  'agent-network-refused',
  'agent-vendor-unavailable',
  'ci-timeout',
]);

/**
 * Whether a failed result is a judgment of the work, which a repair can answer: a failing gate, a
 * merge conflict, and of a review only a failing verdict (a reviewer that crashed, timed out,
 * changed files or gave no verdict judged nothing).
 */
function judgesTheWork(kind: string, result: StepResult): boolean {
  if (result.error && NOT_THE_WORK.has(result.error.code)) return false;
  if (kind === 'review') return result.review !== undefined && !result.error;
  return true;
}

/**
 * Applies `headMoved` for each PR head a repair of `stepId` wrote, when that head makes an approval
 * stale or the repair resolved a merge conflict (`always`); then the repaired step waits for what
 * runs again. Says whether it did.
 */
function rewroteCheckedHeads(d: Draft, run: Run, stepId: string, prs: readonly PullRequestRef[], always: boolean): boolean {
  const moved = prs.filter((pr) => pr.head && run.prs.find((p) => p.repo === pr.repo)?.head !== pr.head);
  const approved = (pr: PullRequestRef) => run.approvals.some((a) => !a.stale && a.heads[pr.repo] !== undefined && a.heads[pr.repo] !== pr.head);
  if (moved.length === 0 || !(always || moved.some(approved))) return false;
  // Read first: the steps that run again may include the repaired one (a `ci` step after a gate).
  const repairs = d.step(stepId).repairs;
  for (const pr of moved) headMoved(d, { kind: 'agent-wrote', step: stepId, repo: pr.repo, head: pr.head! });
  d.resetStep(stepId, `waits for the gates and reviews to pass on the heads its repair wrote`);
  // Still the same conflict or failure being repaired: its repairs stay counted.
  d.step(stepId).repairs = repairs;
  return true;
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

function retry(run: Run, event: Extract<RunEvent, { type: 'retry' }>): DraftTransition {
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
  // The budget as the configuration says now (outside the plan hash: see core/run/usage.ts).
  if (event.budgetUsd !== undefined) d.run.plan = withBudget(run.plan, event.budgetUsd);
  const reset = new Set(order.slice(from));
  for (const id of reset) d.resetStep(id);
  if (run.approvals.some((a) => reset.has(a.step) && !a.stale)) {
    const stale: Staleness = { kind: 'retried', ...(event.by ? { by: event.by } : {}) };
    d.run.approvals = run.approvals.map((a) => (reset.has(a.step) && !a.stale ? { ...a, stale } : a));
  }
  d.advance();
  d.settle();
  return d.finish();
}

/**
 * People's feedback joins the run's list (once per id) and goes to the code step as soon as no
 * attempt is under way (Draft.advance takes it); while one is, a reply says it waits.
 */
function feedback(run: Run, event: Extract<RunEvent, { type: 'feedback' }>): DraftTransition {
  if ((run.feedback ?? []).some((f) => f.id === event.id)) return unchanged(run);
  const code = run.plan.steps.find((p) => p.kind === 'code');
  if (!code) return reply(run, event, `Pipeline ${run.plan.pipeline} has no code step, so there is no agent to make the changes asked for.`);
  const { type: _type, ...item } = event;
  const d = new Draft(run, event.at);
  d.run.feedback = [...(run.feedback ?? []), boundedFeedback(item)];
  d.advance();
  d.settle();
  const t = d.finish();
  const taken = t.run.feedback?.at(-1)?.taken;
  if (taken) return t;
  const busy = run.plan.steps.filter((p) => run.steps[p.id]?.status === 'queued').map((p) => `"${p.id}"`);
  const why = busy.length > 0 ? `once ${busy.join(', ')} ${busy.length === 1 ? 'finishes' : 'finish'}` : `once step "${code.id}" has run`;
  return {
    run: t.run,
    effects: [
      { type: 'reply', key: `${run.id}:reply:feedback:${event.id}`, text: `The feedback of ${event.by} waits: it goes to the coder ${why}.` },
      ...t.effects,
    ],
  };
}

function cancel(run: Run, at: string, why: string, unreachable = false): DraftTransition {
  // A cancel's reason is what a person wrote after `/conveyor cancel`: as long as they like, shown everywhere.
  const reason = capped(why, REASON_MAX);
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
  if (unreachable) {
    // Nothing can be stopped or torn down where nothing can be reached: the environments stay recorded as they are.
    d.run.unreachable = reason;
    // But for a merge's PRs in a queue, which would merge on their own: the engine takes out those it still reaches.
    for (const p of run.plan.steps) {
      const s = run.steps[p.id];
      if (s?.status === 'queued' && p.kind === 'merge' && s.mode === 'run') d.stopUnderWay(s, reason);
    }
    return { run: d.run, effects: d.effects };
  }
  // What was dispatched is stopped where it runs.
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (s?.status === 'queued') d.stopUnderWay(s, reason);
  }
  d.teardown();
  return d.finish();
}

/**
 * Every attempt under way is recorded as interrupted and stopped where it runs (Draft.stopUnderWay);
 * its step fails, and the run waits for a retry.
 */
function interrupted(run: Run, event: Extract<RunEvent, { type: 'interrupted' }>): DraftTransition {
  const queued = run.plan.steps.map((p) => run.steps[p.id]).filter((s): s is StepState => s?.status === 'queued');
  if (queued.length === 0) return unchanged(run);
  const reason = capped(event.reason, REASON_MAX);
  const d = new Draft(run, event.at);
  for (const s of queued) {
    d.finishAttempt(s.id, { conclusion: 'interrupted', summary: reason });
    d.fail(s.id, `${s.mode === 'repair' ? 'repair ' : ''}attempt ${s.attempt} was interrupted: ${reason}`);
    d.stopUnderWay(s, reason);
  }
  d.settle();
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

/** The plan with another budget (a new object: plans are shared between runs). */
function withBudget(plan: Plan, budgetUsd: number | null): Plan {
  const { budgetUsd: _old, ...rest } = plan;
  return budgetUsd === null ? rest : { ...rest, budgetUsd };
}

/** Latest PR per repository, keeping the order repositories first appeared in. */
function mergePrs(current: readonly PullRequestRef[], incoming: readonly PullRequestRef[]): PullRequestRef[] {
  return mergeBy(current, incoming, (p) => p.repo);
}
