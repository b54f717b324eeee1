// The installation token the step works with, from the first of: the input `token-file` (or
// CONVEYOR_TOKEN_FILE), the input `token`, CONVEYOR_TOKEN.
//
// Why a file: an action input reaches the step process as an environment variable (INPUT_TOKEN),
// and a process's environment stays readable in /proc/<pid>/environ to every process of the same
// user for as long as it lives, agents included. A token read from a file and deleted at once is
// only in this process's memory, which on GitHub's runners other processes may not read (ptrace
// rules). The workflow template writes the file (workflows/conveyor.yml).
import { readFileSync, unlinkSync } from 'node:fs';
import { ConveyorError } from '../../core/errors.ts';

export interface TokenSource {
  env: NodeJS.ProcessEnv;
  /** An action input ('' when absent). */
  getInput(name: string): string;
}

/** Reads the token; a token file is deleted once read (so call this once per step process). */
export function takeToken(io: TokenSource): string | undefined {
  const file = io.getInput('token-file') || io.env.CONVEYOR_TOKEN_FILE;
  if (file) return takeTokenFile(file);
  return io.getInput('token') || io.env.CONVEYOR_TOKEN || undefined;
}

function takeTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConveyorError('bad-input', `the token file ${path} (input \`token-file\`) cannot be read: ${(e as Error).message}; the workflow writes it in the step before this one (see workflows/conveyor.yml)`);
  }
  try {
    unlinkSync(path);
  } catch (e) {
    // Left where agents could read it: better not to run at all.
    throw new ConveyorError('bad-input', `the token file ${path} (input \`token-file\`) cannot be deleted after reading (${(e as Error).message}); it must be in a folder this step may write, such as $RUNNER_TEMP`);
  }
  const token = text.trim();
  if (!token || /\s/.test(token)) {
    throw new ConveyorError('bad-input', `the token file ${path} (input \`token-file\`) must hold the installation token alone, on one line; it holds ${token ? 'more than one word' : 'nothing'}`);
  }
  return token;
}
