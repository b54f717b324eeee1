// Pull request reviews of the local forge: rows of the same SQLite file as its PRs, so the review
// step's process posts them and `conveyor pr RUN` reads them. They behave as GitHub's do where the
// review step relies on it: a review that requests changes can be dismissed (it keeps why), a
// comment cannot (its body is edited instead). The local forge has no accounts: its author is
// `conveyor`, and nothing stops a review that requests changes on a PR Conveyor opened.
import type BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { ConveyorError } from '../../core/errors.ts';
import type { Review, ReviewLineComment, ReviewRequest } from '../../engine/ports/forge.ts';

export const REVIEWS_SCHEMA = `
CREATE TABLE IF NOT EXISTS reviews (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  commit_sha TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('COMMENTED', 'CHANGES_REQUESTED', 'DISMISSED')),
  body TEXT NOT NULL,
  author TEXT NOT NULL,
  dismissal TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_of_pull ON reviews (repo, number, id);
CREATE TABLE IF NOT EXISTS review_comments (
  review_id INTEGER NOT NULL REFERENCES reviews (id),
  position INTEGER NOT NULL,
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (review_id, position)
);
`;

export const LOCAL_REVIEWER = 'conveyor';

// Another process wrote these rows (the file is shared): read them as data, not as what the code expects.
const reviewRow = z.object({
  id: z.number().int(),
  commit_sha: z.string(),
  state: z.enum(['COMMENTED', 'CHANGES_REQUESTED', 'DISMISSED']),
  body: z.string(),
  author: z.string(),
  dismissal: z.string().nullable(),
});
const commentRow = z.object({ review_id: z.number().int(), path: z.string(), line: z.number().int(), body: z.string() });

export class LocalReviews {
  constructor(
    private readonly db: BetterSqlite3.Database,
    /** The PR's URL (the review's is that with an anchor). */
    private readonly pullUrl: (repo: string, number: number) => string,
  ) {}

  create(request: ReviewRequest): Review {
    const now = new Date().toISOString();
    const state = request.event === 'REQUEST_CHANGES' ? 'CHANGES_REQUESTED' : 'COMMENTED';
    const insert = this.db.transaction((): number => {
      const { lastInsertRowid } = this.db
        .prepare('INSERT INTO reviews (repo, number, commit_sha, state, body, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(request.repo, request.number, request.commit, state, request.body, LOCAL_REVIEWER, now, now);
      const id = Number(lastInsertRowid);
      const add = this.db.prepare('INSERT INTO review_comments (review_id, position, path, line, body) VALUES (?, ?, ?, ?, ?)');
      request.comments.forEach((c, i) => add.run(id, i, c.path, c.line, c.body));
      return id;
    });
    const id = insert.immediate();
    return this.get(request.repo, request.number, id);
  }

  list(repo: string, number: number): Review[] {
    const rows = z.array(reviewRow).parse(this.db.prepare('SELECT * FROM reviews WHERE repo = ? AND number = ? ORDER BY id').all(repo, number));
    const comments = z
      .array(commentRow)
      .parse(
        this.db
          .prepare('SELECT c.* FROM review_comments c JOIN reviews r ON r.id = c.review_id WHERE r.repo = ? AND r.number = ? ORDER BY c.review_id, c.position')
          .all(repo, number),
      );
    return rows.map((r) =>
      this.toReview(
        repo,
        number,
        r,
        comments.filter((c) => c.review_id === r.id),
      ),
    );
  }

  dismiss(repo: string, number: number, id: number, message: string): void {
    const review = this.get(repo, number, id);
    // As GitHub answers it (422): only a review that requests changes (or approves) can be dismissed.
    if (review.state !== 'CHANGES_REQUESTED') {
      throw new ConveyorError(
        'forge-failed',
        `review ${id} of ${repo}#${number} is ${review.state}: only a review that requests changes can be dismissed (edit a comment instead)`,
      );
    }
    this.db.prepare("UPDATE reviews SET state = 'DISMISSED', dismissal = ?, updated_at = ? WHERE id = ?").run(message, new Date().toISOString(), id);
  }

  edit(repo: string, number: number, id: number, body: string): void {
    this.get(repo, number, id);
    this.db.prepare('UPDATE reviews SET body = ?, updated_at = ? WHERE id = ?').run(body, new Date().toISOString(), id);
  }

  private get(repo: string, number: number, id: number): Review {
    const found = this.list(repo, number).find((r) => r.id === id);
    if (!found) throw new ConveyorError('forge-failed', `pull request ${repo}#${number} has no review ${id}`);
    return found;
  }

  private toReview(repo: string, number: number, r: z.infer<typeof reviewRow>, comments: ReviewLineComment[]): Review {
    return {
      id: r.id,
      url: `${this.pullUrl(repo, number)}#review-${r.id}`,
      state: r.state,
      body: r.body,
      author: r.author,
      commit: r.commit_sha,
      comments: comments.map((c) => ({ path: c.path, line: c.line, body: c.body })),
      ...(r.dismissal !== null ? { dismissal: r.dismissal } : {}),
    };
  }
}
