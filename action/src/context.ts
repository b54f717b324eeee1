// What a step needs from its surroundings, gathered once by the entry: the runner's environment,
// the token, the server, the forge, a log, and the scale of a "minute" (tests shrink it so a
// timeout can be exercised without waiting minutes).
import type { StepToken } from './token.ts';
import { rm } from 'node:fs/promises';
import { ConveyorError } from '../../core/errors.ts';
import { isGitHubTokenName } from '../../core/config/secret-names.ts';
import type { PayloadRepo } from '../../core/contract/wire.ts';
import type { Forge } from '../../engine/ports/forge.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { latestChange } from '../../lib/activity.ts';
import { runIsolated, type IsolatedResult } from '../../lib/sandbox.ts';
import { Scrubber, commandEnvironment } from '../../lib/secrets.ts';
import { createStepSandbox, noSandboxNote, recordBlocked, requireSandbox, type Isolation, type StepSandbox } from './sandbox.ts';
import { checkServerUrl, prepareWorkspace, type PrepareMode, type PrepareOptions, type Workspace, type WorkspaceContext } from './workspace.ts';
import { UsageMeter } from './usage.ts';
import { actionLogger, coreSink, type LogSink } from './log.ts';
import type { Logger } from '../../lib/logger.ts';

export interface StepContext {
  /** The runner's environment as the process got it (secrets included: never pass it on). */
  env: NodeJS.ProcessEnv;
  token?: StepToken;
  serverUrl: string;
  scrubber: Scrubber;
  /** The forge of the server, created on first use. */
  forge(): Promise<Forge>;
  /** The step's logger: `conveyor: message (fields)`, scrubbed before it is written. */
  log: Logger;
  /** A line on the step's log as it is (a command's output, a workflow command), scrubbed before it is written. */
  write(line: string): void;
  /** Milliseconds per configured minute: 60000 except in tests. */
  minuteMs: number;
  killGraceMs?: number;
  /** CONVEYOR_WORKSPACE_ROOT, when given: the folder that receives the repository folders. */
  workspaceRoot?: string;
  /** How the step's commands are isolated, and what was blocked. */
  sandbox: StepSandbox;
  /** Variables passed only by name (the `secrets` of the payload's agents and services): no command gets them otherwise. */
  byName: ReadonlySet<string>;
  /** A section of the log (a foldable group on GitHub) around `run`. */
  group<T>(title: string, run: () => Promise<T>): Promise<T>;
  /** What the attempt's agent runs used, summed into its result. */
  usage: UsageMeter;
  /** Waits `ms` (a backoff before an agent runs again); tests give one that does not wait. */
  sleep(ms: number): Promise<void>;
}

/** GitHub when the server is http(s), the local forge when it is a file:// folder of bare repositories. */
async function forgeFor(serverUrl: string, token: StepToken | undefined, env: NodeJS.ProcessEnv, log: Logger): Promise<Forge> {
  const url = new URL(checkServerUrl(serverUrl));
  if (url.protocol === 'file:') {
    const { LocalForge } = await import('../../adapters/forge/local.ts');
    return LocalForge.open(decodeURIComponent(url.pathname));
  }
  if (!token)
    throw new ConveyorError(
      'bad-input',
      `no token to reach ${serverUrl}: name the Conveyor app (CONVEYOR_PUBLIC_URL, or the action input \`app-url\`), where the action trades the runner's OIDC token for one (see workflows/conveyor.yml), or give the action input \`token\``,
    );
  const [{ GitHubForge }, { octokitLog }] = await Promise.all([import('../../adapters/github/forge/forge.ts'), import('../../adapters/github/octokit.ts')]);
  return new GitHubForge({ token: () => token.current(), baseUrl: env.GITHUB_API_URL || 'https://api.github.com', log: octokitLog(log) });
}

export function createContext(options: {
  env: NodeJS.ProcessEnv;
  token?: StepToken;
  /** Where the step's lines go, scrubbed (default: @actions/core, at each line's level). */
  log?: LogSink;
  minuteMs?: number;
  killGraceMs?: number;
  /** The pipeline's `sandbox` (the payload's). */
  sandbox?: StepPayload['sandbox'];
  /** The entry's scrubber, which already masks the values of `byName`. */
  scrubber?: Scrubber;
  byName?: ReadonlySet<string>;
  sleep?: (ms: number) => Promise<void>;
}): StepContext {
  const { env, token } = options;
  const scrubber = options.scrubber ?? Scrubber.fromEnvironment(env, undefined);
  token?.onToken((t) => scrubber.add(t));
  const serverUrl = env.GITHUB_SERVER_URL || 'https://github.com';
  const sink = options.log ?? coreSink(env);
  let forge: Promise<Forge> | undefined;
  const scrub = (t: string) => scrubber.scrub(t);
  const log = actionLogger(sink, scrub);
  const write = (line: string) => sink(scrub(line), 'info');
  return {
    env,
    ...(token ? { token } : {}),
    serverUrl,
    scrubber,
    forge: () => (forge ??= forgeFor(serverUrl, token, env, log)),
    log,
    write,
    minuteMs: options.minuteMs ?? 60_000,
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    ...(env.CONVEYOR_WORKSPACE_ROOT ? { workspaceRoot: env.CONVEYOR_WORKSPACE_ROOT } : {}),
    sandbox: createStepSandbox(env, options.sandbox),
    byName: options.byName ?? new Set(),
    usage: new UsageMeter(),
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    async group(title, run) {
      // GitHub folds the lines between these two workflow commands under the title.
      const github = env.GITHUB_ACTIONS === 'true';
      if (github) write(`::group::${title}`);
      else log.info(title);
      try {
        return await run();
      } finally {
        if (github) write('::endgroup::');
      }
    },
  };
}

/** The secret-free base environment for git and user commands. */
export function safeEnvironment(ctx: StepContext, extra: Record<string, string> = {}): Record<string, string> {
  return commandEnvironment(ctx.env, ctx.scrubber, extra, ctx.byName);
}

/**
 * The values of `names` on this runner, for the one command that lists them (`who`, e.g.
 * `agent "coder"`); names not set here are said in the log. A GitHub token is refused by name and
 * by value (the step's token, a GitHub token variable's value, or any installation token, `ghs_…`):
 * the step fails rather than hand it over.
 */
export function secretsFor(ctx: StepContext, names: readonly string[], who: string): Record<string, string> {
  const tokens = new Set(
    [
      ctx.token,
      ...Object.entries(ctx.env)
        .filter(([k]) => isGitHubTokenName(k))
        .map(([, v]) => v),
    ].filter((v): v is string => Boolean(v)),
  );
  const out: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of names) {
    const value = ctx.env[name];
    const refuse = (why: string) =>
      new ConveyorError(
        'bad-input',
        `${who} lists ${name} in its secrets, and ${why}; Conveyor never gives a command a GitHub token. Give ${name} a credential of its own.`,
      );
    if (isGitHubTokenName(name)) throw refuse(`${name} names a GitHub token`);
    if (!value) {
      missing.push(name);
      continue;
    }
    if (tokens.has(value) || value.startsWith('ghs_')) throw refuse('its value is a GitHub token (an installation or workflow token)');
    out[name] = value;
  }
  const given = Object.keys(out);
  if (given.length || missing.length) {
    ctx.log.info(`${who} gets ${given.length ? given.join(', ') : 'no secret'}${missing.length ? ` (not set on this runner: ${missing.join(', ')})` : ''}`);
  }
  return out;
}

/** What git needs of the step: the server, the token for network commands, a secret-free environment. */
export function workspaceContext(ctx: StepContext): WorkspaceContext {
  return {
    serverUrl: ctx.serverUrl,
    ...(ctx.token ? { token: () => ctx.token!.current() } : {}),
    scrub: (t) => ctx.scrubber.scrub(t),
  };
}

/** Clones the step's repositories into CONVEYOR_WORKSPACE_ROOT when given, else into a new temporary folder. */
export function prepareStepWorkspace(
  ctx: StepContext,
  repos: readonly PayloadRepo[],
  mode: PrepareMode,
  how: { wctx?: WorkspaceContext } & Pick<PrepareOptions, 'fresh' | 'resolveConflicts' | 'endedWork'> = {},
): Promise<Workspace> {
  const { wctx = workspaceContext(ctx), ...rest } = how;
  return prepareWorkspace(wctx, repos, { mode, ...rest, ...(ctx.workspaceRoot ? { root: ctx.workspaceRoot } : {}) });
}

/** Removes a temporary workspace (and its git folders) once the step is done with it; CONVEYOR_WORKSPACE_ROOT is the caller's and stays. */
export async function removeStepWorkspace(ctx: StepContext, ws: Workspace): Promise<void> {
  if (ctx.workspaceRoot) return;
  await Promise.all([rm(ws.root, { recursive: true, force: true }), rm(ws.gitRoot, { recursive: true, force: true })]);
}

/**
 * Runs a user command of the step (agent, gate, deploy, teardown) in its sandbox (`sandbox`: see
 * sandbox.ts) with its timeout in configured minutes, each output line scrubbed and logged after
 * `linePrefix`. Without a sandbox, a pipeline that requires one fails here; otherwise the step says
 * once what running without one means.
 */
export async function runUserCommand(
  ctx: StepContext,
  options: {
    command: string;
    cwd: string;
    env: Record<string, string>;
    timeoutMinutes: number;
    linePrefix?: string;
    sandbox: Isolation;
    /** An agent: stopped when it prints nothing and changes nothing in `watch` for `minutes`. */
    stall?: { minutes: number; watch: string };
    /** Also receives every output line, scrubbed (an agent's transcript). */
    onLine?: (line: string) => void;
    /** See CommandOptions.lineLimit: an agent's JSON events stay whole. */
    lineLimit?: number;
    /** Told of every refusal of its allow-list proxy and every connection it let through (an agent's refusal watch). */
    onRefused?: (host: string, port: number) => void;
    onAllowed?: (host: string, port: number) => void;
    /** Stops it early (see CommandOptions.stop). */
    stop?: AbortSignal;
  },
): Promise<IsolatedResult> {
  const prefix = options.linePrefix ?? '  | ';
  const s = ctx.sandbox;
  requireSandbox(s);
  if (!s.availability.available && !s.warned) {
    s.warned = true;
    ctx.log.warn(noSandboxNote(s.availability.reason));
  }
  s.used = true;
  const result = await runIsolated(s.availability, {
    command: options.command,
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMinutes * ctx.minuteMs,
    ...(ctx.killGraceMs !== undefined ? { killGraceMs: ctx.killGraceMs } : {}),
    scrub: (t) => ctx.scrubber.scrub(t),
    onLine: (line) => {
      ctx.write(`${prefix}${line}`);
      options.onLine?.(line);
    },
    ...(options.lineLimit ? { lineLimit: options.lineLimit } : {}),
    ...(options.onRefused ? { onRefused: options.onRefused } : {}),
    ...(options.onAllowed ? { onAllowed: options.onAllowed } : {}),
    ...(options.stop ? { stop: options.stop } : {}),
    ...(options.stall ? { stall: { ms: options.stall.minutes * ctx.minuteMs, activity: () => latestChange(options.stall!.watch) } } : {}),
    policy: options.sandbox.policy,
    runnerEnv: ctx.env,
    ...(options.sandbox.keep ? { keep: true } : {}),
    onBlocked: (host, port) => ctx.log.warn(`the sandbox blocked a connection to ${host}:${port} (not in network.allow)`, { host, port }),
  });
  recordBlocked(s, result.blocked);
  return result;
}
