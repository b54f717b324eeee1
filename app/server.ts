// `conveyor serve` put together: Probot built from its usual environment variables, the app on its
// store, the token broker, the readiness checks, the metrics, and the HTTP server that carries
// them (http.ts).
// serve.ts checks the settings first and owns the process (listening, signals).
import type { Server } from 'node:http';
import { createNodeMiddleware, createProbot, ProbotOctokit, type Probot } from 'probot';
import { withGitHubPolicy } from '../adapters/github/octokit.ts';
import { UsageError } from '../core/errors.ts';
import { ConveyorApp } from './app.ts';
import { pinoLogger } from './logger.ts';
import { storeAttemptAuthority } from './attempt-authority.ts';
import { createAppHttpServer } from './http.ts';
import { createAppMetrics, type AppMetrics } from './metrics.ts';
import { createOidcVerifier, type OidcVerifierOptions } from './oidc.ts';
import { readinessOf } from './readiness.ts';
import { readPrivateKey } from './private-key.ts';
import { openAppStore, type AppStore } from './stores.ts';
import { createTokenBroker, mintWithProbot } from './token-broker.ts';

export interface ServeSettings {
  port: number;
  host: string;
  webhookPath: string;
  /** CONVEYOR_PUBLIC_URL: where actions reach this app (each repository's workflow names it too: the action trusts only that). */
  publicUrl?: string;
  /** The OIDC issuer whose tokens the broker accepts. */
  oidcIssuer: string;
}

export interface ConveyorServer {
  server: Server;
  probot: Probot;
  conveyor: ConveyorApp;
  store: AppStore;
  metrics: AppMetrics;
  /** Listens on the settings' port and host; resolves with the address it got. */
  listen(): Promise<{ host: string; port: number }>;
  /** Stops the sweeper and the server, closes the store. Once. */
  close(): Promise<void>;
}

/** Test hooks: the body limit, the OIDC verifier's cooldown, the sweeper, and how long readiness is kept. */
export interface ServerOverrides {
  webhookBodyLimit?: number;
  oidc?: Partial<OidcVerifierOptions>;
  sweepEveryMs?: number | false;
  readinessKeepMs?: number;
}

/** Probot from Probot's environment variables, logging at `info` unless LOG_LEVEL says otherwise. */
function probotFrom(env: NodeJS.ProcessEnv, metrics: AppMetrics): Probot {
  // JSON lines in production (what a log pipeline reads), readable lines elsewhere; LOG_FORMAT
  // (json or pretty, checked by serve.ts) says otherwise.
  const logFormat = env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty' ? env.LOG_FORMAT : env.NODE_ENV === 'production' ? 'json' : 'pretty';
  // The key serve.ts checked (it parses, is RSA and signs), given to Probot as read: Probot's own
  // reader would take anything between PEM armour lines.
  const key = readPrivateKey(env);
  if (!key.ok) throw new UsageError(`${key.source ? `${key.source}: ` : ''}${key.problem} (see docs/github-app.md)`);
  // Every installation Octokit the app gets from probot.auth() has the policy of octokit.ts
  // (bounded rate-limit retries, writes paced) and turns failures into GitHubApiError.
  // Each call counted for /metrics (route, status, rate limit left per installation).
  const Octokit = withGitHubPolicy(ProbotOctokit, { onCall: metrics.githubCall, onRateLimit: metrics.rateLimited });
  return createProbot({ env: { ...env, LOG_LEVEL: env.LOG_LEVEL || 'info', LOG_FORMAT: logFormat }, overrides: { Octokit, privateKey: key.pem } });
}

export async function createConveyorServer(env: NodeJS.ProcessEnv, settings: ServeSettings, overrides: ServerOverrides = {}): Promise<ConveyorServer> {
  // 1. Probot and the app on its store, counted for /metrics (a registry of this server's own).
  const metrics = createAppMetrics();
  const probot = probotFrom(env, metrics);
  const store = await openAppStore(env);
  const log = pinoLogger(probot.log);
  metrics.watch(store, log);
  const { links } = store;
  let conveyor: ConveyorApp | undefined;
  const webhooks = await createNodeMiddleware(
    (app) => {
      conveyor = new ConveyorApp(app, {
        store,
        links,
        appId: Number(env.APP_ID),
        ...(env.CONVEYOR_BOT_LOGIN ? { botLogin: env.CONVEYOR_BOT_LOGIN } : {}),
        ...(overrides.sweepEveryMs !== undefined ? { sweepEveryMs: overrides.sweepEveryMs } : {}),
        metrics,
        log,
      });
    },
    { probot, webhooksPath: settings.webhookPath },
  );
  const app = conveyor!;

  // 2. The token broker: the runners' OIDC tokens for installation tokens scoped to an attempt,
  // only for the workflow runs the app's bot dispatched (found on GitHub where a dispatch said no run id).
  const botLogin = () => app.ownLogin();
  const tokens = createTokenBroker({
    verifier: createOidcVerifier({ issuer: settings.oidcIssuer, ...overrides.oidc }),
    attempts: storeAttemptAuthority({ store, links, github: app.deps.github, botLogin }),
    mint: mintWithProbot(probot),
    botLogin,
    log,
  });

  // 3. Ready when the store answers a query (a closed or unreachable database fails it) and
  // GitHub's API takes the app's own credentials. /readyz says only up or down; what is wrong
  // goes to the log when it changes, and which check fails to /metrics.
  const ready = readinessOf(
    {
      store: () => store.get('readyz:probe').then(() => undefined),
      github: async () => {
        await (await probot.auth()).request('GET /app', { request: { retries: 0 } });
      },
    },
    {
      ...(overrides.readinessKeepMs !== undefined ? { keepMs: overrides.readinessKeepMs } : {}),
      onChange: (line, up) => (up ? log.info(`/readyz: ${line}`) : log.warn(`/readyz: ${line}`)),
    },
  );
  metrics.watchReadiness(ready);

  // 4. The HTTP server.
  const server = createAppHttpServer({
    webhookPath: settings.webhookPath,
    webhooks: async (req, res) => (await webhooks(req, res)) === true,
    ready,
    metrics: () => metrics.scrape(),
    tokens,
    ...(overrides.webhookBodyLimit !== undefined ? { webhookBodyLimit: overrides.webhookBodyLimit } : {}),
    log,
  });

  // 5. After a restart: settle what the previous process left.
  void app.recover().catch((e: unknown) => log.error(`recovery failed: ${(e as Error).message}`));

  let closed = false;
  return {
    server,
    probot,
    conveyor: app,
    store,
    metrics,
    listen: () =>
      new Promise((resolve, reject) => {
        const failed = (e: NodeJS.ErrnoException) =>
          reject(e.code === 'EADDRINUSE' ? new UsageError(`port ${settings.port} on ${settings.host} is already in use; set PORT to a free port`) : e);
        server.once('error', failed);
        server.listen(settings.port, settings.host, () => {
          server.off('error', failed);
          const address = server.address();
          const port = typeof address === 'object' && address ? address.port : settings.port;
          log.info(`Listening on http://${settings.host}:${port}`);
          resolve({ host: settings.host, port });
        });
      }),
    async close() {
      if (closed) return;
      closed = true;
      server.close();
      server.closeIdleConnections();
      app.close();
      await store.close();
    },
  };
}
