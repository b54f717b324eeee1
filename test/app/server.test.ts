// The app's own HTTP server, in this process (so its memory can be measured): a webhook body over
// the limit is refused while it streams — on its declared length before a byte is read, or, sent
// chunked, as soon as the bytes received pass the limit — and never buffered whole; a body within
// the limit reaches Probot, which still refuses a bad signature and hands a signed one to the
// app's handlers. The clients here write raw HTTP on a socket, to stream 64 MB without holding it.
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WEBHOOK_BODY_LIMIT } from '../../app/http.ts';
import { settingsOf } from '../../app/serve.ts';
import { createConveyorServer, type ConveyorServer, type ServerOverrides } from '../../app/server.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { signedWebhook } from '../helpers/webhook-fixtures.ts';

const SECRET = 'a-webhook-secret';
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const MB = 1024 * 1024;

let running: { app: ConveyorServer; dir: string } | undefined;
afterEach(() => {
  if (!running) return;
  running.app.close();
  removeDir(running.dir);
  running = undefined;
});

async function start(overrides: ServerOverrides = {}): Promise<{ app: ConveyorServer; port: number; warnings: string[] }> {
  const dir = tempDir('conveyor-server-');
  const env = {
    APP_ID: '1',
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: SECRET,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'fatal',
    CONVEYOR_DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
  } as NodeJS.ProcessEnv;
  const app = await createConveyorServer(env, settingsOf(env), { sweepEveryMs: false, ...overrides });
  running = { app, dir };
  const warnings: string[] = [];
  // pino's call: the fields, then the message (Probot's own lines give the message alone).
  vi.spyOn(app.probot.log, 'warn').mockImplementation(((a: unknown, b?: unknown) => void warnings.push(String(typeof a === 'string' ? a : b))) as never);
  const { port } = await app.listen();
  return { app, port, warnings };
}

interface RawPost {
  /** Bytes of body to send (the same 64 KB block again and again). */
  bytes: number;
  /** Send `Transfer-Encoding: chunked` instead of a Content-Length. */
  chunked: boolean;
  signature?: string;
}

/**
 * POSTs a webhook of `bytes` bytes, streaming it until the server answers or closes. Resolves with
 * the status line's code and how much of the body went out before the answer.
 */
async function rawPost(port: number, post: RawPost): Promise<{ status: number; sent: number; response: string }> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let response = '';
  let closed = false;
  socket.on('data', (d: Buffer) => (response += d.toString('latin1')));
  socket.on('close', () => (closed = true));
  // Writing after the server closed its end fails: the answer is what counts.
  socket.on('error', () => undefined);
  const head = [
    'POST /api/github/webhooks HTTP/1.1',
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    'X-GitHub-Event: ping',
    'X-GitHub-Delivery: big-1',
    `X-Hub-Signature-256: ${post.signature ?? `sha256=${'0'.repeat(64)}`}`,
    post.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${post.bytes}`,
    '',
    '',
  ].join('\r\n');
  socket.write(head);
  const block = Buffer.alloc(64 * 1024, 'a');
  const framed = post.chunked ? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')]) : block;
  // Resolves on the first of these events (events.once would reject on 'error').
  const next = (...events: string[]) => new Promise<void>((resolve) => events.forEach((e) => socket.once(e, () => resolve())));
  let sent = 0;
  while (sent < post.bytes && !response && !closed) {
    if (!socket.write(framed)) await next('drain', 'close', 'error', 'data');
    sent += block.length;
  }
  if (post.chunked && !response && !closed) socket.write('0\r\n\r\n');
  while (!/^HTTP\/1\.1 \d{3}/.test(response) && !closed) await next('data', 'close', 'error');
  socket.destroy();
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0), sent, response };
}

const signed = (body: string, event = 'ping', delivery = 'd-1') => signedWebhook(SECRET, body, event, delivery);

describe("the app's HTTP server", () => {
  it.each([
    ['with a Content-Length', false],
    ['chunked', true],
  ])('refuses an unsigned 64 MB webhook body sent %s (413, connection closed) without holding it', async (_how, chunked) => {
    const { port, warnings } = await start();
    const before = process.memoryUsage().rss;
    const r = await rawPost(port, { bytes: 64 * MB, chunked });
    const grown = process.memoryUsage().rss - before;
    expect(r.status, r.response).toBe(413);
    expect(r.response).toMatch(/connection: close/i);
    expect(r.response).toContain('"error":"body-too-large"');
    // The answer came while the body was still streaming: the rest was never sent.
    expect(r.sent).toBeLessThan(64 * MB);
    const said = warnings.find((w) => w.includes('refused a webhook body'))!;
    expect(said).toBeDefined();
    if (chunked) {
      // Reading stopped with the first chunk past the limit: at most 64 KB (one read) over it.
      const received = Number(/\((\d+) bytes received\)/.exec(said)?.[1]);
      expect(received).toBeGreaterThan(WEBHOOK_BODY_LIMIT);
      expect(received).toBeLessThanOrEqual(WEBHOOK_BODY_LIMIT + 64 * 1024);
      // At most the 25 MB limit was ever held, never the 64 MB body (Probot alone grew by 1.4 GB).
      expect(grown).toBeLessThan(40 * MB);
    } else {
      // Refused on the declared length: no body was read at all.
      expect(said).toContain(`declared ${64 * MB}`);
      expect(grown).toBeLessThan(8 * MB);
    }
  });

  it('takes a body of exactly the limit to Probot, and refuses one byte more, chunked or not', async () => {
    const { port, app } = await start({ webhookBodyLimit: 1000 });
    const seen: string[] = [];
    app.probot.onAny((event) => void seen.push(`${event.name}:${event.id}`));
    const pad = (n: number) => JSON.stringify({ zen: 'x'.repeat(n - 10) });
    const exact = pad(1000);
    expect(exact.length).toBe(1000);
    expect((await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, await signed(exact, 'ping', 'exact'))).status).toBe(200);
    const over = pad(1001);
    expect((await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, await signed(over, 'ping', 'over'))).status).toBe(413);
    // fetch streams a body of unknown length chunked.
    const stream = new Blob([over]).stream();
    const chunkedOver = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
      ...(await signed(over, 'ping', 'over-chunked')),
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunkedOver.status).toBe(413);
    expect(seen).toEqual(['ping:exact']);
  });

  it("hands a body within the limit to Probot: a bad signature is Probot's refusal, a signed webhook reaches the app", async () => {
    const { port, app } = await start();
    const seen: Array<{ name: string; zen: unknown }> = [];
    app.probot.onAny((event) => void seen.push({ name: event.name, zen: (event.payload as { zen?: unknown }).zen }));
    // 2 MB, unsigned: read in full (it is within the limit), then refused by the signature check.
    const big = JSON.stringify({ zen: 'y'.repeat(2 * MB) });
    const forged = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
      ...(await signed(big)),
      headers: { ...((await signed(big)).headers as Record<string, string>), 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
    });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(/signature does not match/i);
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1, hook: { type: 'App', id: 1, events: [] } });
    const ok = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, await signed(body));
    expect(ok.status).toBe(200);
    expect(seen).toEqual([{ name: 'ping', zen: 'Keep it logically awesome.' }]);
  });

  it('answers /healthz while it runs, and 404 with JSON for a path it does not serve', async () => {
    const { port } = await start();
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { ok: true } });
    const other = await fetch(`http://127.0.0.1:${port}/metricz`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'not-found' });
  });
});
