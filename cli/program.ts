// What every command shares: the exit codes and the error boundary that turns typed errors into
// messages a user can act on.
import { Command, CommanderError } from 'commander';
import { ConveyorError, UsageError } from '../core/errors.ts';
import { describeWriteFailure } from '../lib/fs-errors.ts';
import { StoreError } from '../engine/ports/store.ts';
import { warn, warnRaw } from '../lib/terminal.ts';

/** A command that will not act, and why (exit 1): the run is driven by another process, say. */
export class Refusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Refusal';
  }
}

export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 3 } as const;

/** A command's action: returns the exit code. */
export type CommandAction<A extends unknown[]> = (...args: A) => Promise<number> | number;

/** Wraps an action so its exit code becomes the process's, and a UsageError exits 2. */
export function action<A extends unknown[]>(fn: CommandAction<A>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      process.exitCode = await fn(...args);
    } catch (e) {
      // A state database that is not one, cannot be opened or cannot be written (a full disk) is
      // named with what to do, as bad usage is: never a stack trace.
      if (e instanceof UsageError || e instanceof StoreError || e instanceof Refusal) {
        warn(`${e.message}`);
        process.exitCode = e instanceof Refusal ? EXIT.failed : EXIT.usage;
        return;
      }
      // A write the machine refused (a full disk, a read-only folder), or a typed error of a step of
      // the command: one line that says what to do, and exit 1 (the state is as its last whole write left it).
      const said = describeWriteFailure(e) ?? (e instanceof ConveyorError ? e.message : undefined);
      if (said) {
        warn(said);
        process.exitCode = EXIT.failed;
        return;
      }
      throw e;
    }
  };
}

export function createProgram(version: string): Command {
  const program = new Command('conveyor')
    .description('Turns labeled issues into shipped work: agents, gates, review, previews and ordered merges.')
    .version(version)
    .showHelpAfterError()
    .exitOverride();
  program.configureOutput({ writeErr: (s) => warnRaw(s) });
  return program;
}

export async function runProgram(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; every other parse failure is bad usage.
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    warn(`${(e as Error).stack ?? String(e)}`);
    process.exitCode = EXIT.failed;
  }
}
