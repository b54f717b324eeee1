// Finding processes from the outside, as the host sees them: a command's pids inside a sandbox are
// its own PID namespace's, so tests recognise its processes by a variable they inherit instead.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { processAlive } from '../../lib/process.ts';

/** Live processes (host pids) whose environment holds `name=value`. */
export function processesWith(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const vars = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (vars.includes(needle) && processAlive(Number(entry))) out.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return out;
}

export interface LoopbackServer {
  port: number;
  /** `Host` header and path of every request it answered. */
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port answering `reached <path>`. */
export async function loopbackServer(): Promise<LoopbackServer> {
  const hits: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    hits.push(`${req.headers.host ?? ''}${req.url ?? ''}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`reached ${req.url ?? ''}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A PATH with every program of this one but bubblewrap: a runner where no sandbox can be made.
 * (Leaving /usr/bin out would take git and bash with it.) Made once per test process.
 */
export function pathWithoutBubblewrap(): string {
  const dir = join(tmpdir(), `conveyor-no-bwrap-${process.pid}`);
  if (!existsSync(dir)) {
    mkdirSync(dir);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    for (const from of (process.env.PATH ?? '').split(delimiter)) {
      if (!from || !existsSync(from)) continue;
      for (const name of readdirSync(from)) {
        if (name === 'bwrap' || existsSync(join(dir, name))) continue;
        symlinkSync(join(from, name), join(dir, name));
      }
    }
  }
  return dir;
}
