// What the webhook handlers and the sweeper share: the store, the engine and the GitHub adapters.
import type { Run } from '../core/run/types.ts';
import type { Engine } from '../engine/engine.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { GitHubForge } from '../adapters/forge/github.ts';
import type { Heads } from '../adapters/forge/heads.ts';
import type { LinkStore } from '../engine/ports/links.ts';
import type { RunReporter } from './report.ts';

export interface AppDeps {
  appId: number;
  store: RunStore;
  links: LinkStore;
  engine: Engine;
  reporter: RunReporter;
  heads: Heads;
  /** The GitHub adapter of an installation (on its installation Octokit). */
  github(installationId: number): Promise<GitHubForge>;
  /** The GitHub adapter of the installation a run belongs to. */
  githubOf(run: Run): Promise<GitHubForge>;
  /** Whether an actor is this app itself (its bot user), by identity: never by a name a person could take. */
  isSelf(actor: { login: string; type?: string | null; id?: number }): Promise<boolean>;
  /**
   * The app's bot login (`<slug>[bot]`), the actor of every workflow run the app dispatches: where
   * a dispatch said no run id, only a run it started is an attempt's (app.ts, ownLogin).
   */
  botLogin(): Promise<string>;
  /** What a step payload may take of the workflow inputs (the rest is for the inputs the dispatcher adds). */
  payloadLimit: number;
  now(): string;
  log(line: string): void;
}

export function installationOf(run: Run): number {
  const id = run.options.installationId;
  if (typeof id !== 'number') throw new Error(`run ${run.id} has no GitHub installation id (it was not started by the GitHub app)`);
  return id;
}

/** Write or higher on the repository (admin and maintain included). */
export function canWrite(permission: string): boolean {
  return permission === 'admin' || permission === 'write' || permission === 'maintain';
}
