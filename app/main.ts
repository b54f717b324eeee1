// `conveyor serve`: the GitHub App's entry (bin/conveyor.js routes `serve` here; every other
// command goes to the command line). Probot's conventions: APP_ID, PRIVATE_KEY or
// PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, LOG_LEVEL, GHE_HOST + GHE_PROTOCOL; the store from
// CONVEYOR_DATABASE_URL. Wrong or missing settings are reported up front (exit 2); with no
// credentials at all, outside production, Probot's setup page registers the app (setup.ts).
import { resolve } from 'node:path';
import { loadEnvFile } from '../lib/env-file.ts';
import { serve } from './serve.ts';

// Probot's convention: `.env` in the folder it starts in (where its setup wrote the credentials),
// under what the environment already sets.
loadEnvFile(resolve('.env'));
process.exitCode = await serve(process.env, process.argv.slice(3));
