// Reading a file a user command wrote (an agent's result or usage, a deploy's output, an author's
// gate file) as data, never as a way to somewhere else: it must be a regular file of its own (not a
// link, not a FIFO or device, not a second name of another file) whose real path lies inside the
// folder it was to be written in, and no bigger than a cap. A command could otherwise point it at a
// secret it cannot read itself (Conveyor reads outside the sandbox) and have it quoted back.
import { constants } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import { isInside } from './sandbox/hidden.ts';

/** Why a file a command wrote was not read. */
export class UntrustedFileRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UntrustedFileRefused';
  }
}

export interface UntrustedRead {
  /** The folder the file must lie in (the workspace, or the folder handed to the command). */
  within: string;
  maxBytes: number;
  /** What it is, for the refusal: `the agent's $CONVEYOR_RESULT_FILE`. */
  what: string;
}

/**
 * The text of the file at `path`, or undefined when there is none. Throws UntrustedFileRefused,
 * saying why, when it is anything but a regular file of its own inside `within` within the cap;
 * nothing of it is read then. The checks are made on the opened file itself (no link followed at
 * the last step, the real path of the open descriptor), so nothing can be swapped in between.
 */
export async function readUntrusted(path: string, options: UntrustedRead): Promise<string | undefined> {
  const refuse = (why: string) => new UntrustedFileRefused(`${options.what} (${path}) ${why}; it was not read`);
  let handle;
  try {
    // O_NONBLOCK: a FIFO with no writer opens at once (and is then refused) instead of hanging.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw refuse('is a symbolic link');
    throw refuse(`cannot be opened (${code ?? (e as Error).message})`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw refuse('is not a regular file');
    if (info.nlink > 1) throw refuse('is a second name (a hard link) of another file');
    const real = await realPathOf(handle.fd, path);
    const root = await realpath(options.within).catch(() => options.within);
    if (!isInside(real, root)) throw refuse(`lies outside ${options.within} (it is ${real})`);
    if (info.size > options.maxBytes) throw refuse(`is ${info.size} bytes, more than the ${options.maxBytes} a file of its kind may have`);
    const buffer = Buffer.alloc(options.maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > options.maxBytes) throw refuse(`grew past the ${options.maxBytes} bytes a file of its kind may have`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Where the open file really is: Linux names it for each descriptor; elsewhere the path resolved. */
async function realPathOf(fd: number, path: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${fd}`);
  } catch {
    return realpath(path);
  }
}
