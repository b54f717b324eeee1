// What people see of a run on GitHub: the tracking comment on the issue (one, edited in place) and
// the summary check run `conveyor` on the primary PR's head. Both open with where the run stands
// and, while it waits, the command that continues it (next-steps.ts). Pure: links come from the caller.
import { findRecord } from '../run/draft.ts';
import { code, inlineText, safeLinkTarget } from '../text.ts';
import type { Run, StepState } from '../run/types.ts';
import { describeUsage, formatUsd, shortUsage } from '../contract/usage.ts';
import { describeRunUsage, runUsage, spentUsd, stepUsage } from '../run/usage.ts';
import { formatClock, formatDuration, formatMoment } from '../time.ts';
import { repairNumber } from './check-run.ts';
import { approvedAtHead, listPaths, protectedPrs } from '../run/protect.ts';
import { nextSteps, summaryTitle, type StepLinks } from './next-steps.ts';

/** Links of each step's current attempt, by step id. */
export type RunLinks = Record<string, StepLinks>;

export function trackingMarker(runId: string): string {
  return `<!-- conveyor:tracking run=${runId} -->`;
}

const STATE_ICON: Record<StepState['status'], string> = {
  pending: '⏳ pending',
  queued: '🔄 running',
  waiting: '✋ waiting',
  succeeded: '✅ succeeded',
  failed: '❌ failed',
  cancelled: '⛔ cancelled',
};

const RUN_STATE: Record<Run['status'], string> = {
  running: '🔄 running',
  waiting: '✋ waiting',
  succeeded: '✅ succeeded',
  cancelled: '⛔ cancelled',
};

/** A link, when its target is an http(s) URL; else the text alone. */
const link = (text: string, url: string | undefined): string => {
  const target = safeLinkTarget(url);
  return target ? `[${text}](${target})` : text;
};

/** Whether any agent of the run reported usage: only then has the table a usage column. */
const hasUsage = (run: Run): boolean => runUsage(run) !== undefined;

/**
 * How long a running attempt has run, in whole minutes (`<1m`, `4m`, `1h 5m`): the text changes
 * at most once a minute, so a refresh within the same minute writes nothing.
 */
function runningFor(startedAt: string, now: string): string {
  const ms = Date.parse(now) - Date.parse(startedAt);
  if (!Number.isFinite(ms) || ms < 60_000) return '<1m';
  return formatDuration(Math.floor(ms / 60_000) * 60_000).replace(/ 0s$/, '');
}

function stepRows(run: Run, links: RunLinks, now: string): string[] {
  const usage = hasUsage(run);
  return run.plan.steps.map((p) => {
    const s = run.steps[p.id];
    if (!s) return `| ${p.id} | ${p.kind} | ? | | | |${usage ? ' |' : ''}`;
    const record = findRecord(s, s.attempt, s.epoch);
    const repair = s.mode === 'repair' ? ` (repair${repairNumber(s, s.attempt) ? ` ${repairNumber(s, s.attempt)}` : ''})` : '';
    const attempt = s.attempt === 0 ? '' : `${s.attempt}${repair}${s.epoch > 0 ? `, dispatch ${s.epoch + 1}` : ''}`;
    // A running attempt's time so far, as of the write (the reporter writes it again each minute
    // while a step runs), and when it started, which stays true between writes.
    const duration = !record
      ? ''
      : record.finishedAt
        ? formatDuration(Date.parse(record.finishedAt) - Date.parse(record.startedAt))
        : s.status === 'queued'
          ? `${runningFor(record.startedAt, now)} so far, since ${formatClock(record.startedAt)}`
          : `since ${formatClock(record.startedAt)}`;
    const l = links[p.id] ?? {};
    const linkText = [l.checkRunUrl ? link('check run', l.checkRunUrl) : '', l.workflowRunUrl ? link('workflow run', l.workflowRunUrl) : '']
      .filter(Boolean)
      .join(' · ');
    // Reasons carry what commands and agents printed: shown as text, never as Markdown.
    const icon = s.status === 'queued' && s.mode === 'repair' ? '🔧 repairing' : STATE_ICON[s.status];
    const state = `${icon}${s.reason ? `: ${inlineText(s.reason.slice(0, 300))}` : ''}`;
    const used = usage ? ` ${shortUsage(stepUsage(s))} |` : '';
    return `| ${code(p.id, { table: true })} | ${p.kind} | ${state} | ${attempt} | ${duration} |${used} ${linkText} |`;
  });
}

/**
 * The table and lists shared by the tracking comment and the summary check run. `now`: the moment
 * it is rendered for (a running step says how long it has run, and since when).
 */
export function renderRunTable(run: Run, links: RunLinks, now: string): string {
  const usage = hasUsage(run);
  const lines = [
    `| step | kind | state | attempt | duration |${usage ? ' usage |' : ''} links |`,
    `| --- | --- | --- | --- | --- |${usage ? ' --- |' : ''} --- |`,
    ...stepRows(run, links, now),
  ];
  // The run's tokens and cost (and budget), as its agents reported them: what people look for first.
  const total = usageLine(run);
  if (total) lines.push('', `**Usage:** ${total}`);
  if (run.prs.length > 0) {
    lines.push('', '**Pull requests:** ' + run.prs.map((p) => link(inlineText(`${p.repo}#${p.number}`), p.url)).join(', '));
  }
  const guarded = protectedLine(run);
  if (guarded) lines.push('', guarded);
  const envs = run.environments.filter((e) => e.state !== 'skipped');
  if (envs.length > 0) {
    lines.push(
      '',
      '**Environments:** ' + envs.map((e) => (safeLinkTarget(e.url) ? link(inlineText(e.service), e.url) : `${inlineText(e.service)}: ${e.state}`)).join(', '),
    );
  }
  return lines.join('\n');
}

/**
 * The protected paths (`protect`) the change holds and whether an approval saw them at the heads
 * now, so a person knows what to look at before approving. At most 10 paths per pull request.
 */
function protectedLine(run: Run): string | undefined {
  const guarded = protectedPrs(run);
  if (guarded.length === 0) return undefined;
  const items = guarded.map((g) => {
    const state = approvedAtHead(run, g.pr) ? 'approved at this head' : 'needs an approval of this head';
    return `${link(inlineText(`${g.pr.repo}#${g.pr.number}`), g.pr.url)}: ${listPaths(g.paths, 10, g.more)} (${state})`;
  });
  return `**Protected paths** (merged only after an approval of their heads): ${items.join('; ')}`;
}

/** The run's usage and budget; a budget spent or overrun in bold, with by how much (the run stopped starting agents). */
export function usageLine(run: Run): string | undefined {
  const budget = run.plan.budgetUsd;
  const spent = spentUsd(run);
  if (budget === undefined || spent < budget) return describeRunUsage(run);
  const over = spent > budget ? `, ${formatUsd(spent - budget)} over` : '';
  const ended = run.status === 'succeeded' || run.status === 'cancelled';
  return `${describeUsage(runUsage(run))} · **budget ${formatUsd(budget)} spent${over}${ended ? '' : ': no more agent attempts start'}**`;
}

/** `table`: renderRunTable's answer, when the caller has it already (the summary check run shows it too). */
export function renderTrackingComment(run: Run, links: RunLinks, now: string, table = renderRunTable(run, links, now)): string {
  const started = run.createdAt !== now ? ` · started ${formatMoment(run.createdAt, now)}` : '';
  const commands = ['/conveyor status', '/conveyor retry [step]', '/conveyor cancel'].map((c) => code(c)).join(', ');
  return [
    trackingMarker(run.id),
    `### Conveyor run ${code(run.id)} — pipeline ${code(run.plan.pipeline)}: ${RUN_STATE[run.status]}`,
    '',
    ...nextSteps(run, links),
    '',
    table,
    '',
    `<sub>Updated ${formatMoment(now, now)}${started}. Commands (on this issue or a pull request of the run): ${commands}.</sub>`,
  ].join('\n');
}

export interface SummaryCheck {
  status: 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'cancelled' | 'action_required';
  title: string;
  summary: string;
}

/**
 * The summary check run: in progress only while steps run. While the run waits for a person (an
 * approval, a retry of a failed step) it is completed as `action_required`, so the pull request
 * shows that someone must act, and its title says the command; a run that succeeded is `success`;
 * a cancelled one `failure` when a step had failed, else `cancelled`. GitHub never lets a completed
 * check run change its conclusion again: the reporter makes a new one when the run goes on.
 */
export function renderSummaryCheck(run: Run, links: RunLinks, now: string, table = renderRunTable(run, links, now)): SummaryCheck {
  const done = Object.values(run.steps).filter((s) => s.status === 'succeeded').length;
  const title = summaryTitle(run, done);
  const summary = [...nextSteps(run, links), '', table].join('\n');
  switch (run.status) {
    case 'succeeded':
      return { status: 'completed', conclusion: 'success', title, summary };
    case 'cancelled': {
      const failed = Object.values(run.steps).some((s) => s.status === 'failed');
      return { status: 'completed', conclusion: failed ? 'failure' : 'cancelled', title, summary };
    }
    case 'waiting':
      return { status: 'completed', conclusion: 'action_required', title, summary };
    case 'running':
      return { status: 'in_progress', title, summary };
  }
}
