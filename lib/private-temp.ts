// Conveyor's own temporary folders (workspaces and their git folders, the files handed to and from
// commands, the sandboxes' HOMEs and /tmps, git's scratch) all live in one folder of the temp
// folder, this user's alone, which every sandbox hides: a command sees none of another command's
// or attempt's files, only what its own sandbox binds back.
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConveyorError } from '../core/errors.ts';

const checked = new Set<string>();

/** The folder (created 0700 on first use), refused when it is not a folder of this user's alone (another user could have made it first, or a link). */
export function privateTemp(): string {
  return ownFolder(join(realpathSync(tmpdir()), `conveyor-${process.getuid?.() ?? 'user'}`));
}

/**
 * A folder for unix sockets: a socket's path may hold at most 107 bytes, which a deep temp folder
 * leaves no room for; then the folder is in /tmp (every sandbox has a /tmp of its own, so it is
 * hidden there too).
 */
export function socketFolder(): string {
  const own = privateTemp();
  return own.length <= 60 ? own : ownFolder(join('/tmp', `conveyor-${process.getuid?.() ?? 'user'}-sockets`));
}

function ownFolder(path: string): string {
  if (checked.has(path)) return path;
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const info = lstatSync(path);
  const mine = process.getuid === undefined || info.uid === process.getuid();
  if (!info.isDirectory() || info.isSymbolicLink() || !mine || (info.mode & 0o077) !== 0) {
    throw new ConveyorError(
      'internal',
      `${path} is not a folder of this user's alone (a link, someone else's, or open to others); remove it, or set TMPDIR to a folder of your own`,
    );
  }
  checked.add(path);
  return path;
}

/** A new folder of Conveyor's own, named `<prefix>XXXXXX`. */
export function makePrivateTemp(prefix: string): Promise<string> {
  return mkdtemp(join(privateTemp(), prefix));
}
