// What a run waits for and what a person does about it, as the tracking comment and the summary
// check run say it first: the exact command that continues the run (`/conveyor approve`,
// `/conveyor retry test`, `/conveyor cancel`, `/conveyor revert` after a partial merge), where to give it, who counts, and the approval check
// run's button where there is one. Pure: links come from the caller.
import { validApprovals } from '../run/draft.ts';
import type { Run, StepState } from '../run/types.ts';
import { primaryRepo } from '../run/payload.ts';
import { partialMerge } from '../run/revert.ts';
import { durationBetween, formatClock } from '../time.ts';
import { code, inlineText, safeLinkTarget } from '../text.ts';
import { repairNumber, stepCheckName } from './check-run.ts';

/** Links of a step's current attempt (an approval's: its check run with the buttons). */
export interface StepLinks {
  checkRunUrl?: string;
  workflowRunUrl?: string;
}

/** What the run waits for from people, in plan order; empty unless it waits. */
export type Awaited =
  | { kind: 'approval'; step: string; have: number; need: number; reason?: string }
  | { kind: 'retry'; steps: string[]; reasons: Array<{ step: string; reason: string }> }
  | { kind: 'stuck'; why: string };

export function awaited(run: Run): Awaited[] {
  if (run.status !== 'waiting') return [];
  const steps = run.plan.steps.map((p) => ({ p, s: run.steps[p.id] })).filter((x): x is { p: (typeof x)['p']; s: StepState } => x.s !== undefined);
  const out: Awaited[] = [];
  const failed = steps.filter(({ s }) => s.status === 'failed');
  if (failed.length > 0)
    out.push({ kind: 'retry', steps: failed.map(({ p }) => p.id), reasons: failed.map(({ p, s }) => ({ step: p.id, reason: s.reason ?? 'no reason given' })) });
  for (const { p, s } of steps) {
    if (p.kind !== 'approval' || s.status !== 'waiting') continue;
    out.push({ kind: 'approval', step: p.id, have: validApprovals(run, p.id).length, need: p.minApprovals, ...(s.reason ? { reason: s.reason } : {}) });
  }
  if (out.length === 0) out.push({ kind: 'stuck', why: run.waitingFor ?? 'no step can start' });
  return out;
}

/** The command that continues a run after the failure of `steps`: the one step by name, else everything that did not succeed. */
export function retryCommand(steps: readonly string[]): string {
  return steps.length === 1 ? `/conveyor retry ${steps[0]}` : '/conveyor retry';
}

/** The running steps, in plan order: `test` (attempt 3), `review` (repair 1). */
function running(run: Run): string[] {
  return run.plan.steps.flatMap((p) => {
    const s = run.steps[p.id];
    if (!s || s.status !== 'queued') return [];
    const repair = s.mode === 'repair' ? repairNumber(s, s.attempt) : undefined;
    const since = s.attempts.findLast((a) => a.attempt === s.attempt && a.epoch === s.epoch)?.startedAt;
    const what = s.mode === 'repair' ? `repair${repair ? ` ${repair}` : ''}` : `attempt ${s.attempt}`;
    // A repair says what it repairs: the failure of the attempt before it.
    const failed = s.mode === 'repair' ? s.attempts.findLast((a) => a.attempt < s.attempt && a.conclusion === 'failure') : undefined;
    const why = failed
      ? ` after attempt ${failed.attempt} failed: ${inlineText((failed.error?.message ?? failed.summary ?? 'no reason given').slice(0, 300))}`
      : '';
    return [`${code(p.id)} (${what}${since ? `, since ${formatClock(since)}` : ''})${why}`];
  });
}

const list = (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** Who may give a command that changes the run, in words. */
function whoCounts(run: Run, step?: string): string {
  const writers = `people with write permission on ${primaryRepo(run.plan)}`;
  const p = step ? run.plan.steps.find((x) => x.id === step) : undefined;
  if (!p || p.kind !== 'approval') return writers;
  const named = p.approvers.length > 0 ? ` who are among the step's approvers (${p.approvers.map((a) => inlineText(a)).join(', ')})` : '';
  const requester = run.requester && !p.allowRequester ? `; ${inlineText(run.requester)} started the run and does not count` : '';
  return `${writers}${named}${requester}`;
}

/** The approval step's check run, with its Approve and Reject buttons: a link where there is one. */
function approvalCheck(step: string, links: Record<string, StepLinks>): string {
  const name = code(stepCheckName(step));
  const url = safeLinkTarget(links[step]?.checkRunUrl);
  return url ? `the [${name}](${url}) check run` : `the ${name} check run (in the pull request's Checks tab)`;
}

/**
 * The block the tracking comment and the summary check run open with: where the run stands, and
 * while it waits, what it waits for and the exact command that continues it. Markdown lines.
 */
export function nextSteps(run: Run, links: Record<string, StepLinks> = {}): string[] {
  const where = "on this issue or on one of the run's pull requests";
  switch (run.status) {
    case 'running': {
      const now = running(run);
      return [`> 🔄 **Running** ${now.length > 0 ? list(now) : 'the next steps'}. To stop the run, comment ${code('/conveyor cancel')}.`];
    }
    case 'succeeded': {
      const took = durationBetween(run.createdAt, run.updatedAt);
      return [`> ✅ **Succeeded**: ${run.plan.steps.length} of ${run.plan.steps.length} steps${took ? ` in ${took}` : ''}.`];
    }
    case 'cancelled':
      return [`> ⛔ **Cancelled**${run.reason ? `: ${inlineText(run.reason)}` : ''}.`];
    case 'waiting':
      break;
  }
  const out: string[] = [];
  for (const a of awaited(run)) {
    if (out.length > 0) out.push('>');
    if (a.kind === 'approval') {
      out.push(
        `> ✋ **Waiting for approval** of step ${code(a.step)}: ${a.have} of ${a.need} so far${a.reason && /stale/.test(a.reason) ? ` (${inlineText(a.reason)})` : ''}.`,
        `> To approve what the pull requests hold now, comment ${code('/conveyor approve')} ${where}, or press **Approve** on ${approvalCheck(a.step, links)}.`,
        `> To reject, comment ${code('/conveyor reject')} followed by why. Counted: ${whoCounts(run, a.step)}.`,
      );
    } else if (a.kind === 'retry') {
      for (const r of a.reasons) out.push(`> ❌ **${code(r.step)} failed**: ${inlineText(r.reason.slice(0, 500))}`);
      out.push(
        `> To run ${a.steps.length === 1 ? 'it' : 'them'} again, comment ${code(retryCommand(a.steps))} ${where}; to stop the run, ${code('/conveyor cancel')}. Counted: ${whoCounts(run)}.`,
      );
      // A merge that stopped part-way has a way back as well as forward.
      const partial = partialMerge(run);
      if ('merged' in partial) {
        const merged = partial.merged.map((p) => inlineText(`${p.repo}#${p.number}`)).join(', ');
        out.push(
          `> To undo what merged (${merged}) instead, comment ${code('/conveyor revert')}: it opens revert pull requests (consumers first) that merge once approved, and cancels this run.`,
        );
      }
    } else {
      out.push(
        `> ✋ **Waiting**: ${inlineText(a.why)}.`,
        `> To try again, comment ${code('/conveyor retry')} ${where}; to stop the run, ${code('/conveyor cancel')}.`,
      );
    }
  }
  return out;
}

/**
 * The summary check run's title (plain text, one line): what a person must do, when the run
 * waits; else where it stands. `done`: how many steps succeeded.
 */
export function summaryTitle(run: Run, done: number): string {
  const total = run.plan.steps.length;
  const title = (() => {
    switch (run.status) {
      case 'running': {
        const now = run.plan.steps.filter((p) => run.steps[p.id]?.status === 'queued').map((p) => p.id);
        return `running ${now.join(', ') || 'the next steps'}: ${done} of ${total} steps succeeded`;
      }
      case 'succeeded': {
        const took = durationBetween(run.createdAt, run.updatedAt);
        return `succeeded: ${total} of ${total} steps${took ? ` in ${took}` : ''}`;
      }
      case 'cancelled':
        return `cancelled${run.reason ? `: ${run.reason}` : ''}`;
      case 'waiting': {
        const parts = awaited(run).map((a) =>
          a.kind === 'approval'
            ? `waiting for approval of ${a.step}: comment /conveyor approve`
            : a.kind === 'retry'
              ? `${a.steps.join(', ')} failed: comment ${retryCommand(a.steps)}`
              : `waiting: ${a.why}`,
        );
        return parts.join('; ');
      }
    }
  })();
  return title.replace(/\s+/g, ' ').slice(0, 200);
}
