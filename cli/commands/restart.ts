// `conveyor restart RUN`, and the check that makes `conveyor retry` refuse a run whose pipeline
// changed since it started.
//
// A restart starts a NEW run (id `<old id>-2`, `-3`…) for the same issue on the current
// configuration, and cancels the old one (it stays in the store as the record of what ran). The
// branches and PRs are kept: the work branch is named after the issue, so the new run's steps
// resume it, and its code step finds and updates the same PRs. A new id keeps the two runs'
// attempts, effects and receipts apart. Like retry, it reads the configuration file the run started
// from (or --config FILE) and keeps the run's options (--remotes, --approve, --keep-envs) unless
// given again.
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { planDiff, PIPELINE_ENTRY, type StepDiff } from '../../core/plan/diff.ts';
import type { Plan } from '../../core/plan/types.ts';
import type { Run } from '../../core/run/types.ts';
import { compileConfigFile, formatConfigErrors } from '../config-file.ts';
import { cancelRun, definedOnly, startRun } from '../drive.ts';
import { DEFAULT_STATE, loadRun, openSession, runOptions, type EmbeddedOptions } from '../embedded.ts';
import { action, EXIT } from '../program.ts';
import { commandFor, type Selection } from '../render.ts';
import { progressStream, warn, warnRaw } from '../../lib/terminal.ts';

/** The repository given with --repo when the run started, if any (for services that name none). */
function repoOption(run: Run): string | undefined {
  return run.origin.kind === 'embedded' ? run.origin.repo : undefined;
}

/** Compiles the run's pipeline from the configuration file as it is now; an exit code when it cannot. */
export async function currentPlan(run: Run, configPath: string): Promise<{ ok: true; plan: Plan } | { ok: false; code: number }> {
  if (!configPath) throw new UsageError(`run ${run.id} does not record the configuration file it started from; pass --config FILE`);
  if (!existsSync(configPath)) {
    throw new UsageError(`the configuration file ${configPath} that run ${run.id} started from is not there any more; pass --config FILE`);
  }
  const compiled = await compileConfigFile(configPath, run.plan.pipeline, repoOption(run));
  if (compiled.ok) return compiled;
  warnRaw(formatConfigErrors(compiled.errors));
  return { ok: false, code: EXIT.usage };
}

/** Leaf values of a footprint by dotted path; arrays are leaves (their JSON). */
function leaves(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else if (value !== undefined) {
    out.set(path, JSON.stringify(value));
  }
  return out;
}

const clip = (text: string, max = 120): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** One line per changed field of each step: `~ step "test": step.run: "a" -> "b"`. */
export function describePlanDiff(diffs: readonly StepDiff[]): string[] {
  const lines: string[] = [];
  for (const d of diffs) {
    const name = d.step === PIPELINE_ENTRY ? 'the pipeline' : `step "${d.step}"`;
    if (!d.before) {
      lines.push(`  + ${name} added: ${clip(JSON.stringify((d.after as { step?: unknown }).step ?? d.after))}`);
      continue;
    }
    if (!d.after) {
      lines.push(`  - ${name} removed (was: ${clip(JSON.stringify((d.before as { step?: unknown }).step ?? d.before))})`);
      continue;
    }
    const a = leaves(d.before);
    const b = leaves(d.after);
    const paths = [...new Set([...a.keys(), ...b.keys()])].filter((p) => a.get(p) !== b.get(p));
    for (const p of paths.slice(0, 10)) lines.push(`  ~ ${name}: ${p}: ${clip(a.get(p) ?? '(none)', 80)} -> ${clip(b.get(p) ?? '(none)', 80)}`);
    if (paths.length > 10) lines.push(`  ~ ${name}: … and ${paths.length - 10} more changes`);
  }
  return lines;
}

/**
 * Before a retry: the run's pipeline as the configuration file says now must be the one it started
 * with. Returns an exit code when the retry must not go on (after saying why), else the plan as the
 * file says now (its budget, which the hash leaves out, is what the retry goes on with).
 */
export async function checkPlanUnchanged(run: Run, configPath: string, selection: Selection): Promise<{ refused: number } | { plan: Plan }> {
  const now = await currentPlan(run, configPath);
  if (!now.ok) return { refused: now.code };
  if (now.plan.hash === run.plan.hash) return { plan: now.plan };
  const lines = describePlanDiff(planDiff(run.plan, now.plan));
  warnRaw(
    [
      `conveyor: the pipeline "${run.plan.pipeline}" in ${configPath} changed since run ${run.id} started (plan ${run.plan.hash.slice(0, 12)} -> ${now.plan.hash.slice(0, 12)}), so retry refuses to resume it on a different pipeline.`,
      'Steps that differ (before -> after):',
      ...lines,
      `Start the run over on the current configuration with \`${commandFor('restart', run.id, selection, run)}\` (or retry it with the configuration it started with: \`--config FILE\`).`,
      '',
    ].join('\n'),
  );
  return { refused: EXIT.failed };
}

interface RestartOptions {
  state: string;
  config?: string;
  remotes?: string;
  approve?: boolean;
  keepEnvs?: boolean;
  json?: boolean;
}

export async function restartRun(runId: string, o: RestartOptions): Promise<number> {
  const old = await loadRun(o.state, runId);
  if (old.status === 'succeeded') {
    warn(`run ${old.id} has succeeded (its PRs are merged); there is nothing to restart. Start a new run with \`conveyor run\`.`);
    return EXIT.failed;
  }
  const options: EmbeddedOptions = {
    ...runOptions(old),
    ...definedOnly({ configPath: o.config, remotes: o.remotes, approve: o.approve, keepEnvs: o.keepEnvs, json: o.json }),
  };
  const now = await currentPlan(old, options.configPath);
  if (!now.ok) return now.code;
  if (old.status !== 'cancelled') {
    // Stop the old run (only one run of an issue is active), as `conveyor cancel` does: a run whose
    // process was killed is not driven on first, and what that process left is settled.
    const session = await openSession(o.state, options.remotes, options.json);
    try {
      await cancelRun(
        session,
        old,
        { type: 'cancel', at: new Date().toISOString(), by: 'conveyor-cli', reason: `restarted on the configuration in ${options.configPath}` },
        options,
        true,
      );
    } finally {
      await session.close();
    }
  }
  const same = now.plan.hash === old.plan.hash;
  progressStream(options.json).write(
    `Run ${old.id} is cancelled; starting ${old.issue.repo}#${old.issue.number} over on ${options.configPath} (plan ${old.plan.hash.slice(0, 12)} -> ${now.plan.hash.slice(0, 12)}${same ? ', unchanged' : ''}), on the same branches and PRs.\n`,
  );
  const repo = repoOption(old);
  return startRun({
    ...options,
    statePath: o.state,
    pipeline: old.plan.pipeline,
    ...(repo ? { repo } : {}),
    title: old.issue.title,
    body: old.issue.body,
    issue: old.issue.number,
  });
}

export function register(program: Command): void {
  program
    .command('restart')
    .description('Start a run over on the current configuration (a new run for the same issue), keeping its branches and PRs')
    .argument('<run>', 'run id')
    .option('--config <file>', 'configuration file (default: the one the run started from)')
    .option('--state <db>', 'state database', DEFAULT_STATE)
    .option('--remotes <dir>', 'folder of bare repositories (default: as the run was started)')
    .option('--approve', 'approve approval steps as soon as they wait (default: as the run was started)')
    .option('--keep-envs', 'keep preview environments after the run ends (default: as the run was started)')
    .option('--json', 'print the final state as JSON')
    .addHelpText('after', '\nExit codes: 0 succeeded, 1 failed, 2 bad usage or configuration, 3 waiting for a decision.')
    .action(action((runId: string, o: RestartOptions) => restartRun(runId, o)));
}
