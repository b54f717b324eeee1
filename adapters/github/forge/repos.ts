// A repository on GitHub as the app reads it: its default branch, a branch's head (and its tree,
// for the draft PR's empty commit), and a file at a ref (`.github/conveyor.yml` on the default
// branch). A 404 where the caller asks whether something is there is `undefined`.
import { unlessAbsent } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams } from './api.ts';

export class Repos {
  constructor(private readonly octokit: GitHubOctokit) {}

  /** A file's text at a ref, or undefined when there is no such file. */
  async readFile(repo: string, path: string, ref: string): Promise<string | undefined> {
    const answer = await unlessAbsent(this.octokit.rest.repos.getContent({ ...repoParams(repo), path, ref }));
    const data = answer?.data;
    if (!data || Array.isArray(data) || data.type !== 'file' || !('content' in data) || typeof data.content !== 'string') return undefined;
    return Buffer.from(data.content, (data.encoding as BufferEncoding) || 'base64').toString('utf8');
  }

  /** The repository's default branch (GET /repos/{owner}/{repo}), or undefined when the installation cannot see it. */
  async defaultBranch(repo: string): Promise<string | undefined> {
    const answer = await unlessAbsent(this.octokit.rest.repos.get(repoParams(repo)));
    return answer?.data.default_branch;
  }

  /** A branch's head commit and its tree (what an empty commit on it takes). */
  async branchCommit(repo: string, branch: string): Promise<{ sha: string; tree: string }> {
    const { data } = await this.octokit.rest.repos.getBranch({ ...repoParams(repo), branch });
    return { sha: data.commit.sha, tree: data.commit.commit.tree.sha };
  }

  async branchHead(repo: string, branch: string): Promise<string> {
    const { data } = await this.octokit.rest.git.getRef({ ...repoParams(repo), ref: `heads/${branch}` });
    return data.object.sha;
  }
}
