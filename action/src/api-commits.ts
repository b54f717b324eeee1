// `commits: verified`: the commits a push would send, made again by GitHub through its Git data
// API, so that GitHub signs them; then the work branch moved to them. Each commit is made with
// the same tree (GitHub's tree is checked to be the very tree of the local commit, so `writes`,
// which was checked on the local trees, holds for what GitHub now has), the same parents (those
// made here mapped to GitHub's), and the same message; its author and committer are the token's
// account (GitHub signs nothing else), and the author is credited by the message's
// `Co-authored-by:`. A merge commit (the base merged in, a conflict repair) keeps both parents.
//
// What a push guarantees holds here too:
// - only the commit Conveyor made, by its id, and what it holds that GitHub lacks, is sent;
// - the lease: the branch moves only as a fast-forward, and every commit made descends from the
//   commit the step started from, so someone else's push since is a refusal, reported like a
//   rejected push; a branch that did not exist is created only if it still does not. (Where git's
//   lease would also refuse a branch moved back to an older commit of its own history, the
//   fast-forward moves it on again.) A branch started over from its base (its PR ended) does not
//   descend from its old head, which it replaces: it is moved with force only while it is still
//   at the commit the step started from (GitData.moveBranch).
// - nothing is written before every file is known to fit: a file over GitHub's limit fails the
//   step (`change-too-large`) naming it, and a change too large for one request is split.
import { ConveyorError } from '../../core/errors.ts';
import { code } from '../../core/text.ts';
import { fitsRequest, GITHUB_LIMITS, humanBytes, inlineText, inlineWeight, type ApiCommitLimits } from '../../core/steps/api-commits.ts';
import type { GitData, MadeCommit, TreeEntry, TreeMode } from '../../engine/ports/forge.ts';
import type { GitObjects, PathChange, StoredCommit } from '../../lib/git-objects.ts';
import type { WorkspaceRepo } from './workspace.ts';

/** What was sent: the head the branch is at now (GitHub's commit), and each commit GitHub made. */
export interface SentThroughApi {
  head: string;
  made: MadeCommit[];
  /** Tree requests and blobs it took. */
  requests: { trees: number; blobs: number };
}

/** A path of a commit to send: by an object GitHub holds, or with its bytes (`blob`, read when sent). */
type Planned = { path: string; mode: TreeMode } & ({ sha: string | null } | { blob: string; size: number });

interface PlannedCommit {
  commit: StoredCommit;
  /** The parent whose tree the commit's tree is made on (the one it differs least from). */
  base: string;
  entries: Planned[];
}

const FILE_MODES = new Set<string>(['100644', '100755', '120000', '160000']);

/** A mode git wrote for a file (an old tree's 100664 included) as one GitHub takes. */
function treeMode(mode: string): TreeMode {
  return (FILE_MODES.has(mode) ? mode : '100644') as TreeMode;
}

/**
 * What to send of `commit`: its paths that differ from the parent it differs least from, removals
 * first (a file that becomes a folder is gone before the folder's files arrive). A path whose
 * object another parent already holds at that path is sent by its id: GitHub has it.
 */
async function planCommit(objects: GitObjects, repo: string, commit: StoredCommit): Promise<PlannedCommit> {
  // Every commit a step makes descends from the base it was cloned at; one with no parent came from elsewhere.
  if (commit.parents.length === 0)
    throw new ConveyorError('internal', `${repo}: commit ${commit.sha.slice(0, 12)} has no parent; nothing was sent to the branch.`);
  const byParent = await Promise.all(commit.parents.map(async (p) => ({ parent: p, changes: await objects.changes(p, commit.sha) })));
  const chosen = byParent.reduce((best, p) => (p.changes.length < best.changes.length ? p : best));
  const elsewhere = byParent.filter((p) => p !== chosen).map((p) => new Set(p.changes.map((c) => c.path)));
  const plan = (c: PathChange): Planned => {
    if (c.sha === undefined) return { path: c.path, mode: treeMode(c.oldMode), sha: null };
    const mode = treeMode(c.mode);
    // A submodule's commit is never sent; a file whose mode alone changed, or that another parent
    // holds as it is here, is GitHub's already.
    if (mode === '160000' || c.oldSha === c.sha || elsewhere.some((changed) => !changed.has(c.path))) return { path: c.path, mode, sha: c.sha };
    return { path: c.path, mode, blob: c.sha, size: 0 };
  };
  const entries = chosen.changes.map(plan).sort((a, b) => Number(isRemoval(b)) - Number(isRemoval(a)));
  return { commit, base: chosen.parent, entries };
}

const isRemoval = (e: Planned) => 'sha' in e && e.sha === null;

/** Fills in the size of every file to send, and refuses the change when one is over the limit (before anything is written). */
async function checkSizes(objects: GitObjects, repo: string, planned: PlannedCommit, limits: ApiCommitLimits): Promise<void> {
  const files = planned.entries.filter((e): e is Extract<Planned, { blob: string }> => 'blob' in e);
  const sizes = await objects.sizes(
    planned.commit.sha,
    files.map((f) => f.path),
  );
  const over: string[] = [];
  for (const f of files) {
    f.size = sizes.get(f.path) ?? 0;
    if (f.size > limits.maxFileBytes) over.push(`${code(f.path)} (${f.size} bytes)`);
  }
  if (over.length) {
    throw new ConveyorError(
      'change-too-large',
      `${repo}: GitHub takes no file over ${humanBytes(limits.maxFileBytes)} (${limits.maxFileBytes} bytes), and the change holds ${over.join(', ')}; nothing was sent to the branch. Keep such files out of the repository (Git LFS, a release asset, or a download at build time).`,
    );
  }
}

/** Sends one commit's tree, in as many requests as it takes; returns the tree GitHub made. */
async function sendTree(
  gitData: GitData,
  objects: GitObjects,
  repo: string,
  planned: PlannedCommit,
  limits: ApiCommitLimits,
  count: SentThroughApi['requests'],
): Promise<string> {
  let tree = await objects.treeOf(planned.base);
  let batch: TreeEntry[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    tree = await gitData.createTree(repo, tree, batch);
    count.trees++;
    batch = [];
    bytes = 0;
  };
  for (const e of planned.entries) {
    let entry: TreeEntry;
    if ('blob' in e) {
      const content = await objects.blob(e.blob);
      const text = content.length <= limits.inlineFileBytes ? inlineText(content) : undefined;
      if (text !== undefined) entry = { path: e.path, mode: e.mode, content: text };
      else entry = { path: e.path, mode: e.mode, sha: await sendBlob(gitData, repo, e.path, content, e.blob, count) };
    } else entry = { path: e.path, mode: e.mode, sha: e.sha } as TreeEntry;
    const weight = inlineWeight('content' in entry ? entry.content : undefined);
    if (!fitsRequest({ entries: batch.length, bytes }, weight, limits)) await flush();
    batch.push(entry);
    bytes += weight;
  }
  await flush();
  return tree;
}

async function sendBlob(gitData: GitData, repo: string, path: string, content: Buffer, sha: string, count: SentThroughApi['requests']): Promise<string> {
  let made: string;
  try {
    made = await gitData.createBlob(repo, content);
  } catch (e) {
    if (e instanceof ConveyorError && e.code === 'change-too-large') {
      throw new ConveyorError(
        'change-too-large',
        `${repo}: GitHub's API did not take ${code(path)} (${humanBytes(content.length)}); nothing was sent to the branch. ${e.message.replace(/\.+$/, '')}. Keep the file out of the repository, or push with git (\`commits: git\`) where the branch does not require signed commits.`,
        { cause: e },
      );
    }
    throw e;
  }
  count.blobs++;
  if (made !== sha)
    throw new ConveyorError('forge-failed', `${repo}: GitHub stored ${code(path)} as blob ${made}, not ${sha} as git has it; nothing was sent to the branch.`);
  return made;
}

/**
 * Makes the commits of `head` that GitHub lacks through `gitData` and moves the work branch to
 * the last, leased as described above. Throws `push-rejected` when the branch moved meanwhile.
 */
export async function sendThroughApi(gitData: GitData, repo: WorkspaceRepo, head: string, limits: ApiCommitLimits = GITHUB_LIMITS): Promise<SentThroughApi> {
  const objects = repo.git.objects();
  const commits = await objects.commitsToSend(head, [repo.startCommit, repo.baseCommit]);
  const plans: PlannedCommit[] = [];
  for (const c of commits) plans.push(await planCommit(objects, repo.repo, c));
  for (const p of plans) await checkSizes(objects, repo.repo, p, limits);

  const made = new Map<string, MadeCommit>();
  const requests = { trees: 0, blobs: 0 };
  for (const p of plans) {
    const tree = await sendTree(gitData, objects, repo.repo, p, limits, requests);
    if (tree !== p.commit.tree) {
      throw new ConveyorError(
        'forge-failed',
        `${repo.repo}: GitHub made tree ${tree} of commit ${p.commit.sha.slice(0, 12)}, whose tree is ${p.commit.tree}; nothing was sent to the branch.`,
      );
    }
    const parents = p.commit.parents.map((parent) => made.get(parent)?.sha ?? parent);
    made.set(p.commit.sha, await gitData.createCommit(repo.repo, { message: p.commit.message, tree, parents }));
  }

  const sent = made.get(head)?.sha ?? head;
  const update = !repo.startCommit
    ? await gitData.createBranch(repo.repo, repo.workBranch, sent)
    : repo.startedOver
      ? await gitData.moveBranch(repo.repo, repo.workBranch, sent, repo.startCommit)
      : await gitData.advanceBranch(repo.repo, repo.workBranch, sent);
  if (!update.updated) {
    throw new ConveyorError(
      'push-rejected',
      `update of ${repo.workBranch} in ${repo.repo} through GitHub's API was refused (someone else pushed since the step started from ${repo.startCommit.slice(0, 12) || 'nothing'}?): ${update.message}`,
    );
  }
  return { head: sent, made: [...made.values()], requests };
}
