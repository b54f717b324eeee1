// A `.env` file, as Probot reads and writes it: KEY=value lines, a value in double quotes with its
// newlines written `\n` (a PEM key on one line). `conveyor serve` reads the one in the folder it
// starts in, under the variables already set, and its setup writes the credentials GitHub gave
// there, readable by its owner only: the private key is in it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';

/** The file's variables; none when there is no file. */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  const parsed = parseEnv(readFileSync(path, 'utf8'));
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Sets each of the file's variables that `env` does not have: what is set wins over the file, as with `node --env-file`. */
export function loadEnvFile(path: string, env: NodeJS.ProcessEnv = process.env): void {
  for (const [key, value] of Object.entries(readEnvFile(path))) if (env[key] === undefined) env[key] = value;
}

/** One line of the file. Values here are ids, secrets, URLs and PEM text: none holds a double quote or a literal `\n`. */
const line = (key: string, value: string) => `${key}="${value.replace(/\r?\n/g, '\\n')}"`;

/**
 * Writes `values` into the file, keeping the variables it held that they do not name. The new file
 * is made beside it with mode 0600 and renamed over it, so it is never readable by others, even
 * for a moment, and never half written.
 */
export function writeEnvFile(path: string, values: Record<string, string>): void {
  const merged = { ...readEnvFile(path), ...values };
  const text = `${Object.entries(merged)
    .map(([k, v]) => line(k, v))
    .join('\n')}\n`;
  const next = join(dirname(path), `.env.${process.pid}.tmp`);
  writeFileSync(next, text, { mode: 0o600 });
  renameSync(next, path);
}
