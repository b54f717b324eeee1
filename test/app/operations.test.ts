// What an operator's tools ask of `conveyor serve`, over HTTP: /healthz (the process is up),
// /readyz (the store answers a query and GitHub's API takes the app's credentials; else 503, with
// which check fails on /metrics only), and /metrics in Prometheus's format (webhooks, handling time, runs by state, GitHub
// calls by route template and status, the rate limit left per installation; a registry per
// server). GitHub is mocked with nock at the HTTP boundary.
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settingsOf } from '../../app/serve.ts';
import { createConveyorServer, type ConveyorServer } from '../../app/server.ts';
import { createRun, reduce } from '../../core/run/reducer.ts';
import { planOf, TEST_ORIGIN } from '../helpers/plans.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { fixture, signedWebhook } from '../helpers/webhook-fixtures.ts';
import { API } from './harness.ts';

const SECRET = 'ops-secret';
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
let dirs: string[] = [];
let servers: ConveyorServer[] = [];

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(async () => {
  for (const s of servers) await s.close();
  for (const d of dirs) removeDir(d);
  servers = [];
  dirs = [];
  nock.cleanAll();
  nock.enableNetConnect();
});

async function start(): Promise<{ app: ConveyorServer; url: string }> {
  const dir = tempDir('conveyor-ops-');
  dirs.push(dir);
  const env = {
    APP_ID: '1',
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: SECRET,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'fatal',
    CONVEYOR_DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
  } as NodeJS.ProcessEnv;
  // Readiness asked afresh each time, so a change shows at once.
  const app = await createConveyorServer(env, settingsOf(env), { sweepEveryMs: false, readinessKeepMs: 0 });
  servers.push(app);
  const { port } = await app.listen();
  return { app, url: `http://127.0.0.1:${port}` };
}

const get = async (url: string) => {
  const r = await fetch(url);
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
};
const readyz = async (url: string) => {
  const r = await get(`${url}/readyz`);
  return { status: r.status, body: JSON.parse(r.text) as unknown };
};
const appScope = () =>
  nock(API)
    .get('/app')
    .matchHeader('authorization', /^bearer /i)
    .reply(200, { id: 1, slug: 'conveyor' });

/** The value of one sample of the exposition (`name{labels} value`), or undefined. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('/healthz and /readyz', () => {
  it('are up while the store and GitHub answer; /readyz is 503 once the store is closed or GitHub cannot be reached, and /metrics says which', async () => {
    const { app, url } = await start();
    expect(await get(`${url}/healthz`)).toMatchObject({ status: 200, text: '{"ok":true}' });
    appScope();
    expect(await readyz(url)).toEqual({ status: 200, body: { status: 'ok' } });

    // GitHub cannot be reached (the connection fails): down, and nothing more to the caller.
    const unreachable = () => nock(API).get('/app').replyWithError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' });
    unreachable();
    expect(await readyz(url)).toEqual({ status: 503, body: { status: 'down' } });
    // A scrape asks again (nothing is kept here): GitHub's check fails, the store's passes.
    unreachable();
    const gitHubDown = (await get(`${url}/metrics`)).text;
    expect([sample(gitHubDown, 'conveyor_ready{check="store"}'), sample(gitHubDown, 'conveyor_ready{check="github"}')]).toEqual([1, 0]);

    // The database goes away: the store's query fails.
    await app.store.close();
    appScope();
    expect(await readyz(url)).toEqual({ status: 503, body: { status: 'down' } });
    appScope();
    const storeDown = (await get(`${url}/metrics`)).text;
    expect([sample(storeDown, 'conveyor_ready{check="store"}'), sample(storeDown, 'conveyor_ready{check="github"}')]).toEqual([0, 1]);
    // The process itself is still up: liveness is not readiness.
    expect((await get(`${url}/healthz`)).status).toBe(200);
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('/metrics', () => {
  it('counts webhooks, their handling time, GitHub calls by route template and the rate limit left, and reads runs by state from the store', async () => {
    const { app, url } = await start();
    // Two runs in the store: one running, one waiting for a person.
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'approve', kind: 'approval' },
    ]);
    for (const [id, number, waiting] of [
      ['r-1', 1, false],
      ['r-2', 2, true],
    ] as const) {
      const at = '2025-03-01T09:00:00.000Z';
      const run = reduce(createRun({ id, plan, issue: { repo: 'acme/web', number, title: 't', body: '' }, origin: TEST_ORIGIN, at }), {
        type: 'started',
        at,
      }).run;
      await app.store.create(waiting ? { ...run, status: 'waiting', waitingFor: 'a person' } : run, []);
    }
    // A label the app looks into (the repository has no configuration: nothing starts), and an event it has no handler for.
    nock(API).post('/app/installations/2/access_tokens').reply(201, { token: 'ghs_ops', expires_at: '2099-01-01T00:00:00Z', permissions: {} });
    const config = nock(API)
      .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
      .query({ ref: 'main' })
      .reply(404, { message: 'Not Found' }, { 'x-ratelimit-remaining': '4990', 'x-ratelimit-limit': '5000' });
    const labeled = fixture('issues.labeled');
    const payload = {
      ...labeled,
      label: { ...(labeled.label as object), name: 'bug' },
      repository: { ...(labeled.repository as object), full_name: 'acme/web', default_branch: 'main' },
      installation: { id: 2 },
    };
    const sent = await fetch(`${url}/api/github/webhooks`, await signedWebhook(SECRET, JSON.stringify(payload), 'issues', 'd-labeled'));
    expect(sent.status).toBe(200);
    expect(config.isDone()).toBe(true);
    const opened = { ...fixture('issues.labeled'), action: 'opened', installation: { id: 2 } };
    expect((await fetch(`${url}/api/github/webhooks`, await signedWebhook(SECRET, JSON.stringify(opened), 'issues', 'd-opened'))).status).toBe(200);

    appScope();
    const m = await get(`${url}/metrics`);
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(m.text, 'conveyor_webhooks_total{event="issues.labeled",outcome="handled"}')).toBe(1);
    expect(sample(m.text, 'conveyor_webhooks_total{event="issues.opened",outcome="ignored"}')).toBe(1);
    expect(sample(m.text, 'conveyor_webhook_duration_seconds_count{event="issues.labeled"}')).toBe(1);
    expect(sample(m.text, 'conveyor_runs{state="running"}')).toBe(1);
    expect(sample(m.text, 'conveyor_runs{state="waiting"}')).toBe(1);
    // The route as Octokit's template, never the URL with its owner, repository or ids.
    expect(sample(m.text, 'conveyor_github_calls_total{route="GET /repos/{owner}/{repo}/contents/{path}",status="404"}')).toBe(1);
    expect(sample(m.text, 'conveyor_github_calls_total{route="POST /app/installations/{installation_id}/access_tokens",status="201"}')).toBe(1);
    expect(m.text).not.toMatch(/route="[^"]*acme/);
    expect(sample(m.text, 'conveyor_github_rate_limit_remaining{installation="2"}')).toBe(4990);
    expect(sample(m.text, 'conveyor_ready{check="github"}')).toBe(1);
    // Node's process metrics come along.
    expect(m.text).toMatch(/^process_cpu_user_seconds_total \d/m);

    // Another server in the same process has a registry of its own.
    const other = await start();
    appScope();
    const fresh = await get(`${other.url}/metrics`);
    expect(sample(fresh.text, 'conveyor_webhooks_total{event="issues.labeled",outcome="handled"}')).toBeUndefined();
    expect(sample(fresh.text, 'conveyor_runs{state="running"}')).toBe(0);
  });
});
