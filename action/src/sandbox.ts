// How a step isolates its commands (lib/sandbox.ts does the isolating): the policy of each kind of
// command, whether a sandbox can be made on this runner and what the pipeline's `sandbox` says
// when it cannot, and what the sandbox blocked, for the step's log, summary and result.
import { code } from '../../core/text.ts';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConveyorError } from '../../core/errors.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import { PRESETS } from '../../core/config/presets.ts';
import type { SandboxReport, StepPayload, StepResult } from '../../core/contract/wire.ts';
import { detectSandbox, type Blocked, type NetworkPolicy, type SandboxAvailability, type SandboxPolicy } from '../../lib/sandbox.ts';
import type { Workspace } from './workspace.ts';

export interface StepSandbox {
  availability: SandboxAvailability;
  /** The pipeline's `sandbox: required`. */
  required: boolean;
  /** A command of the step ran (so the step reports how it was isolated). */
  used: boolean;
  /** The step said, once, that it runs without a sandbox. */
  warned: boolean;
  blocked: Map<string, Blocked>;
}

/** How one command is isolated. */
export interface Isolation {
  policy: SandboxPolicy;
  /** A deploy: what it leaves running is its environment, ended by its teardown. */
  keep?: boolean;
}

export function createStepSandbox(env: NodeJS.ProcessEnv, mode: StepPayload['sandbox']): StepSandbox {
  return { availability: detectSandbox(env), required: mode === 'required', used: false, warned: false, blocked: new Map() };
}

/**
 * Caches every command of a kind that installs packages may write, each a folder of its private
 * HOME kept between commands (and, on a runner that stays, between steps and runs) under the
 * cache folder: so `npm ci` stays fast across attempts. Package managers check what they take
 * from their cache; a cache is still a folder code an agent wrote may put files in.
 */
const CACHES: Record<string, string> = {
  '.npm': 'npm',
  '.cache': 'xdg-cache',
  '.local/share/pnpm': 'pnpm',
  '.yarn/berry/cache': 'yarn',
  '.cargo/registry': 'cargo-registry',
  '.m2/repository': 'maven',
  '.gradle/caches': 'gradle',
  'go/pkg/mod': 'go-mod',
};

/** Where caches and installed tools live: CONVEYOR_CACHE_DIR, else the runner's tool cache, else ~/.cache/conveyor. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.CONVEYOR_CACHE_DIR) return env.CONVEYOR_CACHE_DIR;
  if (env.RUNNER_TOOL_CACHE) return join(env.RUNNER_TOOL_CACHE, 'conveyor');
  return join(env.HOME || homedir(), '.cache', 'conveyor');
}

function caches(env: NodeJS.ProcessEnv): Record<string, string> {
  const root = cacheRoot(env);
  return Object.fromEntries(Object.entries(CACHES).map(([inHome, name]) => [inHome, join(root, name)]));
}

/** The folder agents' CLIs are installed into by their setups (npm's and pipx's prefix), on every agent's PATH. */
export function toolsDir(env: NodeJS.ProcessEnv): string {
  return join(cacheRoot(env), 'tools');
}

/**
 * Where an agent's setup installs: for a preset, a folder of its preset and pinned version (the
 * key GitHub's cache of it goes by, workflows/conveyor.yml), else the shared tools folder.
 */
export function installDir(env: NodeJS.ProcessEnv, agent: Pick<ResolvedAgent, 'preset' | 'version'>): string {
  const tools = toolsDir(env);
  if (!agent.preset || agent.version === undefined) return tools;
  return join(tools, `${agent.preset}-${agent.version}`);
}

/** The checkouts' git folders: every command reads them (an agent's own `git diff`), none writes them. */
function gitFolders(ws: Workspace): string[] {
  return [ws.gitRoot];
}

/**
 * An agent writes only in the workspace and the folder it hands files back in, and reaches only its
 * allowed hosts, and its key forwarder when it has one (`route`: the bridge, its CLI's settings in its HOME).
 */
export function agentIsolation(
  ws: Workspace,
  agent: ResolvedAgent,
  exchange: string,
  env: NodeJS.ProcessEnv,
  route: Pick<SandboxPolicy, 'homeFiles' | 'homeVariables' | 'bridges'> = {},
): Isolation {
  return {
    policy: {
      network: { allow: agent.network?.allow ?? [] },
      writable: [ws.root, exchange],
      readOnly: gitFolders(ws),
      caches: agentCaches(env, ws, agent),
      ...route,
    },
  };
}

/**
 * The folders of an agent's private HOME kept between its runs: `.cache` (where Copilot CLI
 * unpacks its 235 MB) and what else its preset's CLI unpacks there, so it unpacks once. The agent writes them, so each is
 * its own, by primary repository and agent name: no other agent (a reviewer judging its work)
 * and no other repository's agent on a runner that stays reads what it left.
 */
export function agentCaches(env: NodeJS.ProcessEnv, ws: Workspace, agent: ResolvedAgent): Record<string, string> {
  const safe = (t: string) => t.replace(/[^A-Za-z0-9._-]/g, '_');
  const repo = ws.repos.find((r) => r.role === 'primary')?.repo ?? ws.repos[0]?.repo ?? 'workspace';
  const root = join(cacheRoot(env), 'agents', safe(repo.replace('/', '__')), safe(agent.name));
  const folders = ['.cache', ...(agent.preset ? PRESETS[agent.preset].homeCaches : [])];
  return Object.fromEntries(folders.map((f) => [f, join(root, safe(f.replace(/^\./, '').replaceAll('/', '-')))]));
}

/**
 * An agent's setup (installing its CLI): a command of the pipeline's author, not of the agent; it
 * reaches the network and writes the tools folder (where the CLI goes) and the caches.
 */
export function agentSetupIsolation(ws: Workspace, env: NodeJS.ProcessEnv): Isolation {
  return { policy: { network: 'open', writable: [ws.root, toolsDir(env)], readOnly: gitFolders(ws), caches: caches(env) } };
}

/**
 * A gate, deploy, teardown or setup command of `services`: it writes the workspace, the folders
 * in `also` (what it hands back, a checkout of its own) and the caches, and reaches the services'
 * network: open when any of them leaves `network` out (one command serves them all: a gate in a
 * monorepo), else the hosts any of them allows. Docker only when every one of them asks for it.
 */
export function serviceIsolation(
  payload: StepPayload,
  ws: Workspace,
  services: readonly string[],
  options: { keep?: boolean; also?: readonly string[]; env: NodeJS.ProcessEnv },
): Isolation {
  const policies = services.map((s) => payload.services[s]?.network);
  const network: NetworkPolicy =
    policies.length === 0 || policies.some((p) => !p) ? 'open' : { allow: [...new Set(policies.flatMap((p) => p?.allow ?? []))].sort() };
  const docker = services.length > 0 && services.every((s) => payload.services[s]?.docker === true);
  return {
    policy: {
      network,
      writable: [ws.root, ...(options.also ?? [])],
      readOnly: gitFolders(ws),
      caches: caches(options.env),
      ...(docker ? { docker: true } : {}),
    },
    ...(options.keep ? { keep: true } : {}),
  };
}

/** The line a step without a sandbox says once: what it means and what is still done. */
export function noSandboxNote(reason: string): string {
  return (
    `no sandbox: ${reason}; agents can read this runner's files and reach any host, and commands can read the environment of the processes above them. ` +
    'Processes a command leaves behind are still ended with it (by a mark in their environment), except any started with a cleared environment.'
  );
}

/** Fails the step when the pipeline requires a sandbox this runner cannot make. */
export function requireSandbox(s: StepSandbox): void {
  if (s.required && !s.availability.available) {
    throw new ConveyorError(
      'sandbox-unavailable',
      `the pipeline requires a sandbox (\`sandbox: required\`), and ${s.availability.reason}: install bubblewrap and socat on the runner and let it make user namespaces (the workflow template's first step does both where it can: it needs sudo and apt-get), or set \`sandbox: best-effort\``,
    );
  }
}

export function recordBlocked(s: StepSandbox, blocked: readonly Blocked[]): void {
  for (const b of blocked) {
    const key = `${b.host}:${b.port}`;
    const known = s.blocked.get(key);
    if (known) known.count += b.count;
    else s.blocked.set(key, { ...b });
  }
}

/** A blocked host is whatever a command asked for: it is scrubbed like any other text from a command. */
export function sandboxReport(s: StepSandbox, scrub: (text: string) => string = (t) => t): SandboxReport {
  return {
    mode: s.availability.available ? 'bubblewrap' : 'none',
    ...(!s.availability.available ? { reason: s.availability.reason } : {}),
    blocked: [...s.blocked.values()].map((b) => ({ ...b, host: scrub(b.host) })),
  };
}

/** The step's result with how its commands were isolated, in its `sandbox` field and its summary. */
export function withSandboxReport(result: StepResult, s: StepSandbox, scrub?: (text: string) => string, docker: readonly string[] = []): StepResult {
  if (!s.used) return result;
  const report = sandboxReport(s, scrub);
  const lines: string[] = [
    s.availability.available
      ? "Every command ran in bubblewrap: its own PID namespace, a read-only file system but for its workspace, a private HOME and /tmp, the runner's secrets and host sockets hidden."
      : `**${noSandboxNote(s.availability.reason)}**`,
  ];
  // The one wall a pipeline author takes down themselves: said where people look, not only in the plan.
  if (s.availability.available && docker.length)
    lines.push(
      `The commands of ${docker.map((d) => code(d)).join(', ')} may reach the runner's Docker daemon (\`docker: true\`), which is root on the runner.`,
    );
  if (report.blocked.length) {
    lines.push(
      `The sandbox blocked ${report.blocked.length === 1 ? 'a connection' : 'connections'} to hosts not in \`network.allow\`:`,
      ['| host | port | attempts |', '| --- | --- | --- |', ...report.blocked.map((b) => `| ${code(b.host, { table: true })} | ${b.port} | ${b.count} |`)].join(
        '\n',
      ),
    );
  }
  const summary = [result.summary, '### Sandbox', ...lines].join('\n\n');
  return { ...result, summary, sandbox: report };
}
