// Comments on issues and pull requests: the tracking comment (made, edited, found again by its
// marker after a lost record), replies, and the reaction that acknowledges a command. Bodies are
// fitted to GitHub's limit here, once, on the way out.
import { fitComment } from '../../../core/github/limits.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams, type Rest } from './api.ts';

export type Reaction = Rest['reactions']['createForIssueComment']['parameters']['content'];

export class Comments {
  constructor(private readonly octokit: GitHubOctokit) {}

  async create(repo: string, issue: number, body: string): Promise<{ id: number; url: string }> {
    const { data } = await this.octokit.rest.issues.createComment({ ...repoParams(repo), issue_number: issue, body: fitComment(body) });
    return { id: data.id, url: data.html_url };
  }

  async update(repo: string, id: number, body: string): Promise<void> {
    await this.octokit.rest.issues.updateComment({ ...repoParams(repo), comment_id: id, body: fitComment(body) });
  }

  /** The issue's comment holding `marker`, if any (the tracking comment after a lost record): every page is read until it is found. */
  async find(repo: string, issue: number, marker: string): Promise<{ id: number; url: string } | undefined> {
    const pages = this.octokit.paginate.iterator(this.octokit.rest.issues.listComments, { ...repoParams(repo), issue_number: issue, per_page: 100 });
    for await (const { data } of pages) {
      const found = data.find((c) => c.body?.includes(marker));
      if (found) return { id: found.id, url: found.html_url };
    }
    return undefined;
  }

  async react(repo: string, commentId: number, content: Reaction): Promise<void> {
    await this.octokit.rest.reactions.createForIssueComment({ ...repoParams(repo), comment_id: commentId, content });
  }
}
