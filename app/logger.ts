// The app's logger: Probot's pino (`app.log`), each line's fields pino's fields, so that a JSON log
// (LOG_FORMAT=json) holds one object per line that a log pipeline can filter by run, step or attempt.
import type { Logger as Pino } from 'probot';
import { loggerOf, type Logger, type LogValue } from '../lib/logger.ts';

/** Keys pino writes itself on every line (Probot names its logger, the message is `msg`). */
const PINO_KEYS = ['level', 'time', 'pid', 'hostname', 'name', 'msg'];

/**
 * Conveyor's logger over a pino logger. Children are kept here (lib/logger.ts merges their fields),
 * never as pino children, and a field whose key pino already writes on the line (its own keys and
 * its bindings: Probot's `name`, a delivery's `id`) is renamed `conveyor.<key>`: pino prints a key
 * it is given twice twice, and a JSON line with a key twice is read differently by every parser.
 */
export function pinoLogger(source: Pino | (() => Pino)): Logger {
  // Read when a line is written: a Probot made without a logger gets its pino only once it loads.
  const pinoOf = typeof source === 'function' ? source : () => source;
  let taken: Set<string> | undefined;
  return loggerOf((level, message, fields) => {
    const pino = pinoOf();
    taken ??= new Set([...PINO_KEYS, ...Object.keys(pino.bindings())]);
    const own: Record<string, LogValue> = {};
    for (const [k, v] of Object.entries(fields)) own[taken.has(k) ? `conveyor.${k}` : k] = v;
    pino[level](own, message);
  });
}
