// `conveyor serve` as an operator starts it: Probot's environment variables, a real HTTP server,
// and webhooks whose signature is checked before anything else happens; on a SQLite file, or on
// a PostgreSQL database that several of them share.
import { generateKeyPairSync } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import Database from 'better-sqlite3';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cli, startCli, waitForOutput } from '../../helpers/cli.ts';
import { PG_PASSWORD, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';
import { freePort, startServe } from '../../helpers/serve.ts';

const SECRET = 'a-webhook-secret';
let dir: string | undefined;
let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
  if (dir) removeDir(dir);
  dir = undefined;
});

function post(port: number, body: string, signature: string): Promise<number> {
  return fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'ping',
      'x-github-delivery': `delivery-${signature.slice(-8)}`,
      'x-hub-signature-256': signature,
    },
    body,
  }).then((r) => r.status);
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const SETTINGS = { APP_ID: '12345', PRIVATE_KEY: privateKey, WEBHOOK_SECRET: SECRET, HOST: '127.0.0.1', LOG_LEVEL: 'info' };

/** `conveyor serve` on a free port with a state file in a new folder (or the database given), once it listens. */
async function serve(extra: Record<string, string> = {}, database?: string): Promise<{ port: number; db: string; server: ReturnType<typeof startCli> }> {
  dir ??= tempDir('conveyor-serve-');
  const port = await freePort();
  const db = join(dir, 'app.db');
  const server = startCli(['serve'], { env: { ...SETTINGS, PORT: String(port), CONVEYOR_DATABASE_URL: database ?? `sqlite:${db}`, ...extra } });
  const previous = stop;
  stop = () => {
    previous?.();
    server.child.kill('SIGTERM');
  };
  await waitForOutput(server.output, (t) => /Listening on|listening/i.test(t) || server.child.exitCode !== null);
  expect(server.child.exitCode, server.output()).toBeNull();
  return { port, db, server };
}

describe('conveyor serve', () => {
  it('refuses to start without its settings, naming each one (exit 2)', async () => {
    // In a folder of its own: a .env where the tests run (a developer's registered app) would set what this leaves out.
    dir = tempDir('conveyor-serve-');
    const r = await cli(['serve'], { cwd: dir });
    expect(r.code).toBe(2);
    for (const name of ['APP_ID', 'PRIVATE_KEY', 'WEBHOOK_SECRET']) expect(r.stderr).toContain(name);

    const settings = { APP_ID: '12345', PRIVATE_KEY: 'a key', WEBHOOK_SECRET: SECRET };
    const badId = await cli(['serve'], { env: { ...settings, APP_ID: 'my-app' } });
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain('APP_ID: the numeric id');
    expect(badId.stderr).not.toContain('WEBHOOK_SECRET');
    // A log setting Probot's logger would crash on is named instead.
    const badLog = await cli(['serve'], { env: { ...settings, LOG_LEVEL: 'loud', LOG_FORMAT: 'xml' } });
    expect(badLog.code).toBe(2);
    expect(badLog.stderr).toContain('LOG_LEVEL: one of trace, debug, info, warn, error, fatal, silent');
    expect(badLog.stderr).toContain('LOG_FORMAT: json');
    expect(badLog.stderr).not.toMatch(/\n\s+at /);
    // A database this version cannot use is refused before anything starts.
    const mysql = await cli(['serve'], { env: { ...settings, CONVEYOR_DATABASE_URL: 'mysql://db.example/conveyor' } });
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toContain('CONVEYOR_DATABASE_URL: "mysql://db.example/conveyor" is not a database Conveyor knows');
    // A key that is not a PEM private key is refused before the server starts, naming the variables.
    const badKey = await cli(['serve'], { env: { ...settings, PORT: '0', CONVEYOR_DATABASE_URL: `sqlite:${join(dir, 'app.db')}` } });
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('PRIVATE_KEY: holds no PEM private key');
    expect(badKey.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a private key that cannot sign (cut short, a public key, garbage in PEM armour) before it listens (exit 2), naming where it came from', async () => {
    dir = tempDir('conveyor-serve-');
    const lines = privateKey.trim().split('\n');
    const keys = {
      // Its body cut after a few lines, both armour lines kept.
      truncated: [...lines.slice(0, 6), lines.at(-1)!].join('\n'),
      // Pasted from the wrong half of a key pair.
      public: publicKey,
      garbage: '-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5IGF0IGFsbA==\n-----END RSA PRIVATE KEY-----\n',
    };
    for (const [name, text] of Object.entries(keys)) {
      const file = join(dir, `${name}.pem`);
      writeFileSync(file, text);
      for (const [variable, env] of [
        [`PRIVATE_KEY_PATH (${file})`, { PRIVATE_KEY: '', PRIVATE_KEY_PATH: file }],
        ['PRIVATE_KEY', { PRIVATE_KEY: text }],
      ] as const) {
        const r = await startServe({ ...SETTINGS, ...env, CONVEYOR_DATABASE_URL: `sqlite:${join(dir, `${name}.db`)}` });
        const code = await r.stop();
        expect(r.listening, `${name} from ${variable}: ${r.output()}`).toBe(false);
        expect(code, r.output()).toBe(2);
        expect(r.output()).toContain(`${variable}: holds a`);
        expect(r.output()).not.toMatch(/\n\s+at /);
        // Refused before the store was opened.
        expect(existsSync(join(dir, `${name}.db`))).toBe(false);
      }
    }
  });

  it("a state database it must not use (an older Conveyor's) stops it at start with exit 2, as on the command line, naming the file and what to do", async () => {
    dir ??= tempDir('conveyor-serve-');
    const older = join(dir, 'older.db');
    const db = new Database(older);
    db.exec('CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (4); CREATE TABLE runs (id TEXT PRIMARY KEY)');
    db.close();
    const r = await cli(['serve'], { env: { ...SETTINGS, PORT: '0', CONVEYOR_DATABASE_URL: `sqlite:${older}` } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`The state database ${older} is an older Conveyor's (schema version 4), which this Conveyor does not read.`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('serves webhooks: a correctly signed one is accepted, a forged one refused', async () => {
    const { port } = await serve();

    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1, hook: { type: 'App', id: 1, events: [] } });
    const good = await new Webhooks({ secret: SECRET }).sign(body);
    const forged = await new Webhooks({ secret: 'another-secret' }).sign(body);
    expect(await post(port, body, good)).toBe(200);
    expect(await post(port, body, forged)).toBeGreaterThanOrEqual(400);
    // The load balancer's liveness check.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it('logs one JSON object a line with NODE_ENV=production, and readable lines when LOG_FORMAT=pretty says so', async () => {
    const { server } = await serve({ NODE_ENV: 'production' });
    const listening = server
      .output()
      .split('\n')
      .find((l) => l.includes('Listening on'))!;
    const line = JSON.parse(listening) as { level: number; msg: string; time: number };
    expect(line).toMatchObject({ level: 30, msg: expect.stringMatching(/^Listening on http:\/\/127\.0\.0\.1:\d+$/) });
    expect(typeof line.time).toBe('number');
    stop?.();
    await server.done;
    removeDir(dir!);

    const pretty = await serve({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' });
    const text = pretty.server
      .output()
      .split('\n')
      .find((l) => l.includes('Listening on'))!;
    expect(text).toMatch(/INFO.*Listening on/);
    expect(() => JSON.parse(text)).toThrow();
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('stops on %s by closing its state database, so nothing held for its next write is lost', async (signal) => {
    const { db, server } = await serve();
    // Open, in WAL mode: the write-ahead log exists until the last connection closes cleanly.
    expect(existsSync(`${db}-wal`)).toBe(true);
    server.child.kill(signal);
    const ended = await server.done;
    expect({ code: ended.code, signal: ended.signal }).toEqual({ code: 0, signal: null });
    expect(existsSync(`${db}-wal`)).toBe(false);
  });
});

describe('conveyor serve on PostgreSQL', () => {
  let postgres: PostgresServer | undefined;
  afterAll(async () => {
    await postgres?.stop();
  });

  it('two replicas started together on one database migrate it once, and both serve webhooks', async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase('serve');
    const [a, b] = await Promise.all([serve({}, url), serve({}, url)]);
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1, hook: { type: 'App', id: 1, events: [] } });
    const signature = await new Webhooks({ secret: SECRET }).sign(body);
    expect(await post(a.port, body, signature)).toBe(200);
    expect(await post(b.port, body, signature)).toBe(200);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query('SELECT name FROM conveyor_migrations')).rows).toEqual([{ name: '0001' }, { name: '0002' }]);
    } finally {
      await client.end();
    }
  });

  it('a database that cannot be reached stops it at start (exit 2), naming the database and what to do, never the password', async () => {
    const url = `postgres://conveyor:${PG_PASSWORD}@127.0.0.1:${await freePort()}/conveyor`;
    const r = await cli(['serve'], { env: { ...SETTINGS, PORT: '0', CONVEYOR_DATABASE_URL: url } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('The PostgreSQL database "conveyor" on 127.0.0.1:');
    expect(r.stderr).toContain('cannot be reached: check that the server is running');
    expect(r.stderr + r.stdout).not.toContain(PG_PASSWORD);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
