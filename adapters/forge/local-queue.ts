// The local forge's branch rules and merge queue, so the embedded mode can merge the way a
// protected GitHub branch makes it. Rules live in a settings file beside the bare repository,
// `<remotes>/<owner>/<name>.rules.json`, read whenever they are asked for:
//   { "merge-queue": true, "up-to-date": true, "branches": ["main"] }
// (`branches`: the branches they apply to; default every branch). The queue is a table of the
// forge's database: `enqueue` pins a PR to its head, `dequeue` takes it out again (its run was
// cancelled), and `tick` (the embedded driver calls it after each step, as GitHub's queue would
// merge later) merges what it holds in the order it was enqueued, or removes a PR saying why, as
// GitHub's `pull_request.dequeued` does.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { ConveyorError } from '../../core/errors.ts';
import { describeIssues } from '../../core/contract/wire.ts';
import { MergeRefused, splitRepo, type BranchRules, type Forge, type MergeQueue, type PullRequest } from '../../engine/ports/forge.ts';

export const RULES_FILE_SUFFIX = '.rules.json';

const rulesFile = z.strictObject({
  'merge-queue': z.boolean().default(false),
  'up-to-date': z.boolean().default(false),
  branches: z.array(z.string().min(1)).optional(),
});

export const QUEUE_SCHEMA = `
CREATE TABLE IF NOT EXISTS merge_queue (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  head TEXT NOT NULL,
  enqueued_at TEXT NOT NULL,
  UNIQUE (repo, number)
);
`;

/** What the queue did with a PR it held: merged it, or removed it with GitHub's reason. */
export interface QueueOutcome {
  repo: string;
  number: number;
  change: 'merged' | 'removed';
  reason?: string;
}

/** The rules file of `repo` in `remotesDir`, applied to `branch`: none when there is no file. */
export function readBranchRules(remotesDir: string, repo: string, branch: string): BranchRules {
  const { owner, name } = splitRepo(repo);
  const file = join(remotesDir, owner, `${name}${RULES_FILE_SUFFIX}`);
  if (!existsSync(file)) return { mergeQueue: false, upToDate: false };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConveyorError('bad-input', `${file} is not JSON (${(e as Error).message}); it holds the branch rules of ${repo}`);
  }
  const parsed = rulesFile.safeParse(json);
  if (!parsed.success) throw new ConveyorError('bad-input', `${file}: ${describeIssues(parsed.error)} (keys: "merge-queue", "up-to-date", "branches")`);
  const r = parsed.data;
  if (r.branches && !r.branches.includes(branch)) return { mergeQueue: false, upToDate: false };
  return { mergeQueue: r['merge-queue'], upToDate: r['up-to-date'] };
}

export class LocalMergeQueue implements MergeQueue {
  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly forge: Pick<Forge, 'getPullRequest' | 'mergePullRequest'>,
  ) {}

  async enqueue(pr: Pick<PullRequest, 'repo' | 'number'>, expectedHead: string): Promise<void> {
    const now = await this.forge.getPullRequest(pr.repo, pr.number);
    if (now.state !== 'open') throw new MergeRefused(`${pr.repo}#${pr.number} is ${now.state}, not open`, false);
    // As GitHub's expectedHeadOid: the head approved, or nothing.
    if (now.head !== expectedHead)
      throw new MergeRefused(`${pr.repo}#${pr.number} moved to ${now.head.slice(0, 12)} (expected ${expectedHead.slice(0, 12)}); not enqueued`, false);
    this.db
      .prepare('INSERT INTO merge_queue (repo, number, head, enqueued_at) VALUES (?, ?, ?, ?) ON CONFLICT (repo, number) DO NOTHING')
      .run(pr.repo, pr.number, expectedHead, new Date().toISOString());
  }

  async holds(repo: string, number: number): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM merge_queue WHERE repo = ? AND number = ?').get(repo, number) !== undefined;
  }

  async dequeue(pr: Pick<PullRequest, 'repo' | 'number'>): Promise<boolean> {
    return this.db.prepare('DELETE FROM merge_queue WHERE repo = ? AND number = ?').run(pr.repo, pr.number).changes > 0;
  }

  /** Merges (or removes) every PR the queue holds, in the order enqueued; says what became of each. */
  async tick(): Promise<QueueOutcome[]> {
    const rows = this.db.prepare('SELECT repo, number, head FROM merge_queue ORDER BY seq').all() as Array<{ repo: string; number: number; head: string }>;
    const out: QueueOutcome[] = [];
    for (const row of rows) {
      this.db.prepare('DELETE FROM merge_queue WHERE repo = ? AND number = ?').run(row.repo, row.number);
      out.push(await this.mergeOne(row));
    }
    return out;
  }

  private async mergeOne(row: { repo: string; number: number; head: string }): Promise<QueueOutcome> {
    const at = { repo: row.repo, number: row.number };
    try {
      const pr = await this.forge.getPullRequest(row.repo, row.number);
      if (pr.state === 'merged') return { ...at, change: 'removed', reason: 'ALREADY_MERGED' };
      if (pr.state !== 'open') return { ...at, change: 'removed', reason: 'MANUAL' };
      // GitHub's queue merges with its own message; the local one names the PR as GitHub's squash does.
      await this.forge.mergePullRequest(row.repo, row.number, { method: 'squash', title: `${pr.title} (#${row.number})`, expectedHead: row.head });
      return { ...at, change: 'merged' };
    } catch (e) {
      if (e instanceof MergeRefused) return { ...at, change: 'removed', reason: e.conflict ? 'MERGE_CONFLICT' : 'BRANCH_PROTECTIONS' };
      return { ...at, change: 'removed', reason: 'UNKNOWN_REMOVAL_REASON' };
    }
  }
}
