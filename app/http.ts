// The app's HTTP server (`conveyor serve`): GitHub's webhooks (handed to Probot), the token
// exchange for step attempts, the health endpoints a load balancer asks, and the metrics
// Prometheus scrapes.
//
// Bodies are bounded while they stream in, before anything is buffered: a webhook body over
// GitHub's 25 MB maximum is refused (413, the connection closed) on its declared length, or, sent
// without one, as soon as the bytes received pass the limit — Probot would otherwise buffer any
// size before checking the signature (an unsigned 64 MB POST cost 1.4 GB). A body within the
// limit is handed to Probot's middleware already read (it takes `request.body` as given).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TOKEN_EXCHANGE_PATH } from '../core/contract/token-exchange.ts';
import { readyAnswer, type Readiness } from './readiness.ts';
import type { BrokerAnswer } from './token-broker.ts';
import type { Logger } from '../lib/logger.ts';

/** GitHub caps webhook payloads at 25 MB (and does not deliver larger ones). */
export const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;
/** A token request is an OIDC token and an attempt's identity: a few kilobytes. */
export const TOKEN_BODY_LIMIT = 64 * 1024;

export interface AppHttpOptions {
  /** Where GitHub delivers webhooks (WEBHOOK_PATH, default /api/github/webhooks). */
  webhookPath: string;
  /** Probot's node middleware: handles the webhook path, answers true when it did. */
  webhooks(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** `/readyz`: whether the store answers and GitHub is reachable (answered as up or down only). */
  ready(): Promise<Readiness>;
  /** `GET /metrics`: the Prometheus exposition (absent: 404). */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** `POST /conveyor/token` (absent: 404). */
  tokens?: { exchange(body: unknown): Promise<BrokerAnswer> };
  /** Bytes a webhook body may have (default GitHub's 25 MB; tests shrink it). */
  webhookBodyLimit?: number;
  log: Logger;
}

type Body = { ok: true; bytes: Buffer } | { ok: false; received: number };

/** The client went away before its body ended: nobody is left to answer. */
class ClientGone extends Error {}

/**
 * Reads a request body of at most `limit` bytes. A declared length over it is refused without
 * reading; otherwise bytes are counted as they arrive and reading stops once they pass it.
 */
export function readBoundedBody(req: IncomingMessage, limit: number): Promise<Body> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false, received: 0 });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        stop();
        req.pause();
        chunks.length = 0;
        resolve({ ok: false, received });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve({ ok: true, bytes: Buffer.concat(chunks, received) });
    };
    const onError = (e: Error) => {
      stop();
      reject(e);
    };
    const onClose = () => {
      stop();
      reject(new ClientGone('the client closed the connection before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/** How long a refused client may go on sending (dropped unread) while it reads the answer, before its connection is cut. */
const LINGER_MS = 2000;

/**
 * 413, and the connection closed: nothing more of the body is kept. The close lingers: closing a
 * connection the client is still sending on resets it, and a reset can throw away the answer
 * before the client read it; so the server stops sending, drops what still arrives, and cuts the
 * connection once the client closes its end, or after LINGER_MS.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, what: string, limit: number): void {
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    socket.once('end', () => socket.destroy());
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
  sendJson(res, 413, { error: 'body-too-large', message: `${what} is over ${limit} bytes, the most this app accepts` }, { connection: 'close' });
}

const trimSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);

export function createAppHttpServer(options: AppHttpOptions): Server {
  const webhookPath = trimSlash(options.webhookPath);
  const webhookLimit = options.webhookBodyLimit ?? WEBHOOK_BODY_LIMIT;
  const { log } = options;

  async function webhook(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'POST') {
      const body = await readBoundedBody(req, webhookLimit);
      if (!body.ok) {
        log.warn(
          `refused a webhook body over ${webhookLimit} bytes (${body.received ? `${body.received} bytes received` : `declared ${req.headers['content-length']}`}) from ${req.socket.remoteAddress}`,
          { limit: webhookLimit, ...(req.socket.remoteAddress ? { remote: req.socket.remoteAddress } : {}) },
        );
        refuseTooLarge(req, res, 'a webhook body', webhookLimit);
        return;
      }
      // Probot's middleware takes a body given as a string as the payload, instead of reading the stream.
      (req as IncomingMessage & { body?: string }).body = body.bytes.toString('utf8');
    }
    if (!(await options.webhooks(req, res))) sendJson(res, 404, { error: 'not-found', message: `no route ${req.method} ${req.url}` });
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!options.tokens) return sendJson(res, 404, { error: 'not-found', message: 'this app does not exchange tokens' });
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method-not-allowed', message: `${TOKEN_EXCHANGE_PATH} takes POST` }, { allow: 'POST' });
    const body = await readBoundedBody(req, TOKEN_BODY_LIMIT);
    if (!body.ok) return refuseTooLarge(req, res, 'a token request', TOKEN_BODY_LIMIT);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.bytes.toString('utf8'));
    } catch (e) {
      return sendJson(res, 400, { error: 'bad-request', message: `the token request is not JSON: ${(e as Error).message}` });
    }
    const answer = await options.tokens.exchange(parsed);
    // A 425 or 429 says when to ask again (the action waits that long, within its own bounds).
    const retryAfter = answer.status !== 200 && answer.retryAfterSec !== undefined ? { 'retry-after': String(answer.retryAfterSec) } : undefined;
    sendJson(res, answer.status, answer.body, retryAfter);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = trimSlash(new URL(req.url ?? '/', 'http://localhost').pathname);
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (path === webhookPath) return webhook(req, res);
    if (path === TOKEN_EXCHANGE_PATH) return token(req, res);
    if (path === '/healthz' && read) return sendJson(res, 200, { ok: true });
    if (path === '/readyz' && read) {
      const answer = readyAnswer(await options.ready());
      return sendJson(res, answer.status, answer.body);
    }
    if (path === '/metrics' && read && options.metrics) {
      const { contentType, body } = await options.metrics();
      res.writeHead(200, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    sendJson(res, 404, { error: 'not-found', message: `no route ${req.method} ${path}` });
  }

  return createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      if (e instanceof ClientGone) return;
      // Logged whole; the caller learns only that it failed.
      log.error(`${req.method} ${req.url} failed: ${(e as Error).stack ?? String(e)}`, { method: req.method ?? '', url: req.url ?? '' });
      if (!res.headersSent)
        sendJson(res, 500, { error: 'internal', message: 'the app failed to handle the request; its log says why' }, { connection: 'close' });
      else res.destroy();
    });
  });
}
