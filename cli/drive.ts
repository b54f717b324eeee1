// Driving an embedded run from the command line: start it, or take it over and record a decision,
// then let it go until it ends or waits, and print where it stands.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { Run, RunEvent } from '../core/run/types.ts';
import type { Usage } from '../core/contract/usage.ts';
import { runUsage, stepUsage } from '../core/run/usage.ts';
import { approvedAtHead, protectedPrs } from '../core/run/protect.ts';
import type { RunStore } from '../engine/ports/store.ts';
import { compileConfigFile, formatConfigErrors } from './config-file.ts';
import { checkRemotes, embeddedOrigin, exitCodeOf, loadRun, openSession, runOptions, type EmbeddedOptions, type Session } from './embedded.ts';
import { commandFor, nextCommand, renderRun, type Selection } from './render.ts';
import { EXIT, Refusal } from './program.ts';
import { describeHolder, holderIsDead, leaseName, RunLease } from './lease.ts';
import { applyEvent } from '../engine/apply.ts';
import type { NewRun } from '../engine/engine.ts';
import { reduce } from '../core/run/reducer.ts';
import { waitsForQueue } from '../core/run/queue.ts';
import type { Lease } from '../engine/ports/store.ts';
import { say, warn, warnRaw } from '../lib/terminal.ts';
import { EXIT_INTERRUPTED, onInterrupt, type Interruption } from './interrupt.ts';

/** How long `conveyor cancel` waits for a live driver to stop its steps and tear down. */
export const CANCEL_WAIT_MS = 10 * 60_000;

export interface StartRequest extends EmbeddedOptions {
  statePath: string;
  pipeline?: string;
  /** Repository of services that name none (default: the config file's git remote). */
  repo?: string;
  title: string;
  body: string;
  issue?: number;
}

/** 1. compile the plan, 2. check the repositories, 3. start the run, 4. drive it, 5. report. */
export async function startRun(request: StartRequest): Promise<number> {
  const compiled = await compileConfigFile(request.configPath, request.pipeline, request.repo);
  if (!compiled.ok) {
    warnRaw(formatConfigErrors(compiled.errors));
    return EXIT.usage;
  }
  const plan = compiled.plan;
  // Stored absolute: the merge pushes by file:// URL, and a retry may come from another folder.
  const remotes = resolve(request.remotes);
  checkRemotes(plan, remotes);
  const session = await openSession(request.statePath, remotes, request.json);
  try {
    const primary = plan.changeSet.find((r) => r.role === 'primary')?.repo ?? plan.changeSet[0]!.repo;
    // The remotes' forge gives the number (or records the one given), as GitHub does: a number, a
    // run id and a work branch no other state database on these remotes has.
    // Past the state database's own numbers too: those of runs from before the forge gave them out.
    const after = Math.max(0, ...(await session.store.list()).filter((r) => r.issue.repo === primary).map((r) => r.issue.number));
    const { number } = session.forge.openIssue({
      repo: primary,
      title: request.title,
      body: request.body,
      ...(request.issue ? { number: request.issue } : { after }),
    });
    const active = (await session.store.list({ status: ['running', 'waiting'], issue: { repo: primary, number }, pipeline: plan.pipeline })).at(0);
    if (active) {
      const selection = { statePath: request.statePath, remotes, configPath: request.configPath };
      throw new UsageError(
        `run ${active.id} is already active for ${primary}#${number} (pipeline ${plan.pipeline}); continue it with \`${commandFor('retry', active.id, selection, active)}\` or stop it with \`${commandFor('cancel', active.id, selection)}\``,
      );
    }
    const options: EmbeddedOptions = {
      configPath: resolve(request.configPath),
      remotes,
      approve: request.approve,
      keepEnvs: request.keepEnvs,
      json: request.json,
    };
    const id = await uniqueRunId(session.store, primary, number);
    return await startAndDrive(
      session,
      {
        id,
        plan,
        issue: { repo: primary, number, title: request.title, body: request.body },
        origin: embeddedOrigin(options, request.repo),
        settings: { keepEnvs: options.keepEnvs },
      },
      options,
    );
  } finally {
    await session.close();
  }
}

/** Starts a run under its lease and drives it: `startRun`'s, and a run made elsewhere (a revert run). */
export async function startAndDrive(session: Session, run: NewRun, options: EmbeddedOptions): Promise<number> {
  const lease = await takeLease(session, run.id);
  try {
    await session.engine.start(run);
    return await drive(session, lease, run.id, options);
  } finally {
    await lease.release();
  }
}

export interface DecisionRequest {
  statePath: string;
  runId: string;
  /** Builds the event once the run is known; undefined means "just continue it". */
  event: (run: Run) => RunEvent | undefined;
  /** Options given again on the command line override the stored ones. */
  override?: Partial<EmbeddedOptions>;
  /** The event cancels the run: it is applied before the run is taken over, not after driving it on. */
  cancels?: boolean;
  /** Runs before anything is settled or decided; an exit code stops the decision (it said why). */
  check?: (run: Run, options: EmbeddedOptions) => Promise<number | undefined>;
  /**
   * The event is a person's decision (approve, reject): it is built from the run as stored (what
   * `conveyor status` showed them: the approval that waits and its heads), before the run is
   * settled or taken over, and the command is refused (a Refusal: exit 1, nothing changed) unless
   * the run takes it both then and once taken over. A run that is still running has nothing to
   * decide: driving it on first would apply the decision to an approval nobody has looked at yet.
   */
  decision?: boolean;
}

/**
 * 1. find the run, 2. refuse if it ended, 3. take its lease (a run another live process drives is
 * refused, but for a cancel, which asks that process to stop), 4. settle what a dead process left,
 * 5. decide, 6. drive.
 */
export async function decide(request: DecisionRequest): Promise<number> {
  const stored = await loadRun(request.statePath, request.runId);
  if (stored.status === 'succeeded' || stored.status === 'cancelled') {
    warn(`run ${stored.id} has ended (${stored.status}); nothing to decide. Start a new run with \`conveyor run\`.`);
    return EXIT.failed;
  }
  const given = definedOnly(request.override ?? {});
  for (const key of ['remotes', 'configPath'] as const) if (given[key] !== undefined) given[key] = resolve(given[key]);
  const options = { ...runOptions(stored), ...given };
  const refused = await request.check?.(stored, options);
  if (refused !== undefined) return refused;
  const decision = request.decision ? takenOn(stored, request.event(stored)) : undefined;
  const session = await openSession(request.statePath, options.remotes, options.json);
  try {
    const cancel = request.cancels ? request.event(stored) : undefined;
    if (cancel) return await cancelRun(session, stored, cancel, options);
    const taken = await RunLease.take(session.store, stored.id);
    if ('busy' in taken) throw new Refusal(`${busyText(stored.id, taken.busy, session)}. Nothing changed.`);
    const lease = taken.lease;
    try {
      const wasRunning = stored.status === 'running';
      await session.engine.recover(stored.id);
      await session.engine.idle();
      const run = await session.engine.get(stored.id);
      // What a dead driver left may have moved the run since it was read: a decision must still hold on it.
      const event = decision ? takenOn(run, decision) : request.event(run);
      // A run that was left running has just been taken over and driven on; a retry of it is moot.
      if (event && !(wasRunning && event.type === 'retry') && run.status !== 'succeeded' && run.status !== 'cancelled') {
        await session.engine.apply(run.id, event);
      }
      return await drive(session, lease, run.id, options);
    } finally {
      await lease.release();
    }
  } finally {
    await session.close();
  }
}

/** The event, when the run would take it; else a Refusal with the reducer's reason. */
function takenOn(run: Run, event: RunEvent | undefined): RunEvent | undefined {
  if (!event) return undefined;
  const trial = reduce(run, event);
  if (trial.run !== run) return event;
  const said = trial.effects.find((e) => e.type === 'reply');
  // The reducer is silent only on a duplicate: the same person approving the same step again.
  const why =
    said?.type === 'reply'
      ? said.text
      : event.type === 'decision'
        ? `the approval of ${event.by} is already recorded (\`min-approvals\` counts distinct people).`
        : `this ${event.type} is already recorded.`;
  throw new Refusal(`${why} Nothing changed.`);
}

/** Takes a run's lease for this process, or throws naming who holds it. */
export async function takeLease(session: Session, runId: string): Promise<RunLease> {
  const taken = await RunLease.take(session.store, runId);
  if ('busy' in taken) throw new Refusal(`${busyText(runId, taken.busy, session)}. Nothing changed.`);
  return taken.lease;
}

function busyText(runId: string, busy: Lease, selection: Selection): string {
  return `run ${runId} is being driven by ${describeHolder(busy)}; wait for it to end or to wait for a decision, or stop it with \`${commandFor('cancel', runId, selection)}\``;
}

/** What selects the run for the commands printed about it: this command's state database, remotes and configuration. */
function selectionOf(session: Session, options: EmbeddedOptions): Selection {
  return { statePath: session.statePath, remotes: options.remotes, configPath: options.configPath };
}

/**
 * Cancels a run. When another live process drives it, that driver is asked to stop: the cancel is
 * stored (its teardown left for the driver to carry out), and the driver, seeing it, stops the
 * step's processes, tears down and exits; this command waits for that. Otherwise this process
 * takes the run over and cancels it itself. Exits 0 once the run is cancelled.
 */
export async function cancelRun(session: Session, stored: Run, cancel: RunEvent, options: EmbeddedOptions, quiet = false): Promise<number> {
  const taken = await RunLease.take(session.store, stored.id);
  if ('lease' in taken) {
    try {
      await cancelTakenOver(session, stored, cancel);
      return await drive(session, taken.lease, stored.id, options, 'cancelled', quiet);
    } finally {
      await taken.lease.release();
    }
  }
  await applyEvent(session.store, stored.id, cancel, reduce);
  const left = await waitForDriver(session, stored.id);
  if (left === 'stopped') {
    if (!quiet) report(await session.engine.get(stored.id), options.json, selectionOf(session, options));
    return EXIT.ok;
  }
  if (left === 'still-busy') {
    warn(
      `run ${stored.id} is cancelled; its driver (${describeHolder(taken.busy)}) is still stopping its steps and tearing down. \`${commandFor('status', stored.id, session)}\` shows when it is done.`,
    );
    return EXIT.ok;
  }
  // The driver died while stopping: what it left (its attempts, the cancel's teardown) is settled here.
  const lease = await takeLease(session, stored.id);
  try {
    await session.engine.recover(stored.id, stored);
    return await drive(session, lease, stored.id, options, 'cancelled', quiet);
  } finally {
    await lease.release();
  }
}

/** Waits for the run's driver to give its lease up; `dead` when it died holding it. */
async function waitForDriver(session: Session, runId: string): Promise<'stopped' | 'dead' | 'still-busy'> {
  for (const deadline = Date.now() + CANCEL_WAIT_MS; Date.now() < deadline;) {
    const lease = await session.store.lease(leaseName(runId));
    if (!lease) return 'stopped';
    if (holderIsDead(lease)) return 'dead';
    await new Promise((r) => setTimeout(r, 200));
  }
  return 'still-busy';
}

/**
 * Cancels a run that another process may have left running. The cancel comes first: taking a
 * killed run over would otherwise drive it on (merges included) before cancelling. Its left
 * attempts are still settled: their processes stopped, what they deployed recorded and torn down.
 */
export async function cancelTakenOver(session: Session, stored: Run, cancel: RunEvent): Promise<void> {
  await session.engine.apply(stored.id, cancel);
  await session.engine.recover(stored.id, stored);
}

/**
 * Lets the run go until it ends or waits for a person (approving on the way with --approve), while
 * keeping its lease: what a cancel by another command committed for this driver (its stops, its
 * teardown, its report) is carried out here before this process exits.
 */
async function drive(session: Session, lease: RunLease, runId: string, options: EmbeddedOptions, wanted?: Run['status'], quiet = false): Promise<number> {
  // The heartbeat looks for a cancel by another command and carries out what it left, once: its
  // `stop` effects stop the step processes under way (each its own attempt's, never the cancel's
  // teardown), which ends the wait below; the engine carries the teardown out after them.
  let stopping: Promise<void> | undefined;
  lease.keep(
    async () => {
      if (stopping) return;
      const cancelled = (await session.store.get(runId))?.status === 'cancelled';
      if (cancelled) await (stopping ??= session.engine.carryOutPending(runId));
    },
    (by) => warn(`run ${runId} was taken over by ${describeHolder(by)}`),
  );
  const interruption = onInterrupt(session, runId, commandFor('retry', runId, selectionOf(session, options), await session.engine.get(runId)));
  try {
    return await driveOn(session, runId, options, interruption, () => stopping, wanted, quiet);
  } finally {
    interruption.dispose();
  }
}

async function driveOn(
  session: Session,
  runId: string,
  options: EmbeddedOptions,
  interruption: Interruption,
  stopping: () => Promise<void> | undefined,
  wanted: Run['status'] | undefined,
  quiet: boolean,
): Promise<number> {
  for (;;) {
    await session.engine.idle();
    if (interruption.applied) {
      // Ctrl-C: the attempts it stopped end (as lost, which the run no longer counts), then where the run stands is told.
      await interruption.applied;
      await session.engine.idle();
      if (!quiet) report(await session.engine.get(runId), options.json, selectionOf(session, options));
      return EXIT_INTERRUPTED;
    }
    let run = await session.engine.get(runId);
    if (run.status === 'cancelled') {
      // Cancelled, by another command or by this one: what is still pending of it is carried out
      // (the heartbeat may not have looked yet), and waited for.
      await stopping();
      await session.engine.carryOutPending(runId);
      await session.engine.idle();
      run = await session.engine.get(runId);
      if (!quiet) report(run, options.json, selectionOf(session, options));
      return wanted === 'cancelled' ? EXIT.ok : exitCodeOf(run);
    }
    if (waitsForQueue(run)) {
      if (await tickQueue(session, run)) continue;
      break;
    }
    const approval = Object.values(run.steps).find((s) => s.status === 'waiting');
    if (!(options.approve && run.status === 'waiting' && approval)) break;
    await session.engine.apply(runId, { type: 'decision', at: new Date().toISOString(), step: approval.id, decision: 'approve', by: 'conveyor-cli' });
  }
  const run = await session.engine.get(runId);
  if (!quiet) report(run, options.json, selectionOf(session, options));
  return run.status === wanted ? EXIT.ok : exitCodeOf(run);
}

/**
 * The local merge queue's turn (GitHub's queue merges later; the local one when the run waits for
 * it): it merges or removes what it holds, and the run hears of its own PRs. The queue is shared
 * by the runs of the remotes folder: when none of this run's PRs moved (another run's tick merged
 * them), the merge step looks again itself. Says whether the run moved.
 */
async function tickQueue(session: Session, run: Run): Promise<boolean> {
  const at = () => new Date().toISOString();
  const mine = (await session.forge.mergeQueue.tick()).filter((o) => run.prs.some((p) => p.repo === o.repo && p.number === o.number));
  for (const o of mine) {
    await session.engine.apply(run.id, {
      type: 'merge-queue',
      at: at(),
      change: o.change,
      pr: { repo: o.repo, number: o.number },
      ...(o.reason ? { reason: o.reason } : {}),
    });
  }
  if (mine.length > 0) return true;
  // The look itself is written; only what the merge made of it afterwards is movement.
  const looked = await session.engine.apply(run.id, { type: 'merge-queue', at: at(), change: 'look' });
  await session.engine.idle();
  return (await session.engine.get(run.id)).version > looked.version;
}

export function report(run: Run, json: boolean, selection: Selection): void {
  if (json) {
    say(
      `${JSON.stringify({ id: run.id, status: run.status, waitingFor: run.waitingFor, reason: run.reason, usage: usageReport(run), steps: run.steps, prs: run.prs, protectedPaths: run.protectedPaths, environments: run.environments, approvals: run.approvals, feedback: run.feedback }, null, 2)}`,
    );
    return;
  }
  say(`\n${renderRun(run, selection)}`);
  const guarded = protectedPrs(run);
  if (guarded.length) {
    const lines = guarded.map(
      (g) =>
        `  ${g.pr.repo}#${g.pr.number}: ${g.paths.join(', ')}${g.more ? ` and ${g.more} more` : ''}${approvedAtHead(run, g.pr) ? ' (approved at this head)' : ''}`,
    );
    say(`\nProtected paths (merged only after an approval of their heads):\n${lines.join('\n')}`);
  }
  const next = nextCommand(run, selection);
  if (next) say(`\nTo continue: ${next}`);
}

/** The run's usage for `--json`: its total, its budget and each step's (each attempt's is in `steps`). */
function usageReport(run: Run): { run?: Usage; budgetUsd?: number; steps: Record<string, Usage> } {
  const total = runUsage(run);
  const steps = Object.fromEntries(
    run.plan.steps.map((p) => [p.id, stepUsage(run.steps[p.id])] as const).filter((e): e is readonly [string, Usage] => e[1] !== undefined),
  );
  return { ...(total ? { run: total } : {}), ...(run.plan.budgetUsd !== undefined ? { budgetUsd: run.plan.budgetUsd } : {}), steps };
}

/** A text file named by an option (`--body-file`, `--message-file`); a UsageError naming both when it cannot be read. */
export function readBody(path: string | undefined, option = '--body-file'): string {
  if (!path) return '';
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${option} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

async function uniqueRunId(store: RunStore, repo: string, issue: number): Promise<string> {
  const base = `${repo.split('/')[1] ?? repo}-${issue}`;
  if (!(await store.get(base))) return base;
  for (let n = 2; ; n++) if (!(await store.get(`${base}-${n}`))) return `${base}-${n}`;
}

/** The fields of `o` that are set: options given again on the command line, over the stored ones. */
export function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
