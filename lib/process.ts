// Runs one user command (agent, gate, deploy): `bash -eo pipefail -c`, in its own process group so
// a timeout (and the command's own end) takes every process it started with it. Output is streamed
// line by line, scrubbed, to the log and captured; only the tail is kept in memory.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface CommandOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Grace between SIGTERM and SIGKILL of the group. */
  killGraceMs?: number;
  /** Receives each complete output line (already scrubbed). */
  onLine?: (line: string) => void;
  scrub?: (text: string) => string;
  /** How much of the end of the output to keep, in characters (default 64 KiB). */
  tailChars?: number;
  /** The program and its arguments that run `command` (default `bash -eo pipefail -c command`): the sandbox wraps it. */
  argv?: readonly string[];
  /** How long to keep reading output a leftover process may still write after the command ended (default 2 s). */
  drainMs?: number;
  /** Leave what the command left running in its group alone when it ends (a deploy's environment: see lib/sandbox.ts). */
  keepGroup?: boolean;
  /** A line without an end is flushed (scrubbed) once it is this long, in characters (default 16 KiB). */
  lineLimit?: number;
  /**
   * The stall guard: when the command prints nothing for `ms` and `activity` (the time of the
   * latest change it made, e.g. in its workspace) shows nothing newer either, its group is killed
   * as at a timeout, and the result says `stalled`.
   */
  stall?: { ms: number; activity?: () => Promise<number> };
  /** Stops the command as at a timeout when it aborts (its caller saw it cannot succeed); the result says `aborted`. */
  stop?: AbortSignal;
}

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Stopped by the stall guard (see CommandOptions.stall). */
  stalled: boolean;
  /** Stopped by its caller (CommandOptions.stop). */
  aborted?: true;
  /** The end of stdout and stderr interleaved, scrubbed. */
  output: string;
  durationMs: number;
  pid: number | undefined;
}

/** Process groups of the user commands running now, so that a stopped step can stop them too. */
const running = new Set<number>();

/**
 * Kills every user command still running (their whole process groups). The step process calls it
 * when it is told to stop (a cancelled workflow, or the embedded mode taking over a run whose
 * driver died), so no agent, gate or deploy command outlives the step that started it.
 */
export function killRunningCommands(): void {
  for (const pid of running) killGroup(pid, 'SIGKILL');
  running.clear();
}

/** Sends a signal to a whole process group; a group that is already gone is fine. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** True while a process exists and is not a zombie (a zombie has ended; only its parent's wait is missing). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name, which may itself hold ')'.
    const state = stat[stat.lastIndexOf(')') + 2];
    return state !== 'Z' && state !== 'X';
  } catch {
    return true;
  }
}

export function runCommand(options: CommandOptions): Promise<CommandResult> {
  const scrub = options.scrub ?? ((t: string) => t);
  const tailChars = options.tailChars ?? 64 * 1024;
  const grace = options.killGraceMs ?? 5000;
  const started = Date.now();
  return new Promise((resolve) => {
    const [file, ...args] = options.argv ?? ['bash', '-eo', 'pipefail', '-c', options.command];
    const child = spawn(file!, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid) running.add(child.pid);
    let tail = '';
    const partial = { stdout: '', stderr: '' };
    const lineLimit = options.lineLimit ?? 16 * 1024;
    let lastActivity = Date.now();
    const emit = (line: string) => {
      const clean = scrub(line);
      tail += `${clean}\n`;
      if (tail.length > tailChars * 2) tail = tail.slice(-tailChars);
      options.onLine?.(clean);
    };
    const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      lastActivity = Date.now();
      const text = partial[stream] + chunk.toString('utf8');
      const lines = text.split('\n');
      partial[stream] = lines.pop() ?? '';
      for (const l of lines) emit(l);
      // A line without end must not grow without bound (and must not hide a secret across chunks
      // for long): flush it once it is big.
      if (partial[stream].length > lineLimit) {
        emit(partial[stream]);
        partial[stream] = '';
      }
    };
    child.stdout.on('data', onData('stdout'));
    child.stderr.on('data', onData('stderr'));

    let timedOut = false;
    let stalled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (killTimer) return;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const stallTimer = options.stall
      ? watchStall(
          options.stall,
          () => lastActivity,
          (t) => (lastActivity = Math.max(lastActivity, t)),
          () => {
            stalled = true;
            stop();
          },
        )
      : undefined;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.stop?.aborted) onAbort();
    else options.stop?.addEventListener('abort', onAbort, { once: true });

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      clearTimeout(timer);
      if (stallTimer) clearInterval(stallTimer);
      if (killTimer) clearTimeout(killTimer);
      options.stop?.removeEventListener('abort', onAbort);
      for (const s of ['stdout', 'stderr'] as const) if (partial[s]) emit(partial[s]);
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        stalled: stalled && !timedOut,
        ...(aborted && !timedOut && !stalled ? { aborted: true as const } : {}),
        output: tail.length > tailChars ? tail.slice(-tailChars) : tail,
        durationMs: Date.now() - started,
        pid: child.pid,
      });
    };
    child.on('error', (e) => {
      emit(`conveyor: could not start ${file}: ${e.message}`);
      exit = { code: null, signal: null };
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      if (stallTimer) clearInterval(stallTimer);
      if (child.pid) running.delete(child.pid);
      // The command has ended: whatever it left running in its group (background jobs, daemons
      // that hold our pipes open) ends with it.
      if (!options.keepGroup) killGroup(child.pid, 'SIGKILL');
      // A process that left the group (setsid) may still hold our pipes: do not wait for it.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, options.drainMs ?? 2000).unref();
    });
    child.on('close', finish);
  });
}

/**
 * Checks, a few times per stall period, whether the command has been quiet (no output, see
 * `quietSince`) for the whole period; only then is `activity` asked (a walk of the workspace costs
 * more than a clock) and a newer change it reports counts as activity (`saw`). Still quiet: `stall`.
 */
function watchStall(options: NonNullable<CommandOptions['stall']>, quietSince: () => number, saw: (at: number) => void, stall: () => void): NodeJS.Timeout {
  let asking = false;
  const check = async () => {
    if (asking || Date.now() - quietSince() < options.ms) return;
    asking = true;
    try {
      if (options.activity) saw(Math.min(Date.now(), await options.activity()));
    } catch {
      // An unreadable workspace says nothing either way; the output alone decides.
    } finally {
      asking = false;
    }
    if (Date.now() - quietSince() >= options.ms) stall();
  };
  return setInterval(() => void check(), Math.min(30_000, Math.max(10, Math.floor(options.ms / 6))));
}

/**
 * Kills every process whose environment holds `name=value` (a mark given to a command), however it
 * left the command's process group (setsid, double fork), until none is left: one that forks while
 * it is being killed is found by the next round. Returns how many were killed. Children inherit the
 * mark; only a process started with a cleaned environment (`env -i`) escapes it, a gap the
 * sandbox's PID namespace does not have (lib/sandbox.ts).
 */
export function killMarked(name: string, value: string): number {
  const needle = Buffer.from(`${name}=${value}\0`);
  let killed = 0;
  for (let round = 0; round < 20; round++) {
    const found = markedProcesses(needle);
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // Gone already.
      }
    }
  }
  return killed;
}

function markedProcesses(needle: Buffer): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`);
      if ((environ.indexOf(needle) === 0 || environ.includes(Buffer.concat([Buffer.from([0]), needle]))) && processAlive(pid)) out.push(pid);
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return out;
}
