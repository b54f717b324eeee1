// `conveyor teardown RUN`: removes a run's preview environments now, whatever the run's state
// (a run kept with --keep-envs, one that waits after a failure, or one whose teardown failed).
import type { Command } from 'commander';
import { DEFAULT_STATE, loadRun, openSession, runOptions } from '../embedded.ts';
import { action, EXIT } from '../program.ts';
import { takeLease } from '../drive.ts';
import { commandFor } from '../render.ts';
import { say, warn } from '../../lib/terminal.ts';

export function register(program: Command): void {
  program
    .command('teardown')
    .description("Tear a run's preview environments down")
    .argument('<run>', 'run id')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .option('--remotes <dir>', 'folder of bare repositories (default: as the run was started)')
    .addHelpText('after', '\nExit codes: 0 every environment is gone, 1 some are still up (each with the reason), 2 bad usage.')
    .action(
      action(async (runId: string, o: { state: string; remotes?: string }) => {
        const stored = await loadRun(o.state, runId);
        if (stored.status === 'running') {
          warn(
            `run ${runId} is running; stop it with \`${commandFor('cancel', runId, { statePath: o.state })}\` (which tears its environments down) or tear down once it waits or ends.`,
          );
          return EXIT.failed;
        }
        const up = stored.environments.filter((e) => e.state === 'ready');
        if (up.length === 0) {
          say(`Run ${runId} has no environment up.`);
          return EXIT.ok;
        }
        const options = runOptions(stored);
        const session = await openSession(o.state, o.remotes ?? options.remotes, false);
        try {
          // Nothing else may drive the run meanwhile (its own driver may still be tearing down).
          const lease = await takeLease(session, runId);
          const after = await session.engine.tearDownNow(runId).finally(() => lease.release());
          await session.engine.idle();
          const still = after.environments.filter((e) => e.state === 'ready' && up.some((u) => u.envId === e.envId));
          for (const e of up.filter((u) => !still.some((s) => s.envId === u.envId))) say(`removed  ${e.service}  ${e.envId}${e.url ? `  ${e.url}` : ''}`);
          for (const e of still) say(`STILL UP ${e.service}  ${e.envId}${e.url ? `  ${e.url}` : ''}  — ${e.error ?? 'teardown failed'}`);
          if (still.length) {
            warn(
              `${still.length} environment${still.length === 1 ? '' : 's'} of run ${runId} could not be removed; fix the cause and run \`${commandFor('teardown', runId, { statePath: o.state, ...(o.remotes ? { remotes: o.remotes } : {}) }, stored)}\` again.`,
            );
            return EXIT.failed;
          }
          return EXIT.ok;
        } finally {
          await session.close();
        }
      }),
    );
}
