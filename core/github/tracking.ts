// What people see of a run on GitHub: the tracking comment on the issue (one, edited in place) and
// the summary check run `conveyor` on the primary PR's head. Pure: links come from the caller.
import { findRecord } from '../run/draft.ts';
import { inlineText, safeLinkTarget } from '../text.ts';
import type { Run, StepState } from '../run/types.ts';
import { shortUsage } from '../contract/usage.ts';
import { describeRunUsage, runUsage, stepUsage } from '../run/usage.ts';

export interface AttemptLinks {
  checkRunUrl?: string;
  workflowRunUrl?: string;
}

/** Links of each step's current attempt, by step id. */
export type RunLinks = Record<string, AttemptLinks>;

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

/** `1m 5s`, `42s`, `2h 3m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** A link, when its target is an http(s) URL; else the text alone. */
const link = (text: string, url: string | undefined): string => {
  const target = safeLinkTarget(url);
  return target ? `[${text}](${target})` : text;
};

/** Whether any agent of the run reported usage: only then has the table a usage column. */
const hasUsage = (run: Run): boolean => runUsage(run) !== undefined;

function stepRows(run: Run, links: RunLinks, now: string): string[] {
  const usage = hasUsage(run);
  return run.plan.steps.map((p) => {
    const s = run.steps[p.id];
    if (!s) return `| ${p.id} | ${p.kind} | ? | | | |${usage ? ' |' : ''}`;
    const record = findRecord(s, s.attempt, s.epoch);
    const attempt = s.attempt === 0 ? '' : `${s.attempt}${s.mode === 'repair' ? ' (repair)' : ''}${s.epoch > 0 ? `, dispatch ${s.epoch + 1}` : ''}`;
    const duration = record ? formatDuration(Date.parse(record.finishedAt ?? now) - Date.parse(record.startedAt)) : '';
    const l = links[p.id] ?? {};
    const linkText = [l.checkRunUrl ? link('check run', l.checkRunUrl) : '', l.workflowRunUrl ? link('workflow run', l.workflowRunUrl) : '']
      .filter(Boolean)
      .join(' · ');
    // Reasons carry what commands and agents printed: shown as text, never as Markdown.
    const state = `${STATE_ICON[s.status]}${s.reason ? `: ${inlineText(s.reason.slice(0, 300))}` : ''}`;
    const used = usage ? ` ${shortUsage(stepUsage(s))} |` : '';
    return `| \`${p.id}\` | ${p.kind} | ${state} | ${attempt} | ${duration} |${used} ${linkText} |`;
  });
}

/** The table and lists shared by the tracking comment and the summary check run. */
export function renderRunTable(run: Run, links: RunLinks, now: string): string {
  const usage = hasUsage(run);
  const lines = [
    `| step | kind | state | attempt | duration |${usage ? ' usage |' : ''} links |`,
    `| --- | --- | --- | --- | --- |${usage ? ' --- |' : ''} --- |`,
    ...stepRows(run, links, now),
  ];
  // The run's tokens and cost (and budget), as its agents reported them: what people look for first.
  const total = describeRunUsage(run);
  if (total) lines.push('', `**Usage:** ${total}`);
  if (run.prs.length > 0) {
    lines.push('', '**Pull requests:** ' + run.prs.map((p) => link(inlineText(`${p.repo}#${p.number}`), p.url)).join(', '));
  }
  const envs = run.environments.filter((e) => e.state !== 'skipped');
  if (envs.length > 0) {
    lines.push(
      '',
      '**Environments:** ' + envs.map((e) => (safeLinkTarget(e.url) ? link(inlineText(e.service), e.url) : `${inlineText(e.service)}: ${e.state}`)).join(', '),
    );
  }
  if (run.waitingFor) lines.push('', `**Waiting for:** ${inlineText(run.waitingFor)}`);
  if (run.status === 'cancelled' && run.reason) lines.push('', `**Cancelled:** ${inlineText(run.reason)}`);
  return lines.join('\n');
}

/** What the tracking comment says under its table when the repository's workflow is the old template. */
export const OLD_TEMPLATE_NOTE =
  "> [!NOTE]\n> This repository's `.github/workflows/conveyor.yml` still passes the app's token to the action (the old template, which needs the app's private key as a secret). Update it to the current template (`conveyor init --force` writes it): the action then trades the runner's OIDC token for a token scoped to each step, and the key can be deleted from the repository's secrets.";

/**
 * `table`: renderRunTable's answer, when the caller has it already (the summary check run shows it
 * too); `oldTemplate`: a step of the run ran on the old workflow template (said once, here).
 */
export function renderTrackingComment(run: Run, links: RunLinks, now: string, table = renderRunTable(run, links, now), oldTemplate = false): string {
  return [
    trackingMarker(run.id),
    `### Conveyor run \`${run.id}\` — pipeline \`${run.plan.pipeline}\`: ${RUN_STATE[run.status]}`,
    '',
    table,
    ...(oldTemplate ? ['', OLD_TEMPLATE_NOTE] : []),
    '',
    `<sub>Updated ${now}. Commands: \`/conveyor status\`, \`/conveyor retry [step]\`, \`/conveyor cancel\`.</sub>`,
  ].join('\n');
}

export interface SummaryCheck {
  status: 'in_progress' | 'completed';
  conclusion?: 'success' | 'cancelled';
  title: string;
  summary: string;
}

export function renderSummaryCheck(run: Run, links: RunLinks, now: string, table = renderRunTable(run, links, now)): SummaryCheck {
  const done = Object.values(run.steps).filter((s) => s.status === 'succeeded').length;
  const title = run.waitingFor ? `waiting: ${run.waitingFor}`.slice(0, 200) : `${run.status}: ${done} of ${run.plan.steps.length} steps succeeded`;
  const summary = table;
  if (run.status === 'succeeded') return { status: 'completed', conclusion: 'success', title, summary };
  if (run.status === 'cancelled') return { status: 'completed', conclusion: 'cancelled', title, summary };
  return { status: 'in_progress', title, summary };
}
