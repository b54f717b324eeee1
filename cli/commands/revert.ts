// `conveyor revert RUN`: the way back from a merge that stopped part-way, in the embedded mode, as
// `/conveyor revert` is on GitHub (core/run/revert.ts). The local forge opens one revert PR per
// merged PR (consumers first, engine/revert.ts), the run is cancelled (one active run per issue
// and pipeline; the rest of it must not merge after its revert), and the revert run `<run>-revert`
// starts and waits for its approval (`conveyor approve RUN-revert`), then merges them.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { partialMerge, revertRunId } from '../../core/run/revert.ts';
import { openReverts } from '../../engine/revert.ts';
import { cancelRun, definedOnly, startAndDrive } from '../drive.ts';
import { DEFAULT_STATE, embeddedOrigin, loadRun, openSession, runOptions, type EmbeddedOptions } from '../embedded.ts';
import { action, Refusal } from '../program.ts';
import { commandFor } from '../render.ts';
import { progressStream } from '../../lib/terminal.ts';

interface RevertOptions {
  state: string;
  remotes?: string;
  approve: boolean;
  json?: boolean;
}

export async function revertCommand(runId: string, o: RevertOptions): Promise<number> {
  const stored = await loadRun(o.state, runId);
  const partial = partialMerge(stored);
  if ('refused' in partial) throw new Refusal(`${partial.refused} Nothing changed.`);
  // A revert is a change of its own: it is approved on its own, unless --approve says so now.
  const options: EmbeddedOptions = {
    ...runOptions(stored),
    approve: false,
    ...definedOnly({ remotes: o.remotes === undefined ? undefined : resolve(o.remotes), approve: o.approve, json: o.json }),
  };
  const session = await openSession(o.state, options.remotes, options.json);
  try {
    const existing = await session.store.get(revertRunId(stored));
    if (existing)
      throw new Refusal(
        `run ${existing.id} already reverts run ${stored.id} (${existing.status}): \`${commandFor('status', existing.id, { statePath: o.state })}\`. Nothing changed.`,
      );
    const next = await openReverts(session.forge, stored, partial, {
      origin: embeddedOrigin(options, stored.origin.kind === 'embedded' ? stored.origin.repo : undefined),
      settings: stored.settings,
    });
    progressStream(options.json).write(
      `Opened ${next.prs.map((p) => `${p.repo}#${p.number}`).join(', ')}, reverting what run ${stored.id} merged; run ${next.id} merges them once approved.\n`,
    );
    if (stored.status === 'running' || stored.status === 'waiting') {
      const reason = `reverting what it merged: run ${next.id}`;
      await cancelRun(session, stored, { type: 'cancel', at: new Date().toISOString(), by: 'conveyor-cli', reason }, options, true);
    }
    return await startAndDrive(session, next, options);
  } finally {
    await session.close();
  }
}

export function register(program: Command): void {
  program
    .command('revert')
    .description('After a merge that stopped part-way: open revert PRs of what merged (consumers first) and a run that merges them once approved')
    .argument('<run>', 'run id')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .option('--remotes <dir>', 'folder of bare repositories (default: as the run was started)')
    .option('--approve', 'approve the revert as soon as it waits (default: it waits for `conveyor approve RUN-revert`)', false)
    .option('--json', 'print the final state as JSON')
    .addHelpText(
      'after',
      '\nThe run is cancelled, and run RUN-revert starts. Exit codes: as `conveyor run`; 1 also when there is nothing to revert (it says why) and nothing changed.',
    )
    .action(action((runId: string, o: RevertOptions) => revertCommand(runId, o)));
}
