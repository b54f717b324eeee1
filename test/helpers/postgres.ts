// A real PostgreSQL server for tests, started and stopped by the test file that needs it (once per
// file: a database per test is cheap, a server is not): the machine's own binaries (initdb, pg_ctl;
// Debian keeps them in /usr/lib/postgresql/<v>/bin), a data directory in a temp folder, a free
// loopback port, password (SCRAM) authentication over TCP. PostgreSQL refuses to run as root: as
// root (CI), the server runs as the `postgres` user, which owns its data directory.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { removeDir, tempDir } from './repos.ts';

export const PG_USER = 'conveyor';
export const PG_PASSWORD = 's3cret-pw-for-tests';

export interface PostgresServer {
  port: number;
  /** The URL of a database on this server (with the test user's password). */
  url(database: string): string;
  /** Makes an empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  dropDatabase(name: string): Promise<void>;
  /** Stops the server as an outage would, its data kept (a clean stop: these servers do not sync their commits to disk); `up` starts it again on the same port. */
  down(): void;
  up(): void;
  /** Stops the server (at once: tests want no shutdown checkpoint) and removes its data directory. */
  stop(): Promise<void>;
}

/** The folder of initdb and pg_ctl: on PATH, else Debian's newest /usr/lib/postgresql/<v>/bin. */
export function postgresBin(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return join(debian, newest, 'bin');
  throw new Error(
    "PostgreSQL's server binaries (initdb, pg_ctl) are not on PATH nor under /usr/lib/postgresql/<version>/bin: install them (Debian: apt-get install postgresql; .ci/run does)",
  );
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary as the user the server runs as (root cannot). */
function runPg(bin: string, args: string[]): string {
  const out = spawnSync(asRoot ? 'runuser' : bin, asRoot ? ['-u', 'postgres', '--', bin, ...args] : args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (out.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (exit ${out.status}): ${out.stderr || out.stdout}`);
  return out.stdout;
}

/** Stops a server at once (tests want no shutdown checkpoint); one already down is fine. */
function stopNow(pgCtl: string, data: string): void {
  try {
    runPg(pgCtl, ['-D', data, '-m', 'immediate', 'stop']);
  } catch {
    // not running
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Stops the server and removes its folder once this test process is gone, however it ended (a
 * killed test run included): a detached watcher polls for the process, then does what `stop` does.
 * Returns a way to call it off (after `stop`).
 */
function watchOver(pgCtl: string, data: string, dir: string): () => void {
  const stop = asRoot ? `runuser -u postgres -- "${pgCtl}"` : `"${pgCtl}"`;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stop} -D "${data}" -m immediate stop >/dev/null 2>&1; rm -rf "${dir}"`;
  const watcher = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watcher.unref();
  return () => {
    if (watcher.pid !== undefined) {
      try {
        process.kill(watcher.pid);
      } catch {
        // already gone
      }
    }
  };
}

/** Starts a fresh server: initdb into a temp folder, then pg_ctl start on a free loopback port. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  const pgCtl = join(bin, 'pg_ctl');
  const dir = tempDir('conveyor-pg-');
  const data = join(dir, 'data');
  const callOff = watchOver(pgCtl, data, dir);
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  // Trust over the server's own socket (in its data directory), SCRAM passwords over TCP as a real deployment has.
  runPg(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    PG_USER,
    '--pwfile',
    pwfile,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  let stopped = false;
  let port = 0;
  const start = () => {
    const options = `-p ${port} -k ${data} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`;
    runPg(pgCtl, ['-D', data, '-l', join(data, 'server.log'), '-o', options, '-w', 'start']);
  };
  // A port found free may be taken before the server binds it: another one then.
  for (let tries = 0; ; tries++) {
    port = await freePort();
    try {
      start();
      break;
    } catch (e) {
      const log = existsSync(join(data, 'server.log')) ? readFileSync(join(data, 'server.log'), 'utf8') : '';
      if (tries < 3 && /could not bind|Address already in use/i.test(log)) continue;
      throw new Error(`${(e as Error).message}\n${log}`);
    }
  }
  let isUp = true;
  const url = (database: string) => `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${database}`;
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url('postgres') });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    port,
    url,
    async createDatabase(name) {
      await admin((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
      return url(name);
    },
    async dropDatabase(name) {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`));
    },
    down() {
      if (!isUp) return;
      runPg(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']);
      isUp = false;
    },
    up() {
      if (isUp) return;
      start();
      isUp = true;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      stopNow(pgCtl, data);
      removeDir(dir);
      callOff();
    },
  };
}
