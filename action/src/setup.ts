// `setup` of an agent (e.g. installing its CLI) or of a service (e.g. `npm ci` before its gates,
// deploys and teardowns): run before the step's own command, in its own log section and with its
// own timeout. A setup that fails is `setup-failed`, naming the command: the step's own command
// never ran, so nothing about the work was judged, and no repair is spent on it.
import { code } from '../../core/text.ts';
import { DEFAULT_SETUP_TIMEOUT_MINUTES } from '../../core/config/defaults.ts';
import { ConveyorError } from '../../core/errors.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { identityVariables } from './variables.ts';
import { runUserCommand, safeEnvironment, type StepContext } from './context.ts';
import type { Isolation } from './sandbox.ts';
import { tail } from './summary.ts';

export interface Setup {
  /** Whose setup, for people: `agent "coder"`, `service "web"`. */
  who: string;
  command: string;
  timeoutMinutes: number | undefined;
  cwd: string;
  /** The workspace root (CONVEYOR_WORKSPACE), for a setup that works in it: not an agent's, which never sees it. */
  workspace?: string;
  isolation: Isolation;
  /** Variables of the command it prepares (CONVEYOR_REPO, CONVEYOR_SERVICE). */
  extra?: Record<string, string>;
}

/** Runs one setup; a failure says why, in words for the step's error (undefined when it passed). */
export async function trySetup(ctx: StepContext, payload: StepPayload, setup: Setup): Promise<string | undefined> {
  const minutes = setup.timeoutMinutes ?? DEFAULT_SETUP_TIMEOUT_MINUTES;
  const env = safeEnvironment(ctx, {
    ...identityVariables(payload),
    ...(setup.workspace !== undefined ? { CONVEYOR_WORKSPACE: setup.workspace } : {}),
    ...(setup.extra ?? {}),
  });
  const r = await ctx.group(`setup of ${setup.who} in ${setup.cwd}: ${setup.command}`, () =>
    runUserCommand(ctx, { command: setup.command, cwd: setup.cwd, env, timeoutMinutes: minutes, linePrefix: '  setup | ', sandbox: setup.isolation }),
  );
  if (r.exitCode === 0 && !r.timedOut) return undefined;
  const how = r.timedOut ? `ran out of its ${minutes} minute(s) (setup-timeout-minutes) and was stopped` : `exited with ${r.exitCode ?? r.signal}`;
  const last = tail(r.output, 5, 800);
  return `the setup of ${setup.who}, ${code(setup.command.split('\n')[0] ?? '')}, ${how}${last ? ` (last lines: ${JSON.stringify(last)})` : ''}`;
}

/** Runs one setup and fails the step (`setup-failed`) when it fails. */
export async function runSetup(ctx: StepContext, payload: StepPayload, setup: Setup): Promise<void> {
  const failed = await trySetup(ctx, payload, setup);
  if (failed) throw new ConveyorError('setup-failed', `${failed}; the step's own command did not run`);
}
