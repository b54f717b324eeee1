// The one way an agent's CLI reaches its model's API when Conveyor keeps the key: an HTTP server in
// the step process, reached by the agent at http://127.0.0.1:<port> (inside its sandbox a socat
// bridge to this unix socket, lib/sandbox.ts; without a sandbox a loopback port). Every request
// goes to the one endpoint it was started for, whatever the request names (an absolute URL, a Host
// header, a path outside the endpoint's): https with the certificate verified by the usual trust
// (plus NODE_EXTRA_CA_CERTS, or `ca`). With a credential, it removes every credential header and
// `key` parameter the agent sent and sets the real one, so the key lives only in this process.
// Answers pass through as they arrive (server-sent events stream unbuffered), bodies of any size
// are piped, and connections on both sides are kept alive between requests.
//
// Written here rather than taken from npm for the same reason as proxy.ts: the maintained proxies
// (http-proxy, proxy-chain) are general routers whose target follows the request; here the target
// is fixed and the credential handling must be in plain sight.
import { timingSafeEqual } from 'node:crypto';
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { ConveyorError } from '../../core/errors.ts';
import type { CredentialHeader } from '../../core/config/model-api.ts';

/** Where a credential goes on the vendor's request: `bearer` is `Authorization: Bearer <key>`. */

/** Every header a model API reads a credential from: removed from the agent's request when the forwarder sets its own. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'proxy-authorization'];

/** Headers of one hop only (RFC 9110 7.6.1), and those the forwarder sets itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

export interface ForwarderOptions {
  /** A unix socket (the sandbox's bridge reaches it) or a loopback port chosen by the system (no sandbox). */
  listen: { socketPath: string } | { loopback: true };
  /** The endpoint: its origin receives every request, and only paths under its own path are forwarded. */
  upstream: string;
  /** The real credential, set on every request forwarded (absent: the agent's own headers go through). */
  credential?: { header: CredentialHeader; value: string };
  /**
   * What a request must carry as its key (in a credential header or a `key` parameter) to be
   * forwarded: on a loopback port any local process could reach the forwarder while it lives.
   */
  placeholder?: string;
  /** Certificates trusted for the endpoint besides the system's (a private CA; tests). */
  ca?: string;
  /** Told once per distinct problem (the endpoint unreachable, its certificate refused). */
  onProblem?: (message: string) => void;
  /**
   * Told of each answer the endpoint gave: its status, and for an error (400 and up) the start of
   * its body (what the vendor said), once it is read; a success at once, with no body.
   */
  onAnswer?: (status: number, body: string) => void;
}

/** How much of an error answer's body is kept for onAnswer: a vendor's error message is short. */
const ERROR_BODY_LIMIT = 4096;

export interface Forwarder {
  /** The port it listens on, for a loopback forwarder. */
  port?: number;
  /** Requests forwarded so far. */
  forwarded(): number;
  close(): Promise<void>;
}

/** The endpoint's path without its trailing slash: `/v1` of `https://api.openai.com/v1/`, empty for `/`. */
export function basePath(url: URL): string {
  return url.pathname.replace(/\/+$/, '');
}

function credentialValue(c: NonNullable<ForwarderOptions['credential']>): [string, string] {
  return c.header === 'bearer' ? ['authorization', `Bearer ${c.value}`] : [c.header, c.value];
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether the request carries `placeholder` as its key, wherever a model API reads one. */
function carries(headers: IncomingHttpHeaders, search: URLSearchParams, placeholder: string): boolean {
  const given = CREDENTIAL_HEADERS.flatMap((h) => {
    const v = headers[h];
    return typeof v === 'string' ? [v.replace(/^Bearer\s+/i, '')] : [];
  });
  const key = search.get('key');
  if (key !== null) given.push(key);
  return given.some((g) => sameText(g.trim(), placeholder));
}

function refuse(res: ServerResponse, status: number, message: string): void {
  // JSON: the CLIs print an API's error body, and this names what to do.
  res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify({ error: { type: 'conveyor_forwarder', message } })}\n`);
}

/** Passes an answer's status on (and an error's first bytes, as they come beside the pipe to the agent). */
function tellAnswer(answer: IncomingMessage, status: number, tell: (status: number, body: string) => void): void {
  if (status < 400) {
    tell(status, '');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  answer.on('data', (c: Buffer) => {
    if (size >= ERROR_BODY_LIMIT) return;
    chunks.push(c);
    size += c.length;
  });
  let told = false;
  const once = () => {
    if (told) return;
    told = true;
    tell(status, Buffer.concat(chunks).subarray(0, ERROR_BODY_LIMIT).toString('utf8'));
  };
  answer.on('end', once);
  answer.on('close', once);
}

export async function startForwarder(options: ForwarderOptions): Promise<Forwarder> {
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== 'https:' && upstream.protocol !== 'http:') {
    throw new ConveyorError('internal', `the key forwarder forwards to an http(s) endpoint, not ${upstream.protocol}`);
  }
  const secure = upstream.protocol === 'https:';
  const prefix = basePath(upstream);
  // One pool for the forwarder's life: a CLI's requests reuse connections to the endpoint, and close() ends them.
  const agent = secure ? new HttpsAgent({ keepAlive: true, ...(options.ca ? { ca: options.ca } : {}) }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const sockets = new Set<Socket>();
  const told = new Set<string>();
  const problem = (message: string) => {
    if (told.has(message)) return;
    told.add(message);
    options.onProblem?.(message);
  };
  let count = 0;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Only a path: an absolute URL (`GET http://elsewhere/`) names another host, which is never reached.
    const target = req.url ?? '';
    if (!target.startsWith('/')) {
      refuse(res, 400, `Conveyor's key forwarder sends requests to ${upstream.origin} only; send a path, not ${JSON.stringify(target.slice(0, 100))}`);
      return;
    }
    const url = new URL(target, upstream.origin);
    if (prefix && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
      refuse(res, 404, `Conveyor's key forwarder forwards only paths under ${prefix}/ of ${upstream.origin}`);
      return;
    }
    if (options.placeholder !== undefined && !carries(req.headers, url.searchParams, options.placeholder)) {
      refuse(res, 401, "this request does not carry the key Conveyor gave the agent; only the agent's CLI may use Conveyor's key forwarder");
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    if (options.credential) {
      for (const h of CREDENTIAL_HEADERS) delete headers[h];
      url.searchParams.delete('key');
      const [name, value] = credentialValue(options.credential);
      headers[name] = value;
    }
    headers.host = upstream.host;
    count++;
    const out = send(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: upstream.port || undefined,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
        agent,
      },
      (answer) => {
        const back: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) back[k] = v;
        const status = answer.statusCode ?? 502;
        if (answer.statusMessage) res.writeHead(status, answer.statusMessage, back);
        else res.writeHead(status, back);
        // A stream's first event must not wait for more bytes: headers out now, every chunk as it comes.
        res.flushHeaders();
        if (options.onAnswer) tellAnswer(answer, status, options.onAnswer);
        answer.pipe(res);
        // Cut short upstream: the agent's answer is cut short too, never ended as if it were whole.
        answer.on('close', () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    out.on('error', (e) => {
      const message = `the endpoint ${upstream.origin} could not be reached: ${e.message}`;
      problem(message);
      if (res.headersSent) res.destroy();
      else refuse(res, 502, `Conveyor's key forwarder: ${message}`);
    });
    // The agent went away before its answer was whole (it gave up, or it was stopped): so does the request upstream.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
  server.on('connection', (s: Socket) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (_e, s) => s.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('socketPath' in options.listen) server.listen(options.listen.socketPath, () => resolve());
    else server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return {
    ...(typeof address === 'object' && address ? { port: (address as AddressInfo).port } : {}),
    forwarded: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        // The command has ended: whatever it left open goes with it, the connections upstream too.
        for (const s of sockets) s.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
