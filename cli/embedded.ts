// The embedded mode's wiring: a SQLite store, the local dispatcher (child processes running the
// action: its sources in a clone, its bundle when installed) and the local forge, over a folder of
// bare repositories.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { Plan } from '../core/plan/types.ts';
import type { Run } from '../core/run/types.ts';
import type { RunStore } from '../engine/ports/store.ts';
import { createLocalDispatcher } from '../adapters/dispatch/local.ts';
import { openLocalForge, type LocalForge } from '../adapters/forge/local.ts';
import { Engine } from '../engine/engine.ts';
import { mergeRun } from '../engine/merge.ts';
import { EXIT } from './program.ts';
import { createProgress } from './render.ts';
import { progressStream, warn, warnRaw } from '../lib/terminal.ts';

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

export interface Session {
  engine: Engine;
  store: RunStore;
  forge: LocalForge;
  close(): Promise<void>;
}

export async function openSession(statePath: string, remotes: string, json: boolean): Promise<Session> {
  const store = await openStore(statePath);
  const forge = await openLocalForge(remotes);
  const progress = createProgress(progressStream(json));
  const dispatcher = createLocalDispatcher({ stateDir: dirname(resolve(statePath)), statePath: resolve(statePath), remotes: resolve(remotes) });
  const engine = new Engine({
    store,
    dispatcher,
    merge: (run, effect) => mergeRun(forge, run, effect),
    observe: (run, event) => progress.event(run, event),
    reply: (_run, text) => {
      warn(text);
    },
    log: { error: (message) => warnRaw(`${message}\n`) },
    // A command drives a run only once it holds the run's lease (drive.ts): what a dead driver
    // claimed is this one's to carry out at once.
    soleDriver: true,
  });
  return {
    engine,
    store,
    forge,
    async close() {
      progress.done();
      forge.close?.();
      await store.close();
    },
  };
}

/** Reads the options a run was started with. */
export function runOptions(run: Run): EmbeddedOptions {
  const o = run.options as Partial<EmbeddedOptions>;
  return {
    configPath: String(o.configPath ?? ''),
    remotes: String(o.remotes ?? ''),
    approve: Boolean(o.approve),
    keepEnvs: Boolean(o.keepEnvs),
    json: Boolean(o.json),
  };
}

/** Exit code for where a run stands: 0 succeeded, 3 waits for a decision, 1 anything else. */
export function exitCodeOf(run: Run): number {
  if (run.status === 'succeeded') return EXIT.ok;
  if (run.status === 'waiting' && Object.values(run.steps).some((s) => s.status === 'waiting')) return EXIT.waiting;
  return EXIT.failed;
}
