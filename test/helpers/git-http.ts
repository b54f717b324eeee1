// git's own smart-HTTP server (`git http-backend`, run as a CGI per request) behind a small Node
// server on 127.0.0.1: what GitHub looks like to git, offline. The tests of the workspace's network
// path, the checkout benchmark and the fake GitHub (gitHttpHandler) share it. With a token it demands Basic auth as GitHub does
// (user x-access-token), so a token that did not reach git through its credential helper shows.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttp {
  /** http://127.0.0.1:<port>: a GITHUB_SERVER_URL whose repositories are `<url>/<owner>/<name>.git`. */
  url: string;
  /** Authorization headers the server was sent, in order. */
  authorizations: string[];
  /** Requests served, as `METHOD path?query`. */
  requests: string[];
  close(): Promise<void>;
}

export interface ServeGitOptions {
  /** When set, every request must carry it as Basic auth (user x-access-token), else 401. */
  token?: string;
  /** When set, every request must carry Basic auth (user x-access-token) with a token it accepts (now), else 401. */
  accepts?: (token: string) => boolean;
  /** Server-side configuration for upload-pack, e.g. `uploadpack.allowFilter=true`. */
  config?: Record<string, string>;
}

export interface GitHttpHandlerOptions extends ServeGitOptions {
  /** Authorization headers and requests are recorded here, as they come. */
  authorizations?: string[];
  requests?: string[];
  /** Called once a request's answer has been sent in full (e.g. to see a push land). */
  onDone?: (req: IncomingMessage) => void;
}

/** Answers one smart-HTTP request for the bare repositories under `projectRoot` (laid out as <owner>/<name>.git). */
export function gitHttpHandler(projectRoot: string, options: GitHttpHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const expected = options.token ? `Basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}` : undefined;
  const config = Object.entries(options.config ?? {});
  const configEnv: Record<string, string> = { GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([key, value], i) => {
    configEnv[`GIT_CONFIG_KEY_${i}`] = key;
    configEnv[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return (req, res) => {
    const auth = req.headers.authorization ?? '';
    if (auth) options.authorizations?.push(auth);
    options.requests?.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
    const given = /^Basic (.+)$/.exec(auth)?.[1];
    const token = given
      ? Buffer.from(given, 'base64')
          .toString('utf8')
          .replace(/^x-access-token:/, '')
      : undefined;
    if ((expected && auth !== expected) || (options.accepts && !(token && options.accepts(token)))) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        ...configEnv,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        // http-backend takes pushes only from an authenticated user.
        REMOTE_USER: 'x-access-token',
        REMOTE_ADDR: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    req.pipe(cgi.stdin);
    // The CGI's answer is its headers, a blank line, then the body, which is streamed as it comes
    // (a pack can be large; holding it whole would delay the client).
    let head = Buffer.alloc(0);
    let streaming = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (streaming) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const split = head.indexOf('\r\n\r\n');
      if (split < 0) return;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, split).toString('latin1').split('\r\n')) {
        const [name = '', ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers);
      streaming = true;
      const body = head.subarray(split + 4);
      if (body.length) res.write(body);
    });
    cgi.on('close', () => {
      if (!streaming) res.writeHead(502).end(head);
      else res.end();
      options.onDone?.(req);
    });
  };
}

/** Serves the bare repositories under `projectRoot` (laid out as <owner>/<name>.git) over smart HTTP. */
export async function serveGit(projectRoot: string, options: ServeGitOptions = {}): Promise<GitHttp> {
  const authorizations: string[] = [];
  const requests: string[] = [];
  const server: Server = createServer(gitHttpHandler(projectRoot, { ...options, authorizations, requests }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
