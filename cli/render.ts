// What the embedded mode prints of a run (its progress while it goes is progress.ts's): a table of
// steps, attempts, durations and links, and what to do next.
import { shortReceipt } from '../core/contract/receipt.ts';
import { stepVerifies } from '../core/run/receipts.ts';
import { partialMerge } from '../core/run/revert.ts';
import type { Run, StepState } from '../core/run/types.ts';
import { shortUsage } from '../core/contract/usage.ts';
import { describeRunUsage, runUsage, stepUsage } from '../core/run/usage.ts';
import { durationBetween, formatAgo, formatDuration } from '../core/time.ts';
import { shellQuote } from '../core/shell.ts';
import { resolve } from 'node:path';
import { DEFAULT_STATE } from './embedded.ts';

/** Total time a step spent in attempts, its running one's so far included (as of `now`). */
function stepDuration(state: StepState, now: string): string {
  let ms = 0;
  for (const a of state.attempts) ms += Date.parse(a.finishedAt ?? (state.status === 'queued' ? now : a.startedAt)) - Date.parse(a.startedAt);
  return state.attempts.length ? formatDuration(ms) : '';
}

/** A step's status as people read it: a dispatched attempt is `running` (`repairing` for a repair), not `queued`. */
export function stepStatus(state: StepState | undefined): string {
  if (!state) return 'pending';
  if (state.status === 'queued') return state.mode === 'repair' ? 'repairing' : 'running';
  return state.status;
}

/** The steps a run has under way, each with how long its attempt has run: `implement running 1m 12s`. */
export function runningSteps(run: Run, now: string): string {
  return run.plan.steps
    .map((p) => run.steps[p.id])
    .filter((s): s is StepState => s?.status === 'queued')
    .map((s) => {
      const record = s.attempts.findLast((a) => a.attempt === s.attempt && a.epoch === s.epoch);
      return `${s.id} ${stepStatus(s)}${record ? ` ${durationBetween(record.startedAt, now)}` : ''}`;
    })
    .join(', ');
}

/** When the run started (read the moment it is printed: `2 min ago`), and how long it took once it ended. */
function when(run: Run, now: string): string {
  const ended = run.status === 'succeeded' || run.status === 'cancelled';
  return `started ${formatAgo(run.createdAt, now)}${ended ? `, took ${durationBetween(run.createdAt, run.updatedAt)}` : ''}`;
}

/** `selection`: what makes the commands it prints act on this run; `now`: the moment it is printed (tests pass their own). */
export function renderRun(run: Run, selection: Selection, now = new Date().toISOString()): string {
  // A usage column only when an agent of the run reported usage.
  const usage = runUsage(run) !== undefined;
  const rows = run.plan.steps.map((s) => {
    const st = run.steps[s.id];
    const used = usage ? [shortUsage(stepUsage(st))] : [];
    return [s.id, s.kind, stepStatus(st), String(st?.attempts.length ?? 0), st ? stepDuration(st, now) : '', ...used, receiptCell(st), st?.reason ?? ''];
  });
  const header = ['step', 'kind', 'status', 'attempts', 'time', ...(usage ? ['usage'] : []), 'receipt', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const lines = [
    `Run ${run.id}: ${run.status}  (${run.plan.pipeline} on ${run.issue.repo}#${run.issue.number}: ${run.issue.title}; ${when(run, now)})`,
    '',
    fmt(header),
    ...rows.map(fmt),
  ];
  if (run.prs.length) {
    lines.push('', 'Pull requests:');
    // A local forge's PR has no page to open (its URL names it, file://…/pull/N, and is no file): the command that shows it instead.
    for (const pr of run.prs) lines.push(`  ${pr.repo}#${pr.number}  branch ${pr.branch}${pr.url.startsWith('file:') ? '' : `  ${pr.url}`}`);
    if (run.prs.some((pr) => pr.url.startsWith('file:'))) lines.push(`  (${commandFor('pr', run.id, selection, run)} shows each one's body, reviews and diff)`);
  }
  const envs = run.environments.filter((e) => e.state !== 'skipped');
  if (envs.length) {
    lines.push('', 'Environments:');
    for (const e of envs) lines.push(`  ${e.service}  ${e.state}${e.url ? `  ${e.url}` : ''}${e.error ? `  — ${e.error}` : ''}`);
  }
  const removed = (run.removedEnvironments ?? []).filter((e) => e.url);
  if (removed.length) {
    lines.push('', 'Environments torn down when the run ended (`conveyor run --keep-envs` keeps them):');
    for (const e of removed) lines.push(`  ${e.service}  ${e.url}`);
  }
  if (run.feedback?.length) {
    lines.push('', 'Feedback:');
    for (const f of run.feedback) {
      const where = f.taken
        ? `→ ${f.taken.step} attempt ${f.taken.attempt}`
        : f.dropped
          ? `not given to the agent: ${f.dropped}`
          : 'waits for the attempts under way';
      lines.push(`  @${f.by} (${f.source}) ${where}: ${f.text.replace(/\s+/g, ' ').slice(0, 80)}`);
    }
  }
  const total = describeRunUsage(run);
  if (total) lines.push('', `Usage: ${total}`);
  lines.push(...modelLines(run));
  lines.push(...sandboxLines(run));
  lines.push(...stoppedLines(run));
  if (run.waitingFor) lines.push('', `Waiting for: ${run.waitingFor}`);
  return lines.join('\n');
}

/**
 * The models each attempt's agents reported using (their CLIs' own reports, or the agents' usage
 * files), beside the configured `model` of the step's agent where that is not among them.
 */
function modelLines(run: Run): string[] {
  const out: string[] = [];
  for (const step of run.plan.steps) {
    for (const a of run.steps[step.id]?.attempts ?? []) {
      const models = a.usage?.models;
      if (!models?.length) continue;
      const agent = a.mode === 'repair' && 'repair' in step ? step.repair?.agent : 'agent' in step ? step.agent : undefined;
      const configured = agent ? run.plan.agents[agent]?.model : undefined;
      const named = configured?.slice(configured.lastIndexOf('/') + 1);
      const note = configured && named !== undefined && !models.includes(named) && !models.includes(configured) ? `  (configured: ${configured})` : '';
      out.push(`  ${step.id} ${a.mode === 'repair' ? 'repair' : 'attempt'} ${a.attempt}  ${models.join(', ')}${note}`);
    }
  }
  return out.length ? ['', 'Models (as the agents reported them):', ...out] : [];
}

/** Attempts whose commands ran without a sandbox, and each connection a sandbox blocked. */
function sandboxLines(run: Run): string[] {
  const out: string[] = [];
  for (const step of run.plan.steps) {
    for (const a of run.steps[step.id]?.attempts ?? []) {
      if (!a.sandbox) continue;
      const which = `${step.id} ${a.mode === 'repair' ? 'repair' : 'attempt'} ${a.attempt}`;
      if (a.sandbox.mode === 'none') out.push(`  ${which}  ran without a sandbox${a.sandbox.reason ? ` (${a.sandbox.reason})` : ''}`);
      for (const b of a.sandbox.blocked) out.push(`  ${which}  blocked ${b.host}:${b.port}${b.count > 1 ? ` (${b.count} times)` : ''}`);
    }
  }
  return out.length ? ['', 'Sandbox:', ...out] : [];
}

/**
 * What selects a run for a command printed about it: the state database, and the remotes and
 * configuration this command used (a later command takes the run's own unless given them again).
 */
export interface Selection {
  statePath: string;
  remotes?: string;
  configPath?: string;
}

/** Commands that take --remotes and --config besides --state (see cli/commands). */
const TAKES_REMOTES = new Set(['retry', 'restart', 'teardown', 'revert', 'pr']);
const TAKES_CONFIG = new Set(['retry', 'restart']);

/** An argument as a shell reads it back: quoted only when it has to be. */
export function shellArg(value: string): string {
  return /^[\w./:@%+=,-]+$/.test(value) ? value : shellQuote(value);
}

/**
 * `conveyor VERB RUN`, with the options that make it act on this run when pasted: `--state` unless
 * it is the default, and for the commands that take them `--remotes` and `--config` where this
 * command's differ from the run's own.
 */
export function commandFor(verb: string, runId: string, selection: Selection, run?: Pick<Run, 'origin'>): string {
  const args = ['conveyor', verb, runId];
  if (resolve(selection.statePath) !== resolve(DEFAULT_STATE)) args.push('--state', selection.statePath);
  const origin = run?.origin.kind === 'embedded' ? run.origin : undefined;
  const stored = (key: 'remotes' | 'configPath') => origin?.[key];
  const differs = (given: string | undefined, key: 'remotes' | 'configPath') => given !== undefined && given !== '' && resolve(given) !== stored(key);
  if (TAKES_REMOTES.has(verb) && differs(selection.remotes, 'remotes')) args.push('--remotes', selection.remotes!);
  if (TAKES_CONFIG.has(verb) && differs(selection.configPath, 'configPath')) args.push('--config', selection.configPath!);
  return args.map((a, i) => (i < 2 ? a : shellArg(a))).join(' ');
}

/** Error codes of an agent stopped by what is not its work, which the status names apart from a failure of the work. */
const NOT_ITS_WORK = new Set(['agent-network-refused', 'agent-vendor-unavailable']);

/** Each attempt whose agent the sandbox refused a host or whose vendor stayed unavailable, with what it said (the key to add, the vendor's words). */
function stoppedLines(run: Run): string[] {
  const out: string[] = [];
  for (const step of run.plan.steps) {
    for (const a of run.steps[step.id]?.attempts ?? []) {
      if (!a.error || !NOT_ITS_WORK.has(a.error.code)) continue;
      out.push(`  ${step.id} ${a.mode === 'repair' ? 'repair' : 'attempt'} ${a.attempt}  ${a.error.code}: ${a.error.message.slice(0, 600)}`);
    }
  }
  return out.length ? ['', 'Agents stopped (not their work):', ...out] : [];
}

/** The command that continues a run that waits, or undefined. */
export function nextCommand(run: Run, selection: Selection): string | undefined {
  if (run.status !== 'waiting') return undefined;
  const approval = Object.values(run.steps).find((s) => s.status === 'waiting');
  if (approval) return commandFor('approve', run.id, selection, run);
  // A merge that stopped part-way can also be undone.
  const revert = 'merged' in partialMerge(run) ? `, or undo what merged: ${commandFor('revert', run.id, selection, run)}` : '';
  return `${commandFor('retry', run.id, selection, run)}   (or: ${commandFor('cancel', run.id, selection, run)}${revert})`;
}

/** The short digest of the step's stored result, marked when it does not verify (it counts as not run). */
function receiptCell(state: StepState | undefined): string {
  const receipt = state?.result?.receipt;
  if (!receipt) return '';
  return stepVerifies(state) ? shortReceipt(receipt) : `${shortReceipt(receipt)} (does not verify)`;
}
