// The only way out of a sandbox whose network is an allow-list: an HTTP proxy on a unix socket,
// run by the step process. The sandbox has no network of its own (`--unshare-net`); socat inside
// it turns 127.0.0.1:<port> into this socket (lib/sandbox.ts). It tunnels CONNECT (https and any
// TLS) and forwards plain http requests to allowed hosts only, and counts every refused attempt by
// host and port, so the step can show what was blocked.
//
// Written here rather than taken from npm: the maintained proxies (proxy-chain, proxy) bring SOCKS,
// upstream chaining and authentication we do not want in the action's bundle, listen on a TCP port
// (the sandbox reaches only a socket file) and answer a refused host with 407; this is the ~100
// lines of CONNECT and forwarding we need, with the allow-list and the count in plain sight.
import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostAllowed, normalizeHost } from '../../core/hosts.ts';

export interface Blocked {
  host: string;
  port: number;
  count: number;
}

export interface Proxy {
  /** Each refused host and port with how often, in the order first refused. */
  blocked(): Blocked[];
  close(): Promise<void>;
}

/** Headers that concern only the hop to the proxy. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export interface ProxyOptions {
  socketPath: string;
  allow: readonly string[];
  /** Told once per refused host and port, as it is first refused. */
  onBlocked?: (host: string, port: number) => void;
  /** Told of every refusal (a CLI retrying a host it may not reach shows as many). */
  onRefused?: (host: string, port: number) => void;
  /** Told of every request or tunnel let through: the command is getting on with its work. */
  onAllowed?: (host: string, port: number) => void;
}

export async function startProxy(options: ProxyOptions): Promise<Proxy> {
  const counts = new Map<string, Blocked>();
  const sockets = new Set<Duplex>();
  // Requests forwarded upstream and not yet answered in full: each ends with its client, and all with the proxy.
  const forwarded = new Set<ClientRequest>();
  const track = (s: Duplex) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const refuse = (host: string, port: number): void => {
    const key = `${normalizeHost(host)}:${port}`;
    const entry = counts.get(key);
    if (entry) entry.count++;
    else {
      counts.set(key, { host: normalizeHost(host), port, count: 1 });
      options.onBlocked?.(normalizeHost(host), port);
    }
    options.onRefused?.(normalizeHost(host), port);
  };
  const FORBIDDEN = 'HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n';

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('conveyor sandbox proxy: send an absolute http:// URL, or CONNECT host:port\n');
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`conveyor sandbox proxy: ${url.protocol} is not proxied as a request; use CONNECT\n`);
      return;
    }
    const port = Number(url.port || 80);
    if (!hostAllowed(url.hostname, options.allow)) {
      refuse(url.hostname, port);
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end(`conveyor sandbox: ${normalizeHost(url.hostname)}:${port} is not in this command's network.allow\n`);
      return;
    }
    options.onAllowed?.(normalizeHost(url.hostname), port);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
    // No connection pool (agent: false): a kept-alive socket upstream would keep the step process running after its command.
    const upstream = httpRequest(
      { host: normalizeHost(url.hostname), port, method: req.method, path: `${url.pathname}${url.search}`, headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !HOP_BY_HOP.has(k))));
        answer.pipe(res);
      },
    );
    forwarded.add(upstream);
    upstream.on('close', () => forwarded.delete(upstream));
    upstream.on('error', (e) => {
      if (res.destroyed) return;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`conveyor sandbox proxy: ${e.message}\n`);
    });
    // The client went away before the answer was whole (it gave up, or its command was killed): so does the request upstream.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });

  server.on('connection', (s: Socket) => track(s));
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    let target: URL;
    try {
      target = new URL(`http://${req.url ?? ''}`);
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
      return;
    }
    const port = Number(target.port);
    if (!target.hostname || !port) {
      client.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
      return;
    }
    if (!hostAllowed(target.hostname, options.allow)) {
      refuse(target.hostname, port);
      client.end(FORBIDDEN);
      return;
    }
    options.onAllowed?.(normalizeHost(target.hostname), port);
    const upstream = connect(port, normalizeHost(target.hostname), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n'));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.on('clientError', (_e, s) => s.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => resolve());
  });
  return {
    blocked: () => [...counts.values()].map((b) => ({ ...b })),
    close: () =>
      new Promise<void>((resolve) => {
        // The command has ended: whatever it left open goes with it, upstream too.
        for (const r of forwarded) r.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
