// The engine applies events to stored runs and carries out the effects of each transition.
// A transition and its effects are written in one compare-and-swap commit (the outbox); each
// effect is then carried out, idempotently, and marked done. A process that dies in between leaves
// pending effects and queued attempts that `recover` settles before anything else.
import { buildPayload } from '../core/run/payload.ts';
import { sealResult } from '../core/contract/receipt.ts';
import type { StepResult } from '../core/contract/wire.ts';
import { tornDownEvent } from '../core/run/environments.ts';
import { mergeInputsDigest } from '../core/run/receipts.ts';
import { createRun, reduce } from '../core/run/reducer.ts';
import type { Run, RunEffect, RunEvent } from '../core/run/types.ts';
import { applyEvent } from './apply.ts';
import type { AttemptOutcome, Dispatcher } from './ports/dispatcher.ts';
import type { RunStore } from './ports/store.ts';

/** Where the engine says what went wrong outside any caller's reach (an effect that failed). */
export interface EngineLog {
  error(message: string): void;
}

export interface EngineOptions {
  store: RunStore;
  dispatcher: Dispatcher;
  /** Carries out a merge effect (merges the run's PRs) and says how it went. */
  merge(run: Run, effect: Extract<RunEffect, { type: 'merge' }>): Promise<StepResult>;
  now?: () => string;
  /**
   * Called after a run starts and after every event applied to it, with the run as it stands then
   * and the event: also for an event that changed nothing and was not written.
   */
  observe?(run: Run, event: RunEvent): void;
  /** Carries out a reply effect (answers a refused or answered command). */
  reply?(run: Run, text: string): void | Promise<void>;
  /** Carries out a report effect (refreshes what people see: check runs, the tracking comment). */
  report?(run: Run): void | Promise<void>;
  log?: EngineLog;
}

export type NewRun = Omit<Parameters<typeof createRun>[0], 'at'>;

export class Engine {
  private readonly inflight = new Set<Promise<unknown>>();
  /** Effects this engine is carrying out, so that a recovery beside it does not start them twice. */
  private readonly claimed = new Set<string>();
  private readonly now: () => string;

  constructor(private readonly options: EngineOptions) {
    this.now = options.now ?? (() => new Date().toISOString());
  }

  /** 1. start the new run and store it with what starting asks for (one write: a run is never stored unstarted), 2. carry that out. */
  async start(input: NewRun): Promise<Run> {
    const created = createRun({ ...input, at: this.now() });
    const event: RunEvent = { type: 'started', at: this.now() };
    const started = reduce(created, event);
    await this.options.store.create(started.run, started.effects);
    const run = { ...started.run, version: 1 };
    this.options.observe?.(run, event);
    this.carryOut(run, started.effects);
    return run;
  }

  /**
   * Applies an event (again on a compare-and-swap conflict), then carries out its effects. The
   * reducer verifies every result (and every stored one) against its receipt: a result that does
   * not verify counts as not run, whoever sends it.
   */
  async apply(runId: string, event: RunEvent): Promise<Run> {
    const transition = await applyEvent(this.options.store, runId, event, reduce);
    this.options.observe?.(transition.run, event);
    if (transition.committed) this.carryOut(transition.run, transition.effects);
    return transition.run;
  }

  /**
   * Takes over a run another process was driving: every attempt it left queued is settled from
   * what that attempt left behind (a late result is kept; otherwise it is lost and dispatched again
   * with the next epoch), then the pending effects are carried out.
   */
  async recover(runId: string, left?: Run): Promise<void> {
    // `left`: the run as the other process left it, whose queued attempts are settled (the stored
    // run by default; a cancel applied first passes the run from before it, so those attempts'
    // processes are still stopped and what they deployed is still recorded, then torn down).
    const run = left ?? (await this.get(runId));
    for (const step of Object.values(run.steps)) {
      // A merge runs in this process (its pending effect is carried out again below); only a
      // merge's conflict repair is an attempt dispatched elsewhere.
      const merge = run.plan.steps.find((s) => s.id === step.id)?.kind === 'merge';
      if (step.status !== 'queued' || (merge && step.mode !== 'repair')) continue;
      const payload = buildPayload(run, { step: step.id, attempt: step.attempt, epoch: step.epoch, mode: step.mode });
      const outcome = await this.options.dispatcher.recover(payload);
      if (outcome && outcome.kind !== 'dispatched') await this.apply(runId, this.eventOf(outcome, step.id, step.attempt, step.epoch));
    }
    await this.carryOutPending(runId);
  }

  /**
   * Carries out the run's pending effects that this engine is not already carrying out: what a
   * process that died left, or what another process committed for this one to do (a cancel's
   * teardown, committed by `conveyor cancel` for the run's driver).
   */
  async carryOutPending(runId: string): Promise<void> {
    this.carryOut(await this.get(runId), await this.options.store.pendingEffects(runId));
  }

  /** Resolves when no effect this engine started is still under way (the run ended or waits for a person). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  async get(runId: string): Promise<Run> {
    const run = await this.options.store.get(runId);
    if (!run) throw new Error(`no run ${runId} in the store`);
    return run;
  }

  /** Tears the run's ready environments down now (`conveyor teardown RUN`); resolves with the run after. */
  async tearDownNow(runId: string): Promise<Run> {
    const run = await this.get(runId);
    const environments = run.environments.filter((e) => e.state === 'ready');
    await this.tearDown(run, { type: 'teardown', key: `${run.id}:teardown-now:${run.version}`, environments });
    return this.get(runId);
  }

  /**
   * Starts each effect (not awaited: attempts run concurrently and report through `apply`), given
   * the run as committed with them (or as stored now, for effects left by a crash), and marks each
   * done once carried out. A reply is not idempotent: it is marked done before it is sent.
   */
  private carryOut(run: Run, effects: readonly RunEffect[]): void {
    for (const effect of effects) {
      const claim = `${run.id}\u0000${effect.key}`;
      if (this.claimed.has(claim)) continue;
      this.claimed.add(claim);
      const done = () => this.options.store.markEffectDone(run.id, effect.key);
      const work = effect.type === 'reply' ? done().then(() => this.options.reply?.(run, effect.text)) : this.effect(run, effect).then(done);
      this.track(work.finally(() => this.claimed.delete(claim)));
    }
  }

  private async effect(run: Run, effect: RunEffect): Promise<void> {
    switch (effect.type) {
      case 'dispatch': {
        // An effect for an attempt that is no longer current (settled by recovery) is moot.
        if (!this.current(run, effect)) return;
        // The payload the reducer fitted and recorded (effects stored by an older version carry none).
        const payload = effect.payload ?? buildPayload(run, effect);
        const outcome = await this.options.dispatcher
          .run(payload, {
            // A deploy's environments are recorded as they settle, not only with its result.
            onEnvironments: (environments) => this.track(this.apply(run.id, { type: 'environments-settled', at: this.now(), step: effect.step, attempt: effect.attempt, epoch: effect.epoch, environments })),
          })
          .catch((e: unknown): AttemptOutcome => ({ kind: 'lost', reason: `could not run the attempt: ${(e as Error).message}` }));
        if (outcome.kind !== 'dispatched') await this.apply(run.id, this.eventOf(outcome, effect.step, effect.attempt, effect.epoch));
        return;
      }
      case 'merge': {
        // As for a dispatch: a merge whose attempt is no longer current (the run was cancelled) is moot.
        if (!this.current(run, effect)) return;
        const result = await this.options.merge(run, effect);
        // The app merges itself: it seals its own result, with the PR heads it merged as inputs.
        const inputs = mergeInputsDigest(run, effect);
        await this.apply(run.id, { type: 'step-completed', at: this.now(), result: sealResult(result, inputs), inputs });
        return;
      }
      case 'teardown':
        return this.tearDown(run, effect);
      case 'report':
        return this.options.report?.(run);
      case 'reply':
        return this.options.reply?.(run, effect.text);
    }
  }

  private current(run: Run, effect: { step: string; attempt: number; epoch: number }): boolean {
    const step = run.steps[effect.step];
    return !!step && step.status === 'queued' && step.attempt === effect.attempt && step.epoch === effect.epoch;
  }

  private async tearDown(run: Run, effect: Extract<RunEffect, { type: 'teardown' }>): Promise<void> {
    const deployStep = run.plan.steps.find((s) => s.kind === 'deploy');
    if (!deployStep || effect.environments.length === 0) return;
    // Each teardown is its own attempt: the run's version at the time names it uniquely.
    const payload = buildPayload(run, { step: deployStep.id, attempt: Math.max(1, run.version), epoch: 0, mode: 'teardown', environments: effect.environments });
    const outcome = await this.options.dispatcher.run(payload);
    if (outcome.kind === 'dispatched') return;
    const removed = outcome.kind === 'result' ? outcome.result.environments : [];
    const why = outcome.kind === 'result' ? (outcome.result.error?.message ?? outcome.result.summary) : outcome.reason;
    await this.apply(run.id, tornDownEvent(effect.environments, removed, why, this.now()));
  }

  /** The event for how an attempt ended (the reducer judges whether its result may count). */
  private eventOf(outcome: Exclude<AttemptOutcome, { kind: 'dispatched' }>, step: string, attempt: number, epoch: number): RunEvent {
    return outcome.kind === 'result'
      ? { type: 'step-completed', at: this.now(), result: outcome.result }
      : { type: 'step-lost', at: this.now(), step, attempt, epoch, reason: outcome.reason, ...(outcome.environments?.length ? { environments: outcome.environments } : {}) };
  }

  private track(work: Promise<unknown>): void {
    const p: Promise<unknown> = work
      .catch((e: unknown) => this.options.log?.error(`conveyor: ${(e as Error).stack ?? String(e)}`))
      .finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }
}
