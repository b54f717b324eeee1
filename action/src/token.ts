// The installation token the step works with. The workflow template passes none: the action
// trades the runner's OIDC token at the app for one scoped to the attempt, renewed while the step
// runs (oidc-token.ts). A repository still on the old template passes one, from the first of: the
// input `token-file` (or CONVEYOR_TOKEN_FILE), the input `token`, CONVEYOR_TOKEN.
//
// Why a file: an action input reaches the step process as an environment variable (INPUT_TOKEN),
// and a process's environment stays readable in /proc/<pid>/environ to every process of the same
// user for as long as it lives, agents included. A token read from a file and deleted at once is
// only in this process's memory, which on GitHub's runners other processes may not read (ptrace
// rules). The workflow template writes the file (workflows/conveyor.yml).
import { readFileSync, unlinkSync } from 'node:fs';
import { ConveyorError } from '../../core/errors.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { appUrlOf, noAppUrl, startTokenSource, type TokenExchangeError } from './oidc-token.ts';
import { refOf } from '../../core/contract/attempt-ref.ts';

export interface TokenInputs {
  env: NodeJS.ProcessEnv;
  /** An action input ('' when absent). */
  getInput(name: string): string;
}

/** The attempt's installation token: given (the old template) or traded for and renewed (the OIDC exchange). */
export interface StepToken {
  /** A token valid for a while yet; rejects once the app refused to renew it. */
  current(): Promise<string>;
  /** Calls `listener` with every token handed out so far and each one after (to mask and scrub it). */
  onToken(listener: (token: string) => void): void;
  close(): void;
}

/** A token that stays as it was given. */
export function fixedToken(token: string): StepToken {
  return { current: async () => token, onToken: (listener) => listener(token), close: () => undefined };
}

/**
 * The step's token: a given one when the old template passes it, else the app's, traded for the
 * runner's OIDC token at the app the workflow names (the input `app-url` or CONVEYOR_PUBLIC_URL,
 * never the payload); undefined where no token is needed (the embedded mode). `payload` is the
 * payload as validated, undefined when it did not validate: then no OIDC token is asked for at
 * all, and the entry reports why. On GitHub (CONVEYOR_CHECK_RUN_ID set) a workflow that names no
 * app fails here, saying how to name it. `stopped`: the app refused a renewal, so the attempt
 * must stop.
 */
export async function obtainToken(
  io: TokenInputs & {
    payload: StepPayload | undefined;
    log(line: string): void;
    stopped(e: TokenExchangeError): void;
  },
): Promise<StepToken | undefined> {
  const given = takeToken(io);
  if (given) return fixedToken(given);
  const p = io.payload;
  if (!p) return undefined;
  const appUrl = appUrlOf(io.env, io.getInput);
  if (!appUrl) {
    if (io.env.CONVEYOR_CHECK_RUN_ID?.trim()) throw noAppUrl();
    return undefined;
  }
  const listeners: Array<(token: string) => void> = [];
  const seen: string[] = [];
  const source = await startTokenSource({
    appUrl,
    attempt: refOf(p),
    onToken: (token) => {
      seen.push(token);
      for (const l of listeners) l(token);
    },
    onStopped: io.stopped,
    log: io.log,
  });
  return {
    current: () => source.current(),
    onToken: (listener) => {
      listeners.push(listener);
      for (const t of seen) listener(t);
    },
    close: () => source.close(),
  };
}

/** Reads the token; a token file is deleted once read (so call this once per step process). */
export function takeToken(io: TokenInputs): string | undefined {
  const file = io.getInput('token-file') || io.env.CONVEYOR_TOKEN_FILE;
  if (file) return takeTokenFile(file);
  return io.getInput('token') || io.env.CONVEYOR_TOKEN || undefined;
}

function takeTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConveyorError(
      'bad-input',
      `the token file ${path} (input \`token-file\`) cannot be read: ${(e as Error).message}; the workflow writes it in the step before this one (see workflows/conveyor.yml)`,
    );
  }
  try {
    unlinkSync(path);
  } catch (e) {
    // Left where agents could read it: better not to run at all.
    throw new ConveyorError(
      'bad-input',
      `the token file ${path} (input \`token-file\`) cannot be deleted after reading (${(e as Error).message}); it must be in a folder this step may write, such as $RUNNER_TEMP`,
    );
  }
  const token = text.trim();
  if (!token || /\s/.test(token)) {
    throw new ConveyorError(
      'bad-input',
      `the token file ${path} (input \`token-file\`) must hold the installation token alone, on one line; it holds ${token ? 'more than one word' : 'nothing'}`,
    );
  }
  return token;
}
