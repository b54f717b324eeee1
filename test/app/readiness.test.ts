// `/readyz`: 200 `{"status":"ok"}` when the store answers and GitHub's API takes the app's
// credentials, else 503 `{"status":"down"}`, and nothing more to a caller without credentials:
// what is down (the store's error names its host, database and user) goes to the app's log once
// per change, and to /metrics as one gauge per check. Each check's outcome is kept a while, so a
// load balancer's polling does not turn into a stream of calls to GitHub. GitHub is mocked with
// nock at the HTTP boundary; the outage is a real PostgreSQL server going down.
import { generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppHttpServer } from '../../app/http.ts';
import { createAppMetrics } from '../../app/metrics.ts';
import { readinessOf } from '../../app/readiness.ts';
import { settingsOf } from '../../app/serve.ts';
import { createConveyorServer, type ConveyorServer } from '../../app/server.ts';
import { openAppStore } from '../../app/stores.ts';
import { PG_PASSWORD, PG_USER, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { API } from './harness.ts';
import { silentLogger } from '../../lib/logger.ts';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
let dir: string;
let app: ConveyorServer | undefined;
let http: Server | undefined;
let postgres: PostgresServer | undefined;

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  dir = tempDir('conveyor-ready-');
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  http?.close();
  http = undefined;
  nock.cleanAll();
  nock.enableNetConnect();
  removeDir(dir);
});
afterAll(async () => {
  await postgres?.stop();
});

const appScope = () =>
  nock(API)
    .get('/app')
    .matchHeader('authorization', /^bearer /i)
    .reply(200, { id: 1, slug: 'conveyor' });

async function serve(database = `sqlite:${join(dir, 'app.db')}`, keepMs?: number): Promise<string> {
  const env = {
    APP_ID: '1',
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: 's',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'fatal',
    CONVEYOR_DATABASE_URL: database,
  } as NodeJS.ProcessEnv;
  app = await createConveyorServer(env, settingsOf(env), { sweepEveryMs: false, ...(keepMs !== undefined ? { readinessKeepMs: keepMs } : {}) });
  const { port } = await app.listen();
  return `http://127.0.0.1:${port}`;
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url);
  return { status: r.status, text: await r.text() };
}

/** The value of one sample of the exposition (`name{labels} value`), or undefined. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('GET /readyz', () => {
  it("is 200 when the store answers and GitHub takes the app's credentials, and asks GitHub once for a while", async () => {
    const scope = appScope();
    const url = await serve();
    expect(await get(`${url}/readyz`)).toEqual({ status: 200, text: '{"status":"ok"}' });
    // Asked again at once: the kept outcome answers (nock would refuse a second call to GitHub).
    expect(await get(`${url}/readyz`)).toEqual({ status: 200, text: '{"status":"ok"}' });
    expect(scope.isDone()).toBe(true);
  });

  it('is 503 when GitHub does not answer well, saying only that', async () => {
    const scope = nock(API).get('/app').reply(500, { message: 'Server Error' });
    const url = await serve();
    expect(await get(`${url}/readyz`)).toEqual({ status: 503, text: '{"status":"down"}' });
    expect(scope.isDone()).toBe(true);
  });

  it('tells a stranger nothing of the store when its database is down: the log says what is wrong, once, and /metrics which check fails', async () => {
    postgres = await startPostgres();
    const database = await postgres.createDatabase('ready_db');
    const url = await serve(database, 0);
    const warned = vi.spyOn(app!.probot.log, 'warn');
    const told = vi.spyOn(app!.probot.log, 'info');
    appScope();
    expect(await get(`${url}/readyz`)).toEqual({ status: 200, text: '{"status":"ok"}' });

    postgres.down();
    for (let i = 0; i < 3; i++) {
      appScope();
      const down = await get(`${url}/readyz`);
      expect(down).toEqual({ status: 503, text: '{"status":"down"}' });
    }
    // The log (the operator's) has the store's own words, naming the database: once, not per poll.
    // pino's call: the fields, then the message.
    const lines = warned.mock.calls.map((c) => String(c[1])).filter((l) => l.includes('readyz'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`store is down: The PostgreSQL database "ready_db" on 127\\.0\\.0\\.1:${postgres.port} \\(user ${PG_USER}\\)`));
    expect(lines[0]).not.toContain(PG_PASSWORD);

    // /metrics names the check, never the database.
    appScope();
    const metrics = await get(`${url}/metrics`);
    expect(sample(metrics.text, 'conveyor_ready{check="store"}')).toBe(0);
    expect(sample(metrics.text, 'conveyor_ready{check="github"}')).toBe(1);
    for (const secret of ['ready_db', `127.0.0.1:${postgres.port}`, `user ${PG_USER}`]) expect(metrics.text).not.toContain(secret);

    postgres.up();
    appScope();
    expect(await get(`${url}/readyz`)).toEqual({ status: 200, text: '{"status":"ok"}' });
    expect(told.mock.calls.map((c) => String(c[1])).filter((l) => l.includes('readyz'))).toEqual(['/readyz: store is up again']);
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe('the answer to a caller without credentials', () => {
  it("is only up or down, whatever the checks' errors say; the details go to the log and /metrics", async () => {
    let failing = true;
    const logged: string[] = [];
    const ready = readinessOf(
      {
        store: () => {
          if (failing) throw new Error('connect ECONNREFUSED postgres://user:pw@db.internal/app');
        },
        github: () => undefined,
      },
      { keepMs: 0, onChange: (line) => logged.push(line) },
    );
    const metrics = createAppMetrics({ processMetrics: false });
    metrics.watchReadiness(ready);
    http = createAppHttpServer({
      webhookPath: '/api/github/webhooks',
      webhooks: async () => false,
      ready,
      metrics: () => metrics.scrape(),
      log: silentLogger,
    });
    await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;

    const down = await get(`${url}/readyz`);
    expect(down).toEqual({ status: 503, text: '{"status":"down"}' });
    const scraped = await get(`${url}/metrics`);
    expect(sample(scraped.text, 'conveyor_ready{check="store"}')).toBe(0);
    expect(sample(scraped.text, 'conveyor_ready{check="github"}')).toBe(1);
    for (const leak of ['db.internal', 'user', 'pw', 'postgres', 'ECONNREFUSED']) {
      expect(down.text).not.toContain(leak);
      expect(scraped.text).not.toContain(leak);
    }
    expect(logged).toEqual(['store is down: connect ECONNREFUSED postgres://user:pw@db.internal/app']);

    failing = false;
    expect(await get(`${url}/readyz`)).toEqual({ status: 200, text: '{"status":"ok"}' });
    expect(logged).toEqual(['store is down: connect ECONNREFUSED postgres://user:pw@db.internal/app', 'store is up again']);
  });
});

describe('readinessOf', () => {
  it('names a closed store as down', async () => {
    const store = await openAppStore({ CONVEYOR_DATABASE_URL: join(dir, 'app.db') });
    const ready = readinessOf({ store: () => store.get('readyz:probe') });
    expect(await ready()).toEqual({ ok: true, checks: { store: 'ok' } });
    await store.close();
    const later = readinessOf({ store: () => store.get('readyz:probe') });
    expect(await later()).toEqual({
      ok: false,
      checks: { store: `down: The store on the state database ${join(dir, 'app.db')} was closed (this process is stopping).` },
    });
  });

  it('keeps each outcome for a while, then asks again, saying when a check changes', async () => {
    let clock = 0;
    let calls = 0;
    let failing = false;
    const changes: string[] = [];
    const ready = readinessOf(
      {
        github: async () => {
          calls++;
          if (failing) throw new Error('unreachable');
        },
      },
      { keepMs: 1000, now: () => clock, onChange: (line) => changes.push(line) },
    );
    expect(await ready()).toEqual({ ok: true, checks: { github: 'ok' } });
    failing = true;
    clock = 999;
    expect(await ready()).toEqual({ ok: true, checks: { github: 'ok' } });
    clock = 1000;
    expect(await ready()).toEqual({ ok: false, checks: { github: 'down: unreachable' } });
    clock = 2000;
    expect(await ready()).toEqual({ ok: false, checks: { github: 'down: unreachable' } });
    expect(calls).toBe(3);
    // Up at first says nothing; going down says why, once; staying down says nothing more.
    expect(changes).toEqual(['github is down: unreachable']);
  });
});
