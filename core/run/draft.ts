// The pieces every rule of the run state machine shares: a copy-on-write draft of the run (the
// reducer never mutates its input, and copying only what changes keeps a transition cheap), wave
// dispatch, and the run status derived from its steps.
import { digest } from '../canonical.ts';
import { attemptKeyFor } from '../contract/attempt-ref.ts';
import { DEFAULT_SETUP_TIMEOUT_MINUTES } from '../config/defaults.ts';
import type { PlanStep } from '../plan/types.ts';
import type { StepResult } from '../contract/wire.ts';
import type { AttemptMode, AttemptRecord, DraftEffect, DraftTransition, Run, RunEvent, Staleness, StepState } from './types.ts';
import { renderFeedback } from './feedback.ts';
import { budgetBlocks } from './usage.ts';

/** How many times a lost attempt is dispatched again (with the next epoch) before the step fails. */
export const MAX_LOSSES = 2;

/** How many conflict repairs (code attempts that merge the base into the work branch) a merge step gets. */
export const MAX_CONFLICT_REPAIRS = 2;

/**
 * How long a step's reason and the run's `waitingFor` may grow: they carry what commands and
 * agents printed, and every view of the run (comments, check runs, replies) shows them.
 */
export const REASON_MAX = 1_000;
export const WAITING_FOR_MAX = 4_000;

/** Text cut to `max` characters, marked where it was cut (the whole text is in the attempt's log). */
export function capped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function isTerminal(run: Run): boolean {
  return run.status === 'succeeded' || run.status === 'cancelled';
}

export function planStep(run: Run, id: string): PlanStep | undefined {
  return run.plan.steps.find((s) => s.id === id);
}

/** The step's current attempt, or undefined when it was never dispatched (or is an approval). */
export function currentAttempt(
  run: Run,
  stepId: string,
): { step: string; attempt: number; epoch: number; mode: AttemptMode; record: AttemptRecord } | undefined {
  const s = run.steps[stepId];
  if (!s || s.attempt === 0) return undefined;
  const record = findRecord(s, s.attempt, s.epoch);
  if (!record) return undefined;
  return { step: stepId, attempt: s.attempt, epoch: s.epoch, mode: s.mode, record };
}

/** Pending steps whose needs have all succeeded, in plan order: what the next wave would start. */
export function nextWave(run: Run): string[] {
  const out: string[] = [];
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (s?.status !== 'pending') continue;
    if (p.needs.every((n) => run.steps[n]?.status === 'succeeded')) out.push(p.id);
  }
  return out;
}

/** Approvals of a step that still count. */
export function validApprovals(run: Run, stepId: string): Run['approvals'] {
  return run.approvals.filter((a) => a.step === stepId && !a.stale);
}

/** Markdown findings for a repair: the result's own, else the review's findings, else its summary. */
export function renderFindings(result: StepResult): string {
  if (result.findings) return result.findings;
  const findings = result.review?.findings ?? [];
  if (findings.length === 0) return result.summary;
  return findings
    .map((f) => {
      if (typeof f === 'string') return `- ${f}`;
      const text = f.message ?? f.text ?? f.title ?? f.description;
      // A CLI that enforces the verdict's schema writes `null` for a finding without a place.
      const where = typeof f.file === 'string' ? `${f.file}${f.line !== undefined && f.line !== null ? `:${String(f.line)}` : ''}: ` : '';
      return typeof text === 'string' ? `- ${where}${text}` : `- ${JSON.stringify(f)}`;
    })
    .join('\n');
}

/** Why a result failed, in words for a person. */
export function describeFailure(result: StepResult): string {
  return result.error ? `${result.error.code}: ${result.error.message}` : result.summary || 'failed';
}

/** The record of an attempt of a step (the latest, should one be there twice). */
export function findRecord(s: StepState, attempt: number, epoch: number): AttemptRecord | undefined {
  return s.attempts[findRecordIndex(s, attempt, epoch)];
}

function findRecordIndex(s: StepState, attempt: number, epoch: number): number {
  for (let i = s.attempts.length - 1; i >= 0; i--) {
    const r = s.attempts[i];
    if (r && r.attempt === attempt && r.epoch === epoch) return i;
  }
  return -1;
}

/** The incoming entries replace current ones with the same key; new keys go last, in the order they came. */
export function mergeBy<T>(current: readonly T[], incoming: readonly T[], key: (t: T) => string): T[] {
  const out = [...current];
  for (const item of incoming) {
    const i = out.findIndex((c) => key(c) === key(item));
    if (i >= 0) out[i] = item;
    else out.push(item);
  }
  return out;
}

/**
 * How long the current attempt of a step may run: the step's timeout, or for a repair the
 * repairing agent's (a gate's or merge's own timeout says nothing about how long an agent takes).
 */
export function attemptTimeoutMinutes(run: Run, stepId: string): number {
  const step = planStep(run, stepId);
  if (!step) return 0;
  if (run.steps[stepId]?.mode !== 'repair') return step.timeoutMinutes;
  const name = ('repair' in step && step.repair?.agent) || coderAgent(run);
  const agent = name ? run.plan.agents[name] : undefined;
  // Its setup (installing its CLI) runs first, on its own clock.
  const setup = agent?.setup !== undefined ? (agent.setupTimeoutMinutes ?? DEFAULT_SETUP_TIMEOUT_MINUTES) : 0;
  return Math.max(step.timeoutMinutes, agent ? agent.timeoutMinutes + setup : 0);
}

/** The first code step's agent: the one that repairs a merge's conflicts (see the reducer's conflictRepair). */
export function coderAgent(run: Run): string | undefined {
  const code = run.plan.steps.find((s) => s.kind === 'code');
  return code?.kind === 'code' ? code.agent : undefined;
}

/**
 * A merge's and a ci step's own attempts run in the engine (it merges, it judges the checks),
 * not in a step process: nothing is dispatched for them, and nothing is there to stop or recover.
 */
export function runsInEngine(kind: string | undefined, mode: AttemptMode): boolean {
  return (kind === 'merge' || kind === 'ci') && mode === 'run';
}

export class Draft {
  readonly run: Run;
  readonly effects: DraftEffect[] = [];
  private readonly edited = new Set<string>();

  constructor(
    readonly base: Run,
    readonly at: string,
  ) {
    this.run = { ...base, steps: { ...base.steps }, updatedAt: at };
  }

  /**
   * Puts a step back to pending, to run again from scratch. Attempt numbers keep growing, so a
   * late result of an old attempt can never match again.
   */
  resetStep(id: string, reason?: string): void {
    const s = this.step(id);
    s.status = 'pending';
    s.mode = 'run';
    s.repairs = 0;
    s.losses = 0;
    s.result = undefined;
    s.reason = reason === undefined ? undefined : capped(reason, REASON_MAX);
  }

  /** A writable copy of the step (made once per transition). */
  step(id: string): StepState {
    const s = this.run.steps[id];
    if (!s) throw new Error(`run ${this.run.id} has no step "${id}"`);
    if (this.edited.has(id)) return s;
    // One literal with every field in a fixed order: one object shape, so the hot path stays fast.
    const copy: StepState = {
      id: s.id,
      status: s.status,
      attempt: s.attempt,
      epoch: s.epoch,
      mode: s.mode,
      repairs: s.repairs,
      losses: s.losses,
      attempts: s.attempts.slice(),
      result: s.result,
      reason: s.reason,
    };
    this.run.steps[id] = copy;
    this.edited.add(id);
    return copy;
  }

  /** Replaces the record of the step's current attempt with a finished one. */
  finishAttempt(id: string, outcome: Pick<AttemptRecord, 'conclusion' | 'summary' | 'error' | 'receipt' | 'inputs' | 'sandbox' | 'usage'>): void {
    const s = this.step(id);
    const i = findRecordIndex(s, s.attempt, s.epoch);
    const r = s.attempts[i];
    if (!r) return;
    s.attempts[i] = {
      attempt: r.attempt,
      epoch: r.epoch,
      mode: r.mode,
      startedAt: r.startedAt,
      finishedAt: this.at,
      conclusion: outcome.conclusion,
      summary: outcome.summary,
      error: outcome.error,
      receipt: outcome.receipt,
      inputs: outcome.inputs ?? r.inputs,
      findings: r.findings,
      ...(r.queue ? { queue: r.queue } : {}),
      ...(outcome.sandbox ? { sandbox: outcome.sandbox } : {}),
      ...(outcome.usage ? { usage: outcome.usage } : {}),
    };
  }

  /**
   * Starts one attempt of a step: a `dispatch` effect, or `merge` for a merge step (whose repairs,
   * conflict resolutions, are dispatched). An attempt that would run an agent once the run has
   * spent its budget is not started: the step fails saying so (core/run/usage.ts). Says whether it started.
   */
  dispatch(id: string, attempt: number, epoch: number, mode: AttemptMode, findings?: string): boolean {
    const blocked = budgetBlocks(this.run, id, mode);
    if (blocked) {
      this.fail(id, blocked);
      return false;
    }
    const s = this.step(id);
    s.status = 'queued';
    s.attempt = attempt;
    s.epoch = epoch;
    s.mode = mode;
    s.reason = undefined;
    if (epoch === 0) s.losses = 0;
    const record: AttemptRecord = { attempt, epoch, mode, startedAt: this.at };
    if (findings !== undefined) record.findings = findings;
    s.attempts.push(record);
    const kind = planStep(this.run, id)?.kind;
    const ref = { runId: this.run.id, step: id, attempt, epoch, mode };
    if (kind === 'merge' && mode === 'run') {
      this.effects.push({ type: 'merge', key: attemptKeyFor(ref, 'merge'), ref: { ...ref, mode } });
    } else if (kind === 'ci' && mode === 'run') {
      this.effects.push({ type: 'ci', key: attemptKeyFor(ref, 'ci'), ref: { ...ref, mode } });
    } else {
      const effect: DraftEffect = { type: 'dispatch', key: attemptKeyFor(ref, 'dispatch'), ref };
      if (findings !== undefined) effect.findings = findings;
      this.effects.push(effect);
    }
    return true;
  }

  /**
   * The attempt `s` has under way is stopped where it runs (one the engine runs checks it is current
   * itself). A merge attempt that waits for a merge queue is the engine's to stop: what it enqueued
   * would merge later on its own, so the engine takes it out of the queue again.
   */
  stopUnderWay(s: StepState, reason: string): void {
    const kind = planStep(this.run, s.id)?.kind;
    if (runsInEngine(kind, s.mode) && !(kind === 'merge' && findRecord(s, s.attempt, s.epoch)?.queue?.entries.some((e) => !e.merged))) return;
    const ref = { runId: this.run.id, step: s.id, attempt: s.attempt, epoch: s.epoch, mode: s.mode };
    this.effects.push({ type: 'stop', key: attemptKeyFor(ref, 'stop'), ref, reason });
  }

  fail(id: string, reason: string): void {
    const s = this.step(id);
    s.status = 'failed';
    s.reason = capped(reason, REASON_MAX);
  }

  /** Starts every step whose needs have succeeded, until nothing more can start; people's feedback first. */
  advance(): void {
    this.takeFeedback();
    for (;;) {
      const wave = nextWave(this.run);
      if (wave.length === 0) return;
      for (const id of wave) {
        const p = planStep(this.run, id);
        if (p?.kind === 'approval') {
          const s = this.step(id);
          const have = validApprovals(this.run, id).length;
          if (have >= p.minApprovals) {
            s.status = 'succeeded';
            s.reason = undefined;
          } else {
            s.status = 'waiting';
            s.reason = approvalReason(have, p.minApprovals) + staleNote(this.run, id);
          }
        } else {
          const s = this.run.steps[id];
          this.dispatch(id, (s?.attempt ?? 0) + 1, 0, 'run');
        }
      }
    }
  }

  /**
   * Feedback waits while any attempt is under way; then everything that waits goes to the code
   * step as one repair attempt, in the order it came, and every step after the code step runs
   * again on what the repair writes (their approvals stale). Feedback that finds the pull requests
   * merged is dropped, saying why. Says whether it started the repair.
   */
  private takeFeedback(): boolean {
    const all = this.run.feedback ?? [];
    const pending = all.filter((f) => !f.taken && !f.dropped);
    if (pending.length === 0) return false;
    const order = this.run.plan.steps;
    const at = order.findIndex((p) => p.kind === 'code');
    const code = at >= 0 ? this.run.steps[order[at]!.id] : undefined;
    const steps = order.map((p) => this.run.steps[p.id]);
    if (!code || code.attempts.length === 0 || steps.some((s) => s?.status === 'queued')) return false;
    // A code step that needs other steps repairs only once they have succeeded (again).
    if (order[at]!.needs.some((n) => this.run.steps[n]?.status !== 'succeeded')) return false;
    const by = [...new Set(pending.map((f) => f.by))].join(', ');
    if (order.some((p) => p.kind === 'merge' && this.run.steps[p.id]?.status === 'succeeded')) {
      const dropped = 'the pull requests merged before it could go to the agent';
      this.run.feedback = all.map((f) => (pending.includes(f) ? { ...f, dropped } : f));
      this.effects.push({
        type: 'reply',
        key: `${this.run.id}:reply:feedback-dropped:${this.base.version + 1}`,
        text: `The feedback of ${by} came while the pull requests were merging, and they merged: it was not given to the agent. Open a new issue for it.`,
      });
      return false;
    }
    // Spent: the code step stops there, and the feedback waits for a retry with a larger budget.
    const blocked = budgetBlocks(this.run, code.id, 'repair');
    if (blocked) {
      this.fail(code.id, blocked);
      return false;
    }
    const after = new Set(order.slice(at + 1).map((p) => p.id));
    for (const id of after) this.resetStep(id, `runs again once the coder has made the changes ${by} asked for`);
    const stale: Staleness = { kind: 'feedback', by };
    this.run.approvals = this.run.approvals.map((a) => (after.has(a.step) && !a.stale ? { ...a, stale } : a));
    const attempt = code.attempt + 1;
    this.dispatch(code.id, attempt, 0, 'repair', renderFeedback(pending));
    this.run.feedback = all.map((f) => (pending.includes(f) ? { ...f, taken: { step: code.id, attempt } } : f));
    return true;
  }

  /** Derives the run status from its steps; a run that just succeeded tears its environments down. */
  settle(): void {
    const run = this.run;
    if (isTerminal(run)) return;
    const steps = run.plan.steps.map((p) => run.steps[p.id]).filter((s): s is StepState => s !== undefined);
    if (steps.every((s) => s.status === 'succeeded')) {
      run.status = 'succeeded';
      run.waitingFor = undefined;
      this.teardown();
      return;
    }
    if (steps.some((s) => s.status === 'queued')) {
      run.status = 'running';
      run.waitingFor = undefined;
      return;
    }
    run.status = 'waiting';
    const parts: string[] = [];
    const failed = steps.filter((s) => s.status === 'failed');
    if (failed.length > 0) {
      const what = failed.map((s) => `step "${s.id}" failed (${s.reason ?? 'no reason given'})`).join('; ');
      parts.push(`retry or cancel: ${what}`);
    }
    for (const s of steps.filter((x) => x.status === 'waiting')) parts.push(`approval of step "${s.id}": ${s.reason ?? ''}`);
    run.waitingFor = capped(parts.length > 0 ? parts.join('; ') : 'retry or cancel: no step can start', WAITING_FOR_MAX);
  }

  /** A `teardown` effect for every ready environment, unless the run keeps them. */
  teardown(): void {
    if (this.run.settings.keepEnvs === true) return;
    const ready = this.run.environments.filter((e) => e.state === 'ready');
    if (ready.length === 0) return;
    this.effects.push({ type: 'teardown', key: `${this.run.id}:teardown:${this.base.version + 1}`, environments: ready });
  }

  /** The transition: the new run with a `report` effect last, so the UI refreshes once it is stored. */
  finish(): DraftTransition {
    this.effects.push({ type: 'report', key: `${this.run.id}:report:${this.base.version + 1}` });
    return { run: this.run, effects: this.effects };
  }
}

export function approvalReason(have: number, need: number): string {
  return `waiting for approvals: ${have} of ${need}`;
}

/** Why an approval no longer counts, in words for a person. */
export function describeStaleness(s: Staleness): string {
  switch (s.kind) {
    case 'pushed':
      return `${s.by} pushed ${s.head.slice(0, 7)} to ${s.repo} after the approval`;
    case 'agent-wrote':
      return `the agent of step "${s.step}" wrote ${s.head.slice(0, 7)} to ${s.repo} after the approval`;
    case 'retried':
      return `step retried${s.by ? ` by ${s.by}` : ''}`;
    case 'unverified':
      return `the stored result of step "${s.step}" did not verify, so it ran again`;
    case 'feedback':
      return `${s.by} asked for changes, which the coder makes before the steps after it run again`;
  }
}

/** What a waiting approval's reason ends with when a new head made its approvals stale. */
export function staleApprovalsNote(s: Staleness): string {
  return ` (approvals are stale: ${describeStaleness(s)})`;
}

/** Why earlier approvals of a step no longer count, when a new head made them stale (the latest), for its waiting reason. */
export function staleNote(run: Run, stepId: string): string {
  const last = run.approvals.findLast(
    (a) => a.step === stepId && (a.stale?.kind === 'pushed' || a.stale?.kind === 'agent-wrote' || a.stale?.kind === 'feedback'),
  );
  return last?.stale ? staleApprovalsNote(last.stale) : '';
}

/** A refusal: the run does not change; a reply says why (keyed by the event, so a redelivery replies once). */
export function reply(run: Run, event: RunEvent, text: string): DraftTransition {
  return { run, effects: [{ type: 'reply', key: `${run.id}:reply:${digest(event).slice(0, 16)}`, text }] };
}
