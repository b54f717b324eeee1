// A small git runner. Every command gets Conveyor's identity (runners have none), no prompts and
// no hooks; network commands may get the token, which travels only in the environment of that one
// git process and reaches git through a credential helper given with -c: never in .git/config, a
// remote URL, a file, or a command line.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import type { ErrorCode } from '../core/contract/wire.ts';

const CONVEYOR_IDENTITY = ['-c', 'user.name=Conveyor', '-c', 'user.email=conveyor@users.noreply.github.com'];

/** The credential helper reads the token from the environment of the git process that runs it. */
const TOKEN_VARIABLE = 'CONVEYOR_GIT_TOKEN';
const CREDENTIAL_HELPER = `!f() { test "$1" = get || exit 0; echo username=x-access-token; echo "password=$${TOKEN_VARIABLE}"; }; f`;

// Hooks are code a repository (or an agent) can plant; none of our git commands run them.
let emptyHooks: string | undefined;
function hooksPath(): string {
  emptyHooks ??= mkdtempSync(join(tmpdir(), 'conveyor-nohooks-'));
  return emptyHooks;
}

export interface GitOptions {
  cwd: string;
  /** Base environment (already free of secrets). */
  env: Record<string, string>;
  /** Set for network commands against an http(s) server: the token and the server it is for. */
  auth?: { token: string; serverUrl: string };
  /** Text for stdin (commit messages travel this way, never as arguments). */
  input?: string;
  /** Resolve instead of throwing when git exits non-zero. */
  allowFailure?: boolean;
  /** Error code of the ConveyorError thrown on failure (default `internal`). */
  code?: ErrorCode;
  scrub?: (text: string) => string;
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The arguments placed before a subcommand: identity, no hooks, and, when authenticated, a
 * credential helper scoped to the server's URL, so that git hands the token to no other host.
 */
export function gitPrefix(authServerUrl: string | undefined): string[] {
  const args = [...CONVEYOR_IDENTITY, '-c', `core.hooksPath=${hooksPath()}`];
  if (authServerUrl) {
    const scope = authServerUrl.replace(/\/+$/, '');
    args.push('-c', 'credential.helper=', '-c', `credential.${scope}.helper=`, '-c', `credential.${scope}.helper=${CREDENTIAL_HELPER}`);
  }
  return args;
}

/**
 * The environment of one git process. Global and system configuration are ignored: an agent can
 * write ~/.gitconfig (an `insteadOf` there would redirect a push, and the token, elsewhere).
 */
export function gitEnvironment(base: Record<string, string>, token: string | undefined): Record<string, string> {
  const env: Record<string, string> = {
    ...base,
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
  };
  for (const k of Object.keys(env)) if (/^GIT_CONFIG_(COUNT|KEY_|VALUE_|PARAMETERS)/.test(k)) delete env[k];
  delete env[TOKEN_VARIABLE];
  if (token) env[TOKEN_VARIABLE] = token;
  return env;
}

export function git(args: string[], options: GitOptions): Promise<GitResult> {
  const fullArgs = [...gitPrefix(options.auth?.serverUrl), ...args];
  const scrub = options.scrub ?? ((t: string) => t);
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      fullArgs,
      { cwd: options.cwd, env: gitEnvironment(options.env, options.auth?.token), maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const result = { code, stdout, stderr: scrub(stderr) };
        if (code !== 0 && !options.allowFailure) {
          const what = `git ${args.filter((a) => !a.includes('\n')).join(' ')}`;
          reject(new ConveyorError(options.code ?? 'internal', scrub(`${what} failed (exit ${code}) in ${options.cwd}: ${result.stderr.trim() || stdout.trim()}`)));
          return;
        }
        resolve(result);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

/** Trimmed stdout of a git command that must succeed. */
export async function gitOut(args: string[], options: GitOptions): Promise<string> {
  return (await git(args, options)).stdout.trim();
}
