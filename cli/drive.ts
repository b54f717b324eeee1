// Driving an embedded run from the command line: start it, or take it over and record a decision,
// then let it go until it ends or waits, and print where it stands.
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.ts';
import type { Run, RunEvent } from '../core/run/types.ts';
import type { RunStore } from '../engine/ports/store.ts';
import { compileConfigFile, formatConfigErrors } from './config-file.ts';
import { checkRemotes, exitCodeOf, loadRun, openSession, runOptions, type EmbeddedOptions, type Session } from './embedded.ts';
import { nextCommand, renderRun } from './render.ts';
import { EXIT } from './program.ts';

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
    process.stderr.write(formatConfigErrors(compiled.errors));
    return EXIT.usage;
  }
  const plan = compiled.plan;
  checkRemotes(plan, request.remotes);
  const session = await openSession(request.statePath, request.remotes, request.json);
  try {
    const primary = plan.changeSet.find((r) => r.role === 'primary')?.repo ?? plan.changeSet[0]!.repo;
    const number = request.issue ?? nextIssueNumber(session.store, primary);
    const active = session.store
      .list({ status: ['running', 'waiting'], issue: { repo: primary, number }, pipeline: plan.pipeline })
      .at(0);
    if (active) {
      throw new UsageError(`run ${active.id} is already active for ${primary}#${number} (pipeline ${plan.pipeline}); continue it with \`conveyor retry ${active.id}\` or stop it with \`conveyor cancel ${active.id}\``);
    }
    const options: EmbeddedOptions = {
      configPath: request.configPath,
      remotes: request.remotes,
      approve: request.approve,
      keepEnvs: request.keepEnvs,
      json: request.json,
    };
    const run = await session.engine.start({
      id: uniqueRunId(session.store, primary, number),
      plan,
      issue: { repo: primary, number, title: request.title, body: request.body },
      // `repo` too: retry and restart compile the configuration again exactly as it was compiled here.
      options: { ...options, ...(request.repo ? { repo: request.repo } : {}) },
    });
    return await drive(session, run.id, options);
  } finally {
    session.close();
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
}

/** 1. find the run, 2. refuse if it ended, 3. settle what a dead process left, 4. decide, 5. drive. */
export async function decide(request: DecisionRequest): Promise<number> {
  const stored = loadRun(request.statePath, request.runId);
  if (stored.status === 'succeeded' || stored.status === 'cancelled') {
    process.stderr.write(`conveyor: run ${stored.id} has ended (${stored.status}); nothing to decide. Start a new run with \`conveyor run\`.\n`);
    return EXIT.failed;
  }
  const options = { ...runOptions(stored), ...definedOnly(request.override ?? {}) };
  const refused = await request.check?.(stored, options);
  if (refused !== undefined) return refused;
  const session = await openSession(request.statePath, options.remotes, options.json);
  try {
    const wasRunning = stored.status === 'running';
    const cancel = request.cancels ? request.event(stored) : undefined;
    if (cancel) {
      await cancelTakenOver(session, stored, cancel);
      return await drive(session, stored.id, options, 'cancelled');
    }
    await session.engine.recover(stored.id);
    await session.engine.idle();
    const run = session.engine.get(stored.id);
    const event = request.event(run);
    // A run that was left running has just been taken over and driven on; a retry of it is moot.
    if (event && !(wasRunning && event.type === 'retry') && run.status !== 'succeeded' && run.status !== 'cancelled') {
      await session.engine.apply(run.id, event);
    }
    // A cancel that took effect is what was asked for: it exits 0.
    return await drive(session, run.id, options, event?.type === 'cancel' ? 'cancelled' : undefined);
  } finally {
    session.close();
  }
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

async function drive(session: Session, runId: string, options: EmbeddedOptions, wanted?: Run['status']): Promise<number> {
  for (;;) {
    await session.engine.idle();
    const run = session.engine.get(runId);
    const approval = Object.values(run.steps).find((s) => s.status === 'waiting');
    if (!(options.approve && run.status === 'waiting' && approval)) break;
    await session.engine.apply(runId, { type: 'decision', at: new Date().toISOString(), step: approval.id, decision: 'approve', by: 'conveyor-cli' });
  }
  const run = session.engine.get(runId);
  report(run, options.json);
  return run.status === wanted ? EXIT.ok : exitCodeOf(run);
}

export function report(run: Run, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ id: run.id, status: run.status, waitingFor: run.waitingFor, steps: run.steps, prs: run.prs, environments: run.environments }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`\n${renderRun(run)}\n`);
  const next = nextCommand(run);
  if (next) process.stdout.write(`\nTo continue: ${next}\n`);
}

export function readBody(path: string | undefined): string {
  if (!path) return '';
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--body-file ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

function nextIssueNumber(store: RunStore, repo: string): number {
  const numbers = store.list().filter((r) => r.issue.repo === repo).map((r) => r.issue.number);
  return numbers.length ? Math.max(...numbers) + 1 : 1;
}

function uniqueRunId(store: RunStore, repo: string, issue: number): string {
  const base = `${repo.split('/')[1] ?? repo}-${issue}`;
  if (!store.get(base)) return base;
  for (let n = 2; ; n++) if (!store.get(`${base}-${n}`)) return `${base}-${n}`;
}

/** The fields of `o` that are set: options given again on the command line, over the stored ones. */
export function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
