// The status section of the run's pull request bodies (core/github/pr-body.ts): each step with its
// state in words a reviewer reads (a gate passed, a review requested changes, who approved), and
// while a person must act, the exact command: `/conveyor approve` on GitHub, `conveyor approve RUN
// --state …` offline. Pure, and the same text for the same run, so an unchanged run costs no write.
import type { PlanStep } from '../plan/types.ts';
import type { Run, StepState } from '../run/types.ts';
import { validApprovals } from '../run/draft.ts';
import { code, inlineText } from '../text.ts';
import { awaited, retryCommand } from './next-steps.ts';

/** The commands of the mode the run is in, as a person types them. */
export interface PrStatusCommands {
  approve: string;
  reject: string;
  retry(steps: readonly string[]): string;
  /** Where such a command is given: "comment … on this pull request", "run … in a terminal". */
  how: 'comment' | 'command';
}

/** GitHub's: comments on the issue or any of the run's PRs. */
export const GITHUB_COMMANDS: PrStatusCommands = {
  approve: '/conveyor approve',
  reject: '/conveyor reject',
  retry: retryCommand,
  how: 'comment',
};

/** The embedded mode's: `conveyor` commands on this run in this state database. */
export function embeddedCommands(runId: string, statePath: string): PrStatusCommands {
  const state = /^[\w./@%+=:,-]+$/.test(statePath) ? statePath : `'${statePath.replaceAll("'", "'\\''")}'`;
  return {
    approve: `conveyor approve ${runId} --state ${state}`,
    reject: `conveyor reject ${runId} --state ${state} --reason "…"`,
    retry: (steps) => `conveyor retry ${runId}${steps.length === 1 ? ` ${steps[0]}` : ''} --state ${state}`,
    how: 'command',
  };
}

const REASON_SHOWN = 300;

const reasonOf = (s: StepState): string => inlineText((s.reason ?? s.attempts.at(-1)?.error?.message ?? 'no reason given').slice(0, REASON_SHOWN));

/** A finished step's state in the words of its kind. */
function succeeded(run: Run, p: PlanStep, s: StepState): string {
  switch (p.kind) {
    case 'gate':
      return '✅ passed';
    case 'review':
      return '✅ passed';
    case 'approval': {
      const by = validApprovals(run, p.id).map((a) => inlineText(a.by));
      return `✅ approved${by.length ? ` by ${by.join(', ')}` : ''}`;
    }
    case 'merge':
      return '✅ merged';
    case 'deploy':
      return '✅ deployed';
    case 'code':
      return s.result?.conclusion === 'neutral' ? '✅ nothing to change' : '✅ changed';
    case 'ci':
      return '✅ required checks passed';
  }
}

function stateOf(run: Run, p: PlanStep): string {
  const s = run.steps[p.id];
  if (!s) return '⏳ pending';
  switch (s.status) {
    case 'pending':
      return '⏳ pending';
    case 'queued':
      return s.mode === 'repair' ? `🔧 repairing (attempt ${s.attempt})` : `🔄 running (attempt ${s.attempt})`;
    case 'waiting': {
      const have = validApprovals(run, p.id).length;
      return `✋ waiting for approval (${have} of ${p.kind === 'approval' ? p.minApprovals : 1})`;
    }
    case 'succeeded':
      return succeeded(run, p, s);
    case 'failed':
      return p.kind === 'review' ? `❌ changes requested or failed: ${reasonOf(s)}` : `❌ failed: ${reasonOf(s)}`;
    case 'cancelled':
      return '⛔ cancelled';
  }
}

/** What a person can do now, with the command; empty while nothing waits for one. */
function actions(run: Run, commands: PrStatusCommands): string[] {
  const where = commands.how === 'comment' ? ' on this pull request or the issue' : '';
  const verb = commands.how === 'comment' ? 'comment' : 'run';
  const out: string[] = [];
  for (const a of awaited(run)) {
    if (a.kind === 'approval') {
      out.push(`**To approve** what this change holds now, ${verb} ${code(commands.approve)}${where}; to reject it, ${code(commands.reject)}.`);
    } else if (a.kind === 'retry') {
      out.push(`**To run ${code(a.steps.join(', '))} again**, ${verb} ${code(commands.retry(a.steps))}${where}.`);
    }
  }
  const later = run.plan.steps.find((p) => p.kind === 'approval' && run.steps[p.id]?.status === 'pending');
  if (out.length === 0 && later && run.status !== 'cancelled') {
    out.push(`Approval comes at step ${code(later.id)}: once it waits, ${verb} ${code(commands.approve)}${where}.`);
  }
  return out;
}

/** The status section's inside for the run's PRs. */
export function renderPrStatus(run: Run, commands: PrStatusCommands): string {
  const rows = run.plan.steps.map((p) => `| ${code(p.id, { table: true })} | ${p.kind} | ${stateOf(run, p)} |`);
  const word = { running: 'running', waiting: 'waiting', succeeded: 'succeeded', cancelled: 'cancelled' }[run.status];
  return [
    `### Run ${code(run.id)}: ${word}`,
    '',
    '| step | kind | state |',
    '| --- | --- | --- |',
    ...rows,
    '',
    ...actions(run, commands).flatMap((l) => [l, '']),
  ]
    .join('\n')
    .trimEnd();
}
