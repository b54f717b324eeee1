// The one place Conveyor writes to the terminal: the command line's renderer (cli/render.ts) and
// what `conveyor serve` says before its logger exists (usage, settings it cannot start without).
// Everything else logs: the app through Probot's pino logger, the action through @actions/core,
// the command line's engine through terminalLogger here.
import { lineLogger, type Logger } from './logger.ts';

// A reader that stops reading (`conveyor pr RUN | head`) closes the pipe: the rest of what the
// command says has nowhere to go, and that is no failure of the command (a stack trace is no answer).
let readerGone = false;
let guarded = false;
function toStdout(text: string): void {
  if (readerGone) return;
  if (!guarded) {
    guarded = true;
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      readerGone = true;
    });
  }
  process.stdout.write(text);
}

/** A line (or nothing, for a blank one) on standard output: what the command was asked for. */
export function say(text = ''): void {
  toStdout(`${text}\n`);
}

/** Text on standard output as it is (already ends its lines). */
export function sayRaw(text: string): void {
  toStdout(text);
}

/** A message on standard error, as `conveyor: …`: why something was refused, or failed. */
export function warn(text: string): void {
  process.stderr.write(`conveyor: ${text}\n`);
}

/**
 * The command line's logger: a line on standard error in warn's form, its fields after the message
 * (`conveyor: … (run=… step=…)`), whatever its level: what a person at the terminal reads is why.
 */
export function terminalLogger(): Logger {
  return lineLogger((_level, line) => warn(line));
}

/** Text on standard error as it is (lists of configuration errors, progress while a run goes). */
export function warnRaw(text: string): void {
  process.stderr.write(text);
}

/** Where progress goes while a run goes: standard output, or standard error when stdout carries JSON. */
export function progressStream(json: boolean): NodeJS.WritableStream & { isTTY?: boolean; columns?: number } {
  return json ? process.stderr : process.stdout;
}
