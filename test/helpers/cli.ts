// Runs the real `conveyor` command in a child process, as a user would. Its HOME is an empty
// folder and system git config is ignored, so a test passes only if the command needs no git
// identity or configuration of the machine (CI has none).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CONVEYOR_BIN = resolve(import.meta.dirname, '../../bin/conveyor.js');
/** The project's root folder (fixtures, examples, workflows). */
export const ROOT = resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Another `conveyor` to run: a copy of the project (the container image's file set) or a link to it. */
  bin?: string;
}

let home: string | undefined;

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  home ??= mkdtempSync(join(tmpdir(), 'conveyor-home-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('GIT_') || k.startsWith('CONVEYOR_') || k.startsWith('GITHUB_')) continue;
    env[k] = v;
  }
  return { ...env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', NO_COLOR: '1', ...extra };
}

/** Starts the command; the caller may signal it (the SIGKILL tests do). */
export function startCli(args: string[], options: CliOptions = {}): { child: ChildProcess; done: Promise<CliResult>; output(): string } {
  const child = spawn(process.execPath, [options.bin ?? CONVEYOR_BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: environment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolveDone) => {
    child.on('close', (code, signal) => resolveDone({ code, signal, stdout, stderr }));
  });
  return { child, done, output: () => stdout + stderr };
}

export function cli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** The same, run to its end before it returns (for commands that finish at once: validate, plan, init). */
export function cliSync(args: string[], options: CliOptions = {}): CliResult {
  const r = spawnSync(process.execPath, [CONVEYOR_BIN, ...args], { cwd: options.cwd ?? process.cwd(), env: environment(options.env), encoding: 'utf8' });
  if (r.error) throw r.error;
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Resolves once `predicate` holds for the output so far (polls; the test's own timeout bounds it). */
export async function waitForOutput(output: () => string, predicate: (text: string) => boolean): Promise<void> {
  while (!predicate(output())) await new Promise((r) => setTimeout(r, 50));
}
