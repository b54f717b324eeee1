// The one logger every layer writes to: a message and a flat record of fields, at one of three
// levels, with children that carry fields of their own (the run, the attempt) into every line
// they write. Each host gives it one implementation: pino through Probot in the app (the fields
// become pino's fields), @actions/core in the action (the fields rendered once after the message,
// scrubbed), the terminal in the command line. It lives in lib/ so that the engine and the
// adapters, which sit below the hosts, can take one without knowing which.
import type { AttemptRef } from '../core/contract/attempt-ref.ts';

export type LogValue = string | number | boolean;
/** Fields of a line; an undefined one is left out (so callers can spread optional facts). */
export type LogFields = Readonly<Record<string, LogValue | undefined>>;
export type LogLevel = 'info' | 'warn' | 'error';

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger whose every line carries `fields` too (a line's own fields win over them). */
  child(fields: LogFields): Logger;
}

/** Where an implementation writes one line: its fields already merged, each key once. */
export type LogWriter = (level: LogLevel, message: string, fields: Readonly<Record<string, LogValue>>) => void;

function merged(bound: LogFields, own: LogFields | undefined): Record<string, LogValue> {
  const out: Record<string, LogValue> = {};
  for (const source of [bound, own ?? {}]) for (const [k, v] of Object.entries(source)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * A logger over one writer. Children merge their fields here rather than in the implementation,
 * so that a key a child binds and a line repeats reaches the writer once (pino, given both as a
 * child's bindings and a call's object, would print the key twice in one JSON line).
 */
export function loggerOf(write: LogWriter, bound: LogFields = {}): Logger {
  return {
    info: (message, fields) => write('info', message, merged(bound, fields)),
    warn: (message, fields) => write('warn', message, merged(bound, fields)),
    error: (message, fields) => write('error', message, merged(bound, fields)),
    child: (fields) => loggerOf(write, merged(bound, fields)),
  };
}

/** A logger that writes nothing (tests, and parts whose caller gave none). */
export const silentLogger: Logger = loggerOf(() => undefined);

/** The fields of a line about an attempt: every such line carries the same five. */
export function attemptFields(ref: AttemptRef): { run: string; step: string; attempt: number; epoch: number; mode: string } {
  return { run: ref.runId, step: ref.step, attempt: ref.attempt, epoch: ref.epoch, mode: ref.mode };
}

/**
 * Fields as text for a log read by people, after the message: ` (run=acme-web-7 step=test)`, or
 * nothing without fields. A value with a space or a quote is quoted, so that a line splits back
 * into its fields.
 */
export function renderFields(fields: Readonly<Record<string, LogValue>>): string {
  const parts = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' && (v === '' || /[\s"=()]/.test(v)) ? JSON.stringify(v) : String(v)}`);
  return parts.length > 0 ? ` (${parts.join(' ')})` : '';
}

/** A logger writing `message (fields)` as one line to `write`, with its level (the action's and the command line's). */
export function lineLogger(write: (level: LogLevel, line: string) => void, bound: LogFields = {}): Logger {
  return loggerOf((level, message, fields) => write(level, `${message}${renderFields(fields)}`), bound);
}
