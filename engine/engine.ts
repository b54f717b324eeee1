// The engine applies events to stored runs and carries out the effects of each transition.
// A transition and its effects are written in one compare-and-swap commit (the outbox); effects
// are then carried out, each idempotently, and marked done. A process that dies in between
// leaves pending effects and queued attempts that `recover` settles before anything else.
//
// Marking done costs a write, so the marks of idempotent effects (dispatch, merge, teardown,
// report) are held and written with the engine's next commit (of any run), or on their own by
// `idle()`, `close()`, or a second after the engine's work drained (a busy app's next webhook
// usually comes first). Until then those effects are still pending in the store: a crash makes
// recovery carry them out again, which they tolerate. A reply is not idempotent: it is marked at once.
import { reduce, createRun } from '../core/run/reducer.ts';
import type { Run, RunEffect, RunEvent } from '../core/run/types.ts';
import { buildPayload } from '../core/run/payload.ts';
import { inputsDigest, sealResult, verifyReceipt } from '../core/contract/receipt.ts';
import { mergeInputsDigest, unverifiedSteps, verifiedRetry } from '../core/run/receipts.ts';
import type { StepResult } from '../core/contract/wire.ts';
import type { EffectRef, RunStore } from './ports/store.ts';
import { applyEvent } from './apply.ts';
import type { AttemptOutcome, Dispatcher } from './ports/dispatcher.ts';
import { tornDownEvent } from '../core/run/environments.ts';

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
}

export type NewRun = Omit<Parameters<typeof createRun>[0], 'at'>;

/** How long held done marks wait for a commit to carry them once the engine's work drained. */
export const FLUSH_AFTER_MS = 1000;

export class Engine {
  private readonly inflight = new Set<Promise<unknown>>();
  /** Effects this engine is carrying out or carried out, whose done marks are not written yet. */
  private readonly claimed = new Set<string>();
  /** Done marks waiting for the next commit (or for `idle`, `close` or the flush timer). */
  private held: EffectRef[] = [];
  /** Writes the held marks when no commit came to carry them (see FLUSH_AFTER_MS). */
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly now: () => string;
  /** The dispatcher's look at each transition before its commit (see Dispatcher.prepare). */
  private readonly prepare: ((run: Run, effects: readonly RunEffect[]) => (committed: boolean) => void) | undefined;

  constructor(private readonly options: EngineOptions) {
    this.now = options.now ?? (() => new Date().toISOString());
    this.prepare = options.dispatcher.prepare?.bind(options.dispatcher);
  }

  /**
   * 1. start the new run and store it with what starting asks for (one write: a run is never
   * stored unstarted), 2. carry that out.
   */
  async start(input: NewRun): Promise<Run> {
    const created = createRun({ ...input, at: this.now() });
    const event: RunEvent = { type: 'started', at: this.now() };
    const started = reduce(created, event);
    const done = this.takeHeld();
    const settle = this.prepare?.(started.run, started.effects);
    try {
      this.options.store.create(started.run, started.effects, done);
    } catch (e) {
      settle?.(false);
      this.held.push(...done);
      throw e;
    }
    settle?.(true);
    this.released(done);
    const run = this.options.store.peek?.(created.id) ?? this.get(created.id);
    this.options.observe?.(run, event);
    this.carryOut(run, started.effects);
    return run;
  }

  /** Applies an event (re-applied on a compare-and-swap conflict), then carries out effects. */
  async apply(runId: string, event: RunEvent): Promise<Run> {
    if (event.type === 'retry' && event.step === undefined) {
      const stored = this.options.store.get(runId);
      const unverified = stored && stored.status === 'waiting' ? unverifiedSteps(stored) : [];
      if (stored && unverified.length > 0) {
        await this.options.reply?.(stored, `the stored result of step${unverified.length > 1 ? 's' : ''} ${unverified.map((s) => `"${s}"`).join(', ')} does not verify against its receipt: it counts as not run, and the run resumes from step "${unverified[0]}".`);
      }
    }
    // Stored results are verified when a retry reads them: one that does not verify is not kept.
    const done = this.takeHeld();
    let transition: ReturnType<typeof applyEvent>;
    try {
      // The held marks ride on this commit (applyEvent writes them even if it commits nothing).
      transition = applyEvent(this.options.store, runId, event, (run, e) => reduce(run, verifiedRetry(run, e)), done, this.prepare);
    } finally {
      // Written, or (if writing failed) left pending in the store for recovery to carry out again.
      this.released(done);
    }
    this.options.observe?.(transition.run, event);
    // What this commit stored is known: carried out from here, without reading the outbox back.
    if (transition.committed) this.carryOut(transition.run, transition.effects);
    return transition.run;
  }

  /**
   * Takes over a run another process was driving: every attempt it left queued is settled from
   * what that attempt left behind (a late result is kept; otherwise it is lost and re-dispatched
   * with the next epoch), then the pending effects are carried out.
   */
  async recover(runId: string, left: Run = this.get(runId)): Promise<void> {
    // `left`: the run as the other process left it, whose queued attempts are settled (the stored
    // run by default; a cancel applied first passes the run from before it, so those attempts'
    // processes are still stopped and what they deployed is still recorded, then torn down).
    const run = left;
    for (const step of Object.values(run.steps)) {
      // A merge runs in this process (its pending effect is carried out again below); only a
      // merge's conflict repair is an attempt dispatched elsewhere.
      const merge = run.plan.steps.find((s) => s.id === step.id)?.kind === 'merge';
      if (step.status !== 'queued' || (merge && step.mode !== 'repair')) continue;
      const payload = buildPayload(run, { step: step.id, attempt: step.attempt, epoch: step.epoch, mode: step.mode });
      const outcome = await this.options.dispatcher.recover(payload);
      if (outcome && outcome.kind !== 'dispatched') await this.apply(runId, this.eventOf(outcome, step.id, step.attempt, step.epoch, inputsDigest(payload)));
    }
    this.carryOut(this.get(runId), this.options.store.pendingEffects(runId));
  }

  /** Resolves when no attempt is running any more (the run ended or waits for a person), with every done mark written. */
  async idle(): Promise<void> {
    await this.settled();
    this.flush();
  }

  /**
   * Resolves when no attempt is running any more, leaving the held done marks to ride on the
   * next commit (a long-lived process between events; `idle` is for one that is about to stop).
   */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  /** Writes the held done marks and stops the flush timer: call before closing the store. */
  close(): void {
    this.flush();
  }

  get(runId: string): Run {
    const run = this.options.store.get(runId);
    if (!run) throw new Error(`no run ${runId} in the store`);
    return run;
  }

  /** Writes the held done marks now (no commit is coming to carry them). */
  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const done = this.takeHeld();
    if (done.length === 0) return;
    try {
      this.options.store.markEffectsDone(done);
    } catch (e) {
      // Unwritten marks leave their effects pending: recovery carries them out again.
      process.stderr.write(`conveyor: could not mark ${done.length} effects done: ${(e as Error).message}\n`);
    }
    this.released(done);
  }

  /** The engine's work drained: the held marks are written a little later unless a commit takes them first. */
  private flushSoon(): void {
    if (this.flushTimer || this.held.length === 0) return;
    this.flushTimer = setTimeout(() => this.flush(), FLUSH_AFTER_MS);
    // A process with nothing else to do exits without waiting for it (its marks stay pending: recovery carries them out again).
    this.flushTimer.unref();
  }

  private takeHeld(): EffectRef[] {
    const done = this.held;
    if (done.length > 0) this.held = [];
    return done;
  }

  /** Once an effect's done mark is written the store no longer lists it: its claim can go. */
  private released(done: readonly EffectRef[]): void {
    for (const d of done) this.claimed.delete(`${d.runId}\u0000${d.key}`);
  }

  /**
   * Starts each effect (not awaited: attempts run concurrently and report through `apply`), given
   * the run as committed with them (or as stored now, for effects left by a crash).
   */
  private carryOut(run: Run, effects: readonly RunEffect[]): void {
    const runId = run.id;
    for (const effect of effects) {
      const claim = `${runId}\u0000${effect.key}`;
      if (this.claimed.has(claim)) continue;
      this.claimed.add(claim);
      switch (effect.type) {
        case 'dispatch': {
          const step = run.steps[effect.step];
          // An effect for an attempt that is no longer current (settled by recovery) is moot.
          if (!step || step.status !== 'queued' || step.attempt !== effect.attempt || step.epoch !== effect.epoch) break;
          const payload = buildPayload(run, effect);
          this.track(
            this.options.dispatcher
              .run(payload, {
                // A deploy's environments are recorded as they settle, not only with its result.
                onEnvironments: (environments) =>
                  this.track(this.apply(runId, { type: 'environments-settled', at: this.now(), step: effect.step, attempt: effect.attempt, epoch: effect.epoch, environments })),
              })
              .catch((e: unknown): AttemptOutcome => ({ kind: 'lost', reason: `could not run the attempt: ${(e as Error).message}` }))
              .then((outcome) => {
                if (outcome.kind === 'dispatched') return undefined;
                return this.apply(runId, this.eventOf(outcome, effect.step, effect.attempt, effect.epoch, inputsDigest(payload)));
              }),
          );
          break;
        }
        case 'merge': {
          const step = run.steps[effect.step];
          // As for a dispatch: a merge whose attempt is no longer current (the run was cancelled) is moot.
          if (!step || step.status !== 'queued' || step.attempt !== effect.attempt || step.epoch !== effect.epoch) break;
          this.track(
            this.options.merge(run, effect).then((result) => {
              // The app merges itself: it seals its own result, with the PR heads it merged as inputs.
              const inputs = mergeInputsDigest(run, effect);
              return this.apply(runId, { type: 'step-completed', at: this.now(), result: sealResult(result, inputs), inputs });
            }),
          );
          break;
        }
        case 'teardown':
          this.track(this.tearDown(run, effect));
          break;
        case 'reply':
          this.track(Promise.resolve(this.options.reply?.(run, effect.text)));
          break;
        case 'report':
          if (this.options.report) this.track(Promise.resolve(this.options.report(run)));
          break;
      }
      if (effect.type === 'reply') {
        this.options.store.markEffectDone(runId, effect.key);
        this.claimed.delete(claim);
      } else {
        this.held.push({ runId, key: effect.key });
      }
    }
    if (this.inflight.size === 0) this.flushSoon();
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

  /** Tears the run's ready environments down now (`conveyor teardown RUN`); resolves with the run after. */
  async tearDownNow(runId: string): Promise<Run> {
    const run = this.get(runId);
    const environments = run.environments.filter((e) => e.state === 'ready');
    await this.tearDown(run, { type: 'teardown', key: `${run.id}:teardown-now:${run.version}`, environments });
    return this.get(runId);
  }

  /**
   * The event for how an attempt ended. A result whose receipt does not verify against the inputs
   * the engine sent (edited, or made for another payload) is treated as not run: the attempt is lost.
   */
  private eventOf(outcome: Exclude<AttemptOutcome, { kind: 'dispatched' }>, step: string, attempt: number, epoch: number, inputs: string): RunEvent {
    if (outcome.kind === 'result' && !verifyReceipt(outcome.result, inputs)) {
      const said = outcome.result.error ? ` (it said: ${outcome.result.error.code}: ${outcome.result.error.message.slice(0, 300)})` : '';
      const why = outcome.result.receipt ? 'its receipt does not verify against the payload that was sent' : 'it carries no receipt';
      return { type: 'step-lost', at: this.now(), step, attempt, epoch, reason: `the result of attempt ${attempt} was not trusted: ${why}${said}` };
    }
    return outcome.kind === 'result'
      ? { type: 'step-completed', at: this.now(), result: outcome.result, inputs }
      : { type: 'step-lost', at: this.now(), step, attempt, epoch, reason: outcome.reason, ...(outcome.environments?.length ? { environments: outcome.environments } : {}) };
  }

  private track(work: Promise<unknown>): void {
    const p: Promise<unknown> = work
      .catch((e: unknown) => {
        process.stderr.write(`conveyor: ${(e as Error).stack ?? String(e)}\n`);
      })
      .finally(() => {
        this.inflight.delete(p);
        if (this.inflight.size === 0) this.flushSoon();
      });
    this.inflight.add(p);
  }
}
