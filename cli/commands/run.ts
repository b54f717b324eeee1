// `conveyor run | approve | retry | cancel | status`: the embedded mode on local repositories.
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_STATE, openStore, storedRun } from '../embedded.ts';
import { decide, readBody, report, startRun } from '../drive.ts';
import { action, EXIT, Refusal } from '../program.ts';
import { renderRun, runningSteps } from '../render.ts';
import { checkPlanUnchanged } from './restart.ts';
import { UsageError } from '../../core/errors.ts';
import type { Run, RunEvent } from '../../core/run/types.ts';
import { dueApproval, prHeads } from '../../core/run/approvals.ts';
import { say } from '../../lib/terminal.ts';

/** GitHub's issue numbers are 32-bit: anything larger names no issue. */
const MAX_ISSUE = 2_147_483_647;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > MAX_ISSUE)
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_ISSUE}`);
  return n;
}

const now = () => new Date().toISOString();

const DECISION_HELP =
  '\nExit codes: as `conveyor run`; 1 also when it is refused and nothing changed: no approval waits (it says where the run stands), or another process drives the run.';

/**
 * A decision on the approval step the run waits on, for the heads it has now: refused (exit 1)
 * naming where the run stands when none waits, so nothing is kept for an approval that comes later.
 */
function decision(run: Run, decision: 'approve' | 'reject', by: string, reason?: string): RunEvent {
  const due = dueApproval(run, undefined, decision);
  if ('refused' in due) throw new Refusal(`${due.refused} Nothing changed.`);
  return { type: 'decision', at: now(), step: due.step.id, decision, by, heads: prHeads(run), ...(reason ? { reason } : {}) };
}

export function register(program: Command): void {
  program
    .command('run')
    .description('Run a pipeline on local bare repositories until it ends or waits for a decision')
    .requiredOption('--config <file>', 'configuration file')
    .requiredOption('--remotes <dir>', 'folder of bare repositories: owner/name is DIR/owner/name.git')
    .requiredOption('--title <text>', 'title of the issue to work on')
    .option('--body-file <file>', 'file holding the issue body (Markdown)')
    .option('--issue <n>', 'issue number (default: the next free one)', positiveInt)
    .option('--pipeline <name>', 'pipeline to run (default: "default", or the only one)')
    .option('--repo <owner/name>', 'repository holding the configuration, for services that name none (default: its git remote)')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .option('--approve', 'approve approval steps as soon as they wait', false)
    .option('--keep-envs', 'keep preview environments after the run ends', false)
    .option('--json', 'print the final state as JSON', false)
    .addHelpText('after', '\nExit codes: 0 succeeded, 1 failed, 2 bad usage or configuration, 3 waiting for a decision.')
    .action(
      action(
        (o: {
          config: string;
          remotes: string;
          title: string;
          bodyFile?: string;
          issue?: number;
          pipeline?: string;
          repo?: string;
          state: string;
          approve: boolean;
          keepEnvs: boolean;
          json: boolean;
        }) =>
          startRun({
            configPath: o.config,
            remotes: o.remotes,
            title: o.title,
            body: readBody(o.bodyFile),
            issue: o.issue,
            pipeline: o.pipeline,
            repo: o.repo,
            statePath: o.state,
            approve: o.approve,
            keepEnvs: o.keepEnvs,
            json: o.json,
          }),
      ),
    );

  program
    .command('approve')
    .description('Approve the step a run waits on, then continue the run')
    .argument('<run>', 'run id')
    .option('--as <name>', 'who approves', 'conveyor-cli')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .addHelpText('after', DECISION_HELP)
    .action(
      action((runId: string, o: { as: string; state: string }) =>
        decide({
          statePath: o.state,
          runId,
          decision: true,
          event: (run) => decision(run, 'approve', o.as),
        }),
      ),
    );

  program
    .command('reject')
    .description('Reject the step a run waits on')
    .argument('<run>', 'run id')
    .option('--as <name>', 'who rejects', 'conveyor-cli')
    .option('--reason <text>', 'why')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .addHelpText('after', DECISION_HELP)
    .action(
      action((runId: string, o: { as: string; reason?: string; state: string }) =>
        decide({
          statePath: o.state,
          runId,
          decision: true,
          event: (run) => decision(run, 'reject', o.as, o.reason),
        }),
      ),
    );

  program
    .command('retry')
    .description('Run again what did not succeed (or STEP and everything after it)')
    .argument('<run>', 'run id')
    .argument('[step]', 'step to run again, with every step after it')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .option('--remotes <dir>', 'folder of bare repositories (default: as the run was started)')
    .option('--approve', 'approve approval steps as soon as they wait')
    .option('--config <file>', 'configuration file to check the pipeline against (default: the one the run started from)')
    .addHelpText(
      'after',
      '\nA retry refuses (exit 1, showing the steps that differ) when the pipeline changed since the run started; `conveyor restart RUN` starts it over.',
    )
    .action(
      action((runId: string, step: string | undefined, o: { state: string; remotes?: string; approve?: boolean; config?: string }) => {
        // The file's budget now: the retry goes on with it (a raised budget lets a stopped run go on).
        let budgetUsd: number | null | undefined;
        return decide({
          statePath: o.state,
          runId,
          override: { remotes: o.remotes, approve: o.approve, configPath: o.config },
          // The run resumes only on the pipeline it started with.
          check: async (run, options) => {
            // A revert run's plan is made from the one it reverts (core/run/revert.ts), not compiled from the file.
            if (run.revertOf !== undefined) return undefined;
            const checked = await checkPlanUnchanged(run, options.configPath, { statePath: o.state, remotes: o.remotes, configPath: o.config });
            if ('refused' in checked) return checked.refused;
            budgetUsd = checked.plan.budgetUsd ?? null;
            return undefined;
          },
          event: (run) => {
            if (step && !run.plan.steps.some((s) => s.id === step)) {
              throw new UsageError(`run ${run.id} has no step ${step}; its steps: ${run.plan.steps.map((s) => s.id).join(', ')}`);
            }
            return { type: 'retry', at: now(), step, ...(budgetUsd !== undefined ? { budgetUsd } : {}) };
          },
        });
      }),
    );

  program
    .command('cancel')
    .description('Cancel a run and tear its environments down')
    .argument('<run>', 'run id')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .action(
      action((runId: string, o: { state: string }) =>
        decide({ statePath: o.state, runId, cancels: true, event: () => ({ type: 'cancel', at: now(), by: 'conveyor-cli' }) }),
      ),
    );

  program
    .command('status')
    .description('Show runs, or one run and its steps')
    .argument('[run]', 'run id')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .option('--json', 'print JSON', false)
    .action(
      action(async (runId: string | undefined, o: { state: string; json: boolean }) => {
        const store = await openStore(o.state);
        try {
          if (runId) {
            const run = await storedRun(store, o.state, runId);
            if (o.json) report(run, true, { statePath: o.state });
            else say(`${renderRun(run, { statePath: o.state })}`);
            return EXIT.ok;
          }
          const runs = await store.list();
          if (o.json) {
            say(
              `${JSON.stringify(
                runs.map((r) => ({ id: r.id, status: r.status, pipeline: r.plan.pipeline, issue: r.issue, updatedAt: r.updatedAt })),
                null,
                2,
              )}`,
            );
          } else if (runs.length === 0) {
            say(`No runs in ${o.state}.`);
          } else {
            const at = now();
            for (const r of runs) {
              // A running run says what runs and for how long: `(implement running 1m 12s)`.
              const under = r.status === 'running' ? runningSteps(r, at) : '';
              say(
                `${r.id.padEnd(24)} ${r.status.padEnd(10)} ${r.plan.pipeline.padEnd(12)} ${r.issue.repo}#${r.issue.number}  ${r.issue.title}${under ? `  (${under})` : ''}`,
              );
            }
          }
          return EXIT.ok;
        } finally {
          await store.close();
        }
      }),
    );
}
