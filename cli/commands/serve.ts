// `conveyor serve` is the GitHub App's own entry (app/main.ts): bin/conveyor.js routes it there, so
// the command line never loads the app. It is listed here so that `conveyor --help` shows it.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.ts';
import { action } from '../program.ts';

export function register(program: Command): void {
  program
    .command('serve')
    .description('Start the Conveyor GitHub App (webhooks on PORT, default 3000); see docs/github-app.md')
    .allowUnknownOption()
    .action(
      action(() => {
        throw new UsageError('start the GitHub App with `conveyor serve` (bin/conveyor.js), which runs app/main.ts');
      }),
    );
}
