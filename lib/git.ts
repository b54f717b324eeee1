// The one git layer. Every git command Conveyor runs goes through a GitRepo made for one folder,
// by a named operation, on simple-git, with the settings of git-safety.ts: the git binary found at
// start-up, a fixed environment, Conveyor's identity, no prompts, no hooks, no global or system
// configuration, the settings that run programs pinned. A checkout of the workspace keeps its git
// folder outside the checkout, where commands cannot write (git-owned.ts), and every command names
// both folders: whatever a user command left in the checkout, git reads only what Conveyor owns.
// A command that talks to an http(s) server may get the token, which travels only in the
// environment of that one git process and reaches git through a credential helper given with -c,
// scoped to the server: never in a git configuration, a remote URL, a file, a command line or a log.
import { mkdirSync } from 'node:fs';
import { appendFile, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { simpleGit } from 'simple-git';
import { ConveyorError, type ErrorCode } from '../core/errors.ts';
import { ALLOWED_UNSAFE, gitBinary, gitConfig, gitEnvironment, OUTSIDE_ANY_REPOSITORY, type GitIdentity } from './git-safety.ts';
import { OwnedGitDir } from './git-owned.ts';
import { GitObjects } from './git-objects.ts';
import { makePrivateTemp } from './private-temp.ts';

/** The token and the http(s) server it is for. */
export interface GitAuth {
  /** The token, or where to get it for each command (a step's token is renewed while it runs). */
  token: string | (() => Promise<string>);
  serverUrl: string;
}

export interface GitRepoOptions {
  /**
   * The git folder of this checkout, kept apart from it (a checkout user commands run in): every
   * command names it and the checkout, and it is put back as Conveyor left it before each one.
   */
  gitDir?: string;
  /** Who commits (default Conveyor). */
  identity?: GitIdentity;
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
  /** Makes the repository (clone, init): it names its folders itself. */
  standalone?: boolean;
  /** Another work tree and index than the checkout's (exportTree). */
  workTree?: string;
  index?: string;
  /** Exit codes other than 0 that are an answer, not a failure. */
  answers?: number[];
  /** `cat-file` whose output is bytes (a blob), kept as they are in `bytes`. */
  bytes?: boolean;
}

export interface Output {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The output as bytes (RunOptions.bytes). */
  bytes?: Buffer;
}

/** A command of the git layer, for the readers that live beside it (git-objects.ts). */
export type GitRun = (args: string[], how?: Pick<RunOptions, 'reach' | 'bytes'>) => Promise<Output>;

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
  /** A repository on this machine whose objects this one borrows (alternates): nothing is copied. */
  shared?: boolean;
}

/** A git repository (or a folder about to hold one), and the named operations Conveyor runs on it. */
export class GitRepo {
  /** One command at a time: each starts from the state the one before left. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly options: GitRepoOptions = {},
    /** What is known of the git folder, shared by the views of one repository (failingAs). */
    private readonly owned: OwnedGitDir | undefined = options.gitDir ? new OwnedGitDir(options.gitDir, dir) : undefined,
  ) {}

  /** The git folder: the separate one of a checkout, else `.git` in the folder. */
  get gitDir(): string {
    return this.options.gitDir ?? join(this.dir, '.git');
  }

  /** The same repository, failing with `code` (sharing what it knows of its git folder). */
  failingAs(code: ErrorCode): GitRepo {
    const other = new GitRepo(this.dir, { ...this.options, code }, this.owned);
    other.queue = this.queue;
    return other;
  }

  /**
   * Clones `source` into this folder (created when missing; must be empty), without tags, checking
   * nothing out; a checkout's git folder goes where `gitDir` says.
   */
  async clone(source: string, how: CloneOptions = {}): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const args = ['clone', '--no-tags', '--origin', 'origin'];
    if (this.options.gitDir) {
      mkdirSync(dirname(this.options.gitDir), { recursive: true });
      args.push(`--separate-git-dir=${this.options.gitDir}`);
    }
    if (how.local) args.push('--local', '--no-hardlinks');
    if (how.shared) args.push('--shared');
    if (how.branch) args.push('--single-branch', '--branch', how.branch);
    if (how.filter) args.push(`--filter=${how.filter}`);
    if (how.depth) args.push(`--depth=${how.depth}`);
    await this.run([...args, '--no-checkout', '--', source, this.dir], { reach: 'server', standalone: true });
  }

  /** Removes the repository (its git folder and the checkout's pointer to it), keeping the folder: to clone again. */
  async removeRepository(): Promise<void> {
    await rm(this.gitDir, { recursive: true, force: true });
    await rm(join(this.dir, '.git'), { recursive: true, force: true });
  }

  /** A new repository in this folder (created when missing). */
  async init(how: { bare?: boolean; initialBranch?: string } = {}): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    await this.run(['init', ...(how.bare ? ['--bare'] : []), ...(how.initialBranch ? [`--initial-branch=${how.initialBranch}`] : []), this.dir], {
      standalone: true,
    });
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
    // Only branches: a replace ref or anything else in the repository stays here.
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

  /**
   * Paths a merge of `head` into `base` would change: the differences between their merge base and
   * `head` (what the pull request shows), renames unpaired as in diffNames.
   */
  async changedSince(base: string, head: string): Promise<string[]> {
    const out = await this.run(['diff', '--name-only', '--no-renames', '-z', `${base}...${head}`, '--']);
    return out.stdout.split('\0').filter(Boolean);
  }

  /**
   * Every path the commits reachable from `head` but from none of `known` change, taken from their
   * trees (replace refs and grafts are ignored by every command, git-safety.ts): what a push of
   * `head` would send. A merge counts the paths it changed against all of its parents (what its
   * resolution wrote); the rest came from a parent, and those are counted where they were made.
   */
  async pushedPaths(head: string, known: readonly string[]): Promise<string[]> {
    const lines = (await this.run(['rev-list', '--parents', head, '--not', ...known.filter(Boolean), '--'])).stdout.split('\n').filter(Boolean);
    const paths = new Set<string>();
    for (const line of lines) {
      const [commit, ...parentList] = line.split(' ');
      const parents = parentList.length;
      const args = [
        'diff-tree',
        '-r',
        '--no-commit-id',
        '--name-only',
        '--no-renames',
        '-z',
        ...(parents > 1 ? ['-c'] : parents === 0 ? ['--root'] : []),
        commit!,
      ];
      for (const p of (await this.run(args)).stdout.split('\0')) if (p) paths.add(p);
    }
    return [...paths].sort();
  }

  /**
   * Repositories inside the checkout: one a command left (untracked, shown by git as a folder) or
   * a submodule's folder that holds one. Git would run their configuration's programs while adding
   * them (`commitAll` refuses); asking runs none (their status is never asked: submodules ignored).
   */
  async nestedRepositories(): Promise<string[]> {
    const untracked = (await this.run(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all'])).stdout
      .split('\0')
      .filter((e) => e.startsWith('?? ') && e.endsWith('/'))
      .map((e) => e.slice(3, -1));
    const gitlinks = (await this.run(['ls-files', '--stage', '-z'])).stdout
      .split('\0')
      .filter((e) => e.startsWith('160000 '))
      .map((e) => e.slice(e.indexOf('\t') + 1));
    const filled = [];
    for (const g of gitlinks) if (await lstat(join(this.dir, g, '.git')).catch(() => undefined)) filled.push(g);
    return [...untracked, ...filled].sort();
  }

  /**
   * Lines added and removed per file from the merge base of `base` and `head` to `head` (what a
   * pull request's diff shows); null counts for a binary file.
   */
  async diffStat(base: string, head: string): Promise<Array<{ path: string; added: number | null; removed: number | null }>> {
    const out = await this.run(['diff', '--numstat', '--no-renames', '--no-ext-diff', '-z', `${base}...${head}`, '--'], { reach: 'contents' });
    return out.stdout
      .split('\0')
      .filter(Boolean)
      .map((entry) => {
        const [added = '-', removed = '-', ...path] = entry.split('\t');
        const count = (n: string) => (/^\d+$/.test(n) ? Number(n) : null);
        return { path: path.join('\t'), added: count(added), removed: count(removed) };
      });
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

  /**
   * Starts merging `ref` into what is checked out and stops before committing, conflicts and all:
   * the conflicted files hold git's markers for someone to resolve by editing them, and `commitAll`
   * then records the merge. Returns the conflicted paths (none: it merged cleanly, still uncommitted).
   */
  async startMerge(ref: string): Promise<string[]> {
    await this.run(['merge', '--no-ff', '--no-commit', ref], { reach: 'contents', answers: [1] });
    const conflicted = await this.run(['diff', '--name-only', '--diff-filter=U', '-z']);
    return conflicted.stdout.split('\0').filter(Boolean);
  }

  /** Whether a merge is under way (startMerge): its commit is a merge commit. */
  async mergeInProgress(): Promise<boolean> {
    return (await this.run(['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'], { answers: [1] })).exitCode === 0;
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
   * Undoes on what is checked out what `to` brought over `from` (a merge commit over its first
   * parent, a squash over its parent, the last of rebased commits over the base before them): a
   * commit with `from`'s tree on top of `to` is cherry-picked, git's three-way revert of the whole
   * range, whatever merged it. Committed with `message`; undone when it does not apply cleanly.
   */
  async revertChanges(from: string, to: string, message: string): Promise<MergeOutcome> {
    const tree = await this.revParse(`${from}^{tree}`);
    const undo = (await withMessageFile(message, (file) => this.run(['commit-tree', tree, '-p', to, '-F', file]))).stdout.trim();
    const out = await this.run(['cherry-pick', undo], { reach: 'contents', answers: [1] });
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ['cherry-pick', '--abort']);
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

  /**
   * Stages every change (or only `paths`), new files included, ignored ones not, and commits them if
   * there are any, or if a merge is under way (its commit records the merge, even when it changes
   * nothing the branch did not have).
   */
  async commitAll(message: string, how: { paths?: readonly string[] } = {}): Promise<{ committed: boolean; head: string }> {
    const paths = how.paths ? ['--', ...how.paths] : [];
    const nested = await this.nestedRepositories();
    if (nested.length) {
      throw new ConveyorError(
        'nested-repository',
        `${this.dir} holds a git repository of its own at ${nested.map((n) => `\`${n}\``).join(', ')}: adding it would run programs its configuration names, so Conveyor commits nothing there. Remove it (or keep its files as plain files) and run again.`,
      );
    }
    await this.run(['add', '--all', '--verbose', ...paths]);
    const staged = await this.run(['diff', '--cached', '--name-only', '-z', ...paths]);
    if (!staged.stdout && !(await this.mergeInProgress())) return { committed: false, head: await this.currentCommit() };
    return { committed: true, head: await this.commit(message, how) };
  }

  /** Checks out `commit` without a branch. */
  async checkoutDetached(commit: string): Promise<void> {
    await this.run(['checkout', '--detach', commit], { reach: 'contents' });
  }

  /**
   * Writes the files of `commit` into `dir` (a folder of the caller's), as a checkout would, but
   * with an index of its own and no git folder there: a command run in `dir` finds no repository
   * to change, and this repository's index and work tree stay as they are.
   */
  async exportTree(commit: string, dir: string): Promise<void> {
    const scratch = await makePrivateTemp('index-');
    try {
      const index = join(scratch, 'index');
      await this.run(['read-tree', `--index-output=${index}`, commit]);
      await this.run(['checkout-index', '--all', '--force'], { reach: 'contents', workTree: dir, index });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** What a commit made here is made of, read from the object database: to send it through an API (git-objects.ts). */
  objects(): GitObjects {
    return new GitObjects((args, how) => this.run(args, how));
  }

  /** Keeps files matching `patterns` out of every commit (the git folder's info/exclude, where no command can write). */
  async exclude(patterns: readonly string[]): Promise<void> {
    if (patterns.length === 0) return;
    await mkdir(join(this.gitDir, 'info'), { recursive: true });
    await appendFile(join(this.gitDir, 'info', 'exclude'), `\n${patterns.join('\n')}\n`);
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

  private run(args: string[], how: RunOptions = {}): Promise<Output> {
    const next = this.queue.then(() => this.runNow(args, how));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(args: string[], how: RunOptions): Promise<Output> {
    // The git folder as Conveyor's last command left it, whatever ran in the checkout since.
    if (this.owned && !how.outside) await this.owned.reclaim();
    try {
      const named = this.owned && !how.outside && !how.standalone;
      // simple-git's cat-file for bytes puts `cat-file` first: the folders go by the environment then.
      if (named && how.bytes) return await this.spawn(args, how, { GIT_DIR: this.owned!.gitDir, GIT_WORK_TREE: this.dir });
      return await this.spawn(named ? [`--git-dir=${this.owned!.gitDir}`, `--work-tree=${how.workTree ?? this.dir}`, ...args] : args, how);
    } finally {
      if (this.owned && !how.outside) await this.owned.record();
    }
  }

  private async spawn(args: string[], how: RunOptions, folders: Record<string, string> = {}): Promise<Output> {
    const reach = how.reach ?? 'local';
    const auth = reach === 'server' || (reach === 'contents' && this.options.partial) ? this.options.auth : undefined;
    const scrub = this.options.scrub ?? ((t: string) => t);
    // simple-git treats a non-zero exit without stderr as success, and one with stderr as an error
    // that does not say the exit code: this hook sees every command's result and keeps it, so that
    // the exit code is judged here, where the operation says which codes are answers.
    let result: { exitCode: number; stderr: string } | undefined;
    const what = `git ${args.filter((a) => !a.includes('\n') && !a.startsWith('--git-dir=') && !a.startsWith('--work-tree=')).join(' ')}`;
    const cwd = how.outside ? tmpdir() : this.dir;
    const token = typeof auth?.token === 'function' ? await auth.token() : auth?.token;
    const env = {
      ...gitEnvironment(token, this.options.identity),
      ...(how.outside ? OUTSIDE_ANY_REPOSITORY : {}),
      ...(how.index ? { GIT_INDEX_FILE: how.index } : {}),
      ...folders,
    };
    let stdout: string;
    let bytes: Buffer | undefined;
    try {
      const git = simpleGit({
        baseDir: cwd,
        binary: gitBinary(),
        config: gitConfig(auth?.serverUrl, this.options.identity),
        unsafe: ALLOWED_UNSAFE,
        errors: (_error, r) => {
          result = { exitCode: r.exitCode, stderr: Buffer.concat(r.stdErr).toString('utf8') };
          return undefined;
        },
      }).env(env);
      if (how.bytes && args[0] === 'cat-file') {
        bytes = await git.binaryCatFile(args.slice(1));
        stdout = '';
      } else stdout = await git.raw(args);
    } catch (e) {
      const said = result?.stderr.trim() || (e instanceof Error ? e.message : String(e));
      throw new ConveyorError(this.options.code ?? 'internal', scrub(`${what} could not run in ${this.dir}: ${said}`), { cause: e });
    }
    const exitCode = result?.exitCode ?? 0;
    const stderr = scrub(result?.stderr ?? '');
    if (exitCode !== 0 && !how.answers?.includes(exitCode)) {
      throw new ConveyorError(this.options.code ?? 'internal', scrub(`${what} failed (exit ${exitCode}) in ${this.dir}: ${stderr.trim() || stdout.trim()}`));
    }
    return { exitCode, stdout, stderr, ...(bytes ? { bytes } : {}) };
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
  const folder = await makePrivateTemp('message-');
  try {
    const file = join(folder, 'message.txt');
    await writeFile(file, message, { mode: 0o600 });
    return await fn(file);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
