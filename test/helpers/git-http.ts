// Git's own smart-HTTP server (`git http-backend`) for the bare repositories of a Remotes folder,
// the way GitHub serves `https://github.com/<owner>/<name>.git`: offline, on a loopback port.
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttp {
  url: string;
  /** Authorization headers the server was sent, in order. */
  authorizations: string[];
  close(): Promise<void>;
}

/**
 * Answers one smart-HTTP request for the repositories under `projectRoot` (`/<owner>/<name>.git/…`).
 * `token`: the installation token a request must bear as Basic auth (else 401 asks for it, as
 * GitHub does); absent, any request is served.
 */
export function gitHttpHandler(projectRoot: string, options: { token?: string; authorizations?: string[]; onDone?: (req: IncomingMessage) => void } = {}) {
  const expected = options.token ? `Basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}` : undefined;
  return (req: IncomingMessage, res: ServerResponse): void => {
    const auth = req.headers.authorization ?? '';
    if (auth) options.authorizations?.push(auth);
    if (expected && auth !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
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
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const head = out.subarray(0, split).toString('latin1');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.split('\r\n')) {
        const [name = '', ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers).end(out.subarray(split + 4));
      options.onDone?.(req);
    });
  };
}

/** Serves the bare repositories under `projectRoot` over smart HTTP, only to requests bearing `token`. */
export async function serveGit(projectRoot: string, token: string): Promise<GitHttp> {
  const authorizations: string[] = [];
  const server: Server = createServer(gitHttpHandler(projectRoot, { token, authorizations }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
