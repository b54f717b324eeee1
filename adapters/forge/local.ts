// The local forge of the embedded mode: bare repositories `<remotes>/<owner>/<name>.git` and pull
// request records (with their reviews, local-reviews.ts) and issues (local-issues.ts) in
// `<remotes>/.conveyor-forge.db` (SQLite, WAL), so the engine process and the step processes see
// the same PRs, and every state database driving runs on these remotes the same issue numbers.
// Branch rules and the merge queue: local-queue.ts. better-sqlite3 is loaded by dynamic import only: the action
// bundle runs on GitHub's runners, which have no native module, and never takes this path there.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { makePrivateTemp } from '../../lib/private-temp.ts';
import { join, resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { ConveyorError } from '../../core/errors.ts';
import { GitRepo, type MergeOutcome } from '../../lib/git.ts';
import type {
  BranchRules,
  Forge,
  MergeOptions,
  MergeResult,
  OpenPullRequest,
  PullRequest,
  PullRequestState,
  Review,
  ReviewRequest,
} from '../../engine/ports/forge.ts';
import { MergeRefused, splitRepo } from '../../engine/ports/forge.ts';
import { useWal } from '../../lib/sqlite.ts';
import { LocalReviews, REVIEWS_SCHEMA } from './local-reviews.ts';
import { ISSUES_SCHEMA, LocalIssues, nextNumber, type LocalIssue, type NewIssue } from './local-issues.ts';
import { LocalMergeQueue, QUEUE_SCHEMA, readBranchRules } from './local-queue.ts';

export const LOCAL_FORGE_DB = '.conveyor-forge.db';
/** Tries of one merge while other runs move the same base. */
const MERGE_TRIES = 5;

interface Row {
  repo: string;
  number: number;
  branch: string;
  base: string;
  title: string;
  body: string;
  state: PullRequestState;
  head: string | null;
  merge_commit: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pull_requests (
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  branch TEXT NOT NULL,
  base TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'closed', 'merged')),
  head TEXT,
  merge_commit TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (repo, number)
);
CREATE UNIQUE INDEX IF NOT EXISTS pull_requests_one_open ON pull_requests (repo, branch) WHERE state = 'open';
-- The base's head just before a PR merged: what a revert goes back to (a rebase leaves no parent that says it).
CREATE TABLE IF NOT EXISTS pull_request_merges (
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  base_before TEXT NOT NULL,
  PRIMARY KEY (repo, number)
);
`;

export class LocalForge implements Forge {
  private readonly reviews: LocalReviews;
  private readonly issues: LocalIssues;
  readonly mergeQueue: LocalMergeQueue;

  private constructor(
    private readonly db: BetterSqlite3.Database,
    readonly remotesDir: string,
    private readonly serverUrl: string,
  ) {
    this.reviews = new LocalReviews(db, (repo, number) => this.pullUrl(repo, number));
    this.issues = new LocalIssues(db);
    this.mergeQueue = new LocalMergeQueue(db, this);
  }

  /** Opens (creating when needed) the PR records of the bare repositories in `remotesDir`. */
  static async open(folder: string): Promise<LocalForge> {
    // Absolute: the file:// URL it pushes to must not depend on the current folder.
    const remotesDir = resolve(folder);
    if (!existsSync(remotesDir)) throw new ConveyorError('bad-input', `remotes folder ${remotesDir} does not exist`);
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(remotesDir, LOCAL_FORGE_DB), { timeout: 15_000 });
    useWal(db, 15_000);
    db.exec(SCHEMA);
    db.exec(REVIEWS_SCHEMA);
    db.exec(ISSUES_SCHEMA);
    db.exec(QUEUE_SCHEMA);
    return new LocalForge(db, remotesDir, `file://${remotesDir.replace(/\/+$/, '')}`);
  }

  close(): void {
    this.db.close();
  }

  private bare(repo: string): string {
    const { owner, name } = splitRepo(repo);
    return join(this.remotesDir, owner, `${name}.git`);
  }

  private branchHead(repo: string, branch: string): Promise<string | undefined> {
    return new GitRepo(this.bare(repo)).branchHead(branch);
  }

  private async toPullRequest(row: Row): Promise<PullRequest> {
    const head = row.state === 'open' ? ((await this.branchHead(row.repo, row.branch)) ?? row.head ?? '') : (row.head ?? '');
    return {
      repo: row.repo,
      number: row.number,
      url: this.pullUrl(row.repo, row.number),
      branch: row.branch,
      head,
      base: row.base,
      title: row.title,
      body: row.body,
      state: row.state,
      ...(row.merge_commit ? { mergeCommit: row.merge_commit } : {}),
    };
  }

  private pullUrl(repo: string, number: number): string {
    return `${this.serverUrl}/${repo}/pull/${number}`;
  }

  private row(repo: string, number: number): Row {
    const row = this.db.prepare('SELECT * FROM pull_requests WHERE repo = ? AND number = ?').get(repo, number) as Row | undefined;
    if (!row) throw new ConveyorError('forge-failed', `pull request ${repo}#${number} does not exist in ${this.remotesDir}`);
    return row;
  }

  async findPullRequest(repo: string, branch: string): Promise<PullRequest | undefined> {
    const row = this.db.prepare("SELECT * FROM pull_requests WHERE repo = ? AND branch = ? AND state = 'open'").get(repo, branch) as Row | undefined;
    return row ? this.toPullRequest(row) : undefined;
  }

  async openPullRequest(pr: OpenPullRequest): Promise<PullRequest> {
    if (!existsSync(this.bare(pr.repo))) throw new ConveyorError('forge-failed', `repository ${pr.repo} does not exist in ${this.remotesDir}`);
    for (const b of [pr.branch, pr.base]) {
      if (!(await this.branchHead(pr.repo, b))) throw new ConveyorError('forge-failed', `branch "${b}" does not exist in ${pr.repo}`);
    }
    const now = new Date().toISOString();
    const insert = this.db.transaction((): number => {
      const open = this.db.prepare("SELECT number FROM pull_requests WHERE repo = ? AND branch = ? AND state = 'open'").get(pr.repo, pr.branch) as
        { number: number } | undefined;
      if (open) throw new ConveyorError('forge-failed', `a pull request for ${pr.repo}:${pr.branch} already exists (#${open.number})`);
      const next = nextNumber(this.db, pr.repo);
      this.db
        .prepare("INSERT INTO pull_requests (repo, number, branch, base, title, body, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)")
        .run(pr.repo, next, pr.branch, pr.base, pr.title, pr.body, now, now);
      return next;
    });
    // IMMEDIATE: two step processes opening PRs at once must not pick the same number.
    const number = insert.immediate();
    return this.toPullRequest(this.row(pr.repo, number));
  }

  /** Opens an issue in `repo` (see local-issues.ts): the number of a run's issue comes from here. */
  openIssue(issue: NewIssue): LocalIssue {
    if (!existsSync(this.bare(issue.repo))) throw new ConveyorError('forge-failed', `repository ${issue.repo} does not exist in ${this.remotesDir}`);
    return this.issues.open(issue);
  }

  issueUrl(repo: string, number: number): string {
    return `${this.serverUrl}/${repo}/issues/${number}`;
  }

  async updatePullRequest(repo: string, number: number, change: { title?: string; body?: string }): Promise<PullRequest> {
    const row = this.row(repo, number);
    this.db
      .prepare('UPDATE pull_requests SET title = ?, body = ?, updated_at = ? WHERE repo = ? AND number = ?')
      .run(change.title ?? row.title, change.body ?? row.body, new Date().toISOString(), repo, number);
    return this.toPullRequest(this.row(repo, number));
  }

  /**
   * Rewrites a PR's body from what it is at this moment, in one write transaction: a step process
   * rewriting the same body meanwhile is neither lost nor overwritten with an older text. Says
   * whether the body changed.
   */
  editPullRequestBody(repo: string, number: number, edit: (body: string) => string): boolean {
    const change = this.db.transaction((): boolean => {
      const row = this.row(repo, number);
      const body = edit(row.body);
      if (body === row.body) return false;
      this.db.prepare('UPDATE pull_requests SET body = ?, updated_at = ? WHERE repo = ? AND number = ?').run(body, new Date().toISOString(), repo, number);
      return true;
    });
    return change.immediate();
  }

  /** The PR's diff as GitHub's Files tab shows it: its head against where it left its base. */
  async pullRequestDiff(pr: Pick<PullRequest, 'repo' | 'base' | 'head'>): Promise<string> {
    if (!pr.head) return '';
    return new GitRepo(this.bare(pr.repo)).diff(`refs/heads/${pr.base}...${pr.head}`);
  }

  /** With its mergeability, as GitHub gives it for one PR: clean, or dirty (a conflict with its base). */
  async getPullRequest(repo: string, number: number): Promise<PullRequest> {
    const pr = await this.toPullRequest(this.row(repo, number));
    if (pr.state !== 'open' || !pr.head) return pr;
    const clean = await new GitRepo(this.bare(repo)).mergesCleanly(`refs/heads/${pr.base}`, pr.head);
    return { ...pr, mergeable: clean, mergeableState: clean ? 'clean' : 'dirty' };
  }

  async branchRules(repo: string, branch: string): Promise<BranchRules> {
    return readBranchRules(this.remotesDir, repo, branch);
  }

  /** Commits of `base` that `head` lacks. */
  async commitsBehind(repo: string, base: string, head: string): Promise<number> {
    return new GitRepo(this.bare(repo)).countCommits(`${head}..refs/heads/${base}`);
  }

  async listPullRequests(repo: string, options: { branches: string[]; state?: 'open' | 'closed' | 'all' }): Promise<PullRequest[]> {
    const rows = this.db.prepare('SELECT * FROM pull_requests WHERE repo = ? ORDER BY number').all(repo) as Row[];
    const state = options.state ?? 'all';
    const wanted = rows.filter((r) => options.branches.includes(r.branch) && (state === 'all' || (state === 'open' ? r.state === 'open' : r.state !== 'open')));
    return Promise.all(wanted.map((r) => this.toPullRequest(r)));
  }

  async createReview(request: ReviewRequest): Promise<Review> {
    this.row(request.repo, request.number);
    return this.reviews.create(request);
  }

  async listReviews(repo: string, number: number): Promise<Review[]> {
    this.row(repo, number);
    return this.reviews.list(repo, number);
  }

  async dismissReview(repo: string, number: number, id: number, message: string): Promise<void> {
    this.reviews.dismiss(repo, number, id, message);
  }

  async editReview(repo: string, number: number, id: number, body: string): Promise<void> {
    this.reviews.edit(repo, number, id, body);
  }

  /** A real merge into the bare repository's base, done in a temporary clone. */
  async mergePullRequest(repo: string, number: number, options: MergeOptions): Promise<MergeResult> {
    const row = this.row(repo, number);
    if (row.state !== 'open') throw new ConveyorError('merge-failed', `${repo}#${number} is ${row.state}, not open`);
    const head = await this.branchHead(repo, row.branch);
    if (!head) throw new ConveyorError('merge-failed', `branch "${row.branch}" of ${repo}#${number} no longer exists`);
    if (options.expectedHead && options.expectedHead !== head) {
      throw new MergeRefused(`${repo}#${number} moved to ${head.slice(0, 12)} (expected ${options.expectedHead.slice(0, 12)}); not merged`, false);
    }
    // Another run may move the base between our clone and our push (GitHub serialises merges on
    // its side): start again from the new base, a bounded number of times.
    for (let tries = 1; ; tries++) {
      const outcome = await this.mergeOnce(repo, number, row, options);
      if (outcome.merged) {
        this.db.transaction(() => {
          this.db
            .prepare("UPDATE pull_requests SET state = 'merged', head = ?, merge_commit = ?, updated_at = ? WHERE repo = ? AND number = ?")
            .run(head, outcome.sha, new Date().toISOString(), repo, number);
          this.db.prepare('INSERT OR REPLACE INTO pull_request_merges (repo, number, base_before) VALUES (?, ?, ?)').run(repo, number, outcome.base);
        })();
        return { merged: true, sha: outcome.sha };
      }
      if (tries >= MERGE_TRIES) {
        throw new ConveyorError('merge-failed', `${repo}#${number}: ${row.base} kept moving while merging (${tries} tries): ${outcome.reason}`);
      }
    }
  }

  /**
   * As GitHub's revert: a commit undoing what the PR merged, on the base as it is now, pushed to
   * `revert-<number>-<branch>`, and a PR of it. Asked again (a command given twice, or after a
   * crash) it answers the revert PR already open.
   */
  async revertPullRequest(repo: string, number: number, pr: { title: string; body: string }): Promise<PullRequest> {
    const row = this.row(repo, number);
    if (row.state !== 'merged' || !row.merge_commit) {
      throw new ConveyorError('forge-failed', `${repo}#${number} is ${row.state}: only a merged pull request can be reverted`);
    }
    const branch = `revert-${number}-${row.branch}`;
    const open = await this.findPullRequest(repo, branch);
    if (open) return open;
    const recorded = this.db.prepare('SELECT base_before FROM pull_request_merges WHERE repo = ? AND number = ?').get(repo, number) as
      { base_before: string } | undefined;
    const work = await makePrivateTemp('revert-');
    const git = new GitRepo(join(work, 'repo'), { code: 'forge-failed' });
    try {
      await git.clone(this.bare(repo));
      await git.checkout(row.base, `origin/${row.base}`);
      // Merged before the base was recorded: a merge or squash commit's first parent is that base.
      const from = recorded?.base_before ?? (await git.revParse(`${row.merge_commit}^1`));
      const message = `${pr.title}\n\nThis reverts ${repo}#${number} (${row.merge_commit}).\n`;
      const reverted = await git.revertChanges(from, row.merge_commit, message);
      if (!reverted.merged) {
        const files = reverted.conflicts.length ? ` (conflicts in ${reverted.conflicts.join(', ')})` : '';
        throw new ConveyorError(
          'forge-failed',
          `the revert of ${repo}#${number} does not apply cleanly onto ${row.base} as it is now${files}: ${reverted.output}. Revert it by hand.`,
        );
      }
      // The branch is the forge's own: one left by a revert whose PR was never recorded is replaced.
      const pushed = await git.push({ to: 'origin', ref: 'HEAD', branch, lease: (await this.branchHead(repo, branch)) ?? '' });
      if (!pushed.pushed) throw new ConveyorError('forge-failed', `pushing the revert of ${repo}#${number} to ${branch} failed: ${pushed.output}`);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return this.openPullRequest({ repo, branch, base: row.base, title: pr.title, body: pr.body });
  }

  /** One try: merge into a fresh clone of the base and push; `merged: false` when the base moved. */
  private async mergeOnce(
    repo: string,
    number: number,
    row: { base: string; branch: string },
    options: MergeOptions,
  ): Promise<{ merged: true; sha: string; base: string } | { merged: false; reason: string }> {
    const work = await makePrivateTemp('merge-');
    const git = new GitRepo(join(work, 'repo'), { code: 'merge-failed' });
    const message = options.message ? `${options.title}\n\n${options.message.trim()}\n` : `${options.title}\n`;
    try {
      await git.clone(this.bare(repo));
      await git.checkout(row.base, `origin/${row.base}`);
      const branchRef = `origin/${row.branch}`;
      if ((await git.countCommits(`${row.base}..${branchRef}`)) === 0 || !(await git.differs(row.base, branchRef))) {
        throw new ConveyorError('merge-failed', `${repo}#${number} (${row.branch}) has no changes against ${row.base}: nothing to merge`);
      }
      let attempt: MergeOutcome;
      if (options.method === 'merge') {
        attempt = await git.merge(branchRef, { message, noFastForward: true });
      } else if (options.method === 'squash') {
        attempt = await git.mergeSquash(branchRef);
        if (attempt.merged) await git.commit(message);
      } else {
        await git.checkout('conveyor-rebase', branchRef);
        attempt = await git.rebase(`origin/${row.base}`);
        if (attempt.merged && options.message) {
          // A rebase has no merge commit: the trailers go on the last rebased commit.
          const last = await git.lastMessage();
          await git.commit(`${last.trimEnd()}\n\n${options.message.trim()}\n`, { amend: true });
        }
        if (attempt.merged) await git.checkout(row.base, 'conveyor-rebase');
      }
      if (!attempt.merged) {
        // As GitHub refuses it (405): the merge policy has the conflict repaired.
        throw new MergeRefused(`${repo}#${number} (${row.branch}) does not ${options.method} cleanly into ${row.base}: ${attempt.output}`, true);
      }
      const sha = await git.currentCommit();
      // The lease makes the push fail, instead of overwriting, when the base moved meanwhile.
      const base = await git.revParse(`origin/${row.base}`);
      const push = await git.push({ to: 'origin', ref: 'HEAD', branch: row.base, lease: base });
      if (!push.pushed) return { merged: false, reason: push.output };
      return { merged: true, sha, base };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}

/** The local forge of a folder of bare repositories. */
export function openLocalForge(remotesDir: string): Promise<LocalForge> {
  return LocalForge.open(remotesDir);
}
