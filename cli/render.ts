// What the embedded mode prints: a line per step transition while a run goes, then a table of
// steps, attempts, durations and links, and what to do next.
import { shortReceipt } from '../core/contract/receipt.ts';
import { stepVerifies } from '../core/run/receipts.ts';
import type { Run, RunEvent, StepState } from '../core/run/types.ts';
import { shortUsage } from '../core/contract/usage.ts';
import { describeRunUsage, runUsage, stepUsage } from '../core/run/usage.ts';
import { durationBetween, formatAgo, formatDuration } from '../core/time.ts';

const MARK: Record<StepState['status'], string> = {
  pending: '·',
  queued: '▸',
  waiting: '⏸',
  succeeded: '✓',
  failed: '✗',
  cancelled: '⊘',
};

export interface Progress {
  event(run: Run, event: RunEvent): void;
  done(): void;
}

export function createProgress(out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }): Progress {
  return out.isTTY ? terminalProgress(out) : lineProgress(out);
}

/** One line per step transition: for logs, pipes and CI. */
function lineProgress(out: NodeJS.WritableStream): Progress {
  const seen = new Map<string, string>();
  return {
    event(run) {
      for (const step of run.plan.steps) {
        const state = run.steps[step.id];
        if (!state || state.status === 'pending') continue;
        const key = `${run.id}/${step.id}`;
        const line = describe(state);
        if (seen.get(key) === line) continue;
        seen.set(key, line);
        out.write(`${run.id}  ${MARK[state.status]} ${step.id.padEnd(12)} ${line}\n`);
      }
    },
    done() {},
  };
}

/** On a terminal: a block with a line per step, redrawn in place as the run moves. */
function terminalProgress(out: NodeJS.WritableStream & { columns?: number }): Progress {
  let drawn = 0;
  // A wrapped line would throw the cursor arithmetic off: cut each line to the terminal's width.
  const fit = (line: string) => (out.columns && line.length >= out.columns ? `${line.slice(0, out.columns - 2)}…` : line);
  return {
    event(run) {
      const lines = run.plan.steps.map((step) => {
        const state = run.steps[step.id];
        return state ? `${MARK[state.status]} ${step.id.padEnd(12)} ${state.status === 'pending' ? '' : describe(state)}` : step.id;
      });
      // Move up over the previous block, then rewrite each line and clear what it left.
      out.write(`${drawn ? `\x1b[${drawn}A` : ''}${lines.map((l) => `\x1b[2K${fit(l)}\n`).join('')}`);
      drawn = lines.length;
    },
    done() {
      drawn = 0;
    },
  };
}

function describe(state: StepState): string {
  const what = state.status === 'queued' && state.mode === 'repair' ? 'repairing' : state.status;
  const last = state.attempts.at(-1);
  // An approval has no attempts: people decide it.
  const attempt = state.attempt > 0 ? ` attempt ${state.attempt}${state.epoch > 0 ? ` (epoch ${state.epoch})` : ''}` : '';
  const parts = [`${what.padEnd(9)}${attempt}`];
  if (state.status !== 'queued' && last?.finishedAt) parts.push(duration(last.startedAt, last.finishedAt));
  if (state.reason && (state.status === 'failed' || state.status === 'waiting')) parts.push(`— ${state.reason}`);
  return parts.join('  ');
}

/** `1m 12s` from one ISO time to another (core/time.ts), as every time the command line shows. */
export function duration(from: string, to?: string): string {
  return to ? durationBetween(from, to) : '';
}

/** Total time a step spent in attempts. */
function stepDuration(state: StepState): string {
  let ms = 0;
  for (const a of state.attempts) if (a.finishedAt) ms += Date.parse(a.finishedAt) - Date.parse(a.startedAt);
  return state.attempts.length ? formatDuration(ms) : '';
}

/** When the run started (read the moment it is printed: `2 min ago`), and how long it took once it ended. */
function when(run: Run, now: string): string {
  const ended = run.status === 'succeeded' || run.status === 'cancelled';
  return `started ${formatAgo(run.createdAt, now)}${ended ? `, took ${durationBetween(run.createdAt, run.updatedAt)}` : ''}`;
}

/** `now`: the moment it is printed (tests pass their own). */
export function renderRun(run: Run, now = new Date().toISOString()): string {
  // A usage column only when an agent of the run reported usage.
  const usage = runUsage(run) !== undefined;
  const rows = run.plan.steps.map((s) => {
    const st = run.steps[s.id];
    const used = usage ? [shortUsage(stepUsage(st))] : [];
    return [s.id, s.kind, st?.status ?? 'pending', String(st?.attempts.length ?? 0), st ? stepDuration(st) : '', ...used, receiptCell(st), st?.reason ?? ''];
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
    for (const pr of run.prs) lines.push(`  ${pr.repo}#${pr.number}  branch ${pr.branch}  ${pr.url}`);
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
export function nextCommand(run: Run): string | undefined {
  if (run.status !== 'waiting') return undefined;
  const approval = Object.values(run.steps).find((s) => s.status === 'waiting');
  if (approval) return `conveyor approve ${run.id}`;
  return `conveyor retry ${run.id}   (or: conveyor cancel ${run.id})`;
}

/** The short digest of the step's stored result, marked when it does not verify (it counts as not run). */
function receiptCell(state: StepState | undefined): string {
  const receipt = state?.result?.receipt;
  if (!receipt) return '';
  return stepVerifies(state) ? shortReceipt(receipt) : `${shortReceipt(receipt)} (does not verify)`;
}
