// A stand-in for a model vendor's API on 127.0.0.1, over http or https (a certificate made for the
// test with openssl, for 127.0.0.1 and localhost): it records every request that arrives (method,
// path, headers, body, the connection it came on) and answers with what the test scripts, by
// default a short server-sent event stream. The key forwarder's tests and the presets' tests send
// their CLIs' requests here.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Arrived {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes, as text (large bodies: see `sha256` and `length`). */
  body: string;
  length: number;
  sha256: string;
  /** Which connection it came on (1, 2, …): keep-alive shows as several requests on one. */
  connection: number;
}

/** Answers one request; the default streams two events. */
export type Answer = (req: IncomingMessage, res: ServerResponse, arrived: Arrived) => void;

export interface VendorApi {
  url: string;
  port: number;
  arrived: Arrived[];
  /** The certificate to trust, for https. */
  ca?: string;
  answer: Answer;
  close(): Promise<void>;
}

export const streamTwoEvents: Answer = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write('event: message_start\ndata: {"type":"message_start"}\n\n');
  res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
};

let cert: { key: string; cert: string } | undefined;

/** A self-signed certificate for 127.0.0.1 and localhost, made once per test process. */
function testCertificate(): { key: string; cert: string } {
  if (cert) return cert;
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cert = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    return cert;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startVendorApi(options: { https?: boolean; answer?: Answer } = {}): Promise<VendorApi> {
  const arrived: Arrived[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const ids = new WeakMap<Socket, number>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: Arrived = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: { ...req.headers },
        body: body.length <= 1_000_000 ? body.toString('utf8') : '',
        length: body.length,
        sha256: createHash('sha256').update(body).digest('hex'),
        connection: ids.get(req.socket) ?? 0,
      };
      arrived.push(entry);
      api.answer(req, res, entry);
    });
  };
  const tls = options.https ? testCertificate() : undefined;
  const server: Server = tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, handler) : createHttpServer(handler);
  server.on(tls ? 'secureConnection' : 'connection', (s: Socket) => {
    ids.set(s, ++connections);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const api: VendorApi = {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    arrived,
    ...(tls ? { ca: tls.cert } : {}),
    answer: options.answer ?? streamTwoEvents,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return api;
}
