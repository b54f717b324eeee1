// `conveyor serve`: the GitHub App, with Probot's conventions (APP_ID, PRIVATE_KEY or
// PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, LOG_LEVEL, GHE_HOST + GHE_PROTOCOL) and the store from
// CONVEYOR_DATABASE_URL. Missing settings are reported up front, not as Probot's setup page.
import type { Command } from 'commander';
import { UsageError } from '../../../core/errors.ts';
import { action, EXIT } from '../program.ts';
import { sqlitePathOf } from '../../github/stores.ts';

/** The settings `serve` cannot start without, each with what to set. */
export function missingSettings(env: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  if (!env.APP_ID || !/^\d+$/.test(env.APP_ID)) missing.push('APP_ID: the numeric id of your GitHub App (its settings page, "App ID")');
  if (!env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH) missing.push('PRIVATE_KEY (the PEM text) or PRIVATE_KEY_PATH (the .pem file): a private key generated on the app\'s settings page');
  if (!env.WEBHOOK_SECRET) missing.push('WEBHOOK_SECRET: the webhook secret set on the app\'s settings page');
  return missing;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('Start the Conveyor GitHub App (webhooks on PORT, default 3000); see docs/github-app.md')
    .action(
      action(async () => {
        const missing = missingSettings(process.env);
        if (missing.length > 0) throw new UsageError(`conveyor serve needs these environment variables:\n  - ${missing.join('\n  - ')}\n(see docs/github-app.md)`);
        // A database this version cannot use is bad usage, said before Probot starts.
        sqlitePathOf(process.env.CONVEYOR_DATABASE_URL);
        const [{ run }, { default: conveyorApp }, { ConveyorOctokit }] = await Promise.all([import('probot'), import('../../github/app.ts'), import('../../github/octokit.ts')]);
        await run(conveyorApp, { Octokit: ConveyorOctokit });
        // The server keeps the process alive until it is stopped (SIGTERM or SIGINT, which exit 0).
        return EXIT.ok;
      }),
    );
}
