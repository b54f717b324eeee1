// Ctrl-C while `conveyor` drives a run. The step processes run in process groups of their own (so
// that a later `conveyor` can stop a leftover attempt whole), out of reach of the terminal's
// SIGINT: left alone they would go on, orphaned, spending. The first Ctrl-C records the attempts
// under way as interrupted (the run then waits for a retry, nothing is dispatched again on its
// own) and stops them through the dispatcher, their commands with them; the driver then prints
// where the run stands and the command that resumes it, and exits 130. A second Ctrl-C exits at
// once and leaves the step processes running, naming them.
import type { AttemptRef } from '../core/contract/attempt-ref.ts';
import type { Run } from '../core/run/types.ts';
import { warn } from '../lib/terminal.ts';
import type { Session } from './embedded.ts';

/** The exit code of a command stopped by Ctrl-C, as shells have it (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

export interface Interruption {
  /** Set once the first Ctrl-C came: the interrupted event, applied (or failed to be). */
  readonly applied: Promise<void> | undefined;
  /** Stops listening for Ctrl-C (the run ends or waits). */
  dispose(): void;
}

/** The attempts of a run's steps under way (what Ctrl-C stops). */
function underWay(run: Run): AttemptRef[] {
  return Object.values(run.steps)
    .filter((s) => s.status === 'queued')
    .map((s) => ({ runId: run.id, step: s.id, attempt: s.attempt, epoch: s.epoch, mode: s.mode }));
}

/**
 * Listens for Ctrl-C while `runId` is driven. `resume`: the command that resumes the run, as the
 * person must paste it (with its --state). `exit`: how the second Ctrl-C ends the process.
 */
export function onInterrupt(session: Session, runId: string, resume: string, exit: (code: number) => void = (c) => process.exit(c)): Interruption {
  let applied: Promise<void> | undefined;
  let left: AttemptRef[] = [];
  const handler = () => {
    if (applied) {
      const running = left.flatMap((ref) => {
        const pid = session.dispatcher.pid(ref);
        return pid ? [`pid ${pid} (${ref.step} ${ref.mode === 'repair' ? 'repair' : 'attempt'} ${ref.attempt})`] : [];
      });
      warn(
        running.length
          ? `interrupted again: left running ${running.join(', ')}, each with the commands it started; \`kill -TERM -PID\` stops one and its commands, and \`${resume}\` stops them before it resumes the run.`
          : `interrupted again: no step process of run ${runId} is left running. \`${resume}\` resumes the run.`,
      );
      exit(EXIT_INTERRUPTED);
      return;
    }
    warn(`interrupted: stopping the steps of run ${runId} under way and the commands they started (Ctrl-C again leaves them running)…`);
    applied = (async () => {
      left = underWay(await session.engine.get(runId));
      await session.engine.apply(runId, {
        type: 'interrupted',
        at: new Date().toISOString(),
        reason: `Ctrl-C on \`conveyor\` (pid ${process.pid}); \`${resume}\` resumes the run`,
      });
    })().catch((e: unknown) => warn(`could not record the interruption of run ${runId}: ${(e as Error).message}`));
  };
  process.on('SIGINT', handler);
  return {
    get applied() {
      return applied;
    },
    dispose() {
      process.off('SIGINT', handler);
    },
  };
}
