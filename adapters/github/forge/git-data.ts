// GitHub's Git data API (the GitData port of engine/ports/forge.ts): blobs, trees, commits and
// branch updates made by GitHub itself. A commit made here with no author or committer given is
// the token's account's, and GitHub signs it (an app's installation token: the app's bot, shown
// Verified), which a branch that requires signed commits takes where a plain git push is refused.
// A branch moves only as a fast-forward (`force: false`), and a new one only where none exists: a
// refusal is read back once, so that a call whose answer was lost and that was sent again (GitHub
// then says the branch is already there, or already at the commit) is not taken for someone else's.
// A branch replaced (started over from its base) is moved with `force: true` only once read at the
// commit the step started from: GitHub's REST API has no compare-and-swap of a ref, so a push in
// the moment between the read and the update is the one that git's lease would refuse and this
// does not.
import { ConveyorError } from '../../../core/errors.ts';
import type { BranchUpdate, GitData, MadeCommit, TreeEntry } from '../../../engine/ports/forge.ts';
import { GitHubApiError, unlessAbsent } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams } from './api.ts';

/** GitHub's refusals of a branch update: 422 (not a fast-forward, already exists, gone), 409 (the repository changed under it). */
const REFUSED = new Set([409, 422]);

/** GitHub's answer to a blob it will not take ("Sorry, your input was too large to process..."). */
const TOO_LARGE = /too large|too big/i;

export class GitHubGitData implements GitData {
  constructor(private readonly octokit: GitHubOctokit) {}

  async createBlob(repo: string, content: Buffer): Promise<string> {
    try {
      const { data } = await this.octokit.rest.git.createBlob({ ...repoParams(repo), content: content.toString('base64'), encoding: 'base64' });
      return data.sha;
    } catch (e) {
      if (e instanceof GitHubApiError && (e.status === 413 || (e.status === 422 && TOO_LARGE.test(e.githubMessage)))) {
        throw new ConveyorError('change-too-large', `GitHub refused a file of ${content.length} bytes in ${repo} (HTTP ${e.status}): ${e.githubMessage}`, {
          cause: e,
        });
      }
      throw e;
    }
  }

  async createTree(repo: string, base: string, entries: readonly TreeEntry[]): Promise<string> {
    const tree = entries.map((e) => ({
      path: e.path,
      mode: e.mode,
      type: e.mode === '160000' ? ('commit' as const) : ('blob' as const),
      ...('content' in e ? { content: e.content } : { sha: e.sha }),
    }));
    const { data } = await this.octokit.rest.git.createTree({ ...repoParams(repo), base_tree: base, tree });
    return data.sha;
  }

  async createCommit(repo: string, commit: { message: string; tree: string; parents: readonly string[] }): Promise<MadeCommit> {
    const { data } = await this.octokit.rest.git.createCommit({
      ...repoParams(repo),
      message: commit.message,
      tree: commit.tree,
      parents: [...commit.parents],
    });
    const verification = data.verification;
    return { sha: data.sha, verified: verification?.verified === true, ...(verification?.reason ? { reason: verification.reason } : {}) };
  }

  async createBranch(repo: string, branch: string, sha: string): Promise<BranchUpdate> {
    return this.refusalOf(repo, branch, sha, () => this.octokit.rest.git.createRef({ ...repoParams(repo), ref: `refs/heads/${branch}`, sha }));
  }

  async advanceBranch(repo: string, branch: string, sha: string): Promise<BranchUpdate> {
    return this.refusalOf(repo, branch, sha, () => this.octokit.rest.git.updateRef({ ...repoParams(repo), ref: `heads/${branch}`, sha, force: false }));
  }

  async moveBranch(repo: string, branch: string, sha: string, expected: string): Promise<BranchUpdate> {
    const at = (await unlessAbsent(this.octokit.rest.git.getRef({ ...repoParams(repo), ref: `heads/${branch}` })))?.data.object.sha;
    // Already there: a call whose answer was lost and that was sent again.
    if (at === sha) return { updated: true };
    if (at !== expected) return { updated: false, message: `the branch is ${at ? `at ${at.slice(0, 12)}` : 'gone'}, not at ${expected.slice(0, 12)}` };
    return this.refusalOf(repo, branch, sha, () => this.octokit.rest.git.updateRef({ ...repoParams(repo), ref: `heads/${branch}`, sha, force: true }));
  }

  /** Runs a branch update; a refusal counts only when the branch is not at `sha` after all. */
  private async refusalOf(repo: string, branch: string, sha: string, update: () => Promise<unknown>): Promise<BranchUpdate> {
    try {
      await update();
      return { updated: true };
    } catch (e) {
      if (!(e instanceof GitHubApiError && e.status !== undefined && REFUSED.has(e.status))) throw e;
      const now = await unlessAbsent(this.octokit.rest.git.getRef({ ...repoParams(repo), ref: `heads/${branch}` }));
      if (now?.data.object.sha === sha) return { updated: true };
      return { updated: false, message: `${e.githubMessage} (HTTP ${e.status}; the branch is ${now ? `at ${now.data.object.sha.slice(0, 12)}` : 'gone'})` };
    }
  }
}
