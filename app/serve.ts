// Starting the GitHub App: its settings are checked first, each missing or wrong one named with
// what to set, then the app's own HTTP server (server.ts) runs until SIGTERM or SIGINT, which close
// the store cleanly and exit 0. With no credentials at all, outside production, it shows Probot's
// setup page instead, which registers the app from app.yml (setup.ts).
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { StoreError } from '../engine/ports/store.ts';
import { missingSettings, settingsOf } from './serve-settings.ts';
import { setupProblems, startSetup, wantsSetup } from './setup.ts';
import { sayRaw, warn } from '../lib/terminal.ts';

export { DEFAULT_WEBHOOK_PATH, missingSettings, settingsOf } from './serve-settings.ts';

/** The command line's exit code for bad usage or configuration (cli/program.ts EXIT.usage; a host does not import another). */
const EXIT_USAGE = 2;

const USAGE = `Usage: conveyor serve

Start the Conveyor GitHub App (webhooks on PORT, default 3000), configured by environment
variables and by .env in this folder (what is set wins). With none of APP_ID, PRIVATE_KEY,
PRIVATE_KEY_PATH and WEBHOOK_SECRET set (and NODE_ENV not production), it shows Probot's setup
page, which registers a new GitHub App from app.yml and writes its credentials to .env.
See docs/github-app.md.
`;

/** Stops what serve started on SIGTERM (a service manager) or SIGINT (Ctrl-C), then exits 0. */
function stopOnSignals(stop: () => Promise<void>, said: (message: string) => void): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      stop()
        .catch((e: unknown) => said((e as Error).message))
        .finally(() => process.exit(0));
    });
  }
}

/** Probot's setup page on this machine, when there are no credentials yet; the exit code when it cannot start. */
async function setup(env: NodeJS.ProcessEnv): Promise<number> {
  const problems = setupProblems(env);
  if (problems.length > 0)
    throw new UsageError(
      `conveyor serve has no credentials yet (none of APP_ID, PRIVATE_KEY, PRIVATE_KEY_PATH and WEBHOOK_SECRET is set), so it would show Probot's setup page to register a new GitHub App from app.yml; that needs:\n  - ${problems.join('\n  - ')}\n(or set the credentials of an app registered before; see docs/github-app.md)`,
    );
  const settings = settingsOf(env);
  // The credentials land beside where it was started, where the next `conveyor serve` looks.
  const running = await startSetup(env, { ...settings, publicUrl: settings.publicUrl! }, resolve('.env'));
  stopOnSignals(() => running.close(), warn);
  return 0;
}

/** Runs the app; resolves with the exit code when it cannot start (else the server keeps the process alive). */
export async function serve(env: NodeJS.ProcessEnv, args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    sayRaw(USAGE);
    return 0;
  }
  try {
    if (args.length > 0)
      throw new UsageError(`conveyor serve takes no arguments (got ${args.join(' ')}); it is configured by environment variables (see docs/github-app.md)`);
    if (wantsSetup(env)) return await setup(env);
    // Every wrong setting (a key that cannot sign, a database URL that does not parse) is said
    // here, all at once, before the store opens or a port is taken.
    const missing = missingSettings(env);
    if (missing.length > 0)
      throw new UsageError(`conveyor serve cannot start; set these environment variables right:\n  - ${missing.join('\n  - ')}\n(see docs/github-app.md)`);
    const settings = settingsOf(env);
    const { createConveyorServer } = await import('./server.ts');
    const app = await createConveyorServer(env, settings);
    // A stop closes the server and the store cleanly (a database server's connections too)
    // before the process ends.
    stopOnSignals(
      () => app.close(),
      (message) => app.probot.log.error(`could not close the state database cleanly: ${message}`),
    );
    await app.listen();
    if (!settings.publicUrl)
      app.probot.log.warn(
        "CONVEYOR_PUBLIC_URL is not set here; step runners find this app only by their repository's (or organisation's) variable CONVEYOR_PUBLIC_URL, which each repository of a pipeline must set to this app's public https URL (see docs/github-app.md)",
      );
    return 0;
  } catch (e) {
    // A wrong setting, and a database that cannot be reached or used, say so and what to do,
    // without a stack: exit 2, as the command line exits on the same errors (cli/program.ts).
    if (!(e instanceof UsageError || e instanceof StoreError)) throw e;
    warn(e.message);
    return EXIT_USAGE;
  }
}
