// How a step isolates its commands (lib/sandbox.ts does the isolating): the policy of each kind of
// command, whether a sandbox can be made on this runner and what the pipeline's `sandbox` says
// when it cannot, and what the sandbox blocked, for the step's log, summary and result.
import { code } from '../../core/text.ts';
import { homedir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { ConveyorError } from '../../core/errors.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import { isPresetSetup, PRESETS, presetSetup, type PresetName } from '../../core/config/presets.ts';
import type { SandboxReport, StepPayload, StepResult } from '../../core/contract/wire.ts';
import { detectSandbox, type Blocked, type NetworkPolicy, type SandboxAvailability, type SandboxPolicy } from '../../lib/sandbox.ts';
import type { Workspace, WorkspaceRepo } from './workspace.ts';

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
 * The package managers' caches, each a folder of a command's private HOME kept between commands
 * (and, on a runner that stays, between steps and runs) under the cache folder: so `npm ci` stays
 * fast across attempts. Gates, deploys and services' setups share one set (caches()); package
 * managers check what they take from it, but it is still a folder code an agent wrote puts files
 * in, so an agent's setup has a set of its own (agentSetupIsolation).
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

/** The caches of CACHES under `root`. */
function cachesIn(root: string): Record<string, string> {
  return Object.fromEntries(Object.entries(CACHES).map(([inHome, name]) => [inHome, join(root, name)]));
}

function caches(env: NodeJS.ProcessEnv): Record<string, string> {
  return cachesIn(cacheRoot(env));
}

/** The folder of the agents' install folders (installDir), each on its own agent's PATH alone. */
export function toolsDir(env: NodeJS.ProcessEnv): string {
  return join(cacheRoot(env), 'tools');
}

/** What names a workspace's primary repository. */
type Repos = { repos: readonly Pick<WorkspaceRepo, 'repo' | 'role'>[] };

/** A name as one folder's name. */
const safe = (t: string) => t.replace(/[^A-Za-z0-9._-]/g, '_');

/** The primary repository as a folder name (`owner__name`): what keeps its agents' folders apart from another repository's on a runner that stays. */
function repoFolder(ws: Repos): string {
  const repo = ws.repos.find((r) => r.role === 'primary')?.repo ?? ws.repos[0]?.repo ?? 'workspace';
  return safe(repo.replace('/', '__'));
}

/** The agent's setup is its preset's own install of its pinned version (or it has none), not a command of the team's. */
function installsItsPreset(agent: Pick<ResolvedAgent, 'preset' | 'version' | 'setup'>): agent is typeof agent & { preset: PresetName; version: string } {
  if (!agent.preset || agent.version === undefined) return false;
  return agent.setup === undefined || isPresetSetup(PRESETS[agent.preset], agent.version, agent.setup);
}

/**
 * The one folder an agent's setup writes (npm's and pipx's prefix; its `bin` is on that agent's
 * PATH alone). A preset's own install goes to `<preset>-<version>`: every agent of that preset
 * and version runs the same pinned install there, and GitHub's cache of it goes by that name
 * (workflows/conveyor.yml). Any other setup, a preset's agent's own included, goes to
 * `custom/<owner>__<repo>/<agent>`: what it installs is not the pinned CLI, so no agent of the
 * preset may find it in the preset's folder, and no other agent (nor another repository's agent
 * of that name on a runner that stays) finds it at all.
 */
export function installDir(env: NodeJS.ProcessEnv, ws: Repos, agent: Pick<ResolvedAgent, 'name' | 'preset' | 'version' | 'setup'>): string {
  if (installsItsPreset(agent)) return join(toolsDir(env), `${agent.preset}-${agent.version}`);
  return join(toolsDir(env), 'custom', repoFolder(ws), safe(agent.name));
}

/**
 * What an agent's setup runs: its own, or for a preset's own install the one this action writes
 * (a plan compiled before it looked in the install folder still says `command -v`, which a stale
 * CLI elsewhere on PATH would satisfy).
 */
export function setupCommand(agent: Pick<ResolvedAgent, 'preset' | 'version' | 'setup'>): string | undefined {
  if (agent.setup !== undefined && installsItsPreset(agent)) return presetSetup(PRESETS[agent.preset], agent.version);
  return agent.setup;
}

/** The variables that point an agent's setup at its install folder: npm's and pipx's prefix, and CONVEYOR_INSTALL_DIR. */
export function installVariables(install: string): Record<string, string> {
  return { CONVEYOR_INSTALL_DIR: install, npm_config_prefix: install, PIPX_HOME: join(install, 'pipx'), PIPX_BIN_DIR: join(install, 'bin') };
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
  const root = join(cacheRoot(env), 'agents', repoFolder(ws), safe(agent.name));
  const folders = ['.cache', ...(agent.preset ? PRESETS[agent.preset].homeCaches : [])];
  return Object.fromEntries(folders.map((f) => [f, join(root, safe(f.replace(/^\./, '').replaceAll('/', '-')))]));
}

/**
 * An agent's setup (installing its CLI): a command of the pipeline's author, not of the agent, but
 * one whose install the agent then runs, so nothing an agent produced may steer it. It runs in its
 * install folder and writes only that folder and package caches of its own (under `setups/`, as
 * the folder is under `tools/`): not the workspace, not another agent's install folder, not the
 * caches gates share (which code an agent wrote fills). The workspace and the checkouts' git
 * folders are not there for it at all: no `.npmrc`, `pip.conf` or module an agent or a gate left
 * there is read (npm reads a project's config from where it runs, `python -m` imports from there).
 * Its HOME is private and new (lib/sandbox.ts), so no user config but the one it writes itself.
 */
export function agentSetupIsolation(ws: Pick<Workspace, 'root' | 'gitRoot'>, install: string, env: NodeJS.ProcessEnv): Isolation {
  const tools = toolsDir(env);
  const rel = relative(tools, install);
  if (!rel || rel.startsWith('..') || isAbsolute(rel))
    throw new ConveyorError('internal', `an agent's install folder ${install} is not inside the tools folder ${tools}`);
  return { policy: { network: 'open', writable: [install], hidden: [ws.root, ws.gitRoot], caches: cachesIn(join(cacheRoot(env), 'setups', rel)) } };
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
