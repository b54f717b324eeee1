// What the command line shows while a run goes: each step's transitions, every attempt that failed
// (✗, its reason in one line, its log) and what a repair did, and while steps run, each with its
// elapsed time, its attempt, where its log is and the last line it printed (masked). On a terminal
// the steps' lines are redrawn in place (every second); in a log or a pipe the running steps are
// told again every 30 s.
import type { AttemptRecord, Run, RunEvent, StepState } from '../core/run/types.ts';
import type { AttemptRef } from '../core/contract/attempt-ref.ts';
import { formatDuration } from '../core/time.ts';

/** Where an attempt's log is and what it printed last (masked): the local dispatcher's `view`. */
export interface AttemptView {
  log: string;
  lastLine?: string;
}

export interface ProgressOptions {
  /** The attempt's log and last line; absent where the dispatcher cannot say (the line leaves them out). */
  view?: (ref: AttemptRef) => AttemptView | undefined;
  /** Milliseconds since the epoch (tests pass their own clock). */
  now?: () => number;
  /** How often running steps are told (default: every second on a terminal, every 30 s otherwise). */
  intervalMs?: number;
}

export interface Progress {
  event(run: Run, event: RunEvent): void;
  /** What the timer does: tells the running steps again (tests call it themselves). */
  tick(): void;
  done(): void;
}

type Out = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export const LINE_INTERVAL_MS = 30_000;
export const TERMINAL_INTERVAL_MS = 1_000;

const MARK: Record<StepState['status'], string> = {
  pending: '·',
  queued: '▸',
  waiting: '⏸',
  succeeded: '✓',
  failed: '✗',
  cancelled: '⊘',
};

export function createProgress(out: Out, options: ProgressOptions = {}): Progress {
  const now = options.now ?? Date.now;
  const tty = out.isTTY === true;
  const runs = new Map<string, Run>();
  // Finished attempts already told of, per run: those finished before this process looked are not told again.
  const told = new Map<string, Set<string>>();
  const seen = new Map<string, string>();
  let drawn = 0;
  let timer: NodeJS.Timeout | undefined;

  const view = (run: Run, step: string, r: Pick<AttemptRecord, 'attempt' | 'epoch' | 'mode'>) =>
    options.view?.({ runId: run.id, step, attempt: r.attempt, epoch: r.epoch, mode: r.mode });
  // A wrapped line would throw the cursor arithmetic off: on a terminal each line is cut to its width.
  const fit = (line: string) => (tty && out.columns && line.length >= out.columns ? `${line.slice(0, out.columns - 2)}…` : line);

  /** The lines of a running step: elapsed time and attempt, then its log and its last line. */
  function running(run: Run, s: StepState, indent: string): { head: string; more: string[] } {
    const record = s.attempts.findLast((a) => a.attempt === s.attempt && a.epoch === s.epoch);
    const elapsed = record ? `  ${formatDuration(now() - Date.parse(record.startedAt))}` : '';
    const v = record ? view(run, s.id, record) : undefined;
    const more = [...(v ? [`${indent}log: ${v.log}`] : []), ...(v?.lastLine ? [`${indent}› ${v.lastLine}`] : [])];
    return { head: `${describe(s)}${elapsed}`, more };
  }

  /** Lines that stay (failures, repairs, and without a terminal every transition): above the block on a terminal. */
  function lasting(run: Run): string[] {
    const prefix = tty ? '' : `${run.id}  `;
    const lines: string[] = [];
    let known = told.get(run.id);
    const first = !known;
    known ??= new Set();
    told.set(run.id, known);
    for (const p of run.plan.steps) {
      const s = run.steps[p.id];
      if (!s) continue;
      let toldFailure = false;
      for (const r of s.attempts) {
        const key = `${p.id}/${r.attempt}/${r.epoch}`;
        if (!r.finishedAt || known.has(key)) continue;
        known.add(key);
        if (first) continue;
        const said = finished(run, p.id, r);
        toldFailure ||= said[0]?.startsWith('✗') === true;
        lines.push(...said.map((l, i) => `${i === 0 ? prefix : `${prefix}  `}${l}`));
      }
      if (tty) continue;
      // A step that failed with the attempt just told: its reason was that line's.
      const line = s.status === 'pending' ? undefined : describe(s, !toldFailure);
      const key = `${run.id}/${p.id}`;
      if (!line || seen.get(key) === line) continue;
      seen.set(key, line);
      // A step that starts says where its log is; a finished one how long its last attempt took.
      const last = s.attempts.at(-1);
      const took = lastTook(s);
      const log = s.status === 'queued' && last ? view(run, p.id, last)?.log : undefined;
      lines.push(`${prefix}${MARK[s.status]} ${p.id.padEnd(12)} ${line}${took}${log ? `  (log: ${log})` : ''}`);
    }
    return lines;
  }

  /** How an attempt ended, when there is something to say beyond its step's line: a failure (with its log), a repair. */
  function finished(run: Run, step: string, r: AttemptRecord): string[] {
    const which = `${r.mode === 'repair' ? 'repair' : 'attempt'} ${r.attempt}${r.epoch > 0 ? ` (dispatch ${r.epoch + 1})` : ''}`;
    const took = formatDuration(Date.parse(r.finishedAt!) - Date.parse(r.startedAt));
    const log = view(run, step, r)?.log;
    if (r.conclusion === 'failure' || r.conclusion === 'lost' || r.conclusion === 'interrupted') {
      const what = r.conclusion === 'failure' ? 'failed' : r.conclusion;
      return [`✗ ${step.padEnd(12)} ${which} ${what} after ${took}: ${failureReason(r)}`, ...(log ? [`log: ${log}`] : [])];
    }
    if (r.mode === 'repair')
      return [
        `↻ ${step.padEnd(12)} ${which} ${r.conclusion === 'neutral' ? 'changed nothing' : 'pushed a fix'} after ${took}: ${firstLine(r.summary) ?? ''}`.trimEnd(),
      ];
    return [];
  }

  function draw(run: Run, above: string[]): void {
    const lines = run.plan.steps.flatMap((p) => {
      const s = run.steps[p.id];
      if (!s) return [p.id];
      if (s.status !== 'queued') return [`${MARK[s.status]} ${p.id.padEnd(12)} ${s.status === 'pending' ? '' : `${describe(s)}${lastTook(s)}`}`.trimEnd()];
      const r = running(run, s, ' '.repeat(15));
      return [`${MARK[s.status]} ${p.id.padEnd(12)} ${r.head}`, ...r.more];
    });
    // Move up over the previous block, write what stays, then rewrite each line and clear what it left.
    const up = drawn ? `\x1b[${drawn}A` : '';
    // What stays is written whole (it may wrap: the cursor never goes back over it); the block is cut to fit.
    out.write(`${up}${above.map((l) => `\x1b[2K${l}\n`).join('')}${lines.map((l) => `\x1b[2K${fit(l)}\n`).join('')}\x1b[J`);
    drawn = lines.length;
  }

  function tick(): void {
    for (const run of runs.values()) {
      const queued = run.plan.steps.map((p) => run.steps[p.id]).filter((s): s is StepState => s?.status === 'queued');
      if (tty) {
        if (queued.length > 0) draw(run, []);
        continue;
      }
      for (const s of queued) {
        const r = running(run, s, '');
        out.write(`${run.id}  ${MARK.queued} ${s.id.padEnd(12)} ${r.head}${r.more.map((m) => `  ${m}`).join('')}\n`);
      }
    }
  }

  return {
    event(run) {
      runs.set(run.id, run);
      const above = lasting(run);
      if (tty) draw(run, above);
      else if (above.length) out.write(above.map((l) => `${l}\n`).join(''));
      if (!timer) {
        timer = setInterval(tick, options.intervalMs ?? (tty ? TERMINAL_INTERVAL_MS : LINE_INTERVAL_MS));
        // Progress never keeps a finished command alive.
        timer.unref();
      }
    },
    tick,
    done() {
      if (timer) clearInterval(timer);
      timer = undefined;
      drawn = 0;
      runs.clear();
    },
  };
}

/** How long a step's last attempt took, once it ended: `  1m 12s`. */
function lastTook(s: StepState): string {
  const last = s.attempts.at(-1);
  return s.status !== 'queued' && last?.finishedAt ? `  ${formatDuration(Date.parse(last.finishedAt) - Date.parse(last.startedAt))}` : '';
}

/** A step's state in words: `running attempt 2`, `repairing attempt 3`, `failed attempt 1 — why`. */
export function describe(state: StepState, withReason = true): string {
  const what = state.status === 'queued' ? (state.mode === 'repair' ? 'repairing' : 'running') : state.status;
  // An approval has no attempts: people decide it.
  const attempt = state.attempt > 0 ? ` attempt ${state.attempt}${state.epoch > 0 ? ` (dispatch ${state.epoch + 1})` : ''}` : '';
  const reason = withReason && state.reason && (state.status === 'failed' || state.status === 'waiting') ? `  — ${oneLine(state.reason)}` : '';
  return `${what.padEnd(9)}${attempt}${reason}`;
}

/** Why an attempt failed, in one line: its error, and of a failing gate the first failing line it printed. */
export function failureReason(r: Pick<AttemptRecord, 'error' | 'summary'>): string {
  const said = r.error ? `${r.error.code}: ${r.error.message}` : (firstLine(r.summary) ?? 'no reason given');
  const failing = failingLine(r.summary);
  return oneLine(failing && !said.includes(failing) ? `${said} — ${failing}` : said, 300);
}

/**
 * The first line of a summary's failing lines (a gate's `### Failing lines` block) that reads as a
 * failure (`not ok 1 - …`, `FAIL …`, `Error: …`), else undefined: what tells a person which test failed.
 */
export function failingLine(summary: string | undefined): string | undefined {
  const at = summary?.indexOf('### Failing lines') ?? -1;
  if (!summary || at < 0) return undefined;
  const lines = summary.slice(at).split('\n');
  return lines.map((l) => l.trim()).find((l) => /^(not ok\b|FAIL\b|FAILED\b|✗|×|✖|\S*Error\b|error[:\s])/i.test(l) && !l.startsWith('###'));
}

/** The first line of Markdown that says something, without its emphasis and code marks. */
function firstLine(text: string | undefined): string | undefined {
  const line = text
    ?.split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('|') && !l.startsWith('```'));
  return line ? oneLine(line.replace(/\*\*|`/g, '').replace(/^#+\s*/, '')) : undefined;
}

const oneLine = (text: string, max = 200): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
