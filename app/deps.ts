// What the webhook handlers share: the store, the engine, the workflow dispatcher and GitHub (adapters/github/forge).
import type { Run } from '../core/run/types.ts';
import { githubOriginOf } from '../core/run/origin.ts';
import type { Engine } from '../engine/engine.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import type { LinkStore } from '../adapters/github/links.ts';
import type { WorkflowDispatcher } from '../adapters/dispatch/workflow/dispatcher.ts';
import type { RunReporter } from './report.ts';
import type { Logger } from '../lib/logger.ts';

export interface AppDeps {
  appId: number;
  store: RunStore;
  links: LinkStore;
  engine: Engine;
  /** The workflow dispatcher: which attempt a check run of the app's is. */
  dispatcher: WorkflowDispatcher;
  reporter: RunReporter;
  /** GitHub as an installation sees it (each concern on its installation Octokit). */
  github(installationId: number): Promise<GitHub>;
  /** GitHub as the installation a run belongs to sees it. */
  githubOf(run: Run): Promise<GitHub>;
  /** Whether an actor is this app itself (its bot user), by identity: never by a name a person could take. */
  isSelf(actor: { login: string; type?: string | null; id?: number }): Promise<boolean>;
  /**
   * The app's bot login (`<slug>[bot]`), the actor of every workflow run the app dispatches: where
   * a dispatch said no run id, only a run it started is an attempt's (app.ts, ownLogin).
   */
  botLogin(): Promise<string>;
  /** What a step payload may take of the workflow inputs (the rest is for the inputs the dispatcher adds). */
  payloadLimit: number;
  /** The run's waiting `ci` step judged again, with the other webhooks of its burst (app/ci.ts, CiJudgements). */
  judgeCi(runId: string): Promise<boolean>;
  now(): string;
  /** The app's logger; a handler's carries its delivery's id and event. */
  log: Logger;
}

export function installationOf(run: Run): number {
  const origin = githubOriginOf(run);
  if (!origin) throw new Error(`run ${run.id} has no GitHub installation id (it was not started by the GitHub app)`);
  return origin.installationId;
}

/** Write or higher on the repository (admin and maintain included). */
export function canWrite(permission: string): boolean {
  return permission === 'admin' || permission === 'write' || permission === 'maintain';
}
