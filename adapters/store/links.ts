// The GitHub App's records (adapters/github/links.ts) in the store's database: the check run and
// workflow run of each attempt, the tracking comment and the summary check runs. Kept beside the
// runs so that one database, and one backup, holds everything the app knows.
import type { Kysely } from 'kysely';
import type { AttemptLink, CommentLink, LinkStore } from '../github/links.ts';
import type { Tables } from './schema.ts';

export class SqlLinks implements LinkStore {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly guard: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  async attempt(externalId: string): Promise<AttemptLink | undefined> {
    return this.one((q) => q.where('external_id', '=', externalId));
  }

  async attemptsOfRun(runId: string): Promise<AttemptLink[]> {
    const rows = await this.guard(() => this.db.selectFrom('github_attempts').select(['external_id', 'body']).where('run_id', '=', runId).execute());
    // Ordered here, by code unit: a database's collation may ignore the punctuation of the ids.
    return rows.sort((a, b) => (a.external_id < b.external_id ? -1 : a.external_id > b.external_id ? 1 : 0)).map((r) => JSON.parse(r.body) as AttemptLink);
  }

  async attemptByCheckRun(repo: string, checkRunId: number): Promise<AttemptLink | undefined> {
    return this.one((q) => q.where('repo', '=', repo).where('check_run_id', '=', checkRunId));
  }

  async attemptByWorkflowRun(repo: string, workflowRunId: number): Promise<AttemptLink | undefined> {
    return this.one((q) => q.where('repo', '=', repo).where('workflow_run_id', '=', workflowRunId));
  }

  async saveAttempt(link: AttemptLink): Promise<void> {
    const row = {
      external_id: link.externalId,
      run_id: link.runId,
      repo: link.repo,
      check_run_id: link.checkRunId ?? null,
      workflow_run_id: link.workflowRunId ?? null,
      body: JSON.stringify(link),
    };
    await this.guard(() =>
      this.db
        .insertInto('github_attempts')
        .values(row)
        .onConflict((oc) =>
          oc.column('external_id').doUpdateSet({ repo: row.repo, check_run_id: row.check_run_id, workflow_run_id: row.workflow_run_id, body: row.body }),
        )
        .execute(),
    );
  }

  async comment(runId: string): Promise<CommentLink | undefined> {
    const row = await this.guard(() => this.db.selectFrom('github_comments').select(['id', 'url']).where('run_id', '=', runId).executeTakeFirst());
    return row ? { id: row.id, url: row.url } : undefined;
  }

  async saveComment(runId: string, comment: CommentLink): Promise<void> {
    await this.guard(() =>
      this.db
        .insertInto('github_comments')
        .values({ run_id: runId, id: comment.id, url: comment.url })
        .onConflict((oc) => oc.column('run_id').doUpdateSet({ id: comment.id, url: comment.url }))
        .execute(),
    );
  }

  async summary(runId: string, head: string): Promise<number | undefined> {
    const row = await this.guard(() =>
      this.db.selectFrom('github_summaries').select('check_run_id').where('run_id', '=', runId).where('head', '=', head).executeTakeFirst(),
    );
    return row?.check_run_id;
  }

  async saveSummary(runId: string, head: string, checkRunId: number): Promise<void> {
    await this.guard(() =>
      this.db
        .insertInto('github_summaries')
        .values({ run_id: runId, head, check_run_id: checkRunId })
        .onConflict((oc) => oc.columns(['run_id', 'head']).doUpdateSet({ check_run_id: checkRunId }))
        .execute(),
    );
  }

  private async one(where: (q: AttemptQuery) => AttemptQuery): Promise<AttemptLink | undefined> {
    const row = await this.guard(() => where(attemptsIn(this.db)).executeTakeFirst());
    return row ? (JSON.parse(row.body) as AttemptLink) : undefined;
  }
}

const attemptsIn = (db: Kysely<Tables>) => db.selectFrom('github_attempts').select('body');
type AttemptQuery = ReturnType<typeof attemptsIn>;
