// `conveyor validate`: checks a configuration the way a compiler checks a program, reporting every
// error with its position so an editor or CI log links straight to it.
import type { Command } from 'commander';
import { action, EXIT } from '../program.ts';
import { DEFAULT_CONFIG_PATH, formatConfigErrors, loadConfigFile } from '../config-file.ts';
import { say, warnRaw } from '../../lib/terminal.ts';
import { modelApiOf } from '../../core/config/model-api.ts';
import type { Config } from '../../core/config/schema.ts';

export function register(program: Command): void {
  program
    .command('validate')
    .description('Check a configuration file; print every error as PATH:LINE:COL key.path: message.')
    .option('-c, --config <path>', 'configuration file', DEFAULT_CONFIG_PATH)
    .action(
      action((opts: { config: string }) => {
        // Warnings look at this shell's environment: a preset's credential set nowhere is likely missing on the runner too.
        const loaded = loadConfigFile(opts.config, { isSet: (name) => Boolean(process.env[name]) });
        if (!loaded.ok) {
          warnRaw(formatConfigErrors(loaded.errors));
          warnRaw(`✗ ${opts.config}: ${count(loaded.errors.length, 'error')}\n`);
          return EXIT.failed;
        }
        const { config } = loaded;
        const warnings = loaded.warnings ?? [];
        // A warning does not fail the check: the file is valid.
        if (warnings.length) warnRaw(formatConfigErrors(warnings.map((w) => ({ ...w, message: `warning: ${w.message}` }))));
        const parts = [
          count(Object.keys(config.pipelines).length, 'pipeline'),
          count(Object.keys(config.services).length, 'service'),
          count(Object.keys(config.agents ?? {}).length, 'agent'),
        ];
        say(`✓ ${opts.config}: ${parts.join(', ')}${warnings.length ? ` (${count(warnings.length, 'warning')})` : ''}`);
        for (const line of endpointLines(config)) say(line);
        return EXIT.ok;
      }),
    );
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Each agent pointed at an endpoint of its own: where it goes, and which of its keys Conveyor keeps. */
export function endpointLines(config: Config): string[] {
  const lines: string[] = [];
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    if (agent.endpoint === undefined && agent.provider === undefined) continue;
    const api = modelApiOf({ preset: agent.preset, model: agent.model, endpoint: agent.endpoint, provider: agent.provider, wireApi: agent['wire-api'] });
    if (!api) continue;
    const keys = api.keys.map((k) => k.variable).join(', ');
    lines.push(
      `  agent "${name}" talks to ${api.endpoint}${agent.provider ? ` (Copilot CLI's ${agent.provider} provider)` : ''}; ${keys} kept by Conveyor's key forwarder`,
    );
  }
  return lines;
}
