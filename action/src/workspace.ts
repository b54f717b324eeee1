// The workspace: every repository of the change set cloned, in parallel, as a sibling folder
// `owner__name` under one root. Clone targets must lie under GITHUB_SERVER_URL. The work branch
// is resumed when it exists on the remote (and the base merged into it when that merges cleanly,
// or, for a conflict repair, left merging with its conflicts marked for the agent to resolve),
// else created from the base. What each branch started from is recorded for --force-with-lease.
// Each checkout's git folder lives beside the root, in `<root>.git/owner__name`, out of the
// workspace: the commands that run in the checkout read it (the sandbox binds it read-only) and
// never change it, and Conveyor's git reads nothing of the checkout but its files (lib/git.ts).
// From an http(s) server it fetches as little as the step needs: a new work branch starts from a
// shallow clone of the base's last commit; a work branch to resume comes with the history of the
// base and work branches, which merges need, in a partial (blobless) clone whose file contents
// come only as a checkout, merge or diff asks for them.
import { code } from '../../core/text.ts';
import { lstat, mkdir, readdir, realpath, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConveyorError } from '../../core/errors.ts';
import type { PayloadRepo } from '../../core/contract/wire.ts';
import { GitRepo } from '../../lib/git.ts';
import { makePrivateTemp } from '../../lib/private-temp.ts';

export interface WorkspaceContext {
  /** GITHUB_SERVER_URL: https://github.com, or file:///folder/of/bare/repositories. */
  serverUrl: string;
  /** The step's token, asked for by each command that needs it (it is renewed while the step runs). */
  token?: () => Promise<string>;
  scrub: (text: string) => string;
}

export interface WorkspaceRepo extends PayloadRepo {
  /** Folder name under the root: `owner__name`. */
  folder: string;
  /** Absolute path of the checkout. */
  dir: string;
  url: string;
  /** The work branch existed on the remote and was checked out. */
  resumed: boolean;
  /** Remote head of the work branch when the step started; '' when it did not exist (the lease). */
  startCommit: string;
  baseCommit: string;
  /** HEAD after preparing (and merging the base): what the agent started from. */
  preparedHead: string;
  /** `resolving`: a conflict repair's merge of the base is under way, its conflicts marked in `conflicts` for the agent. */
  baseMerge: 'new-branch' | 'up-to-date' | 'merged' | 'conflict' | 'resolving' | 'not-merged';
  /** Why an existing work branch was started over from the base instead of resumed (PrepareOptions.endedWork). */
  startedOver?: string;
  /** The files a merge under way left conflicted (`resolving`). */
  conflicts: string[];
  /** What is checked out: the work branch, or the base when the work branch does not exist (gate). */
  checkedOut: string;
  /** Its git folder, outside the workspace. */
  gitDir: string;
  /** Every git command Conveyor runs in this checkout: one repository, which knows the state of its git folder. */
  git: GitRepo;
}

export interface Workspace {
  root: string;
  /** The folder of the checkouts' git folders (`<root>.git`): every command may read it, none may write it. */
  gitRoot: string;
  repos: WorkspaceRepo[];
  /** Things a person (and the agent) should know, e.g. a base that did not merge. */
  notes: string[];
}

/** `work`: resume or create the work branch (code step). `checkout`: the work branch if it exists
 * remotely, else the base, nothing merged (gate). */
export type PrepareMode = 'work' | 'checkout';

export interface PrepareOptions {
  /** The folder that receives the repository folders (default: a new temporary one). */
  root?: string;
  mode: PrepareMode;
  /** The work branches are expected to hold nothing but their start (a code step's own attempt, after the draft PR's empty commit). */
  fresh?: boolean;
  /**
   * A conflict repair: a base that does not merge cleanly is left merging, its conflicts marked in
   * the files, for the agent to resolve by editing them; Conveyor commits the merge afterwards.
   */
  resolveConflicts?: boolean;
  /**
   * Why the work branch, where it exists, must not be resumed (its pull request was merged or
   * closed: the work of a run that ended), or undefined to resume it. Such a branch starts over
   * from the base, its push leased on its old head.
   */
  endedWork?: (repo: PayloadRepo) => Promise<string | undefined>;
}

export function repoFolder(repo: string): string {
  const [owner, name] = repo.split('/');
  return `${owner}__${name}`;
}

function refuse(message: string): never {
  throw new ConveyorError('clone-refused', message);
}

/** Checks GITHUB_SERVER_URL: http(s) or file, no credentials in it. Returns it without a trailing slash. */
export function checkServerUrl(serverUrl: string): string {
  let url: URL;
  try {
    url = new URL(serverUrl);
  } catch {
    return refuse(`GITHUB_SERVER_URL "${serverUrl}" is not a URL; expected https://github.com (or file:///folder in the embedded mode)`);
  }
  if (!['https:', 'http:', 'file:'].includes(url.protocol)) {
    refuse(`GITHUB_SERVER_URL "${serverUrl}" uses ${url.protocol}; expected https://, http:// or file://`);
  }
  if (url.username || url.password) refuse('GITHUB_SERVER_URL must not carry credentials; the token is passed to git per command');
  if (url.protocol === 'file:') localPath(serverUrl, 'GITHUB_SERVER_URL');
  return serverUrl.replace(/\/+$/, '');
}

/** The folder a file:// URL names on this machine; refused when it names another host. */
function localPath(url: string, what: string): string {
  try {
    return fileURLToPath(url);
  } catch {
    return refuse(`${what} "${url}" is not a folder on this machine (a host other than localhost, or an encoded "/"?); expected file:///folder`);
  }
}

/** Refuses a clone or push target that does not lie under the server URL. */
export function assertCloneTarget(target: string, serverUrl: string): void {
  const base = checkServerUrl(serverUrl);
  let t: URL;
  let b: URL;
  try {
    t = new URL(target);
    b = new URL(base);
  } catch {
    return refuse(`clone target "${target}" is not a URL under ${base}`);
  }
  const basePath = b.pathname.replace(/\/+$/, '');
  const inside =
    target.startsWith(`${base}/`) &&
    t.protocol === b.protocol &&
    t.host === b.host &&
    !t.username &&
    !t.password &&
    t.pathname.startsWith(`${basePath}/`) &&
    !decodeURIComponent(t.pathname).split('/').includes('..');
  if (!inside) refuse(`clone target "${target}" is not on ${base}; Conveyor clones and pushes only there`);
}

/** The clone URL of owner/name: `<server>/<owner>/<name>.git`, refused when it would leave the server. */
export function cloneUrl(serverUrl: string, repo: string): string {
  const parts = repo.split('/');
  if (parts.length !== 2 || parts.some((p) => !/^[A-Za-z0-9_.-]+$/.test(p) || p === '.' || p.includes('..'))) {
    refuse(`repository "${repo}" is not a plain "owner/name" (no "..", no extra "/"); refusing to clone it`);
  }
  const url = `${checkServerUrl(serverUrl)}/${repo}.git`;
  assertCloneTarget(url, serverUrl);
  return url;
}

/**
 * The git repository of a checkout in the workspace. From an http(s) server the clone may be
 * partial (a resumed work branch), so the commands that talk to the server (fetch, push) and those
 * that read file contents get the token.
 */
export function repoGit(ctx: WorkspaceContext, dir: string, gitDir: string): GitRepo {
  const http = /^https?:/i.test(ctx.serverUrl);
  return new GitRepo(dir, {
    gitDir,
    scrub: ctx.scrub,
    partial: http,
    ...(http && ctx.token ? { auth: { token: ctx.token, serverUrl: checkServerUrl(ctx.serverUrl) } } : {}),
  });
}

/** Remote heads of the base and work branches, as a map from branch name to commit. */
type Heads = Map<string, string>;

/**
 * A file:// server (the embedded mode, tests) is a folder on this machine: git's local clone
 * copies its object store as files instead of packing every object (pack-objects), sending it
 * through a pipe and hashing it again (index-pack, connectivity check), which was most of the
 * CPU of a preparation. Copies, not hard links: the agent runs in this checkout and must not be
 * able to reach the remote's object files through it. The URL was checked against the server
 * before this runs, and the path is derived from that URL alone.
 *
 * The checkout forgets where the remote is: a folder needs no credential, so an agent could push
 * to it straight from here. Only Conveyor pushes, to the URL it holds, after its checks; the
 * fetched `origin/*` refs stay, for merging the base.
 */
async function cloneLocal(git: GitRepo, url: string, branches: readonly string[]): Promise<Heads> {
  await git.failingAs('clone-failed').clone(localPath(url, 'clone target'), { local: true });
  const heads = await git.remoteBranchHeads(branches);
  // Not at the same time as the checkout, which writes .git/config too (the branch's upstream).
  await git.forgetRemote('origin');
  return heads;
}

/**
 * An http(s) server: first the heads of the base and work branches (the work branch's is the
 * commit the lease is on), then as little as the step needs:
 * - no work branch yet: the base's last commit and its files, in one request (a shallow clone, as
 *   actions/checkout makes by default). Nothing is merged or compared with an older commit, and
 *   the new branch is pushed on top of a commit the server has.
 * - a work branch to resume: a blobless clone of the base (every commit and tree: merging the base
 *   in, and the review's diff against it, need their merge base; file contents come when a
 *   checkout, merge or diff asks for them), then the work branch's listed commit.
 * Not blobless always: the checkout after a blobless clone asks the server again, for every file
 * of the tip, and on a short history those two requests cost half as much again as one plain
 * clone of everything (bench/checkout.bench.ts).
 */
async function fetchRemote(git: GitRepo, url: string, base: string, work: string, fresh: boolean): Promise<Heads> {
  const network = git.failingAs('clone-failed');
  // The remote is recorded without any credential; the token goes to each command that needs it.
  const listed = await network.remoteHeads(url, [base, work]);
  const baseCommit = listed.get(base);
  if (!baseCommit) return listed; // the caller says which branch is missing
  const workCommit = listed.get(work);
  if (!workCommit) {
    await network.clone(url, { branch: base, depth: 1 });
    return git.remoteBranchHeads([base]);
  }
  if (fresh) {
    // A work branch expected to hold nothing but its start (the draft PR's empty commit on the
    // base): its last two commits with the files, in one request, are all the step needs when the
    // second is the base's head. Otherwise (work already done, or the base moved) it is the
    // blobless clone below, from an empty folder again.
    await network.clone(url, { branch: work, depth: 2 });
    const parent = await git.revParse(`${workCommit}^`).catch(() => '');
    if (parent === baseCommit) {
      await git.setRemoteBranch(base, baseCommit);
      return git.remoteBranchHeads([base, work]);
    }
    await git.removeRepository();
  }
  await network.clone(url, { branch: base, filter: 'blob:none' });
  await network.fetch([`+${workCommit}:refs/remotes/origin/${work}`]);
  return git.remoteBranchHeads([base, work]);
}

async function prepareRepo(ctx: WorkspaceContext, ws: { root: string; gitRoot: string }, repo: PayloadRepo, options: PrepareOptions): Promise<WorkspaceRepo> {
  const { mode } = options;
  const folder = repoFolder(repo.repo);
  const dir = join(ws.root, folder);
  const gitDir = join(ws.gitRoot, folder);
  const url = cloneUrl(ctx.serverUrl, repo.repo);
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).length > 0) {
    throw new ConveyorError('bad-input', `workspace folder ${dir} for ${repo.repo} is not empty; give an empty CONVEYOR_WORKSPACE_ROOT`);
  }
  // The git folder an earlier checkout in this root left (its checkout folder is gone): Conveyor's own, cloned afresh.
  await rm(gitDir, { recursive: true, force: true });
  const git = repoGit(ctx, dir, gitDir);
  const heads = url.startsWith('file:')
    ? await cloneLocal(git, url, [repo.base, repo.workBranch])
    : await fetchRemote(git, url, repo.base, repo.workBranch, options.fresh ?? false);
  const baseCommit = heads.get(repo.base);
  if (!baseCommit) {
    throw new ConveyorError('clone-failed', `base branch "${repo.base}" does not exist in ${repo.repo} (${url})`);
  }
  const workCommit = heads.get(repo.workBranch) ?? '';
  const ended = workCommit && mode === 'work' && options.endedWork ? await options.endedWork(repo) : undefined;

  let baseMerge: WorkspaceRepo['baseMerge'] = 'new-branch';
  let conflicts: string[] = [];
  let checkedOut = repo.workBranch;
  // What HEAD is after a plain checkout; a merge (or a failed one) is asked of git instead.
  let preparedHead: string | undefined = workCommit || baseCommit;
  if (ended) {
    await git.checkout(repo.workBranch, `refs/remotes/origin/${repo.base}`);
    preparedHead = baseCommit;
  } else if (workCommit) {
    await git.checkout(repo.workBranch, `refs/remotes/origin/${repo.workBranch}`);
    if (mode === 'checkout') baseMerge = 'not-merged';
    else if (await git.isAncestor(baseCommit, 'HEAD')) baseMerge = 'up-to-date';
    else {
      preparedHead = undefined;
      const base = `refs/remotes/origin/${repo.base}`;
      // A base that does not merge cleanly is left out (the merge is undone), and the notes say so;
      // a conflict repair instead gets the merge under way, its conflicts marked in the files.
      if ((await git.merge(base)).merged) baseMerge = 'merged';
      else if (options.resolveConflicts) {
        conflicts = await git.startMerge(base);
        baseMerge = 'resolving';
      } else baseMerge = 'conflict';
    }
  } else if (mode === 'checkout') {
    checkedOut = repo.base;
    await git.checkout(repo.base, `refs/remotes/origin/${repo.base}`);
    baseMerge = 'not-merged';
  } else {
    await git.createBranch(repo.workBranch, `refs/remotes/origin/${repo.base}`);
  }
  preparedHead ??= await git.currentCommit();
  return {
    ...repo,
    folder,
    dir,
    url,
    resumed: Boolean(workCommit) && !ended,
    startCommit: workCommit,
    ...(ended ? { startedOver: ended } : {}),
    baseCommit,
    preparedHead,
    baseMerge,
    conflicts,
    checkedOut,
    gitDir,
    git,
  };
}

/** Clones every repository in parallel; refuses everything before cloning anything when one target is bad. */
export async function prepareWorkspace(ctx: WorkspaceContext, repos: readonly PayloadRepo[], options: PrepareOptions): Promise<Workspace> {
  checkServerUrl(ctx.serverUrl);
  const folders = new Map<string, string>();
  for (const r of repos) {
    cloneUrl(ctx.serverUrl, r.repo);
    const f = repoFolder(r.repo);
    const other = folders.get(f);
    if (other && other !== r.repo) throw new ConveyorError('bad-input', `repositories ${other} and ${r.repo} would share the folder ${f}`);
    folders.set(f, r.repo);
  }
  const asked = options.root ? resolve(options.root) : await makePrivateTemp('ws-');
  await mkdir(asked, { recursive: true });
  // Its real path: what the sandbox binds and what a file's real path is checked against.
  const root = await realpath(asked);
  const gitRoot = `${root}.git`;
  await mkdir(gitRoot, { recursive: true });
  if (!(await lstat(gitRoot)).isDirectory()) {
    throw new ConveyorError('bad-input', `${gitRoot}, where the checkouts' git folders go, is not a folder (a link?); remove it`);
  }
  const prepared = await Promise.all(repos.map((r) => prepareRepo(ctx, { root, gitRoot }, r, options)));
  const notes: string[] = [];
  for (const r of prepared) {
    if (r.startedOver) {
      notes.push(`${r.repo}: ${code(r.workBranch)} was not resumed (${r.startedOver}); it starts over from ${code(r.base)}.`);
    }
    if (r.baseMerge === 'resolving') {
      notes.push(
        `${r.repo}: Conveyor has started merging the base branch ${code(r.base)} into ${code(r.workBranch)}, and these files hold git's conflict markers: ${r.conflicts.map((c) => code(c)).join(', ') || '(none listed)'}. Resolve each by editing it (keep the intent of both sides, leave no \`<<<<<<<\`, \`=======\` or \`>>>>>>>\` line); do not run git: Conveyor commits the merge once no file holds a marker.`,
      );
    } else if (r.baseMerge === 'conflict') {
      notes.push(`${r.repo}: the base branch ${code(r.base)} does not merge cleanly into ${code(r.workBranch)}; it was left unmerged.`);
    } else if (r.baseMerge === 'merged') {
      notes.push(`${r.repo}: merged the advanced base ${code(r.base)} into the resumed ${code(r.workBranch)}.`);
    }
  }
  return { root, gitRoot, repos: prepared, notes };
}
