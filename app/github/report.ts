// Publishes what people see of a run: the tracking comment on the issue (one, edited in place)
// and the summary check run `conveyor` on the primary PR's head (created again on a new head).
// Reports of one run are serialized and coalesced: while one is being written, later requests
// collapse into one more write of the newest state, so a burst of transitions costs two writes.
import { SUMMARY_CHECK_NAME, externalIdOf } from '../../core/check-run.ts';
import { payloadRepos } from '../../core/payload.ts';
import type { Run } from '../../core/run/types.ts';
import { renderSummaryCheck, renderTrackingComment, trackingMarker, type RunLinks } from '../../core/tracking.ts';
import type { RunStore } from '../store/port.ts';
import type { GitHubClient } from './client.ts';
import type { Heads } from './heads.ts';
import type { LinkStore } from './links.ts';

export interface RunReporterOptions {
  store: RunStore;
  links: LinkStore;
  heads: Heads;
  client(run: Run): Promise<GitHubClient>;
  now?: () => string;
  /** The check runs of approval steps (with their Approve and Reject buttons), kept with the rest. */
  approvals?: { publish(run: Run, client: GitHubClient): Promise<void> };
}

export function linksOf(run: Run, links: LinkStore): RunLinks {
  const out: RunLinks = {};
  for (const [id, s] of Object.entries(run.steps)) {
    if (s.attempt === 0) continue;
    const link = links.attempt(externalIdOf({ runId: run.id, step: id, attempt: s.attempt, epoch: s.epoch }));
    if (!link) continue;
    out[id] = { ...(link.checkRunUrl ? { checkRunUrl: link.checkRunUrl } : {}), ...(link.workflowRunUrl ? { workflowRunUrl: link.workflowRunUrl } : {}) };
  }
  return out;
}

export class RunReporter {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** What was last written, so an unchanged view costs no call. */
  private readonly written = new Map<string, string>();
  /** Runs this process just started: they have no tracking comment to look for. */
  private readonly fresh = new Set<string>();
  private readonly now: () => string;

  constructor(private readonly options: RunReporterOptions) {
    this.now = options.now ?? (() => new Date().toISOString());
  }

  markNew(runId: string): void {
    this.fresh.add(runId);
  }

  report(runId: string): Promise<void> {
    const current = this.running.get(runId);
    if (current) {
      this.again.add(runId);
      return current;
    }
    const work = (async () => {
      try {
        do {
          this.again.delete(runId);
          await this.publish(runId);
        } while (this.again.has(runId));
      } finally {
        this.running.delete(runId);
      }
    })();
    this.running.set(runId, work);
    return work;
  }

  private async publish(runId: string): Promise<void> {
    const { store, links } = this.options;
    const run = store.get(runId);
    if (!run) return;
    const client = await this.options.client(run);
    const now = this.now();
    const view = linksOf(run, links);

    // Rendered as of the run's last change, so an unchanged run renders the same text.
    const body = renderTrackingComment(run, view, run.updatedAt);
    const stable = body;
    const commentKey = `comment\u0000${runId}`;
    if (this.written.get(commentKey) !== stable) {
      let comment = links.comment(runId);
      // Without a record (a lost links file), the comment is found by its marker before a new one is made.
      if (!comment && !this.fresh.has(runId)) comment = await client.findComment(run.issue.repo, run.issue.number, trackingMarker(runId));
      if (comment) await client.updateComment(run.issue.repo, comment.id, body);
      else comment = await client.createComment(run.issue.repo, run.issue.number, body);
      links.saveComment(runId, comment);
      this.fresh.delete(runId);
      this.written.set(commentKey, stable);
    }

    await this.options.approvals?.publish(run, client);

    const { repo, head } = await this.options.heads.of(run, payloadRepos(run), client);
    const check = renderSummaryCheck(run, view, run.updatedAt);
    const summaryKey = `summary\u0000${runId}\u0000${head}`;
    const text = JSON.stringify(check);
    if (this.written.get(summaryKey) === text) return;
    const output = { title: check.title, summary: check.summary.slice(0, 65_000) };
    const state = { status: check.status, ...(check.conclusion ? { conclusion: check.conclusion, completed_at: now } : {}) };
    const known = links.summary(runId, head);
    if (known !== undefined) await client.updateCheckRun(repo, known, { ...state, output });
    else {
      const created = await client.createCheckRun(repo, { name: SUMMARY_CHECK_NAME, head_sha: head, external_id: runId, ...state, output });
      links.saveSummary(runId, head, created.id);
    }
    this.written.set(summaryKey, text);
  }
}
