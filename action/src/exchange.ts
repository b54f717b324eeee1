// The folder through which Conveyor and one user command hand each other files: the prompt, schema
// and diffs Conveyor writes for an agent, the result and usage it writes back, a deploy's output.
// Made fresh for that command, outside the workspace (the sandbox binds it in), so nothing any
// earlier command did can be in it when Conveyor writes there; what the command leaves is read as
// untrusted data (lib/untrusted-file.ts): a link it planted fails the step and reads nothing.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConveyorError } from '../../core/errors.ts';
import { makePrivateTemp } from '../../lib/private-temp.ts';
import { readUntrusted, UntrustedFileRefused } from '../../lib/untrusted-file.ts';

/** The most a command may hand back in one file (a verdict, a usage report, a deploy's output). */
export const MAX_HANDED_BACK = 1024 * 1024;

export interface Exchange {
  /** The folder, for the sandbox's writable list. */
  dir: string;
  path(name: string): string;
  /** Writes a file for the command (before it runs: the folder is Conveyor's alone until then). */
  write(name: string, text: string): Promise<string>;
  /** What the command left under `name`, or undefined; refused (`output-refused`) when it is not a plain file of its own. */
  read(name: string, what: string): Promise<string | undefined>;
  remove(): Promise<void>;
}

export async function openExchange(label: string): Promise<Exchange> {
  const dir = await makePrivateTemp(`${label}-`);
  return {
    dir,
    path: (name) => join(dir, name),
    async write(name, text) {
      const path = join(dir, name);
      // wx: a file (or link) already there is an error, never written through.
      await writeFile(path, text, { flag: 'wx' });
      return path;
    },
    read: (name, what) => readHandedBack(join(dir, name), dir, what),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A file a command wrote, read as data inside `within` (see lib/untrusted-file.ts), its refusal a step failure. */
export async function readHandedBack(path: string, within: string, what: string, maxBytes = MAX_HANDED_BACK): Promise<string | undefined> {
  try {
    return await readUntrusted(path, { within, maxBytes, what });
  } catch (e) {
    if (e instanceof UntrustedFileRefused) throw new ConveyorError('output-refused', e.message);
    throw e;
  }
}
