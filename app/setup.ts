// Registering the GitHub App the way Probot apps are registered: `conveyor serve` started on a
// developer's machine with no credentials at all runs Probot's setup (its `run()` in setup mode).
// Its page at /probot posts app.yml's manifest to GitHub's "new app" page; GitHub sends the
// browser back to /probot/setup with a code, which Probot trades for the new app's id, private key
// and webhook secret, and writes them to `.env` through the writer given here; `conveyor serve`
// started again in that folder reads them.
//
// Probot's setup reads app.yml and package.json from the working folder and builds the webhook
// URL from a smee.io channel it makes (WEBHOOK_PROXY_URL) or from the page's own address. Neither
// fits a Conveyor app (it takes no proxy, and GitHub must reach it at its public URL), so the
// manifest it shows is written here into a folder of its own, with the URL filled in from
// CONVEYOR_PUBLIC_URL, and the process works there while the setup runs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manifestFor, readManifest } from './manifest.ts';
import type { ServeSettings } from './server.ts';
import { serverProblems } from './serve-settings.ts';
import { writeEnvFile } from '../lib/env-file.ts';
import { say } from '../lib/terminal.ts';

/** The credentials a registration gives; with none of them set, `serve` offers to register the app. */
const CREDENTIALS = ['APP_ID', 'PRIVATE_KEY', 'PRIVATE_KEY_PATH', 'WEBHOOK_SECRET'];

/** Whether `serve` should show Probot's setup instead of serving: no credential at all, and not in production (as in Probot). */
export function wantsSetup(env: NodeJS.ProcessEnv): boolean {
  return env.NODE_ENV !== 'production' && CREDENTIALS.every((name) => !env[name]?.trim());
}

/** What the setup cannot start without: the settings any `serve` needs, and a public URL to give GitHub. */
export function setupProblems(env: NodeJS.ProcessEnv): string[] {
  const problems = serverProblems(env);
  if (!env.CONVEYOR_PUBLIC_URL?.trim())
    problems.unshift(
      'CONVEYOR_PUBLIC_URL: the https URL GitHub will deliver webhooks to (a tunnel to this machine will do); conveyor serve registers the app with it',
    );
  return problems;
}

export interface Setup {
  port: number;
  close(): Promise<void>;
}

/** Probot writes a quoted PEM (`"-----BEGIN…"`) for its own .env writer; the value itself is what is kept. */
const unquoted = (value: string) => (/^".*"$/s.test(value) ? value.slice(1, -1) : value);

/** Starts Probot's setup on the settings' port; the credentials it gets go to `envFile`. */
export async function startSetup(env: NodeJS.ProcessEnv, settings: ServeSettings & { publicUrl: string }, envFile: string): Promise<Setup> {
  const manifest = manifestFor(readManifest(), settings);
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const folder = mkdtempSync(join(tmpdir(), 'conveyor-setup-'));
  // JSON is YAML: Probot parses app.yml with the yaml package.
  writeFileSync(join(folder, 'app.yml'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: manifest.name, version, description: manifest.description ?? '' }));
  process.chdir(folder);
  const hook = manifest.hook_attributes!.url;
  // Probot's setup reads this from the process's environment: its page for an app registered
  // before says to set this webhook URL, and with it set it makes no smee.io channel. The server
  // is given the environment without it, so it starts no proxy client either.
  process.env.WEBHOOK_PROXY_URL = hook;
  const { run } = await import('probot');
  const server = await run(() => undefined, {
    env: { ...env, WEBHOOK_PROXY_URL: undefined, PORT: String(settings.port), HOST: settings.host, LOG_LEVEL: env.LOG_LEVEL || 'info' },
    updateEnv: (values) => {
      const credentials = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, unquoted(String(v))]));
      writeEnvFile(envFile, { ...credentials, CONVEYOR_PUBLIC_URL: settings.publicUrl });
      say(
        `conveyor: the GitHub App ${credentials.APP_ID ?? ''} is registered; its credentials are in ${envFile}: stop this process and run conveyor serve again here`,
      );
      return values;
    },
  });
  say(
    `conveyor: no credentials yet: open http://${settings.host}:${server.port}/probot to register the GitHub App (app.yml's events and permissions, webhooks to ${hook})`,
  );
  return {
    port: server.port,
    async close() {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
