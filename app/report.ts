// Publishes what people see of a run: the tracking comment on the issue (one, edited in place)
// and the check runs on the primary PR's head: the summary `conveyor` (created again on a new
// head) and the approval steps' (approval-check.ts).
//
// Three writers per run, one for the check runs, one for the comment and one for the status
// section of the run's PR bodies (pr-status.ts), each coalesced: a write
// waits a few seconds (REPORT_COALESCE_MS) and every request meanwhile joins it; it reads the run
// as it stands then, so a burst of transitions costs one write of the newest state. A writer's
// writes of one run never overlap, and a request that comes while one is being written schedules
// the next, so the last state is always written. The check runs never wait for the comment:
// GitHub paces comments (notifications) three times slower than other writes, and under a burst
// of runs a comment write waits minutes behind the others' (or fails on a secondary rate limit);
// the check runs, which say whether a run is done or waits for someone, must not wait behind it
// (they did: a burst of 60 runs left 19 summaries in progress when the runs had ended). The
// comment waits for the check runs' write under way (quick), so it links the check runs it made.
// The PR bodies wait for neither, and nothing waits for them.
import { LRUCache } from 'lru-cache';
import { SUMMARY_CHECK_NAME, type CheckState } from '../core/github/check-run.ts';
import { attemptKey } from '../core/contract/attempt-ref.ts';
import type { Logger } from '../lib/logger.ts';
import { payloadRepos } from '../core/run/payload.ts';
import type { Run } from '../core/run/types.ts';
import { renderRunTable, renderSummaryCheck, renderTrackingComment, trackingMarker, type RunLinks } from '../core/github/tracking.ts';
import { safeLinkTarget } from '../core/text.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import { checkRunsHead } from '../adapters/github/heads.ts';
import type { AttemptLink, LinkStore } from '../adapters/github/links.ts';
import { writeCheck, type CurrentCheck } from './check-writes.ts';
import { Writer } from './writer.ts';
import { PrStatusBodies } from './pr-status.ts';
import type { PullRequestRef } from '../core/contract/wire.ts';

export interface RunReporterOptions {
  store: RunStore;
  links: LinkStore;
  github(run: Run): Promise<GitHub>;
  now?: () => string;
  /**
   * The check runs of approval steps (with their Approve and Reject buttons), kept with the rest;
   * says whether it made one with buttons (the comment then links them, if written before).
   */
  approvals?: { publish(run: Run, github: Pick<GitHub, 'checks' | 'repos'>, attempts?: readonly AttemptLink[], detailsUrl?: string): Promise<boolean> };
  /** How long a report waits for more changes before it writes (default REPORT_COALESCE_MS; tests shrink it). */
  coalesceMs?: number;
  /** How the report waits (default a timer; a test may hold it). */
  sleep?: (ms: number) => Promise<void>;
  /** How often a run with a running step is written again, for its elapsed time (default RUNNING_REFRESH_MS; 0: never). */
  refreshMs?: number;
  /** Where a refresh that failed is told (it is tried again at the next one). */
  log?: Logger;
}

/**
 * While a run has a step under way, its comment and summary check run are written again this
 * often, so that the step's time so far (in whole minutes: core/github/tracking.ts) stays true.
 */
export const RUNNING_REFRESH_MS = 60_000;

/**
 * What the refreshes of all runs may cost: writes per hour. Each refresh of a run is two writes
 * (its comment and its summary check run); with more runs under way than this allows at one a
 * minute, each is refreshed less often. Half of GitHub's secondary limit on content-creating
 * requests (500 an hour), leaving the rest to the writes runs make as they move.
 */
export const REFRESH_WRITES_PER_HOUR = 240;

/**
 * How long a run waits for its next refresh when `running` runs are being refreshed: `base` (a
 * minute) while their refreshes fit REFRESH_WRITES_PER_HOUR at that pace, else as much longer as
 * they need to fit (ten runs: every five minutes).
 */
export function refreshInterval(running: number, base = RUNNING_REFRESH_MS): number {
  const perHourAtBase = running * 2 * (3_600_000 / RUNNING_REFRESH_MS);
  return Math.ceil(base * Math.max(1, perHourAtBase / REFRESH_WRITES_PER_HOUR));
}

/** A run's tracking comment and check runs are each written at most once per this many ms. */
export const REPORT_COALESCE_MS = 3_000;

/** The links the tracking comment and summary show, from the run's attempts (read once for the whole run). */
function linksOf(run: Run, attempts: readonly AttemptLink[]): RunLinks {
  const byId = new Map(attempts.map((l) => [l.externalId, l]));
  const out: RunLinks = {};
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (!s) continue;
    // An approval's check run (with its buttons) is one per step, whatever its attempt.
    const id =
      p.kind === 'approval'
        ? attemptKey({ runId: run.id, step: p.id, attempt: 0, epoch: 0, mode: 'run' })
        : s.attempt === 0
          ? undefined
          : attemptKey({ runId: run.id, step: p.id, attempt: s.attempt, epoch: s.epoch, mode: s.mode });
    const link = id ? byId.get(id) : undefined;
    if (!link) continue;
    out[p.id] = { ...(link.checkRunUrl ? { checkRunUrl: link.checkRunUrl } : {}), ...(link.workflowRunUrl ? { workflowRunUrl: link.workflowRunUrl } : {}) };
  }
  return out;
}

/** What this process last wrote for a run, so an unchanged view costs no call and no read. */
interface Written {
  comment?: { id: number; url: string; body: string };
  summary?: { head: string; id: number; text: string } & CheckState;
}

/** Runs whose last writes are remembered; an older one is looked up again (a read, not a call). */
const REMEMBERED_RUNS = 1024;

export class RunReporter {
  private readonly checks: Writer<boolean>;
  private readonly comments: Writer<void>;
  private readonly bodies: Writer<void>;
  private readonly prStatus = new PrStatusBodies();
  private readonly written = new LRUCache<string, Written>({ max: REMEMBERED_RUNS });
  /**
   * Runs this process started: nothing of theirs can be on GitHub but what this process made, so a
   * comment or summary check run without a record is not looked for. For any other run it is:
   * the records are written with the store's next write, and a crash may lose the newest.
   */
  private readonly startedHere = new LRUCache<string, true>({ max: REMEMBERED_RUNS });
  private readonly now: () => string;
  /** The next refresh of each run with a step under way. */
  private readonly refreshing = new Map<string, NodeJS.Timeout>();

  constructor(private readonly options: RunReporterOptions) {
    this.now = options.now ?? (() => new Date().toISOString());
    const wait = () => (options.sleep ?? sleep)(options.coalesceMs ?? REPORT_COALESCE_MS);
    this.checks = new Writer(wait);
    this.comments = new Writer(wait);
    this.bodies = new Writer(wait);
  }

  /** A run this process starts, with the PR it opened and the body it gave it (not read again before its first status write). */
  markNew(runId: string, opened?: { pr: PullRequestRef; body: string }): void {
    this.startedHere.set(runId, true);
    if (opened) this.prStatus.learn(opened.pr, opened.body);
  }

  /** Someone edited a PR's body: it is read again before its status section is next written, so their words stay. */
  pullRequestEdited(repo: string, number: number): void {
    this.prStatus.forget(repo, number);
  }

  /**
   * Resolves once the run as it stands now (or newer) is written: its check runs, its comment and
   * its PR bodies' status, each by its own writer (a failure of one does not hold the others back;
   * the first is thrown).
   */
  async report(runId: string): Promise<void> {
    const [checks, comment, bodies] = await Promise.allSettled([
      this.checks.request(runId, () => this.publishChecks(runId)),
      this.requestComment(runId),
      this.bodies.request(runId, () => this.publishPrStatus(runId)),
    ]);
    // A new approval check run with buttons, made after the comment read the links: the comment links them.
    const relinked = checks.status === 'fulfilled' && checks.value ? await Promise.allSettled([this.requestComment(runId)]) : [];
    for (const r of [checks, comment, bodies, ...relinked]) if (r.status === 'rejected') throw r.reason;
  }

  /**
   * Keeps a run's texts current while a step runs: its next refresh is set when it has a step
   * under way (and none is set yet), dropped when it has none. The timer never keeps the process up.
   */
  private keepFresh(run: Run): void {
    const base = this.options.refreshMs ?? RUNNING_REFRESH_MS;
    const under = stepUnderWay(run);
    const set = this.refreshing.get(run.id);
    if (!under || base <= 0) {
      if (set) clearTimeout(set);
      this.refreshing.delete(run.id);
      return;
    }
    if (set) return;
    const timer = setTimeout(
      () => {
        this.refreshing.delete(run.id);
        this.report(run.id).catch((e: unknown) => this.options.log?.warn(`could not refresh run ${run.id}: ${(e as Error).message}`, { run: run.id }));
      },
      refreshInterval(this.refreshing.size + 1, base),
    );
    timer.unref();
    this.refreshing.set(run.id, timer);
  }

  /** Stops every refresh (the app is closing). */
  close(): void {
    for (const timer of this.refreshing.values()) clearTimeout(timer);
    this.refreshing.clear();
  }

  /** Runs whose texts are kept current (a step of theirs under way). */
  refreshed(): string[] {
    return [...this.refreshing.keys()];
  }

  /** Resolves when no report is waiting or being written (its failures are the caller's of report). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...this.checks.pending(), ...this.comments.pending(), ...this.bodies.pending()];
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  private requestComment(runId: string): Promise<void> {
    return this.comments.request(runId, () => this.publishComment(runId));
  }

  /** The run, its GitHub adapter and its attempts' links, or undefined when nothing is to be shown. */
  private async load(runId: string): Promise<{ run: Run; github: GitHub; attempts: AttemptLink[] } | undefined> {
    const run = await this.options.store.get(runId);
    // A run whose repositories the app lost has nothing left to show there.
    if (!run || run.unreachable) return undefined;
    this.keepFresh(run);
    return { run, github: await this.options.github(run), attempts: await this.options.links.attemptsOfRun(runId) };
  }

  /** The status section of each PR of the run, where what it says changed (pr-status.ts). */
  private async publishPrStatus(runId: string): Promise<void> {
    const run = await this.options.store.get(runId);
    if (!run || run.unreachable || run.prs.length === 0) return;
    await this.prStatus.write(run, (await this.options.github(run)).pulls);
  }

  private async publishComment(runId: string): Promise<void> {
    const loaded = await this.load(runId);
    if (!loaded) return;
    const { run, github } = loaded;
    let { attempts } = loaded;
    const { links } = this.options;
    const written = this.remember(runId);
    // The check runs' write of this run under way first (it is quick, and never waits for this one):
    // the comment then links the check runs it makes (an approval's, with its buttons).
    const checks = this.checks.of(runId);
    if (checks) {
      await checks.catch(() => undefined);
      attempts = await links.attemptsOfRun(runId);
    }
    // Rendered as of the run's last change, so an unchanged run renders the same text.
    const body = renderTrackingComment(run, linksOf(run, attempts), this.renderedAt(run));
    if (written.comment?.body === body) return;
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

  /** The approval check runs and the summary check run; says whether an approval check run was made. */
  private async publishChecks(runId: string): Promise<boolean> {
    const loaded = await this.load(runId);
    if (!loaded) return false;
    const { run, github } = loaded;
    let { attempts } = loaded;
    const { links } = this.options;
    const now = this.now();
    const written = this.remember(runId);
    // Each check run's details link goes to the tracking comment, where the run and its commands are.
    const detailsUrl = safeLinkTarget(written.comment?.url ?? (await links.comment(runId))?.url);

    const made = (await this.options.approvals?.publish(run, github, attempts, detailsUrl)) ?? false;
    // The summary links the approval check run it just made.
    if (made) attempts = await links.attemptsOfRun(runId);

    const { repo, head } = checkRunsHead(run, payloadRepos(run));
    const view = linksOf(run, attempts);
    const at = this.renderedAt(run);
    const check = renderSummaryCheck(run, view, at, renderRunTable(run, view, at));
    const text = JSON.stringify({ check, detailsUrl });
    if (written.summary?.head === head && written.summary.text === text) return made;
    const output = { title: check.title, summary: check.summary };
    const state = {
      status: check.status,
      ...(check.conclusion ? { conclusion: check.conclusion, completed_at: now } : {}),
      ...(detailsUrl ? { details_url: detailsUrl } : {}),
    };
    const known = await this.summaryOf(run, repo, head, github, written);
    // Where GitHub lets the one on this head take the state, it is updated; else a new one is made (check-writes.ts).
    const { id } = await writeCheck(github.checks, repo, known, { ...state, output }, { name: SUMMARY_CHECK_NAME, head_sha: head, external_id: runId });
    if (known?.id !== id || !known.recorded) await links.saveSummary(runId, head, id);
    // The PR's head moved: the summary left on the old head is completed, so nothing the run made stays running there.
    const left = written.summary;
    if (left && left.head !== head && left.id !== id && left.status !== 'completed') {
      await github.checks.update(repo, left.id, {
        status: 'completed',
        conclusion: 'neutral',
        completed_at: now,
        output: { title: 'moved to the new head', summary: `This run's checks moved to ${head.slice(0, 7)}, the pull request's new head.` },
      });
    }
    written.summary = { head, id, text, status: check.status, conclusion: check.conclusion ?? null };
    return made;
  }

  /**
   * The summary check run on `head`: what this process wrote (its state known), else the record of
   * it (its state unknown: writeCheck learns it from GitHub's answer), else, for a run this process
   * did not start, the one GitHub has with the run's external id. `recorded`: the record names it.
   */
  private async summaryOf(run: Run, repo: string, head: string, github: GitHub, written: Written): Promise<(CurrentCheck & { recorded: boolean }) | undefined> {
    if (written.summary?.head === head) return { id: written.summary.id, recorded: true, state: written.summary };
    const recorded = await this.options.links.summary(run.id, head);
    if (recorded !== undefined) return { id: recorded, recorded: true };
    // As for the comment: without a record, one this process did not make may exist (external id: the run).
    if (this.startedHere.has(run.id)) return undefined;
    const found = await github.checks.find(repo, head, SUMMARY_CHECK_NAME, run.id);
    return found ? { id: found.id, recorded: false, state: { status: found.status, conclusion: found.conclusion } } : undefined;
  }

  /**
   * The moment a run's texts are rendered for: of its last change, so that an unchanged run renders
   * the same text (and costs no write); while a step runs, now (its time so far changes each minute).
   */
  private renderedAt(run: Run): string {
    return stepUnderWay(run) ? this.now() : run.updatedAt;
  }

  /** This run's record of what was written, kept among the most recently reported runs. */
  private remember(runId: string): Written {
    const known = this.written.get(runId);
    if (known) return known;
    const entry: Written = {};
    this.written.set(runId, entry);
    return entry;
  }
}

/** Whether a step of the run is under way (its texts then show its time so far). */
function stepUnderWay(run: Run): boolean {
  return run.status === 'running' && Object.values(run.steps).some((s) => s.status === 'queued');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
