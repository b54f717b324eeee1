// The sweep (the app runs it every minute): an attempt whose workflow run never started within 10
// minutes, or that runs past its step's timeout, is lost; an attempt whose check run completed while
// its webhook went missing gets its result. It reads GitHub only for attempts old enough to judge:
// their check run first, then, while it is open (the action writes it once, when it completes it),
// the workflow run, which says whether a runner started the attempt and when. An attempt seen
// running is read again only at its deadline or after another queued window, whichever comes
// first: its end arrives by webhook. Each end it finds goes to the run the one way (`settle`).
import { LRUCache } from 'lru-cache';
import { attemptKey, type AttemptRef } from '../../../core/contract/attempt-ref.ts';
import { attemptTimeoutMinutes, findRecord } from '../../../core/run/draft.ts';
import type { Run } from '../../../core/run/types.ts';
import type { AttemptEnd } from '../../../engine/ports/dispatcher.ts';
import type { AttemptLink } from '../../github/links.ts';
import type { Workflows, WorkflowRun } from '../../github/forge/workflows.ts';
import { completedOutcome, findAttemptRun, resultFor, type WorkflowContext } from './runs.ts';

export interface SweepOptions {
  /** An attempt with no workflow run this long after its dispatch is lost (default 10). */
  queuedMinutes?: number;
  /** Time a running attempt gets beyond its step timeout, for checkout and reporting (default 5). */
  graceMinutes?: number;
}

/** Minutes a dispatched attempt may wait for a runner before it is lost (the default window). */
export const QUEUED_MINUTES = 10;

/** When each attempt seen running is next worth a look (ms since the epoch), by its key. */
export type SweepMemory = LRUCache<string, number>;

/** Attempts remembered; an older one is only read again at the next sweep. */
const REMEMBERED = 4096;

/** A memory for sweeps to share (the app keeps one from sweep to sweep). */
export function sweepMemory(): SweepMemory {
  return new LRUCache({ max: REMEMBERED });
}

export interface SweepReport {
  judged: number;
  lost: string[];
  completed: string[];
  /** Effects (`run/key`) whose holder died mid-effect, taken and carried out by this sweep (when any). */
  taken?: string[];
  /** Runs whose merge step waits for a merge queue and was asked to look at it again (the app's sweep). */
  looked?: string[];
  /** Another replica holds the sweeper lease: this one did not sweep. */
  heldBy?: string;
}

/** Engine.settle: how an attempt's end reaches its run; says whether it counted. */
export type Settle = (ref: AttemptRef, outcome: AttemptEnd) => Promise<boolean>;

const MINUTE = 60_000;

/**
 * The workflow run of an attempt: the one its dispatch recorded, else the one the app's bot started
 * whose name marks its check run, looked for from when the attempt was queued (its dispatch came
 * after; the link's last change may come after GitHub made the run).
 */
async function workflowRunOf(
  c: WorkflowContext,
  workflows: Workflows,
  link: AttemptLink & { checkRunId: number },
  queuedAt: string,
): Promise<WorkflowRun | undefined> {
  if (link.workflowRunId !== undefined) return workflows.get(link.repo, link.workflowRunId);
  return findAttemptRun(workflows, { repo: link.repo, checkRunId: link.checkRunId, dispatchedAt: queuedAt }, await c.botLogin(), c.workflow);
}

export async function sweep(c: WorkflowContext, settle: Settle, options: SweepOptions = {}, memory: SweepMemory = sweepMemory()): Promise<SweepReport> {
  const queuedMs = (options.queuedMinutes ?? QUEUED_MINUTES) * MINUTE;
  const graceMs = (options.graceMinutes ?? 5) * MINUTE;
  const minutes = Math.round(queuedMs / MINUTE);
  const report: SweepReport = { judged: 0, lost: [], completed: [] };
  const now = Date.parse(c.now());
  for (const listed of await c.store.list({ status: ['running'] })) {
    // Read again only after a step was judged (its awaits let other events change the run): most
    // steps are too young to judge, and a read per step of every running run is the sweep's cost.
    let run: Run | undefined = listed;
    for (const p of listed.plan.steps) {
      if (p.kind === 'approval') continue;
      const s = run?.steps[p.id];
      if (!run || !s || s.status !== 'queued') continue;
      // The app merges and judges the required checks by itself (app/ci.ts sweeps those); only their repairs run as workflow runs.
      if ((p.kind === 'merge' || p.kind === 'ci') && s.mode !== 'repair') continue;
      const record = findRecord(s, s.attempt, s.epoch);
      if (!record || now - Date.parse(record.startedAt) < queuedMs) continue;
      const ref: AttemptRef = { runId: run.id, step: p.id, attempt: s.attempt, epoch: s.epoch, mode: s.mode };
      const key = attemptKey(ref);
      if ((memory.get(key) ?? 0) > now) continue;
      report.judged++;
      const link = await c.links.attempt(key);
      // Counted only when lost here (the run judges again, after the reads of GitHub).
      const lose = async (reason: string, close: 'lost' | 'timed-out' = 'lost') => {
        if (await settle(ref, { kind: 'lost', reason, ...(link?.checkRunId !== undefined ? { close } : {}) })) report.lost.push(key);
      };
      if (link?.checkRunId === undefined) {
        await lose(`it was not dispatched within ${minutes} minutes`);
      } else {
        const github = await c.github(run);
        const check = await github.checks.get(link.repo, link.checkRunId);
        if (check.status === 'completed') {
          const outcome = completedOutcome(check);
          if (outcome.kind === 'result') {
            const ended = resultFor(c, link, outcome.result);
            if (ended) await settle(ended.ref, ended.outcome);
            report.completed.push(key);
          } else await lose(outcome.reason);
        } else {
          const wr = await workflowRunOf(c, github.workflows, { ...link, checkRunId: link.checkRunId }, record.startedAt);
          if (!wr || (wr.status !== 'in_progress' && wr.status !== 'completed')) {
            await lose(`no workflow run started it within ${minutes} minutes`);
          } else if (wr.status === 'completed') {
            // Its end's webhook went missing (that webhook judges it at once).
            await lose(`its workflow run (${wr.url}) ended (${wr.conclusion ?? 'no conclusion'}) without reporting a result`);
          } else {
            const timeout = attemptTimeoutMinutes(run, p.id);
            const deadline = Date.parse(wr.startedAt ?? check.startedAt ?? record.startedAt) + timeout * MINUTE + graceMs;
            if (now > deadline) await lose(`it ran past its timeout of ${timeout} minutes`, 'timed-out');
            else remember(memory, key, Math.min(deadline, now + queuedMs));
          }
        }
      }
      run = await c.store.get(listed.id);
    }
  }
  return report;
}

function remember(memory: SweepMemory, key: string, nextLook: number): void {
  memory.set(key, nextLook);
}
