// Pull request reviews on GitHub (the Forge port's): post one with its comments on lines, list a
// PR's reviews (every page), dismiss one that requests changes, and edit one's body. GitHub
// dismisses only reviews that request changes or approve; a comment is edited instead.
import { REVIEW_BODY_MAX } from '../../../core/github/limits.ts';
import { fitText } from '../../../core/text.ts';
import { ReviewRefused, type Review, type ReviewRequest, type ReviewState } from '../../../engine/ports/forge.ts';
import { GitHubApiError } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams, type Rest } from './api.ts';

type ApiReview = Rest['pulls']['createReview']['response']['data'];

const STATES: readonly ReviewState[] = ['COMMENTED', 'CHANGES_REQUESTED', 'APPROVED', 'DISMISSED', 'PENDING'];

function toReview(r: ApiReview): Review {
  const state = STATES.find((s) => s === r.state) ?? 'COMMENTED';
  return { id: r.id, url: r.html_url, state, body: r.body ?? '', author: r.user?.login ?? '', ...(r.commit_id ? { commit: r.commit_id } : {}) };
}

const fit = (body: string) => fitText(body, REVIEW_BODY_MAX, "the whole review is in the step's check run");

export class Reviews {
  constructor(private readonly octokit: GitHubOctokit) {}

  async create(request: ReviewRequest): Promise<Review> {
    try {
      const { data } = await this.octokit.rest.pulls.createReview({
        ...repoParams(request.repo),
        pull_number: request.number,
        commit_id: request.commit,
        event: request.event,
        body: fit(request.body),
        comments: request.comments.map((c) => ({ path: c.path, line: c.line, side: 'RIGHT', body: fit(c.body) })),
      });
      return toReview(data);
    } catch (e) {
      if (e instanceof GitHubApiError && e.status === 422) {
        // "Review Can not request changes on your own pull request": the app opened the PR it reviews.
        if (/own pull request/i.test(e.githubMessage)) throw new ReviewRefused(e.githubMessage, 'own-pull-request');
        // "Line could not be resolved", "pull_request_review_thread.line must be part of the diff": GitHub's diff differs from the step's.
        if (request.comments.length > 0) throw new ReviewRefused(e.githubMessage, 'lines');
      }
      throw e;
    }
  }

  async list(repo: string, number: number): Promise<Review[]> {
    const reviews = await this.octokit.paginate(this.octokit.rest.pulls.listReviews, { ...repoParams(repo), pull_number: number, per_page: 100 });
    return reviews.map(toReview);
  }

  async dismiss(repo: string, number: number, id: number, message: string): Promise<void> {
    await this.octokit.rest.pulls.dismissReview({ ...repoParams(repo), pull_number: number, review_id: id, message, event: 'DISMISS' });
  }

  async edit(repo: string, number: number, id: number, body: string): Promise<void> {
    await this.octokit.rest.pulls.updateReview({ ...repoParams(repo), pull_number: number, review_id: id, body: fit(body) });
  }
}
