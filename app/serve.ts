// Starting the GitHub App: its settings are checked first, each missing one named with where to
// find it, then Probot's server runs until SIGTERM or SIGINT.
import { UsageError } from '../core/errors.ts';
import { sqlitePathOf } from './stores.ts';

/** The settings `serve` cannot start without, each with what to set. */
export function missingSettings(env: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  if (!env.APP_ID || !/^\d+$/.test(env.APP_ID)) missing.push('APP_ID: the numeric id of your GitHub App (its settings page, "App ID")');
  if (!env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH) missing.push('PRIVATE_KEY (the PEM text) or PRIVATE_KEY_PATH (the .pem file): a private key generated on the app\'s settings page');
  if (!env.WEBHOOK_SECRET) missing.push('WEBHOOK_SECRET: the webhook secret set on the app\'s settings page');
  return missing;
}

const USAGE = 'Usage: conveyor serve\n\nStart the Conveyor GitHub App (webhooks on PORT, default 3000); see docs/github-app.md\n';

/** Runs the app; resolves with the exit code when it cannot start (else the server keeps the process alive). */
export async function serve(env: NodeJS.ProcessEnv, args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    if (args.length > 0) throw new UsageError(`conveyor serve takes no arguments (got ${args.join(' ')}); it is configured by environment variables (see docs/github-app.md)`);
    const missing = missingSettings(env);
    if (missing.length > 0) throw new UsageError(`conveyor serve needs these environment variables:\n  - ${missing.join('\n  - ')}\n(see docs/github-app.md)`);
    // A database this version cannot use is bad usage, said before Probot starts.
    sqlitePathOf(env.CONVEYOR_DATABASE_URL);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`conveyor: ${e.message}\n`);
    return 2;
  }
  const [{ run, ProbotOctokit }, { default: conveyorApp }, { withGitHubPolicy }] = await Promise.all([import('probot'), import('./app.ts'), import('../adapters/github/octokit.ts')]);
  // Every installation Octokit the app gets from probot.auth() has the policy of octokit.ts
  // (bounded rate-limit retries, writes paced) and turns failures into GitHubApiError.
  await run(conveyorApp, { Octokit: withGitHubPolicy(ProbotOctokit) });
  return 0;
}
