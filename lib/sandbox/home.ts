// What a command finds in its private HOME when it starts: the files its caller seeds there (a
// CLI's settings, e.g. Codex's config.toml or Gemini CLI's settings.json) and the variables that
// name folders of it (CODEX_HOME). The HOME is new for each command, so nothing there is a link.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { ConveyorError } from '../../core/errors.ts';

export interface HomeSeed {
  homeFiles?: Readonly<Record<string, string>>;
  homeVariables?: Readonly<Record<string, string>>;
}

/** A path the caller names inside HOME: relative, and staying inside (no `..` out of it). */
function inHome(home: string, relative: string): string {
  const clean = normalize(relative);
  if (isAbsolute(clean) || clean === '..' || clean.startsWith('../')) {
    throw new ConveyorError('internal', `${relative} is not a path inside the command's HOME`);
  }
  return join(home, clean);
}

/** Writes the policy's files into a fresh HOME: folders 0700, files 0600 (the HOME is new, so nothing there is a link). */
export async function seedHome(home: string, policy: HomeSeed): Promise<void> {
  for (const [relative, text] of Object.entries(policy.homeFiles ?? {})) {
    const path = inHome(home, relative);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, text, { mode: 0o600, flag: 'wx' });
  }
  for (const relative of Object.values(policy.homeVariables ?? {})) await mkdir(inHome(home, relative), { recursive: true, mode: 0o700 });
  await chmod(home, 0o700);
}

export function homeVariables(home: string, policy: HomeSeed): Record<string, string> {
  return Object.fromEntries(Object.entries(policy.homeVariables ?? {}).map(([name, relative]) => [name, inHome(home, relative)]));
}
