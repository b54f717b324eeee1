// The sweeper (every minute): an attempt whose workflow run never started within 10 minutes, or
// that runs past its step's timeout, is lost; an attempt whose check run completed while its
// webhook went missing gets its result. It reads GitHub only for attempts old enough to judge:
// their check run first, then, while it is open (the action writes it once, when it completes
// it), the workflow run, which says whether a runner started the attempt and when. An attempt
// seen running is read again only at its deadline or after another queued window, whichever
// comes first: its end arrives by webhook.
import { attemptKey, type AttemptRef } from '../core/contract/attempt-ref.ts';
import { completedOutcome, findAttemptRun } from '../adapters/dispatch/workflow.ts';
import type { Workflows, WorkflowRun } from '../adapters/github/forge/workflows.ts';
import type { AttemptLink } from '../adapters/github/links.ts';
import type { Run } from '../core/run/types.ts';
import { feed, loseAttempt } from './checks.ts';
import type { AppDeps } from './deps.ts';
import { attemptTimeoutMinutes, findRecord } from '../core/run/draft.ts';

export interface SweepOptions {
  /** An attempt with no workflow run this long after its dispatch is lost (default 10). */
  queuedMinutes?: number;
  /** Time a running attempt gets beyond its step timeout, for checkout and reporting (default 5). */
  graceMinutes?: number;
}

/** Minutes a dispatched attempt may wait for a runner before it is lost (the default window). */
export const QUEUED_MINUTES = 10;

/** When each attempt seen running is next worth a look (ms since the epoch), by external id. */
export type SweepMemory = Map<string, number>;

/** Attempts remembered; an older one is only read again at the next sweep. */
const REMEMBERED = 4096;

export interface SweepReport {
  judged: number;
  lost: string[];
  completed: string[];
  /** Effects (`run/key`) whose holder died mid-effect, taken and carried out by this sweep (when any). */
  taken?: string[];
  /** Another replica holds the sweeper lease: this one did not sweep. */
  heldBy?: string;
}

const MINUTE = 60_000;

/**
 * The workflow run of an attempt: the one its dispatch recorded, else the one the app's bot started
 * whose name marks its check run, looked for from when the attempt was queued (its dispatch came
 * after; the link's last change may come after GitHub made the run).
 */
async function workflowRunOf(
  deps: AppDeps,
  workflows: Workflows,
  link: AttemptLink & { checkRunId: number },
  queuedAt: string,
): Promise<WorkflowRun | undefined> {
  if (link.workflowRunId !== undefined) return workflows.get(link.repo, link.workflowRunId);
  return findAttemptRun(workflows, { repo: link.repo, checkRunId: link.checkRunId, dispatchedAt: queuedAt }, await deps.botLogin());
}

export async function sweep(deps: AppDeps, options: SweepOptions = {}, memory: SweepMemory = new Map()): Promise<SweepReport> {
  const queuedMs = (options.queuedMinutes ?? QUEUED_MINUTES) * MINUTE;
  const graceMs = (options.graceMinutes ?? 5) * MINUTE;
  const minutes = Math.round(queuedMs / MINUTE);
  const report: SweepReport = { judged: 0, lost: [], completed: [] };
  const now = Date.parse(deps.now());
  for (const listed of await deps.store.list({ status: ['running'] })) {
    // Read again only after a step was judged (its awaits let other events change the run): most
    // steps are too young to judge, and a read per step of every running run is the sweep's cost.
    let run: Run | undefined = listed;
    for (const p of listed.plan.steps) {
      if (p.kind === 'approval') continue;
      const s = run?.steps[p.id];
      if (!run || !s || s.status !== 'queued') continue;
      // The app merges by itself; only a merge's conflict repair runs as a workflow run.
      if (p.kind === 'merge' && s.mode !== 'repair') continue;
      const record = findRecord(s, s.attempt, s.epoch);
      if (!record || now - Date.parse(record.startedAt) < queuedMs) continue;
      const ref: AttemptRef = { runId: run.id, step: p.id, attempt: s.attempt, epoch: s.epoch, mode: s.mode };
      const externalId = attemptKey(ref);
      if ((memory.get(externalId) ?? 0) > now) continue;
      report.judged++;
      const link = await deps.links.attempt(externalId);
      const judged = run;
      // Counted only when lost here (loseAttempt judges again after the read of GitHub).
      const lose = async (reason: string, conclusion: 'cancelled' | 'timed_out' = 'cancelled') => {
        if (await loseAttempt(deps, judged, ref, link, reason, conclusion)) report.lost.push(externalId);
      };
      if (link?.checkRunId === undefined) {
        await lose(`it was not dispatched within ${minutes} minutes`);
      } else {
        const github = await deps.githubOf(run);
        const check = await github.checks.get(link.repo, link.checkRunId);
        if (check.status === 'completed') {
          const outcome = completedOutcome(check);
          if (outcome.kind === 'result') {
            await feed(deps, run, externalId, outcome.result);
            report.completed.push(externalId);
          } else await lose(outcome.reason);
        } else {
          const wr = await workflowRunOf(deps, github.workflows, { ...link, checkRunId: link.checkRunId }, record.startedAt);
          if (!wr || (wr.status !== 'in_progress' && wr.status !== 'completed')) {
            await lose(`no workflow run started it within ${minutes} minutes`);
          } else if (wr.status === 'completed') {
            // Its end's webhook went missing (that webhook judges it at once).
            await lose(`its workflow run (${wr.url}) ended (${wr.conclusion ?? 'no conclusion'}) without reporting a result`);
          } else {
            const timeout = attemptTimeoutMinutes(run, p.id);
            const deadline = Date.parse(wr.startedAt ?? check.startedAt ?? record.startedAt) + timeout * MINUTE + graceMs;
            if (now > deadline) await lose(`it ran past its timeout of ${timeout} minutes`, 'timed_out');
            else remember(memory, externalId, Math.min(deadline, now + queuedMs));
          }
        }
      }
      run = await deps.store.get(listed.id);
    }
  }
  return report;
}

function remember(memory: SweepMemory, externalId: string, nextLook: number): void {
  memory.delete(externalId);
  memory.set(externalId, nextLook);
  if (memory.size > REMEMBERED) memory.delete(memory.keys().next().value!);
}
