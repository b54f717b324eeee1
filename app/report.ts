// Publishes what people see of a run: the tracking comment on the issue (one, edited in place)
// and the summary check run `conveyor` on the primary PR's head (created again on a new head).
// Reports of one run are coalesced: a report waits a few seconds (REPORT_COALESCE_MS) before it
// writes, and every request meanwhile joins it; the write reads the run as it stands then, so a
// burst of transitions (an approval, the merge it starts, the run's end) costs one write of the
// newest state. Writes of one run never overlap, and a request that comes while one is being
// written schedules the next, so the last state is always written, at most one write per window.
import { SUMMARY_CHECK_NAME } from '../core/github/check-run.ts';
import { attemptKey } from '../core/contract/attempt-ref.ts';
import { payloadRepos } from '../core/run/payload.ts';
import type { Run } from '../core/run/types.ts';
import { renderRunTable, renderSummaryCheck, renderTrackingComment, trackingMarker, type RunLinks } from '../core/github/tracking.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import type { Heads } from '../adapters/github/heads.ts';
import type { AttemptLink, LinkStore } from '../adapters/github/links.ts';

export interface RunReporterOptions {
  store: RunStore;
  links: LinkStore;
  heads: Heads;
  github(run: Run): Promise<GitHub>;
  now?: () => string;
  /** The check runs of approval steps (with their Approve and Reject buttons), kept with the rest. */
  approvals?: { publish(run: Run, github: Pick<GitHub, 'checks' | 'repos'>, attempts?: readonly AttemptLink[]): Promise<void> };
  /** How long a report waits for more changes before it writes (default REPORT_COALESCE_MS; tests shrink it). */
  coalesceMs?: number;
  /** How the report waits (default a timer; a test may hold it). */
  sleep?: (ms: number) => Promise<void>;
}

/** A run's tracking comment and summary check run are written at most once per this many ms. */
export const REPORT_COALESCE_MS = 3_000;

/** The links the tracking comment and summary show, from the run's attempts (read once for the whole run). */
function linksOf(run: Run, attempts: readonly AttemptLink[]): RunLinks {
  const byId = new Map(attempts.map((l) => [l.externalId, l]));
  const out: RunLinks = {};
  for (const [id, s] of Object.entries(run.steps)) {
    if (s.attempt === 0) continue;
    const link = byId.get(attemptKey({ runId: run.id, step: id, attempt: s.attempt, epoch: s.epoch, mode: s.mode }));
    if (!link) continue;
    out[id] = { ...(link.checkRunUrl ? { checkRunUrl: link.checkRunUrl } : {}), ...(link.workflowRunUrl ? { workflowRunUrl: link.workflowRunUrl } : {}) };
  }
  return out;
}

/**
 * Whether an attempt of the run finished on the old workflow template: its result came back from
 * its workflow run, and the action never traded the runner's OIDC token for its token (it was
 * handed one). An attempt lost or completed by someone else says nothing: its action may not have run.
 */
export function ranOnOldTemplate(run: Run, attempts: readonly AttemptLink[]): boolean {
  const finished = new Set(
    Object.values(run.steps).flatMap((s) =>
      s.attempts
        .filter((a) => a.conclusion !== undefined && a.conclusion !== 'lost' && a.receipt !== undefined)
        .map((a) => attemptKey({ runId: run.id, step: s.id, attempt: a.attempt, epoch: a.epoch, mode: a.mode })),
    ),
  );
  return attempts.some((l) => l.state === 'dispatched' && l.exchanged !== true && finished.has(l.externalId));
}

/** What this process last wrote for a run, so an unchanged view costs no call and no read. */
interface Written {
  comment?: { id: number; url: string; body: string };
  summary?: { head: string; id: number; text: string; completed: boolean };
}

/** Runs whose last writes are remembered; an older one is looked up again (a read, not a call). */
const REMEMBERED_RUNS = 1024;

export class RunReporter {
  /** A write waiting out its window (requests join it), per run. */
  private readonly scheduled = new Map<string, Promise<void>>();
  /** The write under way, per run. */
  private readonly writing = new Map<string, Promise<void>>();
  private readonly written = new Map<string, Written>();
  /**
   * Runs this process started: nothing of theirs can be on GitHub but what this process made, so a
   * comment or summary check run without a record is not looked for. For any other run it is:
   * the records are written with the store's next write, and a crash may lose the newest.
   */
  private readonly startedHere = new Set<string>();
  private readonly now: () => string;

  constructor(private readonly options: RunReporterOptions) {
    this.now = options.now ?? (() => new Date().toISOString());
  }

  markNew(runId: string): void {
    this.startedHere.add(runId);
    if (this.startedHere.size > REMEMBERED_RUNS) this.startedHere.delete(this.startedHere.keys().next().value!);
  }

  /** Resolves once the run as it stands now (or newer) is written. */
  report(runId: string): Promise<void> {
    const pending = this.scheduled.get(runId);
    if (pending) return pending;
    const before = this.writing.get(runId);
    const work = (async () => {
      await (this.options.sleep ?? sleep)(this.options.coalesceMs ?? REPORT_COALESCE_MS);
      // One write of a run at a time: the one under way when this was asked finishes first.
      if (before) await before.catch(() => undefined);
      // From here on, a request schedules the next write: this one may read the run before its change.
      this.scheduled.delete(runId);
      const write = this.publish(runId);
      this.writing.set(runId, write);
      try {
        await write;
      } finally {
        if (this.writing.get(runId) === write) this.writing.delete(runId);
      }
    })();
    this.scheduled.set(runId, work);
    return work;
  }

  /** Resolves when no report is waiting or being written (its failures are the caller's of report). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.scheduled.values(), ...this.writing.values()];
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  private async publish(runId: string): Promise<void> {
    const { store, links } = this.options;
    const run = await store.get(runId);
    // A run whose repositories the app lost has nothing left to show there.
    if (!run || run.unreachable) return;
    const github = await this.options.github(run);
    const now = this.now();
    const attempts = await links.attemptsOfRun(runId);
    const view = linksOf(run, attempts);
    const written = this.remember(runId);

    // Rendered as of the run's last change, so an unchanged run renders the same text.
    const table = renderRunTable(run, view, run.updatedAt);
    // Said once, in the comment: the repository's workflow should be updated to the current template.
    const body = renderTrackingComment(run, view, run.updatedAt, table, ranOnOldTemplate(run, attempts));
    if (written.comment?.body !== body) {
      const recorded = written.comment ?? (await links.comment(runId));
      let comment = recorded;
      // Without a record (lost in a crash, or a lost links file), the comment is found by its marker before a new one is made.
      if (!comment && !this.startedHere.has(runId)) comment = await github.comments.find(run.issue.repo, run.issue.number, trackingMarker(runId));
      if (comment) await github.comments.update(run.issue.repo, comment.id, body);
      else comment = await github.comments.create(run.issue.repo, run.issue.number, body);
      // Recorded when it is new to the record (created or found), not on every edit.
      if (recorded?.id !== comment.id) await links.saveComment(runId, { id: comment.id, url: comment.url });
      written.comment = { id: comment.id, url: comment.url, body };
    }

    await this.options.approvals?.publish(run, github, attempts);

    const { repo, head } = await this.options.heads.of(run, payloadRepos(run), github.repos);
    const check = renderSummaryCheck(run, view, run.updatedAt, table);
    const text = JSON.stringify(check);
    if (written.summary?.head === head && written.summary.text === text) return;
    const output = { title: check.title, summary: check.summary };
    const state = { status: check.status, ...(check.conclusion ? { conclusion: check.conclusion, completed_at: now } : {}) };
    const recorded = written.summary?.head === head ? written.summary.id : await links.summary(runId, head);
    // As for the comment: without a record, one this process did not make may exist (external id: the run).
    const known = recorded ?? (this.startedHere.has(runId) ? undefined : (await github.checks.find(repo, head, SUMMARY_CHECK_NAME, runId))?.id);
    let id: number;
    if (known !== undefined) {
      await github.checks.update(repo, known, { ...state, output });
      id = known;
    } else {
      id = (await github.checks.create(repo, { name: SUMMARY_CHECK_NAME, head_sha: head, external_id: runId, ...state, output })).id;
    }
    if (recorded === undefined) await links.saveSummary(runId, head, id);
    // The PR's head moved: the summary left on the old head is completed, so nothing the run made stays running there.
    const left = written.summary;
    if (left && left.head !== head && left.id !== id && !left.completed) {
      await github.checks.update(repo, left.id, {
        status: 'completed',
        conclusion: 'neutral',
        completed_at: now,
        output: { title: 'moved to the new head', summary: `This run's checks moved to ${head.slice(0, 7)}, the pull request's new head.` },
      });
    }
    written.summary = { head, id, text, completed: check.status === 'completed' };
  }

  /** This run's record of what was written, kept among the most recently reported runs. */
  private remember(runId: string): Written {
    const known = this.written.get(runId);
    if (known) this.written.delete(runId);
    const entry = known ?? {};
    this.written.set(runId, entry);
    if (this.written.size > REMEMBERED_RUNS) this.written.delete(this.written.keys().next().value!);
    return entry;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
