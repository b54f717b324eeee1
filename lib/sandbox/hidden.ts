// What a sandboxed command must not read on this machine: the runner's secrets and the step
// process's own files. Folders are covered by an empty tmpfs, files by /dev/null (lib/sandbox.ts).
import { readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';

/** Credentials that tools keep in a home folder: folders, then single files. */
const HOME_FOLDERS = ['.ssh', '.config', '.docker', '.aws', '.azure', '.kube', '.gnupg', '.password-store', '.local/share/keyrings'];
const HOME_FILES = [
  '.gitconfig',
  '.git-credentials',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.vault-token',
];

export interface HiddenPlaces {
  /** Absolute, existing, real paths of folders to cover. */
  folders: string[];
  files: string[];
}

/** `child` is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`);
}

function real(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return realpathSync(resolve(path));
  } catch {
    return undefined;
  }
}

/**
 * The runner's install folder (`<root>/bin/Runner.Worker` runs the job): it holds the runner's
 * own credentials (`.credentials`, `.runner`) and its logs. Found by walking up from this process.
 */
export function runnerRoot(startPid: number = process.pid): string | undefined {
  let pid = startPid;
  for (let depth = 0; depth < 32 && pid > 1; depth++) {
    try {
      const exe = readlinkSync(`/proc/${pid}/exe`);
      if (/^Runner\.(Worker|Listener)$/.test(basename(exe))) return dirname(dirname(exe));
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The places of `env` (the step process's environment) to hide: RUNNER_TEMP (the files through
 * which a step sets the job's environment and outputs), the embedded mode's attempt folders (every
 * run's payloads, results, progress and workspaces: a command's own workspace is bound back) and
 * its database, the step's payload and progress files, the runner's install folder, an ssh
 * agent's socket folder, and the credentials in the home folder.
 */
export function hiddenPlaces(env: NodeJS.ProcessEnv): HiddenPlaces {
  const home = real(env.HOME) ?? real(homedir());
  const folders = new Set<string>();
  const files = new Set<string>();
  const addFolder = (p: string | undefined) => {
    const r = real(p);
    // Never the root, nor a folder holding the home folder: a command could not run at all.
    if (!r || r === '/' || (home && isInside(home, r)) || !statSync(r).isDirectory()) return;
    folders.add(r);
  };
  addFolder(env.RUNNER_TEMP);
  // The embedded mode: every attempt's payload, result, progress and workspace, and the database.
  addFolder(env.CONVEYOR_ATTEMPTS_DIR);
  const db = env.CONVEYOR_STATE_DB;
  const own = ['CONVEYOR_PAYLOAD_PATH', 'CONVEYOR_PROGRESS_PATH'].map((name) => env[name]);
  for (const path of [...own, ...(db ? ['', '-wal', '-shm', '-journal'].map((suffix) => `${db}${suffix}`) : [])]) {
    const r = real(path);
    if (r && statSync(r).isFile()) files.add(r);
  }
  addFolder(runnerRoot());
  if (env.SSH_AUTH_SOCK) addFolder(dirname(env.SSH_AUTH_SOCK));
  if (home) {
    for (const f of HOME_FOLDERS) addFolder(join(home, f));
    for (const f of HOME_FILES) {
      const r = real(join(home, f));
      if (r && statSync(r).isFile()) files.add(r);
    }
  }
  // A folder inside another hidden one is covered already (and could not be mounted on once covered).
  const sorted = [...folders].sort();
  const outer = sorted.filter((f) => !sorted.some((o) => o !== f && isInside(f, o)));
  return { folders: outer, files: [...files].filter((f) => !outer.some((o) => isInside(f, o))) };
}
