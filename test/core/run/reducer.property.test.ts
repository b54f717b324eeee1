// Property-based: random small plans, and random interleavings, duplicates and reorderings of
// completions, losses, decisions, retries, cancels, pushes to the run's PRs, closed PRs and merge
// conflicts keep the run state machine's invariants.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTerminal, MAX_LOSSES, nextWave, reduce } from '../../../core/run/reducer.ts';
import { MAX_CONFLICT_REPAIRS } from '../../../core/run/draft.ts';
import { prHeads } from '../../../core/run/approvals.ts';
import type { Run, RunEffect, RunEvent } from '../../../core/run/types.ts';
import type { Plan } from '../../../core/plan/types.ts';
import { planOf, resultOf } from '../../helpers/plans.ts';
import { sealResult, verifyReceipt } from '../../../core/contract/receipt.ts';
import { deploysBefore } from '../../../core/plan/environments.ts';
import type { StepResult } from '../../../core/contract/wire.ts';
import { attemptKey, isCurrent } from '../../../core/contract/attempt-ref.ts';
import type { StepSpec } from '../../helpers/plans.ts';
import { AT, newRun } from './drive.ts';

const KINDS = ['code', 'gate', 'review', 'deploy', 'approval', 'merge'] as const;

// Most plans start with a code step, as real pipelines do: its PR is what pushes, closes and
// merge conflicts act on.
const planArb = fc
  .tuple(
    fc.oneof({ arbitrary: fc.constant('code' as const), weight: 3 }, { arbitrary: fc.constantFrom(...KINDS), weight: 1 }),
    fc.array(fc.tuple(fc.constantFrom(...KINDS), fc.integer({ min: 0, max: 2 }), fc.array(fc.boolean(), { maxLength: 6 })), {
      minLength: 1,
      maxLength: 6,
    }),
    fc.boolean(),
  )
  // ...and often end with a merge that needs every step before it.
  .map(([first, [head, ...rest], merge]) => {
    const raw = [[first, head![1], head![2]] as const, ...rest];
    return merge && raw.length < 6 ? [...raw, ['merge', 0, raw.map(() => true)] as const] : raw;
  })
  .map((raw): Plan => {
    const specs: StepSpec[] = raw.map(([kind, n, picks], i) => {
      const needs = picks.slice(0, i).flatMap((p, j) => (p ? [`s${j}`] : []));
      const id = `s${i}`;
      if (kind === 'gate' || kind === 'review') return { id, kind, needs, ...(n > 0 ? { repair: n } : {}) };
      if (kind === 'approval') return { id, kind, needs, minApprovals: n };
      return { id, kind, needs };
    });
    return withDeploys(planOf(specs));
  });

/** The plan whose deploys stand the PR's repository up: a repair after one that writes there makes it stale. */
function withDeploys(plan: Plan): Plan {
  return {
    ...plan,
    steps: plan.steps.map((p) => (p.kind === 'deploy' ? { ...p, services: ['web'] } : p)),
    services: { web: { ...plan.services.web!, deploy: { run: 'true', timeoutMinutes: 5 } } },
  };
}

// Each action is interpreted against the current state: [what, which, how].
const actionsArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 99 }), fc.nat(), fc.nat()), { minLength: 5, maxLength: 80, size: 'medium' });

interface Attempt {
  step: string;
  attempt: number;
  epoch: number;
  mode: 'run' | 'repair';
}

class Checker {
  run: Run;
  readonly attempts: Attempt[] = [];
  readonly delivered: RunEvent[] = [];
  readonly keys = new Set<string>();
  readonly accepted = new Set<string>();
  readonly repairsSinceReset = new Map<string, number>();

  constructor(readonly plan: Plan) {
    this.run = newRun(plan);
    this.apply({ type: 'started', at: AT });
  }

  apply(event: RunEvent): void {
    const prev = this.run;
    const snapshot = JSON.stringify(prev);
    const t = reduce(prev, event);
    expect(JSON.stringify(prev)).toBe(snapshot); // pure
    this.delivered.push(event);
    if (t.run === prev) {
      expect(t.effects.every((e) => e.type === 'reply')).toBe(true);
      this.checkTerminalReply(prev, event, t.effects);
      return;
    }
    const next: Run = { ...t.run, version: prev.version + 1 };
    if (isTerminal(prev)) expect(next.status).toBe(prev.status); // terminal stays terminal
    expect(t.effects.at(-1)).toEqual({ type: 'report', key: `${prev.id}:report:${prev.version + 1}` });
    if (event.type === 'retry' || tookFeedback(prev, next)) this.repairsSinceReset.clear();
    // A step put back to pending starts over: a push re-runs it (at once when it can start), or it
    // waits for steps a push re-ran.
    for (const id of Object.keys(next.steps)) {
      const [a, b] = [prev.steps[id]!, next.steps[id]!];
      const rerun = event.type === 'pr-pushed' && b.repairs < a.repairs;
      if (b.status === 'pending' && a.status !== 'pending') this.checkBackToPending(prev, next, event, id);
      if (rerun || (b.status === 'pending' && a.status !== 'pending')) this.repairsSinceReset.delete(id);
    }
    if (event.type === 'step-completed' || event.type === 'step-lost') {
      const id =
        event.type === 'step-completed'
          ? `${event.result.step}:${event.result.attempt}:${event.result.epoch}`
          : `${event.step}:${event.attempt}:${event.epoch}`;
      expect(this.accepted.has(id), `attempt ${id} completed twice`).toBe(false);
      this.accepted.add(id);
    }
    if (event.type === 'pr-pushed') this.checkPush(prev, next, event);
    this.checkRedeploy(prev, next, event);
    if (event.type === 'decision') this.checkDecision(prev, next, event);
    if (event.type === 'pr-closed' && !event.merged && !isTerminal(prev)) expect(next.status).toBe('cancelled');
    for (const e of t.effects) this.checkEffect(prev, next, e);
    this.checkStops(prev, next, t.effects);
    for (const p of this.plan.steps) this.checkStep(prev, next, p.id);
    this.checkStatus(next);
    this.run = next;
  }

  /**
   * Only a retry or a push puts a step back to pending, or the end of the step's own attempt while
   * a step it needs runs again (so its repairs start over only then).
   */
  private checkBackToPending(prev: Run, next: Run, event: RunEvent, id: string): void {
    if (event.type === 'retry' || event.type === 'pr-pushed') return;
    // A repair that wrote to the repository a deploy before it stood up: that deploy and the steps after it run again.
    if (event.type === 'step-completed' && wroteAfterDeploy(this.plan, prev, event.result) && (this.stale(event.result.step, id) || id === event.result.step))
      return;
    // People's feedback taken in this transition runs every step after the code step again.
    if (tookFeedback(prev, next)) return;
    const own = (event.type === 'step-completed' && event.result.step === id) || (event.type === 'step-lost' && event.step === id);
    const needs = this.plan.steps.find((s) => s.id === id)!.needs;
    expect(own && needs.some((n) => prev.steps[n]?.status !== 'succeeded'), `${id} went back to pending on ${event.type}`).toBe(true);
  }

  /** Whether `id` is a deploy before `repaired`, or a step after such a deploy. */
  private stale(repaired: string, id: string): boolean {
    const before = deploysBefore(this.plan, repaired).map((d) => d.id);
    return before.includes(id) || deploysBefore(this.plan, id).some((d) => before.includes(d.id));
  }

  /**
   * Environments never stay stale under the steps after them: a repair that wrote a new head of the
   * repository a succeeded deploy before its step stood up sends that deploy again (or leaves it
   * pending), and the repaired step does not run before it has succeeded again.
   */
  private checkRedeploy(prev: Run, next: Run, event: RunEvent): void {
    if (event.type !== 'step-completed' || isTerminal(prev) || !wroteAfterDeploy(this.plan, prev, event.result)) return;
    if (next.steps[event.result.step]?.status === 'failed') return;
    for (const d of deploysBefore(this.plan, event.result.step)) {
      if (prev.steps[d.id]?.status !== 'succeeded') continue;
      expect(next.steps[d.id]!.status, `${d.id} kept environments a repair of ${event.result.step} made stale`).not.toBe('succeeded');
      expect(next.steps[event.result.step]!.status, `${event.result.step} runs again before ${d.id} deployed again`).toBe('pending');
    }
  }

  /** Repairs a step may use: a gate's or review's own bound; a merge's conflict repairs when the plan has a code step. */
  private maxRepairs(id: string): number {
    const p = this.plan.steps.find((s) => s.id === id)!;
    if (p.kind === 'gate' || p.kind === 'review') return p.repair?.maxAttempts ?? 0;
    if (p.kind === 'merge') return this.plan.steps.some((s) => s.kind === 'code') ? MAX_CONFLICT_REPAIRS : 0;
    return 0;
  }

  /**
   * After someone else pushed a new head to a PR: no approval given on another head of it still
   * counts, and no gate or review that had run keeps its success (each runs again on the new head).
   */
  private checkPush(prev: Run, next: Run, event: Extract<RunEvent, { type: 'pr-pushed' }>): void {
    const pr = prev.prs.find((p) => p.repo === event.repo);
    if (!pr || pr.head === event.head || event.own || isTerminal(prev)) return;
    expect(next.prs.find((p) => p.repo === event.repo)?.head).toBe(event.head);
    for (const a of next.approvals) if (!a.stale) expect(a.heads[event.repo], `approval by ${a.by} still counts after a push`).toBe(event.head);
    for (const p of this.plan.steps) {
      if (p.kind !== 'gate' && p.kind !== 'review') continue;
      const before = prev.steps[p.id]!.status;
      if (before === 'succeeded' || before === 'failed') expect(next.steps[p.id]!.status, `${p.id} kept its result after a push`).not.toBe(before);
    }
  }

  /**
   * A decision counts only where an approval waits, and only for the heads its giver saw: none is
   * kept for an approval step that comes up later, and an approval records the PRs' heads of then.
   */
  private checkDecision(prev: Run, next: Run, event: Extract<RunEvent, { type: 'decision' }>): void {
    const waits = this.plan.steps.some((p) => p.kind === 'approval' && prev.steps[p.id]?.status === 'waiting');
    if (!waits) expect(next, `a ${event.decision} was taken while no approval waited`).toBe(prev);
    const added = next.approvals.slice(prev.approvals.length);
    expect(added.length).toBeLessThanOrEqual(1);
    for (const a of added) {
      expect(prev.steps[a.step]?.status, `an approval of ${a.step} was recorded while it did not wait`).toBe('waiting');
      expect(a.heads).toEqual(prHeads(prev));
      if (event.heads) expect(event.heads, 'an approval counted for heads its giver did not see').toEqual(prHeads(prev));
    }
  }

  private checkTerminalReply(prev: Run, event: RunEvent, effects: RunEffect[]): void {
    if (isTerminal(prev) && (event.type === 'decision' || event.type === 'retry' || event.type === 'cancel' || event.type === 'feedback')) {
      expect(effects).toHaveLength(1);
    }
  }

  private checkEffect(prev: Run, next: Run, e: RunEffect): void {
    if (e.type !== 'reply') {
      expect(this.keys.has(e.key), `effect key ${e.key} emitted twice`).toBe(false);
      this.keys.add(e.key);
    }
    if (e.type === 'stop') return this.checkStop(prev, next, e);
    if (e.type !== 'dispatch' && e.type !== 'merge') return;
    const r = e.ref;
    expect(r.runId).toBe(next.id);
    expect(e.key).toBe(`${attemptKey(r)}:${e.type}`);
    const p = this.plan.steps.find((s) => s.id === r.step)!;
    // A merge step merges (a merge effect); only its conflict repairs are dispatched, as code attempts.
    if (p.kind === 'merge') expect(e.type === 'merge' || r.mode === 'repair', `merge step ${r.step} dispatched a run attempt`).toBe(true);
    else expect(e.type).toBe('dispatch');
    expect(p.kind).not.toBe('approval');
    for (const n of p.needs) expect(next.steps[n]?.status, `${r.step} dispatched before ${n} succeeded`).toBe('succeeded');
    expect(next.steps[r.step]).toMatchObject({ status: 'queued', attempt: r.attempt, epoch: r.epoch });
    const mode = r.mode;
    // A code step repairs only with people's feedback, which this transition took for that attempt.
    if (p.kind === 'code' && mode === 'repair') {
      expect(
        next.feedback?.some((f) => f.taken?.step === r.step && f.taken.attempt === r.attempt),
        `code step ${r.step} repaired without feedback`,
      ).toBe(true);
    } else if (mode === 'repair' && r.epoch === 0) {
      const used = (this.repairsSinceReset.get(r.step) ?? 0) + 1;
      this.repairsSinceReset.set(r.step, used);
      expect(used, `repairs of ${r.step}`).toBeLessThanOrEqual(this.maxRepairs(r.step));
    }
    this.attempts.push({ step: r.step, attempt: r.attempt, epoch: r.epoch, mode });
  }

  /** A stop names an attempt the run waited for until this transition, as it was dispatched, and no longer waits for. */
  private checkStop(prev: Run, next: Run, e: Extract<RunEffect, { type: 'stop' }>): void {
    const s = prev.steps[e.ref.step]!;
    expect(e.ref).toEqual({ runId: prev.id, step: s.id, attempt: s.attempt, epoch: s.epoch, mode: s.mode });
    expect(isCurrent(prev, e.ref), `stopped ${attemptKey(e.ref)}, which was not under way`).toBe(true);
    expect(isCurrent(next, e.ref), `stopped ${attemptKey(e.ref)}, which is still current`).toBe(false);
    expect(e.key).toBe(`${attemptKey(e.ref)}:stop`);
    expect(e.reason).toBe(next.reason);
  }

  /**
   * A run cancelled by this transition stops every attempt it had dispatched and not heard back
   * from (a merge the engine carries out itself has none), before its teardown; no other
   * transition stops anything, so a duplicate cancel, a late result or a retry stops nothing.
   */
  private checkStops(prev: Run, next: Run, effects: RunEffect[]): void {
    const stops = effects.filter((e) => e.type === 'stop');
    if (next.status !== 'cancelled' || isTerminal(prev)) {
      expect(stops, 'a stop without a cancel').toEqual([]);
      return;
    }
    const underWay = this.plan.steps.filter((p) => prev.steps[p.id]!.status === 'queued' && !(p.kind === 'merge' && prev.steps[p.id]!.mode === 'run'));
    expect(stops.map((e) => e.ref.step)).toEqual(underWay.map((p) => p.id));
    const teardown = effects.findIndex((e) => e.type === 'teardown');
    if (teardown >= 0) expect(effects.findLastIndex((e) => e.type === 'stop')).toBeLessThan(teardown);
  }

  private checkStep(prev: Run, next: Run, id: string): void {
    const a = prev.steps[id]!;
    const b = next.steps[id]!;
    // Attempt numbers only grow; inside an attempt, epochs only grow.
    expect(b.attempt).toBeGreaterThanOrEqual(a.attempt);
    if (b.attempt === a.attempt) expect(b.epoch).toBeGreaterThanOrEqual(a.epoch);
    // A finished attempt record never changes again, and (attempt, epoch) pairs are unique.
    expect(b.attempts.slice(0, a.attempts.length).filter((r, i) => a.attempts[i]?.finishedAt && r !== a.attempts[i])).toEqual([]);
    expect(new Set(b.attempts.map((r) => `${r.attempt}.${r.epoch}`)).size).toBe(b.attempts.length);
    expect(b.repairs).toBeLessThanOrEqual(this.maxRepairs(id));
    // A lost attempt is dispatched again a bounded number of times.
    expect(b.epoch).toBeLessThanOrEqual(MAX_LOSSES);
    if (b.status === 'queued') expect(b.losses).toBe(b.epoch);
    // A step is under way while a step it needs is not done only when a push left it to finish: a
    // merge, or a step after an approval the push made stale (which waits for a decision again).
    const p = this.plan.steps.find((s) => s.id === id)!;
    if (b.status === 'queued' && p.kind !== 'merge') {
      for (const n of p.needs) {
        if (next.steps[n]!.status === 'succeeded') continue;
        // ...or a deploy under way when a deploy it needs was sent again: it deploys again after it;
        // or a code step under way then: its work is the change itself, and it keeps it.
        const kind = this.plan.steps.find((s) => s.id === n)!.kind;
        expect(kind === 'approval' || ((p.kind === 'deploy' || p.kind === 'code') && kind === 'deploy'), `${id} runs before ${n}`).toBe(true);
      }
    }
  }

  private checkStatus(run: Run): void {
    const steps = Object.values(run.steps);
    if (isTerminal(run)) {
      if (run.status === 'succeeded') expect(steps.every((s) => s.status === 'succeeded')).toBe(true);
      return;
    }
    expect(run.status === 'running').toBe(steps.some((s) => s.status === 'queued'));
    if (run.status === 'waiting') expect(run.waitingFor).toBeTruthy();
    // Waves always advance: nothing startable is left pending.
    expect(nextWave(run)).toEqual([]);
  }
}

/**
 * Repairs of gates and reviews sometimes write a new head (what sends a deploy before them again).
 * Only in plans without approvals: a head written after an approval is the other rule of repairs
 * that write (rewroteCheckedHeads), which the cases of pushes and merge conflicts cover.
 */
function writesAfterDeploy(plan: Plan, kind: string, a: Attempt): boolean {
  return a.mode === 'repair' && (kind === 'gate' || kind === 'review') && !plan.steps.some((p) => p.kind === 'approval');
}

/** A result of the current repair attempt of a step that moves the PR's head (what redeploys). */
function wroteAfterDeploy(plan: Plan, prev: Run, result: StepResult): boolean {
  const s = prev.steps[result.step];
  if (!s || s.status !== 'queued' || s.mode !== 'repair' || result.mode !== 'repair' || result.conclusion === 'failure') return false;
  if (s.attempt !== result.attempt || s.epoch !== result.epoch || result.error?.code === 'agent-stalled') return false;
  const record = s.attempts.findLast((r) => r.attempt === result.attempt && r.epoch === result.epoch);
  if (!record?.inputs || !verifyReceipt(result, record.inputs)) return false;
  const kind = plan.steps.find((p) => p.id === result.step)?.kind;
  return kind !== 'code' && result.prs.some((pr) => pr.head && prev.prs.find((p) => p.repo === pr.repo)?.head !== pr.head);
}

/** Feedback that this transition gave to the code step. */
function tookFeedback(prev: Run, next: Run): boolean {
  return (next.feedback ?? []).some((f, i) => f.taken && !prev.feedback?.[i]?.taken);
}

const PR = { repo: 'acme/web', number: 1, url: 'https://github.com/acme/web/pull/1', branch: 'conveyor/web-7', head: 'h0' };

/**
 * A completion as the action (or, for a merge, the engine) sends it: sealed against the inputs its
 * attempt recorded at dispatch; a merge the engine carries out itself brings its own inputs.
 * `forged`: sealed against something else, as a result from another repository or an edit would be.
 */
function completion(run: Run, a: Attempt, conclusion: StepResult['conclusion'], extra: Partial<StepResult>, forged = false): RunEvent {
  const record = run.steps[a.step]?.attempts.findLast((r) => r.attempt === a.attempt && r.epoch === a.epoch);
  const inputs = forged ? 'forged' : (record?.inputs ?? `merge:${a.step}:${a.attempt}:${a.epoch}`);
  const result = sealResult(resultOf(run.id, a.step, a.attempt, a.epoch, conclusion, { mode: a.mode, ...extra }), inputs);
  return { type: 'step-completed', at: AT, result, ...(record?.inputs ? {} : { inputs: `merge:${a.step}:${a.attempt}:${a.epoch}` }) };
}
const CONFLICT = { error: { code: 'merge-conflict' as const, message: 'acme/web#1 conflicts with main' }, findings: 'resolve acme/web#1' };

function interpret(c: Checker, [what, which, how]: [number, number, number]): void {
  const run = c.run;
  if (what < 45 && c.attempts.length > 0) {
    // A result or a loss: mostly for a current attempt, else for any attempt ever dispatched
    // (old ones are stale; some repeat).
    const queued = Object.values(run.steps).filter((s) => s.status === 'queued');
    const q = queued[which % Math.max(1, queued.length)];
    const a: Attempt = which % 4 !== 0 && q ? { step: q.id, attempt: q.attempt, epoch: q.epoch, mode: q.mode } : c.attempts[which % c.attempts.length]!;
    const outcome = how % 4;
    const kind = c.plan.steps.find((s) => s.id === a.step)!.kind;
    if (outcome === 3) {
      c.apply({ type: 'step-lost', at: AT, step: a.step, attempt: a.attempt, epoch: a.epoch, reason: 'gone' });
    } else {
      const conclusion = (['success', 'failure', 'neutral'] as const)[outcome]!;
      // A code step opens (or updates) the run's PR; a merge that fails mostly fails on a conflict.
      const extra =
        kind === 'code' || (writesAfterDeploy(c.plan, kind, a) && how % 3 === 1)
          ? { prs: [{ ...PR, head: `h${a.attempt}.${a.epoch}` }] }
          : kind === 'merge' && conclusion === 'failure' && how % 3 !== 0
            ? CONFLICT
            : {};
      // One result in eight is forged: it must never count.
      const forged = which % 8 === 7;
      const event = completion(run, a, conclusion, { findings: 'f', ...extra }, forged);
      c.apply(event);
      if (forged && event.type === 'step-completed') {
        expect(c.run.steps[a.step]!.result?.receipt, `a forged result of ${a.step} counted`).not.toBe(event.result.receipt);
        expect(
          c.run.steps[a.step]!.attempts.some((r) => r.receipt === event.result.receipt),
          `a forged result of ${a.step} was recorded`,
        ).toBe(false);
      }
    }
  } else if (what < 62 && run.prs.length > 0) {
    // A push to the PR: mostly someone else's new head, sometimes Conveyor's own or the same head.
    // Conveyor's own push is known by identity (`own`), never by name: a person called Conveyor is anyone.
    const own = how % 4 === 0;
    const by: string = own ? 'conveyor[bot]' : how % 2 === 0 ? 'mallory' : how % 3 === 0 ? 'Conveyor' : 'bob';
    const head = which % 5 === 0 ? (run.prs[0]!.head ?? 'h0') : `p${which % 7}`;
    c.apply({ type: 'pr-pushed', at: AT, repo: PR.repo, head, by, ...(own ? { own } : {}) });
  } else if (what === 62 && run.prs.length > 0) {
    c.apply({ type: 'pr-closed', at: AT, repo: PR.repo, merged: how % 2 === 0 });
  } else if (what < 70 && c.delivered.length > 0) {
    c.apply(c.delivered[which % c.delivered.length]!); // an exact duplicate, possibly much later
  } else if (what < 80) {
    // People's feedback: taken by the code step once nothing is under way.
    const by = ['alice', 'bob', 'carol'][which % 3]!;
    c.apply({ type: 'feedback', at: AT, id: `comment:${c.delivered.length}`, by, source: 'comment', text: `change ${which}` });
  } else if (what < 85) {
    const by = ['alice', 'bob', 'carol', 'dave'][which % 4]!;
    // Given on the heads of now, on heads that moved since, or (as before there were heads) on none.
    const heads = how % 3 === 0 ? prHeads(run) : how % 3 === 1 ? { [PR.repo]: 'seen-before' } : undefined;
    c.apply({ type: 'decision', at: AT, decision: how % 5 === 0 ? 'reject' : 'approve', by, ...(heads ? { heads } : {}) });
  } else if (what < 97) {
    const order = c.plan.steps.map((s) => s.id);
    c.apply({ type: 'retry', at: AT, ...(how % 2 === 0 ? {} : { step: order[which % order.length]! }) });
  } else {
    c.apply({ type: 'cancel', at: AT, by: 'bob' });
  }
}

/** Liveness: answering everything with success and approving ends every run that was not cancelled. */
function finish(c: Checker): void {
  let people = 0;
  for (let i = 0; i < 200 && !isTerminal(c.run); i++) {
    const run = c.run;
    const queued = Object.values(run.steps).find((s) => s.status === 'queued');
    const waiting = Object.values(run.steps).find((s) => s.status === 'waiting');
    if (queued) {
      c.apply(completion(run, { step: queued.id, attempt: queued.attempt, epoch: queued.epoch, mode: queued.mode }, 'success', {}));
    } else if (waiting) {
      c.apply({ type: 'decision', at: AT, decision: 'approve', by: `p${people++}` });
    } else {
      c.apply({ type: 'retry', at: AT });
    }
  }
  expect(c.run.status).toBe('succeeded');
}

describe('run state machine properties', () => {
  it('random interleavings, duplicates and reorderings keep the invariants', () => {
    fc.assert(
      fc.property(planArb, actionsArb, (plan, actions) => {
        const c = new Checker(plan);
        for (const a of actions) interpret(c, a);
        if (c.run.status !== 'cancelled') finish(c);
      }),
      { numRuns: 600 },
    );
  });

  it('repairs after a deploy never leave the steps after it on stale environments', () => {
    // code -> deploy -> gates and reviews with repairs (and whatever else after them, but approvals).
    const after = fc.array(fc.tuple(fc.constantFrom('gate' as const, 'review' as const, 'deploy' as const, 'merge' as const), fc.integer({ min: 1, max: 2 })), {
      minLength: 1,
      maxLength: 4,
    });
    const redeployPlanArb = after.map((rest) =>
      withDeploys(
        planOf([
          { id: 's0', kind: 'code' },
          { id: 's1', kind: 'deploy' },
          ...rest.map(([kind, n], i): StepSpec => (kind === 'gate' || kind === 'review' ? { id: `s${i + 2}`, kind, repair: n } : { id: `s${i + 2}`, kind })),
        ]),
      ),
    );
    fc.assert(
      fc.property(redeployPlanArb, actionsArb, (plan, actions) => {
        const c = new Checker(plan);
        for (const a of actions) interpret(c, a);
        if (c.run.status !== 'cancelled') finish(c);
      }),
      { numRuns: 300 },
    );
  });

  it('replaying the whole history again changes nothing', () => {
    fc.assert(
      fc.property(planArb, actionsArb, (plan, actions) => {
        const c = new Checker(plan);
        for (const a of actions) if (a[0] < 70) interpret(c, a);
        const end = c.run;
        for (const e of [...c.delivered].reverse()) {
          if (e.type === 'step-completed' || e.type === 'step-lost' || e.type === 'started') {
            expect(reduce(end, e).run).toBe(end);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
