// Runs a user command (agent, gate, deploy, teardown) inside bubblewrap:
//  - its own PID namespace with a fresh /proc: no other process is visible, so no ancestor's
//    environment or memory can be read; when the command ends, bwrap ends and the namespace dies
//    with every process in it, however it detached (`--die-with-parent` on bwrap's init);
//  - the file system read-only except the workspace and a private HOME and TMPDIR (agents), or
//    writable everywhere (gates and deploys, which install packages and keep caches), and in both
//    cases the runner's secrets covered (lib/sandbox/hidden.ts);
//  - the host's network (`open`), or none but an HTTP(S) proxy that lets through only the allowed
//    hosts (`{ allow }`): a unix socket bound into the sandbox, which socat inside turns into
//    127.0.0.1:PROXY_PORT, served by lib/sandbox/proxy.ts in the step process.
// Where bubblewrap cannot run, the command runs as before, marked: when it ends, every process
// still carrying its mark is killed, so nothing it started outlives it (lib/process.ts killMarked).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { killMarked, runCommand, type CommandOptions, type CommandResult } from './process.ts';
import { hiddenPlaces, isInside, type HiddenPlaces } from './sandbox/hidden.ts';
import { startProxy, type Blocked, type Proxy } from './sandbox/proxy.ts';

export type { Blocked } from './sandbox/proxy.ts';
export { hostAllowed } from './sandbox/proxy.ts';

export type NetworkPolicy = 'open' | { allow: string[] };

export interface SandboxPolicy {
  network: NetworkPolicy;
  /**
   * Where the command may write: the listed folders (the workspace) plus a private HOME and
   * TMPDIR, or everywhere but the hidden places (`everywhere`: gates and deploys keep the
   * runner's HOME, its caches and tools).
   */
  writable: readonly string[] | 'everywhere';
}

export type SandboxAvailability = { available: true; bwrap: string; socat: string; bash: string } | { available: false; reason: string };

/** The variable that marks every process a command starts (see killMarked). */
export const MARK_VARIABLE = 'CONVEYOR_PROCESS_MARK';
/** Where the proxy is reached inside the sandbox. */
export const PROXY_PORT = 3128;

/** The first executable `name` on PATH. */
export function which(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const probed = new Map<string, SandboxAvailability>();

/**
 * Whether a sandbox can be made with the PATH of `env`: bwrap and socat on it, and a trial
 * sandbox with the namespaces we use runs (it does not where user namespaces are off for a
 * non-root user, or in a container that forbids mounts). Probed once per PATH.
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
    return { available: false, reason: `bubblewrap cannot make a sandbox on this runner (${why})` };
  }
  return { available: true, bwrap, socat, bash };
}

/** Every private folder of the sandboxes of this machine lives under here, and every sandbox hides it. */
function privateBase(): string {
  const base = join(realpathSync(tmpdir()), 'conveyor-sandboxes');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  return base;
}

export interface IsolatedOptions extends Omit<CommandOptions, 'argv'> {
  /** The folder the command works in; with a list of writable folders, it must be one of them. */
  workspace: string;
  policy: SandboxPolicy;
  /** The step process's environment, to find what to hide (default: this process's). */
  runnerEnv?: NodeJS.ProcessEnv;
  /**
   * A deploy's processes outlive it: what it leaves running is its environment, which its
   * teardown ends (killMarked with the mark it returns). Everything else ends with the command.
   */
  keep?: boolean;
  /** Told once per refused host and port, as it happens. */
  onBlocked?: (host: string, port: number) => void;
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
  if (!sandbox.available) {
    const result = await runCommand({ ...options, env, ...(options.keep ? { keepGroup: true, drainMs: 250 } : {}) });
    if (!options.keep) killMarked(MARK_VARIABLE, mark);
    return { ...result, sandbox: 'none', blocked: [], mark };
  }
  const dir = await mkdtemp(join(privateBase(), 'cmd-'));
  let proxy: Proxy | undefined;
  try {
    const allow = options.policy.network === 'open' ? undefined : options.policy.network.allow;
    const socket = join(dir, 'proxy.sock');
    if (allow) proxy = await startProxy({ socketPath: socket, allow, ...(options.onBlocked ? { onBlocked: options.onBlocked } : {}) });
    const confined = options.policy.writable !== 'everywhere';
    const home = join(dir, 'home');
    const tmp = join(dir, 'tmp');
    if (confined) await Promise.all([mkdir(home), mkdir(tmp)]);
    const inner: Record<string, string> = {
      ...env,
      ...(confined ? { HOME: home, TMPDIR: tmp, TMP: tmp, TEMP: tmp } : {}),
      ...(allow ? proxyVariables() : {}),
    };
    const argv = bwrapArgv(sandbox, {
      command: options.command,
      cwd: options.cwd,
      workspace: options.workspace,
      policy: options.policy,
      hidden: hiddenPlaces(options.runnerEnv ?? process.env),
      privateDirs: confined ? [home, tmp] : [],
      socket: allow ? socket : undefined,
      keep: Boolean(options.keep),
    });
    // A leftover of a kept deploy holds bwrap's output open; what the command wrote before it ended is in already.
    const result = await runCommand({ ...options, env: inner, argv, ...(options.keep ? { keepGroup: true, drainMs: 250 } : {}) });
    if (!options.keep) killMarked(MARK_VARIABLE, mark);
    return { ...result, sandbox: 'bubblewrap', blocked: proxy?.blocked() ?? [], mark };
  } finally {
    await proxy?.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Every spelling of the proxy variables that HTTP clients read; nothing bypasses it. */
function proxyVariables(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: '', no_proxy: '' };
}

/**
 * The script bwrap runs: start the bridge to the proxy and wait until it listens, run the
 * command, stop the bridge, exit with the command's status. `$1` is the command, `$2` the port,
 * `$3` the socket (empty without a proxy).
 */
const WRAPPER = [
  'if [ -n "$3" ]; then',
  '  socat "TCP-LISTEN:$2,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$3" </dev/null >/dev/null 2>&1 &',
  '  bridge=$!',
  // Listening shows in /proc/net/tcp as 127.0.0.1:<port in hex> with state 0A; no test connection needed.
  '  hex=$(printf "%04X" "$2")',
  '  for _ in $(seq 1 1000); do grep -q ":$hex 00000000:0000 0A" /proc/net/tcp && break; sleep 0.01; done',
  'fi',
  'bash -eo pipefail -c "$1"',
  'status=$?',
  '[ -z "${bridge:-}" ] || kill "$bridge" 2>/dev/null',
  'exit $status',
].join('\n');

export interface BwrapPlan {
  command: string;
  cwd: string;
  workspace: string;
  policy: SandboxPolicy;
  hidden: HiddenPlaces;
  privateDirs: string[];
  socket: string | undefined;
  keep: boolean;
}

/** The bwrap command line for one command. Order matters: later mounts go on top of earlier ones. */
export function bwrapArgv(sandbox: Extract<SandboxAvailability, { available: true }>, plan: BwrapPlan): string[] {
  const everywhere = plan.policy.writable === 'everywhere';
  const args = [sandbox.bwrap, '--unshare-pid', '--unshare-ipc'];
  // The command's end is the namespace's end, unless a deploy's environment lives on in it.
  if (!plan.keep) args.push('--die-with-parent');
  if (plan.socket) args.push('--unshare-net');
  args.push(everywhere ? '--bind' : '--ro-bind', '/', '/');
  args.push('--dev', '/dev', '--tmpfs', '/dev/shm', '--proc', '/proc');
  const hide = [...plan.hidden.folders, privateBase()];
  // Without a network of its own, a command could still reach the host's services through their
  // socket files (a Docker daemon is root on the runner): those live under /run.
  if (plan.socket) for (const run of ['/run', '/var/run']) if (existsSync(run)) hide.push(realpathSync(run));
  for (const folder of [...new Set(hide)]) args.push('--tmpfs', folder);
  for (const file of plan.hidden.files) args.push('--ro-bind', '/dev/null', file);
  if (everywhere) for (const folder of plan.hidden.readOnly) args.push('--ro-bind', folder, folder);
  const writable = everywhere ? [plan.workspace] : [...plan.policy.writable];
  // Bound again on top of any hidden folder holding them (the embedded mode's workspace is inside its state folder).
  for (const folder of [...writable, ...plan.privateDirs]) {
    if (everywhere && !hide.some((h) => isInside(folder, h))) continue;
    args.push('--bind', folder, folder);
  }
  if (plan.socket) args.push('--ro-bind', plan.socket, plan.socket);
  args.push('--chdir', plan.cwd, '--', sandbox.bash, '-c', WRAPPER, 'conveyor-sandbox', plan.command, String(PROXY_PORT), plan.socket ?? '');
  return args;
}

/** A mark to kill by later: a kept deploy's processes, at its environment's teardown. */
export function endMarked(mark: string): number {
  return killMarked(MARK_VARIABLE, mark);
}
