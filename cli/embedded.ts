// The embedded mode's wiring: a SQLite store, the local dispatcher (child processes running the
// action: its sources in a clone, its bundle when installed) and the local forge, over a folder of
// bare repositories.
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { Plan } from '../core/plan/types.ts';
import type { Run } from '../core/run/types.ts';
import type { EmbeddedOrigin } from '../core/run/origin.ts';
import type { RunStore } from '../engine/ports/store.ts';
import { createLocalDispatcher, type LocalDispatcher } from '../adapters/dispatch/local.ts';
import { openLocalForge, type LocalForge } from '../adapters/forge/local.ts';
import { Engine } from '../engine/engine.ts';
import { dequeueRun, mergeRun } from '../engine/merge.ts';
import { EXIT } from './program.ts';
import { createProgress } from './progress.ts';
import { reportPrStatus } from './pr-status.ts';
import { progressStream, terminalLogger, warn } from '../lib/terminal.ts';

export const DEFAULT_STATE = '.conveyor/state.db';

/** Options of `conveyor run` that the store keeps, so later decisions continue the same way. */
export interface EmbeddedOptions {
  configPath: string;
  remotes: string;
  approve: boolean;
  keepEnvs: boolean;
  json: boolean;
}

/** The state database; its driver is loaded by the commands that open it (`validate` and `plan` never do). */
export async function openStore(statePath: string): Promise<RunStore> {
  const { openSqliteStore } = await import('../adapters/store/sqlite.ts');
  return openSqliteStore(resolve(statePath));
}

/** The stored run; a UsageError naming the state database and its latest runs when there is none. */
export async function loadRun(statePath: string, runId: string): Promise<Run> {
  const store = await openStore(statePath);
  try {
    return await storedRun(store, statePath, runId);
  } finally {
    await store.close();
  }
}

/** The same, from a store the caller holds open. */
export async function storedRun(store: RunStore, statePath: string, runId: string): Promise<Run> {
  const run = await store.get(runId);
  if (run) return run;
  const known = (await store.list()).map((r) => r.id);
  throw new UsageError(`no run ${runId} in ${statePath}${known.length ? ` (runs: ${known.slice(-10).join(', ')})` : ''}`);
}

/** Every repository of the plan must exist as a bare repository under the remotes folder. */
export function checkRemotes(plan: Plan, remotes: string): void {
  if (!existsSync(remotes)) throw new UsageError(`--remotes ${remotes}: no such folder`);
  for (const r of plan.changeSet) {
    const bare = join(remotes, `${r.repo}.git`);
    if (!existsSync(bare)) {
      throw new UsageError(`repository ${r.repo} of pipeline ${plan.pipeline} is not in --remotes: expected a bare repository at ${bare}`);
    }
  }
}

/**
 * A state database's attempt folders: each database has its own, so two in one folder never take
 * each other's results (an attempt folder is named by run, step and attempt, which two databases
 * may share). The default `state.db` keeps the plain `attempts/` beside it; any other database
 * `NAME` has `NAME-attempts/` beside it, as SQLite names its `NAME-wal` and `NAME-shm`.
 */
export function attemptsFolder(statePath: string): string {
  const db = resolve(statePath);
  return basename(db) === 'state.db' ? join(dirname(db), 'attempts') : `${db}-attempts`;
}

export interface Session {
  engine: Engine;
  store: RunStore;
  /** Where each attempt's files are (its log, its step process: what a Ctrl-C stops or leaves running). */
  dispatcher: LocalDispatcher;
  /** The state database as the command was given it: what the commands it prints name (render.ts, commandFor). */
  statePath: string;
  /** The remotes' forge: it gives out issue numbers (so run ids and work branches) for every state database on them. */
  forge: LocalForge;
  close(): Promise<void>;
}

export async function openSession(statePath: string, remotes: string, json: boolean): Promise<Session> {
  const store = await openStore(statePath);
  const forge = await openLocalForge(remotes);
  const dispatcher = createLocalDispatcher({ attemptsDir: attemptsFolder(statePath), statePath: resolve(statePath), remotes: resolve(remotes) });
  const progress = createProgress(progressStream(json), { view: (ref) => dispatcher.view(ref) });
  const engine = new Engine({
    store,
    dispatcher,
    merge: (run, effect) => mergeRun(forge, run, effect),
    dequeue: (run, ref) => dequeueRun(forge, run, ref),
    observe: (run, event) => progress.event(run, event),
    // The PRs' bodies say where the run stands, as on GitHub (a failure to write them is the log's, not the run's).
    report: (run) => reportPrStatus(forge, run, statePath),
    reply: (_run, text) => {
      warn(text);
    },
    log: terminalLogger(),
    // A command drives a run only once it holds the run's lease (drive.ts): what a dead driver
    // claimed is this one's to carry out at once.
    soleDriver: true,
  });
  return {
    engine,
    store,
    dispatcher,
    statePath,
    forge,
    async close() {
      progress.done();
      forge.close?.();
      await store.close();
    },
  };
}

/** What the store keeps of `conveyor run`'s options; `repo` too: retry and restart compile the configuration again exactly as it was compiled then. */
export function embeddedOrigin(options: EmbeddedOptions, repo: string | undefined): EmbeddedOrigin {
  return {
    kind: 'embedded',
    configPath: options.configPath,
    remotes: options.remotes,
    approve: options.approve,
    json: options.json,
    ...(repo ? { repo } : {}),
  };
}

/** Reads the options a run was started with (none of a run the GitHub App started: the caller names them). */
export function runOptions(run: Run): EmbeddedOptions {
  const o = run.origin.kind === 'embedded' ? run.origin : undefined;
  return {
    configPath: o?.configPath ?? '',
    remotes: o?.remotes ?? '',
    approve: o?.approve ?? false,
    keepEnvs: run.settings.keepEnvs ?? false,
    json: o?.json ?? false,
  };
}

/** Exit code for where a run stands: 0 succeeded, 3 waits for a decision, 1 anything else. */
export function exitCodeOf(run: Run): number {
  if (run.status === 'succeeded') return EXIT.ok;
  if (run.status === 'waiting' && Object.values(run.steps).some((s) => s.status === 'waiting')) return EXIT.waiting;
  return EXIT.failed;
}
