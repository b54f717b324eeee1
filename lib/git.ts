// The one git layer. Every git command Conveyor runs goes through a GitRepo made for one folder,
// by a named operation, on simple-git, with the settings of git-safety.ts: Conveyor's identity, no
// prompts, no hooks, no global or system configuration. A command that talks to an http(s) server
// may get the token, which travels only in the environment of that one git process and reaches
// git through a credential helper given with -c, scoped to the server: never in .git/config, a
// remote URL, a file, a command line or a log.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { ConveyorError, type ErrorCode } from '../core/errors.ts';
import { ALLOWED_UNSAFE, gitConfig, gitEnvironment, OUTSIDE_ANY_REPOSITORY } from './git-safety.ts';

/** The token and the http(s) server it is for. */
export interface GitAuth {
  /** The token, or where to get it for each command (a step's token is renewed while it runs). */
  token: string | (() => Promise<string>);
  serverUrl: string;
}

export interface GitRepoOptions {
  /** Base environment, already free of secrets (default: PATH, and HOME in the temp folder). */
  env?: Record<string, string>;
  /** Given to the commands that talk to the server, and to no other. */
  auth?: GitAuth;
  /**
   * The clone is partial (blobless): file contents come from the server on demand, so commands
   * that read them (checkout, merge, diff) may talk to the server and get `auth` too.
   */
  partial?: boolean;
  /** Code of the ConveyorError a failing command throws (default `internal`). */
  code?: ErrorCode;
  scrub?: (text: string) => string;
}

/** Whether a command may talk to the server: always (fetch, push), or when it reads contents of a partial clone. */
type Reach = 'local' | 'server' | 'contents';

interface RunOptions {
  reach?: Reach;
  /** Run outside any repository (the command names everything it needs). */
  outside?: boolean;
  /** Exit codes other than 0 that are an answer, not a failure. */
  answers?: number[];
}

interface Output {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export type MergeOutcome = { merged: true } | { merged: false; conflicts: string[]; output: string };
export type PushOutcome = { pushed: true } | { pushed: false; output: string };

export interface CloneOptions {
  /** A folder on this machine: copy its object files instead of packing (never hard links). */
  local?: boolean;
  /** Only this branch (default: every branch). */
  branch?: string;
  /** e.g. blob:none: a partial clone, whose file contents come from the server when asked for. */
  filter?: string;
  /** A shallow clone of the last `depth` commits of `branch` (their files included). */
  depth?: number;
}

function minimalEnvironment(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() };
}

/** A git repository (or a folder about to hold one), and the named operations Conveyor runs on it. */
export class GitRepo {
  private readonly env: Record<string, string>;

  constructor(
    readonly dir: string,
    private readonly options: GitRepoOptions = {},
  ) {
    this.env = options.env ?? minimalEnvironment();
  }

  /** The same repository, failing with `code`. */
  failingAs(code: ErrorCode): GitRepo {
    return new GitRepo(this.dir, { ...this.options, code });
  }

  /** Clones `source` into this folder (created when missing; must be empty), without tags, checking nothing out. */
  async clone(source: string, how: CloneOptions = {}): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const args = ['clone', '--no-tags', '--origin', 'origin'];
    if (how.local) args.push('--local', '--no-hardlinks');
    if (how.branch) args.push('--single-branch', '--branch', how.branch);
    if (how.filter) args.push(`--filter=${how.filter}`);
    if (how.depth) args.push(`--depth=${how.depth}`);
    await this.run([...args, '--no-checkout', '--', source, this.dir], { reach: 'server' });
  }

  /** A new repository in this folder (created when missing). */
  async init(how: { bare?: boolean; initialBranch?: string } = {}): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    await this.run(['init', ...(how.bare ? ['--bare'] : []), ...(how.initialBranch ? [`--initial-branch=${how.initialBranch}`] : []), this.dir]);
  }

  // --- the server -------------------------------------------------------------------------------

  /**
   * Heads of `branches` on the server at `url`: branch name to commit; absent branches are left
   * out. It needs no repository and reads none (so it may run while this folder is being cloned).
   */
  async remoteHeads(url: string, branches: readonly string[]): Promise<Map<string, string>> {
    const out = await this.run(['ls-remote', '--heads', url, ...branches.map((b) => `refs/heads/${b}`)], { reach: 'server', outside: true });
    return headsOf(out.stdout, 'refs/heads/', branches);
  }

  /** Fetches `refspecs` from origin, without tags (a partial clone's filter applies). */
  async fetch(refspecs: readonly string[]): Promise<void> {
    await this.run(['fetch', '--no-tags', 'origin', ...refspecs], { reach: 'server' });
  }

  /**
   * Pushes `ref` to `branch` of `to` (a URL, or a remote's name), no hooks. With `lease`, only if
   * the branch is still at that commit ('' = it must not exist yet): someone else's push since is a
   * rejection, never overwritten.
   */
  async push(how: { to: string; ref: string; branch: string; lease?: string }): Promise<PushOutcome> {
    const lease = how.lease === undefined ? [] : [`--force-with-lease=refs/heads/${how.branch}:${how.lease}`];
    // 1: rejected (the lease, or not a fast-forward); 128: the server refused or could not be reached.
    const out = await this.run(['push', '--no-verify', ...lease, how.to, `${how.ref}:refs/heads/${how.branch}`], { reach: 'server', answers: [1, 128] });
    return out.exitCode === 0 ? { pushed: true } : { pushed: false, output: out.stderr.trim() || out.stdout.trim() };
  }

  // --- configuration ----------------------------------------------------------------------------

  /** Records `commit` (already in this repository) as the remote-tracking branch `origin/<branch>`. */
  async setRemoteBranch(branch: string, commit: string): Promise<void> {
    await this.run(['update-ref', `refs/remotes/origin/${branch}`, commit]);
  }

  async setRemoteUrl(name: string, url: string): Promise<void> {
    await this.run(['config', `remote.${name}.url`, url]);
  }

  /**
   * Forgets where remote `name` is (its configuration), keeping what was fetched from it
   * (`refs/remotes/<name>/*`): nothing pushes or fetches through it afterwards.
   */
  async forgetRemote(name: string): Promise<void> {
    await this.run(['config', '--remove-section', `remote.${name}`], { answers: [128] });
  }

  /** The URL of remote `name`, or undefined when there is none (or no repository here). */
  async remoteUrl(name = 'origin'): Promise<string | undefined> {
    const out = await this.run(['config', '--get', `remote.${name}.url`], { answers: [1, 128] });
    return out.exitCode === 0 ? out.stdout.trim() || undefined : undefined;
  }

  // --- reading ----------------------------------------------------------------------------------

  async revParse(rev: string): Promise<string> {
    return (await this.run(['rev-parse', '--verify', '--end-of-options', rev])).stdout.trim();
  }

  /** The commit checked out. */
  currentCommit(): Promise<string> {
    return this.revParse('HEAD');
  }

  /** Head of a local branch (in a bare repository: of the repository), or undefined when it does not exist. */
  async branchHead(branch: string): Promise<string | undefined> {
    const out = await this.run(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { answers: [1] });
    return out.exitCode === 0 ? out.stdout.trim() : undefined;
  }

  /** Heads of the remote-tracking branches `<remote>/<branch>` that exist. */
  async remoteBranchHeads(branches: readonly string[], remote = 'origin'): Promise<Map<string, string>> {
    const prefix = `refs/remotes/${remote}/`;
    const out = await this.run(['for-each-ref', '--format=%(objectname) %(refname)', ...branches.map((b) => `${prefix}${b}`)]);
    return headsOf(out.stdout, prefix, branches);
  }

  /** Whether `ancestor` is reachable from `commit` (asked through their merge base). */
  async isAncestor(ancestor: string, commit: string): Promise<boolean> {
    const base = await this.run(['merge-base', ancestor, commit], { answers: [1] });
    if (base.exitCode !== 0) return false;
    const id = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(ancestor) ? ancestor : await this.revParse(`${ancestor}^{commit}`);
    return base.stdout.trim() === id;
  }

  /**
   * Whether `head` merges into `base` without a conflict, asked of the object database alone (no
   * checkout, so a bare repository answers too): `git merge-tree --write-tree` exits 1 on a conflict.
   */
  async mergesCleanly(base: string, head: string): Promise<boolean> {
    return (await this.run(['merge-tree', '--write-tree', '--no-messages', base, head], { answers: [1] })).exitCode === 0;
  }

  /** Number of commits in `range` (e.g. `main..feature`). */
  async countCommits(range: string): Promise<number> {
    return Number((await this.run(['rev-list', '--count', range])).stdout.trim());
  }

  /**
   * Paths that differ between two commits. Renames are not paired: a renamed file gives both its
   * old and its new path, so a check of what was written sees both.
   */
  async diffNames(from: string, to: string): Promise<string[]> {
    const out = await this.run(['diff', '--name-only', '--no-renames', '-z', from, to, '--']);
    return out.stdout.split('\0').filter(Boolean);
  }

  /** Whether two commits hold different trees. */
  async differs(from: string, to: string): Promise<boolean> {
    return (await this.diffNames(from, to)).length > 0;
  }

  /** The patch of `range` (e.g. `origin/main...HEAD`), no colours, no external diff program. */
  async diff(range: string): Promise<string> {
    return (await this.run(['diff', '--no-color', '--no-ext-diff', range, '--'], { reach: 'contents' })).stdout;
  }

  /** `git status --porcelain=v1 -z`, untracked files included (ignored ones not): what a checkout looks like. */
  async status(): Promise<string> {
    return (await this.run(['status', '--porcelain=v1', '-z', '--untracked-files=all'])).stdout;
  }

  /** The full message of the commit checked out. */
  async lastMessage(): Promise<string> {
    return (await this.run(['log', '-1', '--format=%B'])).stdout;
  }

  // --- changing ---------------------------------------------------------------------------------

  /** Checks out `branch` at `at`, creating it, or moving it when it exists. */
  async checkout(branch: string, at: string): Promise<void> {
    await this.run(['checkout', '-B', branch, at], { reach: 'contents' });
  }

  /** Creates `branch` at `at` and checks it out; fails when it exists. */
  async createBranch(branch: string, at: string): Promise<void> {
    await this.run(['checkout', '-b', branch, at], { reach: 'contents' });
  }

  /**
   * Merges `ref` into what is checked out: with `message` (and `noFastForward`) as given, else
   * git's own message. A merge that does not go through is undone and its conflicts reported.
   */
  async merge(ref: string, how: { message?: string; noFastForward?: boolean } = {}): Promise<MergeOutcome> {
    const attempt = (messageArgs: string[]) =>
      this.run(['merge', ...(how.noFastForward ? ['--no-ff'] : []), ...messageArgs, ref], { reach: 'contents', answers: [1, 128] });
    const out = how.message === undefined ? await attempt(['--no-edit']) : await withMessageFile(how.message, (file) => attempt(['-F', file]));
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ['merge', '--abort']);
  }

  /** Stages the changes of `ref` as one (a squash merge) for `commit`; undone when they conflict. */
  async mergeSquash(ref: string): Promise<MergeOutcome> {
    const out = await this.run(['merge', '--squash', ref], { reach: 'contents', answers: [1, 128] });
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ['reset', '--merge']);
  }

  /** Replays what is checked out onto `onto`; undone when it conflicts. */
  async rebase(onto: string): Promise<MergeOutcome> {
    const out = await this.run(['rebase', onto], { reach: 'contents', answers: [1, 128] });
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ['rebase', '--abort']);
  }

  /**
   * Commits what is staged (only `paths` when given; `amend` replaces the last commit). The
   * message travels in a file, never as an argument. Returns the new head.
   */
  async commit(message: string, how: { paths?: readonly string[]; amend?: boolean } = {}): Promise<string> {
    const paths = how.paths ? ['--', ...how.paths] : [];
    await withMessageFile(message, (file) => this.run(['commit', '--no-verify', ...(how.amend ? ['--amend'] : []), '-F', file, ...paths]));
    return this.currentCommit();
  }

  /** Stages every change (or only `paths`), new files included, ignored ones not, and commits them if there are any. */
  async commitAll(message: string, how: { paths?: readonly string[] } = {}): Promise<{ committed: boolean; head: string }> {
    const paths = how.paths ? ['--', ...how.paths] : [];
    await this.run(['add', '--all', '--verbose', ...paths]);
    const staged = await this.run(['diff', '--cached', '--name-only', '-z', ...paths]);
    if (!staged.stdout) return { committed: false, head: await this.currentCommit() };
    return { committed: true, head: await this.commit(message, how) };
  }

  /** A detached checkout of `ref` in the folder `dir`, sharing this repository's objects. */
  async addWorktree(dir: string, ref: string): Promise<void> {
    await this.run(['worktree', 'add', '--detach', dir, ref], { reach: 'contents' });
  }

  async removeWorktree(dir: string): Promise<void> {
    await this.run(['worktree', 'remove', '--force', dir]);
  }

  // --- running ----------------------------------------------------------------------------------

  /** Lists the conflicted paths of a failed merge, rebase or squash, then undoes it with `undo`. */
  private async undo(failed: Output, undo: string[]): Promise<MergeOutcome> {
    const conflicted = await this.run(['diff', '--name-only', '--diff-filter=U', '-z'], { answers: [128] });
    await this.run(undo, { reach: 'contents', answers: [1, 128] });
    return {
      merged: false,
      conflicts: conflicted.exitCode === 0 ? conflicted.stdout.split('\0').filter(Boolean) : [],
      output: [failed.stdout.trim(), failed.stderr.trim()].filter(Boolean).join('\n'),
    };
  }

  private async run(args: string[], how: RunOptions = {}): Promise<Output> {
    const reach = how.reach ?? 'local';
    const auth = reach === 'server' || (reach === 'contents' && this.options.partial) ? this.options.auth : undefined;
    const scrub = this.options.scrub ?? ((t: string) => t);
    // simple-git treats a non-zero exit without stderr as success, and one with stderr as an error
    // that does not say the exit code: this hook sees every command's result and keeps it, so that
    // the exit code is judged here, where the operation says which codes are answers.
    let result: { exitCode: number; stderr: string } | undefined;
    const what = `git ${args.filter((a) => !a.includes('\n')).join(' ')}`;
    const cwd = how.outside ? tmpdir() : this.dir;
    const token = typeof auth?.token === 'function' ? await auth.token() : auth?.token;
    const env = { ...gitEnvironment(this.env, token), ...(how.outside ? OUTSIDE_ANY_REPOSITORY : {}) };
    let stdout: string;
    try {
      const git = simpleGit({
        baseDir: cwd,
        config: gitConfig(auth?.serverUrl),
        unsafe: ALLOWED_UNSAFE,
        errors: (_error, r) => {
          result = { exitCode: r.exitCode, stderr: Buffer.concat(r.stdErr).toString('utf8') };
          return undefined;
        },
      }).env(env);
      stdout = await git.raw(args);
    } catch (e) {
      const said = result?.stderr.trim() || (e instanceof Error ? e.message : String(e));
      throw new ConveyorError(this.options.code ?? 'internal', scrub(`${what} could not run in ${this.dir}: ${said}`), { cause: e });
    }
    const exitCode = result?.exitCode ?? 0;
    const stderr = scrub(result?.stderr ?? '');
    if (exitCode !== 0 && !how.answers?.includes(exitCode)) {
      throw new ConveyorError(this.options.code ?? 'internal', scrub(`${what} failed (exit ${exitCode}) in ${this.dir}: ${stderr.trim() || stdout.trim()}`));
    }
    return { exitCode, stdout, stderr };
  }
}

/** `<commit> <ref>` lines (ls-remote, for-each-ref) as a map from branch name to commit. */
function headsOf(lines: string, prefix: string, branches: readonly string[]): Map<string, string> {
  const heads = new Map<string, string>();
  for (const line of lines.split('\n')) {
    const [sha, ref] = line.split(/[\t ]/);
    const branch = ref?.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
    if (sha && branch !== undefined && branches.includes(branch)) heads.set(branch, sha);
  }
  return heads;
}

/** Runs `fn` with `message` in a file of a private temporary folder, removed afterwards. */
async function withMessageFile<T>(message: string, fn: (file: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(join(tmpdir(), 'conveyor-message-'));
  try {
    const file = join(folder, 'message.txt');
    await writeFile(file, message, { mode: 0o600 });
    return await fn(file);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
