// A pino logger whose output is kept, line by line, as pino wrote it (JSON): what a log pipeline
// reading the app's LOG_FORMAT=json output gets. Probot takes it as its `log`.
import pino, { type Logger as Pino } from 'pino';

export interface LogRecord {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface PinoCapture {
  logger: Pino;
  /** Each line as pino wrote it. */
  lines: string[];
  /** Each line parsed. */
  records(): LogRecord[];
}

export function capturePino(options: { echo?: boolean } = {}): PinoCapture {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        lines.push(line.trimEnd());
        if (options.echo) process.stderr.write(line);
      },
    },
  );
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as LogRecord) };
}

/**
 * The keys that appear more than once in one object of a JSON text (JSON.parse keeps the last and
 * says nothing, so a duplicate is found on the text): a small scanner over strings and brackets.
 */
export function duplicateKeys(json: string): string[] {
  const found: string[] = [];
  // One entry per open bracket: an object's keys seen so far and whether a key comes next, or an array.
  const open: ({ keys: Set<string>; keyNext: boolean } | 'array')[] = [];
  const token = /"(?:[^"\\]|\\.)*"|[{}[\]:,]/g;
  for (const [t] of json.matchAll(token)) {
    const top = open[open.length - 1];
    if (t === '{') open.push({ keys: new Set(), keyNext: true });
    else if (t === '[') open.push('array');
    else if (t === '}' || t === ']') open.pop();
    else if (t === ',') {
      if (top && top !== 'array') top.keyNext = true;
    } else if (t === ':') {
      if (top && top !== 'array') top.keyNext = false;
    } else if (top && top !== 'array' && top.keyNext) {
      const key = JSON.parse(t) as string;
      if (top.keys.has(key)) found.push(key);
      top.keys.add(key);
    }
  }
  return found;
}
