// What every git process Conveyor starts gets, whatever it does and whatever ran before it: the git
// found on PATH when this process started (an agent, gate or setup that later plants a `git`
// earlier on PATH is never run), a fixed environment built from this process's own start (nothing
// a command set since), Conveyor's identity, no prompts, no hooks, no global or system
// configuration, the settings that make git run a program or talk elsewhere pinned to harmless
// values, replace refs and grafts ignored, and the token only for a command that talks to the
// server: in the environment of that one process, read by a credential helper given with -c and
// scoped to the server's URL. simple-git's own guards and debug log are set here too.
import { mkdtempSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import createDebug from 'debug';
import type { SimpleGitOptions } from 'simple-git';
import { ConveyorError } from '../core/errors.ts';
import { privateTemp } from './private-temp.ts';
import { which } from './which.ts';

const CONVEYOR_IDENTITY = { name: 'Conveyor', email: 'conveyor@users.noreply.github.com' };

/** Who Conveyor's commits are by (the demo builds its repositories as someone else). */
export interface GitIdentity {
  name: string;
  email: string;
  /** A fixed date for its commits (the demo's repositories are the same every time). */
  date?: string;
}

/** The credential helper reads the token from the environment of the git process that runs it. */
const TOKEN_VARIABLE = 'CONVEYOR_GIT_TOKEN';
const CREDENTIAL_HELPER = `!f() { test "$1" = get || exit 0; echo username=x-access-token; echo "password=$${TOKEN_VARIABLE}"; }; f`;

/**
 * simple-git refuses -c settings that make git run a program or read another configuration, unless
 * allowed. Conveyor sets these on purpose, each to take a power away, and allows exactly those.
 */
export const ALLOWED_UNSAFE: SimpleGitOptions['unsafe'] = {
  // core.hooksPath=/dev/null: hooks a repository (or an agent) planted never run.
  allowUnsafeHooksPath: true,
  // credential.helper= clears any other helper; credential.<server>.helper is Conveyor's own.
  allowUnsafeCredentialHelper: true,
  // GIT_CONFIG_GLOBAL=/dev/null: no ~/.gitconfig (an agent could have written one).
  allowUnsafeConfigPaths: true,
  // core.fsmonitor=false: a planted fsmonitor would run on every status, add and commit.
  allowUnsafeFsMonitor: true,
  // core.sshCommand=false: Conveyor never uses ssh; a planted one would run on a fetch.
  allowUnsafeSshCommand: true,
  // protocol.allow=never, then only file and http(s): no ext:: transport (a command line) or ssh.
  allowUnsafeProtocolOverride: true,
};

/**
 * Where this process found git when it started, and the PATH it started with. Read once, as the
 * module loads: before any agent, gate, deploy or setup of the step has run, so nothing they wrote
 * can be what Conveyor runs as git.
 */
const STARTUP_PATH = process.env.PATH ?? '/usr/bin:/bin';
const GIT_BINARY = which('git', STARTUP_PATH);
/**
 * The variables git may take from this process's start: the runner's proxy and certificate
 * settings (a self-hosted runner behind a corporate proxy needs them; a command cannot change
 * this process's environment).
 */
const PASSED_FROM_START = [
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'ALL_PROXY',
  'all_proxy',
  'NO_PROXY',
  'no_proxy',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'CURL_CA_BUNDLE',
];
const FROM_START: Record<string, string> = Object.fromEntries(PASSED_FROM_START.flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])));

/** The absolute path of the git Conveyor runs (the first `git` on PATH when this process started). */
export function gitBinary(): string {
  if (!GIT_BINARY) {
    throw new ConveyorError('internal', `git is not installed (no \`git\` on PATH when Conveyor started: ${STARTUP_PATH}); install git on this machine`);
  }
  return GIT_BINARY;
}

let home: string | undefined;
/** An empty folder of Conveyor's own for git's HOME: nothing a command wrote is read from a home folder. */
function gitHome(): string {
  home ??= mkdtempSync(join(privateTemp(), 'git-home-'));
  return home;
}

// simple-git logs every git process's environment (the token's included) through `debug` when
// DEBUG names simple-git (DEBUG=* does). Its log stays off whatever DEBUG says; other namespaces
// keep theirs, and DEBUG itself is left as it was for the commands Conveyor runs.
{
  const asked = process.env.DEBUG;
  const namespaces = createDebug.disable();
  createDebug.enable([namespaces, '-simple-git', '-simple-git:*'].filter(Boolean).join(','));
  if (asked === undefined) delete process.env.DEBUG;
  else process.env.DEBUG = asked;
}

// Hooks are code a repository (or an agent) can plant; none of our git commands run them. The
// hooks path is no folder at all: an empty folder would be one an agent (same user) could write a
// hook into, to run in our next command, a push with the token in its environment.
const NO_HOOKS = '/dev/null';

/**
 * The settings that would make git run a program, send data elsewhere or hide what a commit holds,
 * pinned on the command line, where they outrank any repository's configuration (a nested
 * repository an agent left in a checkout included: git passes them on to the git it starts there).
 * Conveyor rewrites each checkout's own configuration before every command besides
 * (lib/git-owned.ts); these hold even for what that cannot reach.
 */
function pinnedSettings(): string[] {
  const proxy =
    FROM_START.HTTPS_PROXY ?? FROM_START.https_proxy ?? FROM_START.HTTP_PROXY ?? FROM_START.http_proxy ?? FROM_START.ALL_PROXY ?? FROM_START.all_proxy;
  return [
    `core.hooksPath=${NO_HOOKS}`,
    'core.fsmonitor=false',
    'core.untrackedCache=false',
    'core.sshCommand=false',
    'core.attributesFile=/dev/null',
    'core.excludesFile=/dev/null',
    'protocol.allow=never',
    'protocol.file.allow=always',
    'protocol.https.allow=always',
    'protocol.http.allow=always',
    // Empty turns proxying off; the runner's own proxy (from this process's start) is kept.
    `http.proxy=${proxy ?? ''}`,
    'http.sslVerify=true',
    'commit.gpgSign=false',
    'tag.gpgSign=false',
    // A nested repository's status (run by git inside it) would run its filters and fsmonitor.
    'diff.ignoreSubmodules=all',
    'submodule.recurse=false',
    'status.submoduleSummary=false',
    'gc.auto=0',
    'maintenance.auto=false',
    'advice.detachedHead=false',
    // GIT_GRAFT_FILE=/dev/null (gitEnv) is no graft file, but git would say grafts are deprecated in every message.
    'advice.graftFileDeprecated=false',
  ];
}

/**
 * The settings given with -c to every command: identity, the pinned settings, and, when
 * authenticated, a credential helper scoped to the server's URL, so that git hands the token to no
 * other host.
 */
export function gitConfig(authServerUrl: string | undefined, identity: GitIdentity = CONVEYOR_IDENTITY): string[] {
  const config = [`user.name=${identity.name}`, `user.email=${identity.email}`, ...pinnedSettings()];
  if (authServerUrl) {
    const scope = authServerUrl.replace(/\/+$/, '');
    config.push('credential.helper=', `credential.${scope}.helper=`, `credential.${scope}.helper=${CREDENTIAL_HELPER}`);
  }
  return config;
}

/**
 * The environment of one git process, the same for every command: a PATH of git's own folder and
 * the system's, an empty HOME of Conveyor's own, no global or system configuration or attributes,
 * no prompts, replace refs and grafts ignored, the runner's proxy settings as this process started
 * with them, and the token only when this command is to present it. Nothing of the step's
 * environment (which a command may have influenced, or which holds secrets) is in it.
 */
export function gitEnvironment(token: string | undefined, identity?: GitIdentity): Record<string, string> {
  const path = [...new Set([dirname(gitBinary()), '/usr/local/bin', '/usr/bin', '/bin'])].join(delimiter);
  const env: Record<string, string> = {
    ...FROM_START,
    PATH: path,
    HOME: gitHome(),
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_GRAFT_FILE: '/dev/null',
    GIT_PROTOCOL_FROM_USER: '0',
    LC_ALL: 'C',
  };
  if (identity?.date) Object.assign(env, { GIT_AUTHOR_DATE: identity.date, GIT_COMMITTER_DATE: identity.date });
  if (token) env[TOKEN_VARIABLE] = token;
  return env;
}

/**
 * The environment that makes a command that needs no repository (ls-remote) read none: not the one
 * its folder lies in (a workspace can lie inside another checkout, whose configuration, with its
 * credentials or URL rewrites, must not apply), nor any above it.
 */
export const OUTSIDE_ANY_REPOSITORY = { GIT_DIR: '/dev/null' } as const;
