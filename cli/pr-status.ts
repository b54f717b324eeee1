// The embedded mode keeps the status section of its PR bodies current, as the app does on GitHub:
// after every transition of the run (its `report` effect), each PR of the run gets the section for
// the run as it stands, with the `conveyor` commands that act on it in this state database.
import { resolve } from 'node:path';
import type { LocalForge } from '../adapters/forge/local.ts';
import { embeddedCommands, renderPrStatus } from '../core/github/pr-status.ts';
import { withStatus } from '../core/github/pr-body.ts';
import type { Run } from '../core/run/types.ts';

/** Rewrites the status section of each PR of the run where it changed; the rest of each body stays. */
export function reportPrStatus(forge: LocalForge, run: Run, statePath: string): void {
  if (run.prs.length === 0) return;
  // Absolute: the command in a body must work from wherever the person reads it.
  const status = renderPrStatus(run, embeddedCommands(run.id, resolve(statePath)));
  for (const pr of run.prs) forge.editPullRequestBody(pr.repo, pr.number, (body) => withStatus(body, status));
}
