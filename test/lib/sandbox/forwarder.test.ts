// Conveyor's key forwarder against a stand-in vendor API on 127.0.0.1 (test/helpers/vendor-api.ts):
// what reaches the vendor (the real key, never the agent's; the one endpoint, whatever the request
// names), that its certificate is checked, and that answers stream, connections are kept alive
// and large bodies pass whole.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startForwarder, type Forwarder, type ForwarderOptions } from '../../../lib/sandbox/forwarder.ts';
import { removeDir } from '../../helpers/repos.ts';
import { startVendorApi, type VendorApi } from '../../helpers/vendor-api.ts';

const KEY = 'sk-real-key-0001';
let vendor: VendorApi | undefined;
let other: VendorApi | undefined;
let forwarder: Forwarder | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await forwarder?.close();
  await vendor?.close();
  await other?.close();
  forwarder = vendor = other = undefined;
  for (const d of dirs.splice(0)) removeDir(d);
});

interface Reply {
  status: number;
  body: string;
  headers: IncomingMessage['headers'];
}

/** One request to the forwarder on its unix socket (as the sandbox's bridge sends it) or its loopback port. */
function send(
  where: { socketPath: string } | { port: number },
  options: { path: string; method?: string; headers?: Record<string, string>; body?: Buffer | string; agent?: Agent },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...('port' in where ? { host: '127.0.0.1', port: where.port } : where),
        method: options.method ?? 'POST',
        path: options.path,
        headers: options.headers,
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function forwardTo(upstream: string, options: Partial<ForwarderOptions> = {}): Promise<{ socketPath: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-fwd-'));
  dirs.push(dir);
  const socketPath = join(dir, 'f.sock');
  forwarder = await startForwarder({ listen: { socketPath }, upstream, ...options });
  return { socketPath };
}

describe("Conveyor's key forwarder", () => {
  it('sets the real key and removes every credential the agent sent', async () => {
    vendor = await startVendorApi({ https: true });
    const at = await forwardTo(vendor.url, { credential: { header: 'x-api-key', value: KEY }, ca: vendor.ca! });
    const reply = await send(at, {
      path: '/v1/messages?beta=true&key=agent-key',
      headers: {
        'x-api-key': 'placeholder',
        authorization: 'Bearer agent-token',
        'x-goog-api-key': 'agent-g',
        'api-key': 'agent-a',
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
      },
      body: '{"model":"m"}',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('message_stop');
    const got = vendor.arrived[0]!;
    expect(got.path).toBe('/v1/messages?beta=true');
    expect(got.headers['x-api-key']).toBe(KEY);
    expect(got.headers.authorization).toBeUndefined();
    expect(got.headers['x-goog-api-key']).toBeUndefined();
    expect(got.headers['api-key']).toBeUndefined();
    // What the CLI says of itself goes through; the Host is the endpoint's.
    expect(got.headers['anthropic-version']).toBe('2023-06-01');
    expect(got.headers.host).toBe(`127.0.0.1:${vendor.port}`);
    expect(got.body).toBe('{"model":"m"}');
    expect(forwarder!.forwarded()).toBe(1);
  });

  it.each([
    ['bearer', 'authorization', `Bearer ${KEY}`],
    ['x-goog-api-key', 'x-goog-api-key', KEY],
    ['api-key', 'api-key', KEY],
  ] as const)('puts a %s credential where its vendor reads it', async (header, name, value) => {
    vendor = await startVendorApi();
    const at = await forwardTo(`${vendor.url}/v1`, { credential: { header, value: KEY } });
    expect((await send(at, { path: '/v1/responses', headers: { authorization: 'Bearer placeholder' }, body: '{}' })).status).toBe(200);
    expect(vendor.arrived[0]!.headers[name]).toBe(value);
  });

  it("passes the agent's own credential on when it sets none (a key that goes by name, a server that takes none)", async () => {
    vendor = await startVendorApi();
    const at = await forwardTo(vendor.url);
    await send(at, { path: '/v1/messages', headers: { authorization: 'Bearer oauth-token-of-the-cli' }, body: '{}' });
    expect(vendor.arrived[0]!.headers.authorization).toBe('Bearer oauth-token-of-the-cli');
  });

  it('forwards only to its endpoint: an absolute URL, another Host or a path outside the endpoint reaches nothing else', async () => {
    vendor = await startVendorApi();
    other = await startVendorApi();
    const at = await forwardTo(`${vendor.url}/v1`, { credential: { header: 'bearer', value: KEY } });
    // Written by hand: an HTTP client would not send an absolute URL to a server that is not a proxy.
    const absolute = await new Promise<string>((resolve) => {
      const s = connect(at.socketPath, () => s.write(`GET ${other!.url}/v1/steal HTTP/1.1\r\nHost: 127.0.0.1:${other!.port}\r\nConnection: close\r\n\r\n`));
      let text = '';
      s.on('data', (c: Buffer) => (text += c.toString()));
      s.on('end', () => resolve(text));
    });
    expect(absolute).toMatch(/^HTTP\/1\.1 400/);
    const host = await send(at, { method: 'GET', path: '/v1/models', headers: { host: `127.0.0.1:${other.port}` } });
    expect(host.status).toBe(200);
    const outside = await send(at, { method: 'GET', path: '/admin/keys' });
    expect(outside.status).toBe(404);
    expect(outside.body).toContain('only paths under /v1/');
    expect(other.arrived).toEqual([]);
    expect(vendor.arrived.map((a) => a.path)).toEqual(['/v1/models']);
  });

  it("checks the endpoint's certificate: one it cannot verify gets nothing, the key least of all", async () => {
    vendor = await startVendorApi({ https: true });
    const problems: string[] = [];
    const at = await forwardTo(vendor.url, { credential: { header: 'x-api-key', value: KEY }, onProblem: (m) => problems.push(m) });
    const reply = await send(at, { path: '/v1/messages', body: '{}' });
    expect(reply.status).toBe(502);
    expect(reply.body).toMatch(/could not be reached: .*certificate/);
    expect(problems).toHaveLength(1);
    expect(vendor.arrived).toEqual([]);
  });

  it('streams an answer as it comes: the first event arrives before the vendor sends the next', async () => {
    let release: () => void = () => undefined;
    const later = new Promise<void>((resolve) => (release = resolve));
    vendor = await startVendorApi({
      answer: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        void later.then(() => res.end('data: last\n\n'));
      },
    });
    const at = await forwardTo(vendor.url, { credential: { header: 'x-api-key', value: KEY } });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = request({ socketPath: at.socketPath, method: 'POST', path: '/v1/messages' }, (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        res.on('data', (c: Buffer) => {
          seen.push(c.toString());
          // Only once the first event is here does the vendor send the rest: a buffered answer would never come.
          if (seen.length === 1) release();
        });
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(seen.join('')).toBe('data: first\n\ndata: last\n\n');
    expect(seen[0]).toBe('data: first\n\n');
  });

  it('keeps connections alive on both sides, and passes a large body whole', async () => {
    vendor = await startVendorApi();
    forwarder = await startForwarder({ listen: { loopback: true }, upstream: vendor.url, credential: { header: 'x-api-key', value: KEY } });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const big = randomBytes(24 * 1024 * 1024);
    try {
      for (let i = 0; i < 3; i++) expect((await send({ port: forwarder.port! }, { path: '/v1/messages', body: '{}', agent })).status).toBe(200);
      expect((await send({ port: forwarder.port! }, { path: '/v1/files', body: big, agent })).status).toBe(200);
    } finally {
      agent.destroy();
    }
    expect(vendor.arrived.map((a) => a.connection)).toEqual([1, 1, 1, 1]);
    const last = vendor.arrived[3]!;
    expect(last.length).toBe(big.length);
    expect(last.sha256).toBe(createHash('sha256').update(big).digest('hex'));
  });

  it('on a loopback port, forwards only a request that carries the placeholder the agent was given', async () => {
    vendor = await startVendorApi();
    forwarder = await startForwarder({
      listen: { loopback: true },
      upstream: vendor.url,
      credential: { header: 'x-goog-api-key', value: KEY },
      placeholder: 'conveyor-placeholder-abc',
    });
    const at = { port: forwarder.port! };
    const stranger = await send(at, { path: '/v1beta/models/m:generateContent', body: '{}' });
    expect(stranger.status).toBe(401);
    expect((await send(at, { path: '/v1beta/models/m:generateContent', headers: { 'x-goog-api-key': 'guess' }, body: '{}' })).status).toBe(401);
    expect((await send(at, { path: '/v1beta/models/m:generateContent?key=conveyor-placeholder-abc', body: '{}' })).status).toBe(200);
    expect(vendor.arrived.map((a) => [a.path, a.headers['x-goog-api-key']])).toEqual([['/v1beta/models/m:generateContent', KEY]]);
  });
});
