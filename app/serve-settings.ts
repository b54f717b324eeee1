// `conveyor serve`'s settings, read from the environment as Probot reads them (APP_ID,
// PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET, PORT, HOST, WEBHOOK_PATH, LOG_LEVEL, LOG_FORMAT)
// and Conveyor's own (CONVEYOR_PUBLIC_URL, CONVEYOR_OIDC_ISSUER, CONVEYOR_DATABASE_URL); each one
// missing or set wrong is said with what would be right, before anything starts.
import { tokenUrlProblem } from '../core/contract/token-exchange.ts';
import { UsageError } from '../core/errors.ts';
import { oidcIssuerOf } from './oidc.ts';
import { privateKeyProblem } from './private-key.ts';
import { databaseOf } from './stores.ts';
import type { ServeSettings } from './server.ts';

/** Probot's default webhook path. */
export const DEFAULT_WEBHOOK_PATH = '/api/github/webhooks';

/** Probot's (pino's) log levels, and its formats. */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const LOG_FORMATS = ['json', 'pretty'];

/** A URL tokens travel to, or what is wrong with it. */
function urlProblem(name: string, value: string, what: string): string | undefined {
  const problem = tokenUrlProblem(value);
  return problem ? `${name}: ${what}; got ${JSON.stringify(value)}, which ${problem}` : undefined;
}

/** The app's credentials from its settings page: APP_ID, the private key, WEBHOOK_SECRET; each missing or wrong one. */
export function credentialProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const appId = env.APP_ID?.trim();
  const what = 'APP_ID: the numeric id of your GitHub App (its settings page, "App ID")';
  if (!appId) problems.push(what);
  else if (!/^[1-9]\d{0,15}$/.test(appId)) problems.push(`${what}; got ${JSON.stringify(env.APP_ID)}`);
  const key = privateKeyProblem(env);
  if (key) problems.push(key);
  if (!env.WEBHOOK_SECRET) problems.push("WEBHOOK_SECRET: the webhook secret set on the app's settings page");
  else if (!env.WEBHOOK_SECRET.trim()) problems.push("WEBHOOK_SECRET: the webhook secret set on the app's settings page; it is blank");
  return problems;
}

/** Where and how the app serves, logs and keeps its state; each wrong setting with what would be right. */
export function serverProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (env.PORT && !(/^\d+$/.test(env.PORT) && Number(env.PORT) <= 65_535))
    problems.push(`PORT: the port to listen on (0-65535); got ${JSON.stringify(env.PORT)}`);
  if (env.WEBHOOK_PATH && !env.WEBHOOK_PATH.startsWith('/'))
    problems.push(
      `WEBHOOK_PATH: the path GitHub delivers webhooks to, starting with / (default ${DEFAULT_WEBHOOK_PATH}); got ${JSON.stringify(env.WEBHOOK_PATH)}`,
    );
  if (env.LOG_LEVEL && !LOG_LEVELS.includes(env.LOG_LEVEL))
    problems.push(`LOG_LEVEL: one of ${LOG_LEVELS.join(', ')} (default info); got ${JSON.stringify(env.LOG_LEVEL)}`);
  if (env.LOG_FORMAT && !LOG_FORMATS.includes(env.LOG_FORMAT))
    problems.push(
      `LOG_FORMAT: json (one JSON object a line, the default when NODE_ENV=production) or pretty (the default otherwise); got ${JSON.stringify(env.LOG_FORMAT)}`,
    );
  const publicUrl = env.CONVEYOR_PUBLIC_URL?.trim();
  const badPublic = publicUrl ? urlProblem('CONVEYOR_PUBLIC_URL', publicUrl, 'the URL where step runners reach this app') : undefined;
  if (badPublic) problems.push(badPublic);
  const issuer = env.CONVEYOR_OIDC_ISSUER?.trim();
  const badIssuer = issuer ? urlProblem('CONVEYOR_OIDC_ISSUER', issuer, "the OIDC issuer of your Actions runners' tokens") : undefined;
  if (badIssuer) problems.push(badIssuer);
  try {
    databaseOf(env.CONVEYOR_DATABASE_URL);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    problems.push(e.message);
  }
  return problems;
}

/** Every setting `serve` cannot start without or that is set wrong, each with what to set: all of them at once. */
export function missingSettings(env: NodeJS.ProcessEnv): string[] {
  return [...credentialProblems(env), ...serverProblems(env)];
}

/** The server's settings, from Probot's variables (PORT, HOST, WEBHOOK_PATH) and Conveyor's. */
export function settingsOf(env: NodeJS.ProcessEnv): ServeSettings {
  const publicUrl = env.CONVEYOR_PUBLIC_URL?.trim().replace(/\/+$/, '');
  return {
    port: env.PORT ? Number(env.PORT) : 3000,
    // Probot's default: this machine only, unless HOST says otherwise (0.0.0.0 in a container).
    host: env.HOST || 'localhost',
    webhookPath: env.WEBHOOK_PATH || DEFAULT_WEBHOOK_PATH,
    ...(publicUrl ? { publicUrl } : {}),
    oidcIssuer: oidcIssuerOf(env),
  };
}
