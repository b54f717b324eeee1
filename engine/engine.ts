// The engine applies events to stored runs and carries out the effects of each transition.
// A transition and its effects are written in one compare-and-swap commit (the outbox), the
// effects claimed for this engine in the same transaction; each effect is then carried out,
// idempotently, and marked done, by the engine that holds its claim only (several processes, app
// replicas, share one store). A process that dies in between leaves pending effects and queued
// attempts: `recover` settles them, and `carryOutAbandoned` takes the effects whose claims ran out.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { buildPayload } from '../core/run/payload.ts';
import { isCurrent, type AttemptRef } from '../core/contract/attempt-ref.ts';
import { sealResult } from '../core/contract/receipt.ts';
import type { Environment, StepResult } from '../core/contract/wire.ts';
import { tornDownEvent } from '../core/run/environments.ts';
import { mergeInputsDigest } from '../core/run/receipts.ts';
import { createRun, reduce } from '../core/run/reducer.ts';
import { runsInEngine } from '../core/run/draft.ts';
import type { Run, RunEffect, RunEvent } from '../core/run/types.ts';
import { applyEvent } from './apply.ts';
import { withoutCi } from './ci.ts';
import { isMergeWait, unmergedEntries, type Dequeued, type MergeOutcome } from './merge.ts';
import type { AttemptEnd, AttemptOutcome, Dispatcher } from './ports/dispatcher.ts';
import { StoreError, type EffectClaim, type RunStore, type StoredEffect } from './ports/store.ts';
import { attemptFields, type LogFields, type Logger } from '../lib/logger.ts';
import { ConveyorError } from '../core/errors.ts';
import { describeWriteFailure } from '../lib/fs-errors.ts';

/**
 * How long an effect's claim lasts unrenewed. Effects take seconds (a check run and a dispatch) to
 * minutes (a merge waiting on GitHub, a local attempt): the claim is renewed every third of this
 * while its effect is carried out, so this only bounds how long the effects of a process that died
 * wait for another to take them. A claim that runs out while its holder still works costs a lookup
 * on GitHub: the dispatcher looks there before doing anything again.
 */
export const CLAIM_TTL_MS = 2 * 60_000;

export interface EngineOptions {
  store: RunStore;
  dispatcher: Dispatcher;
  /**
   * Carries out a merge effect (merges the run's PRs) and says how it went: a result, or that it
   * waits for a merge queue (recorded; the attempt stays under way until the queue moves).
   */
  merge(run: Run, effect: Extract<RunEffect, { type: 'merge' }>): Promise<MergeOutcome>;
  /**
   * Judges the required checks of a `ci` step's attempt (engine/ci.ts): its result once they
   * settled, undefined while it waits. Default: a forge without CI, nothing to wait for.
   */
  ci?(run: Run, ref: AttemptRef & { mode: 'run' }): Promise<StepResult | undefined>;
  /**
   * Stops a merge attempt that waited for a merge queue (its run was cancelled): takes what it
   * enqueued out of the queue again (engine/merge.ts dequeueRun) and says what it removed and what
   * it could not. Default: a forge without a queue, nothing to take out.
   */
  dequeue?(run: Run, ref: AttemptRef): Promise<Dequeued>;
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
  /** Where the engine says what went wrong outside any caller's reach (an effect that failed). */
  log?: Logger;
  /** Who this engine is among the processes sharing the store (default: host, pid and a random part). */
  holder?: string;
  /** How long a claim on an effect lasts unrenewed (default CLAIM_TTL_MS). */
  claimTtlMs?: number;
  /**
   * This engine is the only driver of the runs it recovers (the command line takes a run's lease
   * before it drives it): recovery takes the effects a dead driver claimed at once, instead of
   * waiting for its claims to run out.
   */
  soleDriver?: boolean;
}

/** A name for this process among those sharing a store, as operators would look for it. */
export function holderName(): string {
  return `${hostname()} pid ${process.pid} ${randomUUID().slice(0, 8)}`;
}

export type NewRun = Omit<Parameters<typeof createRun>[0], 'at'>;

export class Engine {
  readonly claim: EffectClaim;
  private readonly inflight = new Set<Promise<unknown>>();
  /** Effects this engine is carrying out (their claims renewed), so that it does not start one twice. */
  private readonly working = new Map<string, { runId: string; key: string }>();
  private renewal: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly now: () => string;

  constructor(private readonly options: EngineOptions) {
    this.now = options.now ?? (() => new Date().toISOString());
    this.claim = { holder: options.holder ?? holderName(), ttlMs: options.claimTtlMs ?? CLAIM_TTL_MS };
  }

  /** 1. start the new run and store it with what starting asks for (one write: a run is never stored unstarted), 2. carry that out. */
  async start(input: NewRun): Promise<Run> {
    const created = createRun({ ...input, at: this.now() });
    const event: RunEvent = { type: 'started', at: this.now() };
    const started = reduce(created, event);
    const written = await this.options.store.create(started.run, started.effects, this.claim);
    const run = { ...started.run, version: 1 };
    this.options.observe?.(run, event);
    this.carryOut(run, held(started.effects, written.claimed));
    return run;
  }

  /**
   * Applies an event (again on a compare-and-swap conflict), then carries out its effects. The
   * reducer verifies every result (and every stored one) against its receipt: a result that does
   * not verify counts as not run, whoever sends it.
   */
  async apply(runId: string, event: RunEvent): Promise<Run> {
    const transition = await applyEvent(this.options.store, runId, event, reduce, this.claim);
    this.options.observe?.(transition.run, event);
    if (transition.committed) this.carryOut(transition.run, held(transition.effects, transition.claimed));
    return transition.run;
  }

  /**
   * How an attempt ended, whoever learned it: the dispatcher's answer to a dispatch or a recovery,
   * a webhook, the sweeper. The one way an end reaches its run: a result is its step's completion
   * (a teardown's says what it removed of `targets`, by default the run's ready environments), a
   * loss its step's loss; the reducer judges whether it counts (a result only for the current
   * attempt, and only when its receipt verifies). A loss that counted and may still look open where
   * the attempt ran (`close`) is closed there by the dispatcher. Says whether it counted.
   */
  async settle(ref: AttemptRef, outcome: AttemptEnd, targets?: readonly Environment[]): Promise<boolean> {
    if (ref.mode === 'teardown') {
      const run = await this.get(ref.runId);
      const asked = targets ?? run.environments.filter((e) => e.state === 'ready');
      const removed = outcome.kind === 'result' ? outcome.result.environments : [];
      const why = outcome.kind === 'result' ? (outcome.result.error?.message ?? outcome.result.summary) : outcome.reason;
      return (await this.apply(run.id, tornDownEvent(asked, removed, why, this.now()))).version > run.version;
    }
    const at = this.now();
    const event: RunEvent =
      outcome.kind === 'result'
        ? { type: 'step-completed', at, result: outcome.result }
        : {
            type: 'step-lost',
            at,
            step: ref.step,
            attempt: ref.attempt,
            epoch: ref.epoch,
            reason: outcome.reason,
            ...(outcome.environments?.length ? { environments: outcome.environments } : {}),
          };
    // Judged on the latest run: what told of the end awaited GitHub, and the attempt's result (or
    // the same end told by another handler) may have settled it meanwhile. Applied whatever the
    // judgement: the reducer records what a late deploy settled even of an attempt it no longer waits for.
    const current = isCurrent(await this.options.store.get(ref.runId), ref);
    const after = await this.apply(ref.runId, event);
    const record = after.steps[ref.step]?.attempts.findLast((r) => r.attempt === ref.attempt && r.epoch === ref.epoch);
    if (!current) return false;
    if (outcome.kind === 'result') return record?.receipt !== undefined && record.receipt === outcome.result.receipt;
    // The reducer ignores a loss of an attempt that settled meanwhile: only this loss closes it.
    const counted = record?.conclusion === 'lost' && record.summary === outcome.reason;
    if (counted && outcome.close) await this.options.dispatcher.closeLost?.(ref, outcome, after);
    return counted;
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
      const kind = run.plan.steps.find((s) => s.id === step.id)?.kind;
      if (step.status !== 'queued' || runsInEngine(kind, step.mode)) continue;
      const ref = { runId, step: step.id, attempt: step.attempt, epoch: step.epoch, mode: step.mode };
      const outcome = await this.options.dispatcher.recover(buildPayload(run, ref));
      if (outcome && outcome.kind !== 'dispatched') await this.settle(ref, outcome);
    }
    await this.carryOutPending(runId);
  }

  /**
   * Claims and carries out the run's pending effects that no one else holds: what a process that
   * died left (once its claims ran out, or at once for a sole driver), or what another process
   * committed unclaimed for this one to do (a cancel's teardown, committed by `conveyor cancel`
   * for the run's driver).
   */
  async carryOutPending(runId: string): Promise<void> {
    const effects = await this.options.store.claimEffects(this.claim, { runId, ...(this.options.soleDriver ? { takeOver: true } : {}) });
    if (effects.length > 0) this.carryOut(await this.get(runId), effects);
  }

  /**
   * Claims and carries out the pending effects of every run that no one holds: those whose holder
   * died mid-effect (its claim ran out) or that were never claimed. Returns them (`run/key`),
   * leaving out those this engine was already carrying out.
   */
  async carryOutAbandoned(): Promise<string[]> {
    const effects = (await this.options.store.claimEffects(this.claim)).filter((e) => !this.working.has(workKey(e.runId, e.key)));
    const byRun = new Map<string, StoredEffect[]>();
    for (const e of effects) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e]);
    for (const [runId, ofRun] of byRun) {
      const run = await this.options.store.get(runId);
      if (run) this.carryOut(run, ofRun);
    }
    return effects.map((e) => `${e.runId}/${e.key}`);
  }

  /** Resolves when no effect this engine started is still under way (the run ended or waits for a person). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  /**
   * Stops renewing this engine's claims and starts no more effects: what it was carrying out is
   * taken by another process once the claims run out (the process is stopping).
   */
  close(): void {
    this.closed = true;
    this.stopRenewing();
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
   * Starts each effect this engine holds the claim of (not awaited: attempts run concurrently and
   * report through `apply`), given the run as committed with them (or as stored now, for effects
   * left by a crash), renews their claims while they are carried out, and marks each done once
   * carried out. Stops go first, and the rest once they are done: a cancel's teardown must not race
   * a deploy attempt still standing an environment up. A reply is not idempotent: it is marked done
   * before it is sent. An effect that fails keeps its claim until it runs out; then it is taken and
   * tried again.
   */
  private carryOut(run: Run, effects: readonly RunEffect[]): void {
    if (this.closed) return;
    // All of them are this engine's at once, so that another look at the pending effects meanwhile does not start one twice.
    const mine = effects.filter((e) => !this.working.has(workKey(run.id, e.key)));
    if (mine.length === 0) return;
    for (const e of mine) this.working.set(workKey(run.id, e.key), { runId: run.id, key: e.key });
    this.renewing();
    const stops = mine.filter((e) => e.type === 'stop').map((e) => ({ e, work: this.carryOutOne(run, e) }));
    const stopped = Promise.allSettled(stops.map((s) => s.work));
    for (const s of stops) this.track(s.work, effectFields(run, s.e));
    for (const e of mine)
      if (e.type !== 'stop') this.track(stops.length ? stopped.then(() => this.carryOutOne(run, e)) : this.carryOutOne(run, e), effectFields(run, e));
  }

  private carryOutOne(run: Run, effect: RunEffect): Promise<void> {
    const done = () => this.options.store.markEffectDone(run.id, effect.key);
    // Closed meanwhile (while stops went first): left to whoever takes the claim once it runs out.
    const work = this.closed
      ? Promise.resolve()
      : effect.type === 'reply'
        ? done().then(() => this.options.reply?.(run, effect.text))
        : this.effect(run, effect).then(done);
    return work.finally(() => {
      this.working.delete(workKey(run.id, effect.key));
      if (this.working.size === 0) this.stopRenewing();
    });
  }

  /** While effects are being carried out, their claims are renewed every third of their time. */
  private renewing(): void {
    if (this.renewal) return;
    this.renewal = setInterval(
      () => {
        this.options.store
          .renewClaims(this.claim, [...this.working.values()])
          .catch((e: unknown) => this.options.log?.error(`could not renew the claims of the effects under way: ${(e as Error).message}`));
      },
      Math.max(1, Math.floor(this.claim.ttlMs / 3)),
    );
    this.renewal.unref();
  }

  private stopRenewing(): void {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = undefined;
  }

  private async effect(run: Run, effect: RunEffect): Promise<void> {
    switch (effect.type) {
      case 'dispatch': {
        // An effect for an attempt that is no longer current (settled by recovery) is moot.
        if (!isCurrent(run, effect.ref)) return;
        // The payload the reducer fitted and recorded.
        const outcome = await this.options.dispatcher
          .run(effect.payload, {
            // A deploy's environments are recorded as they settle, not only with its result.
            onEnvironments: (environments) =>
              this.track(
                this.apply(run.id, {
                  type: 'environments-settled',
                  at: this.now(),
                  step: effect.ref.step,
                  attempt: effect.ref.attempt,
                  epoch: effect.ref.epoch,
                  environments,
                }),
                effectFields(run, effect),
              ),
          })
          .catch((e: unknown): AttemptOutcome => ({ kind: 'lost', reason: `could not run the attempt: ${(e as Error).message}` }));
        if (outcome.kind !== 'dispatched') await this.settle(effect.ref, outcome);
        return;
      }
      case 'merge': {
        // As for a dispatch: a merge whose attempt is no longer current (the run was cancelled) is moot.
        if (!isCurrent(run, effect.ref)) return;
        const result = await this.options.merge(run, effect);
        if (isMergeWait(result)) {
          const { ref } = effect;
          await this.apply(run.id, {
            type: 'merge-enqueued',
            at: this.now(),
            step: ref.step,
            attempt: ref.attempt,
            epoch: ref.epoch,
            enqueued: result.enqueued,
            merged: result.merged,
          });
          return;
        }
        // The app merges itself: it seals its own result, with the PR heads it merged as inputs.
        const inputs = mergeInputsDigest(run, effect.ref);
        await this.apply(run.id, { type: 'step-completed', at: this.now(), result: sealResult(result, inputs), inputs });
        return;
      }
      case 'ci':
        await this.judgeCi(run, effect.ref);
        return;
      case 'stop': {
        // A merge runs here, not in a step process: stopping it is taking its PRs out of their queue.
        const kind = run.plan.steps.find((s) => s.id === effect.ref.step)?.kind;
        if (runsInEngine(kind, effect.ref.mode)) return this.dequeue(run, effect.ref);
        return this.options.dispatcher.stop(effect.ref, effect.reason);
      }
      case 'teardown':
        return this.tearDown(run, effect);
      case 'report':
        return this.options.report?.(run);
      case 'reply':
        return this.options.reply?.(run, effect.text);
    }
  }

  /**
   * What could not be taken out of the queue is said (logged, and on the run for its reports) and
   * does not fail the effect: the cancel stands, and asking again would not make the forge agree.
   */
  private async dequeue(run: Run, ref: AttemptRef): Promise<void> {
    if (!this.options.dequeue) return;
    // The forge itself out of reach (an installation gone): every PR it held is one that may still merge.
    const done = await this.options.dequeue(run, ref).catch((e: unknown): Dequeued => ({
      removed: [],
      failed: unmergedEntries(run, ref).map((x) => ({ repo: x.repo, number: x.number, error: (e as Error).message })),
    }));
    for (const f of done.failed)
      this.options.log?.error(
        `run ${run.id} stopped waiting for its merge queue, but ${f.repo}#${f.number} could not be taken out of it and may still merge: ${f.error}`,
        {
          ...attemptFields(ref),
          repo: f.repo,
        },
      );
    if (done.removed.length === 0 && done.failed.length === 0) return;
    await this.apply(run.id, { type: 'merge-dequeued', at: this.now(), step: ref.step, attempt: ref.attempt, epoch: ref.epoch, ...done });
  }

  /**
   * Judges the run's `ci` step again if it waits for required checks (a check's webhook, the
   * sweeper): once they settled (or its wait ran out), its result completes the step. Says whether it did.
   */
  async checkCi(runId: string): Promise<boolean> {
    const run = await this.get(runId);
    const p = run.plan.steps.find((x) => x.kind === 'ci');
    const s = p ? run.steps[p.id] : undefined;
    if (!s || s.status !== 'queued' || s.mode !== 'run') return false;
    return this.judgeCi(run, { runId, step: s.id, attempt: s.attempt, epoch: s.epoch, mode: 'run' });
  }

  private async judgeCi(run: Run, ref: AttemptRef & { mode: 'run' }): Promise<boolean> {
    if (!isCurrent(run, ref)) return false;
    const result = this.options.ci ? await this.options.ci(run, ref) : withoutCi(run, ref);
    if (!result) return false;
    // Judged by the engine itself, as a merge is: sealed with the PR heads it judged as inputs.
    const inputs = mergeInputsDigest(run, ref);
    const after = await this.apply(run.id, { type: 'step-completed', at: this.now(), result: sealResult(result, inputs), inputs });
    return after.version > run.version;
  }

  private async tearDown(run: Run, effect: Extract<RunEffect, { type: 'teardown' }>): Promise<void> {
    const deployStep = run.plan.steps.find((s) => s.kind === 'deploy');
    if (!deployStep || effect.environments.length === 0) return;
    // Each teardown is its own attempt: the run's version at the time names it uniquely.
    const ref: AttemptRef = { runId: run.id, step: deployStep.id, attempt: Math.max(1, run.version), epoch: 0, mode: 'teardown' };
    const outcome = await this.options.dispatcher.run(buildPayload(run, { ...ref, environments: effect.environments }));
    if (outcome.kind !== 'dispatched') await this.settle(ref, outcome, effect.environments);
  }

  /** `fields`: what the work is about (its run, effect and attempt), on the line that says it failed. */
  private track(work: Promise<unknown>, fields: LogFields = {}): void {
    const p: Promise<unknown> = work.catch((e: unknown) => this.options.log?.error(describeFailure(e), fields)).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }
}

/**
 * A failure of the engine's own work as a person reads it: a typed error (or a write the machine
 * refused: a full disk) by its message, written to say what to do; anything else, a bug, with its stack.
 */
function describeFailure(e: unknown): string {
  if (e instanceof ConveyorError || e instanceof StoreError) return e.message;
  const refused = describeWriteFailure(e);
  if (refused) return refused;
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}

const workKey = (runId: string, key: string) => `${runId}\u0000${key}`;

/** The effects of a write that it claimed (a key stored before keeps its holder, who carries it out). */
function held(effects: readonly RunEffect[], claimed: readonly string[]): RunEffect[] {
  const keys = new Set(claimed);
  return effects.filter((e) => keys.has(e.key));
}

/** The fields of a line about an effect: its run and type, and its attempt where it has one. */
function effectFields(run: Run, effect: RunEffect): LogFields {
  return { run: run.id, effect: effect.type, ...('ref' in effect ? attemptFields(effect.ref) : {}) };
}
