// Runs a user command (agent, gate, deploy, teardown, setup) inside bubblewrap. Every kind gets the
// same walls; they differ only in the folders they may write and the network they reach:
//  - its own PID namespace with a fresh /proc: no other process is visible, so no ancestor's
//    environment or memory can be read; when the command ends, bwrap ends and the namespace dies
//    with every process in it, however it detached (`--die-with-parent` on bwrap's init);
//  - the file system read-only except the folders its policy names (the workspace, the files it
//    hands back, caches), a private HOME and a private /tmp; the runner's secrets covered
//    (lib/sandbox/hidden.ts), and any folder its policy hides (an agent's setup: the workspace);
//    folders it must read but never change (the checkouts' git folders) bound read-only;
//  - no host sockets: /run and /var/run hidden (a Docker daemon's socket is root on the runner),
//    /tmp its own, and every other listening unix socket of the host covered, unless its service
//    asks for Docker; a socket the command makes itself, in its own folders, works;
//  - the host's network (`open`), or none but an HTTP(S) proxy that lets through only the allowed
//    hosts (`{ allow }`): a unix socket bound into the sandbox, which socat inside turns into
//    127.0.0.1:PROXY_PORT, served by lib/sandbox/proxy.ts in the step process.
// Where bubblewrap cannot run, the command runs as before, marked: when it ends, every process
// still carrying its mark is killed, so nothing it started outlives it (lib/process.ts killMarked).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import { killMarked, runCommand, type CommandOptions, type CommandResult } from './process.ts';
import { hiddenPlaces, isInside, type HiddenPlaces } from './sandbox/hidden.ts';
import { homeVariables, seedHome } from './sandbox/home.ts';
import { startProxy, type Blocked, type Proxy } from './sandbox/proxy.ts';
import { privateTemp, socketFolder } from './private-temp.ts';
import { which } from './which.ts';

export type { Blocked } from './sandbox/proxy.ts';
export { hostAllowed } from '../core/hosts.ts';

export type NetworkPolicy = 'open' | { allow: string[] };

export interface SandboxPolicy {
  network: NetworkPolicy;
  /** Folders the command may write (its workspace, the files it hands back): everything else it sees is read-only. */
  writable: readonly string[];
  /** Folders it may read though they lie where it sees nothing else (the checkouts' git folders): never written. */
  readOnly?: readonly string[];
  /** Folders it must not see at all, each covered by an empty folder (an agent's setup: the workspace, whose files an agent wrote). */
  hidden?: readonly string[];
  /** Folders of its private HOME (relative paths) that outlive it, each bound to a host folder: package managers' caches. */
  caches?: Readonly<Record<string, string>>;
  /** The host's Docker socket stays reachable: a service that says `docker: true` (Docker is root on the runner). */
  docker?: boolean;
  /**
   * Files written into its private HOME before it starts (a path relative to HOME, and the text):
   * the settings a CLI reads from there. Folders are made 0700 and files 0600, HOME itself 0700
   * (a CLI may refuse settings others could write).
   */
  homeFiles?: Readonly<Record<string, string>>;
  /** Variables set to a folder of its private HOME (a path relative to HOME, `.` for HOME itself), e.g. CODEX_HOME. */
  homeVariables?: Readonly<Record<string, string>>;
  /**
   * Services of the step process the command reaches at 127.0.0.1:<port> inside its sandbox, each
   * a unix socket outside it bridged by socat (the key forwarder, lib/sandbox/forwarder.ts). Only
   * with an allow-list network: the command's loopback is then its own.
   */
  bridges?: ReadonlyArray<{ port: number; socket: string }>;
}

export type SandboxAvailability = { available: true; bwrap: string; socat: string; bash: string } | { available: false; reason: string };

/** The variable that marks every process a command starts (see killMarked). */
export const MARK_VARIABLE = 'CONVEYOR_PROCESS_MARK';
/** Where the proxy is reached inside the sandbox. */
export const PROXY_PORT = 3128;
/** Where the key forwarder of an agent is reached inside its sandbox. */
export const FORWARDER_PORT = 3129;

export { which } from './which.ts';

const probed = new Map<string, SandboxAvailability>();

/**
 * Whether a sandbox can be made with the PATH of `env`: bwrap and socat on it, and a trial
 * sandbox with the namespaces we use runs (it does not where user namespaces are off for a
 * non-root user, where AppArmor restricts them as on Ubuntu 24.04, or in a container that forbids
 * mounts). Probed once per PATH.
 */
export function detectSandbox(env: NodeJS.ProcessEnv): SandboxAvailability {
  const key = env.PATH ?? '';
  const known = probed.get(key);
  if (known) return known;
  const found = probe(env);
  probed.set(key, found);
  return found;
}

function probe(env: NodeJS.ProcessEnv): SandboxAvailability {
  if (process.platform !== 'linux') return { available: false, reason: `bubblewrap runs on Linux only, and this runner is ${process.platform}` };
  const bwrap = which('bwrap', env.PATH);
  if (!bwrap) return { available: false, reason: 'bubblewrap (bwrap) is not installed on this runner' };
  const socat = which('socat', env.PATH);
  if (!socat) return { available: false, reason: 'socat, which the sandbox needs for its network proxy, is not installed on this runner' };
  const bash = which('bash', env.PATH) ?? '/bin/bash';
  const trial = spawnSync(
    bwrap,
    ['--unshare-pid', '--unshare-net', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', bash, '-c', 'true'],
    {
      env: { PATH: env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  if (trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit ${trial.status ?? trial.signal}`).trim().split('\n')[0];
    const apparmor = /setting up uid map|Permission denied/.test(why ?? '') && restrictedUserNamespaces();
    return {
      available: false,
      reason: `bubblewrap cannot make a sandbox on this runner (${why})${apparmor ? '; AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1): the workflow template lifts that for the job' : ''}`,
    };
  }
  return { available: true, bwrap, socat, bash };
}

function restrictedUserNamespaces(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/apparmor_restrict_unprivileged_userns', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** The sandboxes' private folders live among Conveyor's own temporary folders, which every sandbox hides. */
function privateBase(): string {
  const base = join(privateTemp(), 'sandboxes');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  return base;
}

/** The private folders (HOME, /tmp) of the command marked `mark`: named by its mark, so that its teardown finds a kept deploy's. */
function privateDir(mark: string): string {
  return join(privateBase(), `cmd-${mark}`);
}

export interface IsolatedOptions extends Omit<CommandOptions, 'argv'> {
  policy: SandboxPolicy;
  /** The step process's environment, to find what to hide (default: this process's). */
  runnerEnv?: NodeJS.ProcessEnv;
  /**
   * A deploy's processes outlive it: what it leaves running is its environment, which its
   * teardown ends (endMarked with the mark it returns). Everything else ends with the command.
   */
  keep?: boolean;
  /** Told once per refused host and port, as it happens. */
  onBlocked?: (host: string, port: number) => void;
  /** Told of every refusal, and of every connection let through (an allow-list only). */
  onRefused?: (host: string, port: number) => void;
  onAllowed?: (host: string, port: number) => void;
}

export interface IsolatedResult extends CommandResult {
  sandbox: 'bubblewrap' | 'none';
  /** Connections the proxy refused (an allow-list only). */
  blocked: Blocked[];
  /** The mark every process of the command carries (MARK_VARIABLE). */
  mark: string;
}

/** Runs the command in a sandbox when one is available, else as before, marked; see the top of this file. */
export async function runIsolated(sandbox: SandboxAvailability, options: IsolatedOptions): Promise<IsolatedResult> {
  const mark = randomUUID();
  const env = { ...options.env, [MARK_VARIABLE]: mark };
  const bridges = options.policy.bridges ?? [];
  if (bridges.length && options.policy.network === 'open') {
    throw new ConveyorError('internal', "a bridge into the sandbox needs an allow-list network: with the host's, its port would be the host's");
  }
  if (!sandbox.available) return runUnsandboxed(options, env, mark);
  const dir = privateDir(mark);
  let proxy: Proxy | undefined;
  try {
    await mkdir(dir, { mode: 0o700 });
    const allow = options.policy.network === 'open' ? undefined : options.policy.network.allow;
    // Short: a unix socket's path holds at most 107 bytes.
    const socket = join(socketFolder(), `${mark.slice(0, 13)}.sock`);
    if (allow) {
      const { onBlocked, onRefused, onAllowed } = options;
      proxy = await startProxy({
        socketPath: socket,
        allow,
        ...(onBlocked ? { onBlocked } : {}),
        ...(onRefused ? { onRefused } : {}),
        ...(onAllowed ? { onAllowed } : {}),
      });
    }
    const home = join(dir, 'home');
    const tmp = join(dir, 'tmp');
    await Promise.all([mkdir(home, { mode: 0o700 }), mkdir(tmp)]);
    await seedHome(home, options.policy);
    for (const host of Object.values(options.policy.caches ?? {})) await mkdir(host, { recursive: true });
    const inner: Record<string, string> = {
      ...privateEnvironment(env, home),
      ...homeVariables(home, options.policy),
      ...(allow ? proxyVariables(bridges.length > 0) : {}),
    };
    const runnerEnv = options.runnerEnv ?? process.env;
    const argv = bwrapArgv(sandbox, {
      command: options.command,
      cwd: options.cwd,
      policy: options.policy,
      hidden: hiddenPlaces(runnerEnv),
      home,
      tmp,
      socket: allow ? socket : undefined,
      bridges,
      keep: Boolean(options.keep),
      dockerHost: runnerEnv.DOCKER_HOST,
    });
    // A leftover of a kept deploy holds bwrap's output open; what the command wrote before it ended is in already.
    const result = await runCommand({ ...options, env: inner, argv, ...(options.keep ? { keepGroup: true, drainMs: 250 } : {}) });
    if (!options.keep) killMarked(MARK_VARIABLE, mark);
    return { ...result, sandbox: 'bubblewrap', blocked: proxy?.blocked() ?? [], mark };
  } finally {
    await proxy?.close();
    // A kept deploy lives on in its HOME and /tmp: they go with its environment (endMarked).
    if (!options.keep) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Without a sandbox the command keeps the runner's HOME, except when files must be seeded into one
 * (a CLI's settings): never into the runner's own, so it gets a private HOME (0700) for this
 * command, removed after it.
 */
async function runUnsandboxed(options: IsolatedOptions, env: Record<string, string>, mark: string): Promise<IsolatedResult> {
  const seeded = Object.keys(options.policy.homeFiles ?? {}).length > 0 || Object.keys(options.policy.homeVariables ?? {}).length > 0;
  const dir = privateDir(mark);
  try {
    let withHome = env;
    if (seeded) {
      const home = join(dir, 'home');
      await mkdir(dir, { mode: 0o700 });
      await mkdir(home, { mode: 0o700 });
      await seedHome(home, options.policy);
      withHome = { ...env, HOME: home, ...homeVariables(home, options.policy) };
    }
    const result = await runCommand({ ...options, env: withHome, ...(options.keep ? { keepGroup: true, drainMs: 250 } : {}) });
    if (!options.keep) killMarked(MARK_VARIABLE, mark);
    return { ...result, sandbox: 'none', blocked: [], mark };
  } finally {
    if (seeded && !options.keep) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The command's environment inside: its own HOME and /tmp, and the variables tools read for their
 * homes and caches pointed inside it (a runner's XDG_CACHE_HOME or npm cache would name a folder
 * the command cannot write). A toolchain manager's home the runner installed (rustup's) stays
 * readable where it is.
 */
function privateEnvironment(env: Record<string, string>, home: string): Record<string, string> {
  const out: Record<string, string> = {
    ...env,
    HOME: home,
    TMPDIR: '/tmp',
    TMP: '/tmp',
    TEMP: '/tmp',
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    npm_config_cache: join(home, '.npm'),
  };
  delete out.XDG_RUNTIME_DIR;
  delete out.NPM_CONFIG_CACHE;
  const realHome = env.HOME;
  if (!out.RUSTUP_HOME && realHome && existsSync(join(realHome, '.rustup'))) out.RUSTUP_HOME = join(realHome, '.rustup');
  return out;
}

/**
 * Every spelling of the proxy variables that HTTP clients read; nothing bypasses it, except, with
 * bridges, the command's own loopback (its network namespace's), where the bridges listen.
 */
function proxyVariables(bridged: boolean): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  const direct = bridged ? '127.0.0.1,localhost,::1' : '';
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: direct, no_proxy: direct };
}

/**
 * The script bwrap runs: start each bridge (the proxy's, the forwarder's) and wait until it
 * listens, run the command, stop the bridges, exit with the command's status. `$1` is the command,
 * then pairs of a port and the socket it leads to (none without a proxy).
 */
const WRAPPER = [
  'command=$1',
  'shift',
  'bridges=',
  'while [ "$#" -ge 2 ]; do',
  '  socat "TCP-LISTEN:$1,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$2" </dev/null >/dev/null 2>&1 &',
  '  bridges="$bridges $!"',
  // Listening shows in /proc/net/tcp as 127.0.0.1:<port in hex> with state 0A; no test connection needed.
  '  hex=$(printf "%04X" "$1")',
  '  for _ in $(seq 1 1000); do grep -q ":$hex 00000000:0000 0A" /proc/net/tcp && break; sleep 0.01; done',
  '  shift 2',
  'done',
  'bash -eo pipefail -c "$command"',
  'status=$?',
  // Word splitting on purpose: one pid per word.
  '[ -z "$bridges" ] || kill $bridges 2>/dev/null',
  'exit $status',
].join('\n');

export interface BwrapPlan {
  command: string;
  cwd: string;
  policy: SandboxPolicy;
  hidden: HiddenPlaces;
  /** The command's private HOME and /tmp (host folders). */
  home: string;
  tmp: string;
  socket: string | undefined;
  /** Further ports bridged to sockets of the step process (only with `socket`: an allow-list network). */
  bridges?: ReadonlyArray<{ port: number; socket: string }>;
  keep: boolean;
  /** The runner's DOCKER_HOST: its socket is the Docker socket a `docker: true` service keeps. */
  dockerHost?: string;
}

/**
 * Whether every sandboxed command sees its own folder at `path` instead of the host's (its own /tmp,
 * an empty /run): a file there, a demo's agent say, is not there for the commands to run.
 */
export function replacedInSandbox(path: string): boolean {
  const real = realOrUndefined(path) ?? resolve(path);
  return ['/tmp', ...runFolders()].some((r) => isInside(real, r) || isInside(resolve(path), r));
}

/** `/run` and `/var/run` as real folders (one is usually a link to the other). */
function runFolders(): string[] {
  return [...new Set(['/run', '/var/run'].filter((p) => existsSync(p)).map((p) => realpathSync(p)))];
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The Docker daemon's socket files: the default one and DOCKER_HOST's, where they exist. */
function dockerSockets(dockerHost: string | undefined): string[] {
  const paths = ['/var/run/docker.sock'];
  if (dockerHost?.startsWith('unix://')) paths.push(dockerHost.slice('unix://'.length));
  return [...new Set(paths.flatMap((p) => realOrUndefined(p) ?? []))];
}

/**
 * The host's listening unix sockets with a path (`/proc/net/unix`, the step process's network
 * namespace: the host's), for the sandbox to cover. Sockets bound in another mount namespace may
 * name a path that is not one here: only real socket files count.
 */
export function hostSockets(): string[] {
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  const paths = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const path = fields[7];
    if (!path?.startsWith('/')) continue; // abstract (@name) or unnamed
    try {
      if (lstatSync(path).isSocket()) paths.add(path);
    } catch {
      // gone, or not a path in this mount namespace
    }
  }
  return [...paths];
}

/** The bwrap command line for one command. Order matters: later mounts go on top of earlier ones. */
export function bwrapArgv(sandbox: Extract<SandboxAvailability, { available: true }>, plan: BwrapPlan, sockets: readonly string[] = hostSockets()): string[] {
  const args = [sandbox.bwrap, '--unshare-pid', '--unshare-ipc'];
  // The command's end is the namespace's end, unless a deploy's environment lives on in it.
  if (!plan.keep) args.push('--die-with-parent');
  if (plan.socket) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--tmpfs', '/dev/shm', '--proc', '/proc');
  // Its own /tmp (on disk: a test suite may write gigabytes there), and no /run: the host's
  // services (a Docker daemon is root on the runner) listen there.
  args.push('--bind', plan.tmp, '/tmp');
  const replaced = ['/tmp', ...runFolders()];
  for (const run of runFolders()) args.push('--tmpfs', run);
  // What the host keeps under /run that a command needs: the resolver's configuration (Ubuntu's /etc/resolv.conf is a link there).
  const resolver = realOrUndefined('/etc/resolv.conf');
  if (resolver && replaced.some((r) => isInside(resolver, r) && r !== '/tmp')) args.push('--ro-bind', resolver, resolver);
  const docker = plan.policy.docker ? dockerSockets(plan.dockerHost) : [];
  // The policy's own only where they are there to see: a folder that does not exist, or lies in one
  // already covered, shows nothing anyway (and bwrap could not make its mount point on the read-only root).
  const covering = [...plan.hidden.folders, privateTemp(), socketFolder()];
  const own = (plan.policy.hidden ?? []).filter((f) => existsSync(f) && !covering.some((c) => isInside(f, c)));
  const hide = [...covering, ...own].filter((f) => !replaced.some((r) => isInside(f, r)));
  for (const folder of [...new Set(hide)]) args.push('--tmpfs', folder);
  for (const file of plan.hidden.files) if (!replaced.some((r) => isInside(file, r))) args.push('--ro-bind', '/dev/null', file);
  const writable = [...plan.policy.writable];
  const covered = (p: string) => [...replaced, ...hide, ...writable].some((f) => isInside(p, f));
  for (const socket of sockets) if (!covered(socket) && !docker.includes(socket)) args.push('--ro-bind', '/dev/null', socket);
  // Bound again on top of what hid them (the embedded mode's workspace is inside its hidden state folder; a workspace in /tmp).
  for (const folder of writable) args.push('--bind', folder, folder);
  args.push('--bind', plan.home, plan.home);
  for (const [inHome, host] of Object.entries(plan.policy.caches ?? {})) args.push('--bind', host, join(plan.home, inHome));
  for (const folder of plan.policy.readOnly ?? []) if (existsSync(folder)) args.push('--ro-bind', folder, folder);
  for (const socket of docker) args.push('--bind', socket, socket);
  const bridges = plan.socket ? [{ port: PROXY_PORT, socket: plan.socket }, ...(plan.bridges ?? [])] : [];
  for (const b of bridges) args.push('--ro-bind', b.socket, b.socket);
  args.push('--chdir', plan.cwd, '--', sandbox.bash, '-c', WRAPPER, 'conveyor-sandbox', plan.command, ...bridges.flatMap((b) => [String(b.port), b.socket]));
  return args;
}

/** Ends a kept deploy's environment: its processes, then its private HOME and /tmp. */
export function endMarked(mark: string): number {
  const killed = killMarked(MARK_VARIABLE, mark);
  rmSync(privateDir(mark), { recursive: true, force: true });
  return killed;
}
