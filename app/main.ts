// `conveyor serve`: the GitHub App's entry (bin/conveyor.js routes `serve` here; every other
// command goes to the command line). Probot's conventions: APP_ID, PRIVATE_KEY or
// PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, LOG_LEVEL, GHE_HOST + GHE_PROTOCOL; the store from
// CONVEYOR_DATABASE_URL. Missing settings are reported up front (exit 2), not as Probot's setup page.
import { serve } from './serve.ts';

process.exitCode = await serve(process.env, process.argv.slice(3));
