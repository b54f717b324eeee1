// What every git process Conveyor starts gets, whatever it does: Conveyor's identity (runners have
// none), no prompts, no hooks, no global or system configuration, none of the inherited variables
// that would redirect git or make it run a program, and the token only for a command that talks
// to the server: in the environment of that one process, read by a credential helper given with
// -c and scoped to the server's URL. simple-git's own guards and debug log are set here too.
import createDebug from 'debug';
import type { SimpleGitOptions } from 'simple-git';

const IDENTITY = ['user.name=Conveyor', 'user.email=conveyor@users.noreply.github.com'];

/** The credential helper reads the token from the environment of the git process that runs it. */
const TOKEN_VARIABLE = 'CONVEYOR_GIT_TOKEN';
const CREDENTIAL_HELPER = `!f() { test "$1" = get || exit 0; echo username=x-access-token; echo "password=$${TOKEN_VARIABLE}"; }; f`;

/**
 * simple-git refuses -c settings and environment variables that make git run a program or read
 * another configuration, unless allowed. Conveyor sets three such things on purpose, each to take
 * a power away, and allows exactly those; everything else stays refused.
 */
export const ALLOWED_UNSAFE: SimpleGitOptions['unsafe'] = {
  // core.hooksPath=/dev/null: hooks a repository (or an agent) planted never run.
  allowUnsafeHooksPath: true,
  // credential.helper= clears any inherited helper; credential.<server>.helper is Conveyor's own.
  allowUnsafeCredentialHelper: true,
  // GIT_CONFIG_GLOBAL=/dev/null: an agent can write ~/.gitconfig (an `insteadOf` there would send a
  // push, and the token, elsewhere). The other variables of this group are dropped (below).
  allowUnsafeConfigPaths: true,
};

/**
 * Inherited variables git must not see: ones that point it at another repository or
 * configuration, and ones that name a program for it to run (editor, pager, askpass, ssh, external
 * diff, proxy, templates, exec path). Conveyor's commands need none of them, and the program ones
 * are what simple-git refuses.
 */
const DROPPED = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_SYSTEM',
  'GIT_EXEC_PATH',
  'PREFIX',
  'EDITOR',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'PAGER',
  'GIT_PAGER',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_EXTERNAL_DIFF',
  'GIT_PROXY_COMMAND',
  'GIT_TEMPLATE_DIR',
  TOKEN_VARIABLE,
]);
const dropped = (name: string) => DROPPED.has(name.toUpperCase()) || /^GIT_CONFIG_(COUNT|KEY_|VALUE_|PARAMETERS)/i.test(name);

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
 * The environment that makes a command that needs no repository (ls-remote) read none: not the one
 * its folder lies in (a workspace can lie inside another checkout, whose configuration, with its
 * credentials or URL rewrites, must not apply), nor any above it.
 */
export const OUTSIDE_ANY_REPOSITORY = { GIT_DIR: '/dev/null' } as const;

/**
 * The settings given with -c to every command: identity, no hooks, and, when authenticated, a
 * credential helper scoped to the server's URL, so that git hands the token to no other host.
 */
export function gitConfig(authServerUrl: string | undefined): string[] {
  const config = [...IDENTITY, `core.hooksPath=${NO_HOOKS}`];
  if (authServerUrl) {
    const scope = authServerUrl.replace(/\/+$/, '');
    config.push('credential.helper=', `credential.${scope}.helper=`, `credential.${scope}.helper=${CREDENTIAL_HELPER}`);
  }
  return config;
}

/**
 * The environment of one git process: no global or system configuration, no prompts, none of
 * the dropped variables, and the token only when this command is to present it.
 */
export function gitEnvironment(base: Record<string, string>, token: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (!dropped(name)) env[name] = value;
  Object.assign(env, {
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    LC_ALL: 'C',
  });
  if (token) env[TOKEN_VARIABLE] = token;
  return env;
}
