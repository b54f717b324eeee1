// The installation token the step works with. The workflow template passes none: the action
// trades the runner's OIDC token at the app for one scoped to the attempt, renewed while the step
// runs (oidc-token.ts). The input `token` gives one instead, to run the action outside the app's
// dispatches (Conveyor's tests run it so against a stand-in GitHub). As an input it is in the step
// process's environment (INPUT_TOKEN): never in a command's own, but readable in /proc by a
// command that runs without the sandbox (which hides the processes above a command).
import type { StepPayload } from '../../core/contract/wire.ts';
import { appUrlOf, noAppUrl, startTokenSource, type TokenExchangeError } from './oidc-token.ts';
import { refOf } from '../../core/contract/attempt-ref.ts';
import type { Logger } from '../../lib/logger.ts';

export interface TokenInputs {
  env: NodeJS.ProcessEnv;
  /** An action input ('' when absent). */
  getInput(name: string): string;
}

/** The attempt's installation token: given (the input `token`) or traded for and renewed (the OIDC exchange). */
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
 * The step's token: the input `token` when given, else the app's, traded for the runner's OIDC
 * token at the app the workflow names (the input `app-url` or CONVEYOR_PUBLIC_URL, never the
 * payload); undefined where no token is needed (the embedded mode). `payload` is the
 * payload as validated, undefined when it did not validate: then no OIDC token is asked for at
 * all, and the entry reports why. On GitHub (CONVEYOR_CHECK_RUN_ID set) a workflow that names no
 * app fails here, saying how to name it. `stopped`: the app refused a renewal, so the attempt
 * must stop.
 */
export async function obtainToken(
  io: TokenInputs & {
    payload: StepPayload | undefined;
    log: Logger;
    stopped(e: TokenExchangeError): void;
  },
): Promise<StepToken | undefined> {
  const given = io.getInput('token').trim();
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
