// Issues of the local forge: rows of the same SQLite file as its PRs, in the remotes folder, so the
// numbers are given out by the forge of the repositories, as GitHub gives them, and not by whichever
// state database drives a run. Two state databases over one remotes folder then never start two
// runs on one issue number by accident, nor on one work branch (`conveyor/<repo>-<issue>`).
// Issues and pull requests share one sequence per repository, as on GitHub: `acme/web#3` names one
// thing only.
import type BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';

export const ISSUES_SCHEMA = `
CREATE TABLE IF NOT EXISTS issues (
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (repo, number)
);
`;

export interface NewIssue {
  repo: string;
  title: string;
  body: string;
  /** An issue number the person gave (`--issue N`): recorded when new, so the forge never gives it out again. */
  number?: number;
  /** A number the forge must give past (the driving state database's highest, from before the forge gave them out). */
  after?: number;
}

export interface LocalIssue {
  repo: string;
  number: number;
  title: string;
  body: string;
}

// Another process wrote these rows (the file is shared): read them as data, not as what the code expects.
const nextRow = z.object({ next: z.number().int().positive() });
const issueRow = z.object({ repo: z.string(), number: z.number().int().positive(), title: z.string(), body: z.string() });

/** The next free number of `repo`, past its issues and its pull requests; call it inside a write transaction. */
export function nextNumber(db: BetterSqlite3.Database, repo: string): number {
  return nextRow.parse(
    db
      .prepare(
        `SELECT MAX(COALESCE((SELECT MAX(number) FROM issues WHERE repo = ?), 0), COALESCE((SELECT MAX(number) FROM pull_requests WHERE repo = ?), 0)) + 1 AS next`,
      )
      .get(repo, repo),
  ).next;
}

export class LocalIssues {
  constructor(private readonly db: BetterSqlite3.Database) {}

  /**
   * Opens an issue and returns it: the next number of its repository, or the number given (an
   * issue of that number already there is kept as it is: the person named an existing issue).
   */
  open(issue: NewIssue): LocalIssue {
    const insert = this.db.transaction((): number => {
      const number = issue.number ?? Math.max(nextNumber(this.db, issue.repo), (issue.after ?? 0) + 1);
      this.db
        .prepare('INSERT OR IGNORE INTO issues (repo, number, title, body, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(issue.repo, number, issue.title, issue.body, new Date().toISOString());
      return number;
    });
    // IMMEDIATE: the write lock is taken before the number is read, so two processes (two state
    // databases' commands) opening issues at once never get the same one.
    const number = insert.immediate();
    return this.get(issue.repo, number)!;
  }

  get(repo: string, number: number): LocalIssue | undefined {
    const row = this.db.prepare('SELECT repo, number, title, body FROM issues WHERE repo = ? AND number = ?').get(repo, number);
    return row === undefined ? undefined : issueRow.parse(row);
  }
}
