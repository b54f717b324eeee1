// `conveyor plan`: shows what a pipeline will run — waves, repair loops, change set, deploy
// waves — and the plan hash a run started now would be pinned to.
import type { Command } from 'commander';
import { DEFAULT_PIPELINE } from '../../core/config/defaults.ts';
import { formatPlan } from '../../core/plan/format.ts';
import { action, EXIT } from '../program.ts';
import { compileConfigFile, DEFAULT_CONFIG_PATH, formatConfigErrors } from '../config-file.ts';
import { sayRaw, warn, warnRaw } from '../../lib/terminal.ts';

interface PlanOptions {
  config: string;
  pipeline?: string;
  json?: boolean;
  repo?: string;
}

export function register(program: Command): void {
  program
    .command('plan')
    .description('Show the compiled plan of a pipeline: waves, repair loops, change set, deploy waves and plan hash.')
    .option('-c, --config <path>', 'configuration file', DEFAULT_CONFIG_PATH)
    .option('-p, --pipeline <name>', `pipeline to compile (default: "${DEFAULT_PIPELINE}", or the only one)`)
    .option('--repo <owner/name>', 'repository holding the configuration (default: from its git remote "origin")')
    .option('--json', 'print the compiled plan as JSON, including its hash')
    .action(
      action(async (opts: PlanOptions) => {
        const compiled = await compileConfigFile(opts.config, opts.pipeline, opts.repo, { standIn: true });
        if (!compiled.ok) {
          warnRaw(formatConfigErrors(compiled.errors));
          warnRaw(`✗ ${opts.config} is not valid; \`conveyor validate --config ${opts.config}\` checks it\n`);
          return EXIT.failed;
        }
        const plan = compiled.plan;
        sayRaw(opts.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
        if (compiled.standIn !== undefined) {
          warn(
            `note: no --repo was given and ${opts.config} is in no git repository with a remote "origin", so the services without \`repo\` are shown in ${compiled.standIn}. The plan hash depends on the repository: pass --repo owner/name for the hash a run would be pinned to.`,
          );
        }
        return EXIT.ok;
      }),
    );
}
