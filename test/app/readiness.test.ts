// `/readyz`: ready when the store answers and GitHub's API takes the app's credentials, else 503
// naming what is down; each check's outcome is kept a while, so a load balancer's polling does
// not turn into a stream of calls to GitHub. GitHub is mocked with nock at the HTTP boundary.
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readinessOf } from '../../app/readiness.ts';
import { settingsOf } from '../../app/serve.ts';
import { createConveyorServer, type ConveyorServer } from '../../app/server.ts';
import { openAppStore } from '../../app/stores.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { API } from './harness.ts';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
let dir: string;
let app: ConveyorServer | undefined;

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  dir = tempDir('conveyor-ready-');
});
afterEach(() => {
  app?.close();
  app = undefined;
  nock.cleanAll();
  nock.enableNetConnect();
  removeDir(dir);
});

async function readyz(): Promise<{ status: number; body: unknown }> {
  const env = {
    APP_ID: '1',
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: 's',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'fatal',
    CONVEYOR_DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
  } as NodeJS.ProcessEnv;
  app ??= await createConveyorServer(env, settingsOf(env), { sweepEveryMs: false });
  const { port } = app.server.listening ? { port: (app.server.address() as { port: number }).port } : await app.listen();
  const r = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: r.status, body: await r.json() };
}

describe('GET /readyz', () => {
  it("is 200 when the store answers and GitHub takes the app's credentials, and asks GitHub once for a while", async () => {
    const scope = nock(API)
      .get('/app')
      .matchHeader('authorization', /^bearer /i)
      .reply(200, { id: 1, slug: 'conveyor' });
    expect(await readyz()).toEqual({ status: 200, body: { ok: true, checks: { store: 'ok', github: 'ok' } } });
    // Asked again at once: the kept outcome answers (nock would refuse a second call to GitHub).
    expect(await readyz()).toEqual({ status: 200, body: { ok: true, checks: { store: 'ok', github: 'ok' } } });
    expect(scope.isDone()).toBe(true);
  });

  it('is 503 naming GitHub when GitHub does not answer well', async () => {
    const scope = nock(API).get('/app').reply(500, { message: 'Server Error' });
    const r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ ok: false, checks: { store: 'ok', github: expect.stringMatching(/^down: .*Server Error/) } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('readinessOf', () => {
  it('names a closed store as down', async () => {
    const store = await openAppStore({ CONVEYOR_DATABASE_URL: join(dir, 'app.db') });
    const ready = readinessOf({ store: () => store.get('readyz:probe') });
    expect(await ready()).toEqual({ ok: true, checks: { store: 'ok' } });
    await store.close();
    const later = readinessOf({ store: () => store.get('readyz:probe') });
    expect(await later()).toEqual({ ok: false, checks: { store: expect.stringMatching(/^down: .*not open/) } });
  });

  it('keeps each outcome for a while, then asks again', async () => {
    let clock = 0;
    let calls = 0;
    let failing = false;
    const ready = readinessOf(
      {
        github: async () => {
          calls++;
          if (failing) throw new Error('unreachable');
        },
      },
      { keepMs: 1000, now: () => clock },
    );
    expect(await ready()).toEqual({ ok: true, checks: { github: 'ok' } });
    failing = true;
    clock = 999;
    expect(await ready()).toEqual({ ok: true, checks: { github: 'ok' } });
    clock = 1000;
    expect(await ready()).toEqual({ ok: false, checks: { github: 'down: unreachable' } });
    expect(calls).toBe(2);
  });
});
