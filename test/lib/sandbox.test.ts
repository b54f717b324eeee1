// The sandbox with the real bubblewrap (CI runs as root on Linux, with bwrap and socat installed):
// what a command inside can see, write and reach, and that nothing it starts outlives it; and the
// fallback without bubblewrap, which still ends every process the command started.
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox, endMarked, hostAllowed, runIsolated, type IsolatedOptions, type NetworkPolicy, type SandboxAvailability } from '../../lib/sandbox.ts';
import { loopbackServer, processesWith, type LoopbackServer } from '../helpers/processes.ts';
import { removeDir } from '../helpers/repos.ts';

const sandbox = detectSandbox(process.env);
const none: SandboxAvailability = { available: false, reason: 'bubblewrap is not available in this test' };
let dir: string;
let ws: string;
let server: LoopbackServer;

beforeAll(async () => {
  server = await loopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  // Outside /tmp: every command has a /tmp of its own, where a folder of the host's /tmp is not.
  dir = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'conveyor-sandbox-'));
  ws = join(dir, 'ws');
  mkdirSync(ws);
});
afterEach(() => removeDir(dir));

const PATH = process.env.PATH ?? '/usr/bin:/bin';

function accessible(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Runs `command` as an agent would be run: writes confined to `ws`, network only to `allow`. */
function run(command: string, options: Partial<IsolatedOptions> = {}, on: SandboxAvailability = sandbox) {
  return runIsolated(on, {
    command,
    cwd: ws,
    env: { PATH, HOME: process.env.HOME ?? '/root', ...options.env },
    timeoutMs: 60_000,
    policy: { network: { allow: ['localhost'] }, writable: [ws] },
    runnerEnv: { ...process.env, ...options.runnerEnv },
    ...options,
  });
}

describe('host patterns', () => {
  it('match a host exactly, or any subdomain for *.host, never a look-alike', () => {
    expect(hostAllowed('api.example.com', ['api.example.com'])).toBe(true);
    expect(hostAllowed('API.Example.com.', ['api.example.com'])).toBe(true);
    expect(hostAllowed('x.api.example.com', ['api.example.com'])).toBe(false);
    expect(hostAllowed('a.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('a.b.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('evilexample.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('example.com.evil.net', ['example.com', '*.example.com'])).toBe(false);
    expect(hostAllowed('localhost', [])).toBe(false);
  });
});

describe('detecting a sandbox', () => {
  it('finds bubblewrap on this machine, and says why not on a PATH without it', () => {
    expect(sandbox).toMatchObject({ available: true });
    const without = detectSandbox({ PATH: join(dir, 'empty-bin') });
    expect(without).toEqual({ available: false, reason: 'bubblewrap (bwrap) is not installed on this runner' });
  });
});

describe('a command in the sandbox', () => {
  it('sees only its own processes: no ancestor environment, no other process', async () => {
    const canary = `canary-${randomUUID()}`;
    // The test process (an ancestor of the command) holds the canary; the command does not get it.
    process.env.SANDBOX_TEST_CANARY = canary;
    try {
      const r = await run(
        [
          'set +e',
          'p=$$',
          // Every ancestor the command can name, up to the top of what it can see.
          'while [ "$p" -gt 0 ]; do echo "ancestor $p $(tr "\\0" " " < /proc/$p/cmdline)"; tr "\\0" "\\n" < /proc/$p/environ; p=$(sed "s/.*) //" /proc/$p/stat | cut -d" " -f2); done',
          `tr "\\0" "\\n" < /proc/${process.pid}/environ 2>&1 | head -3`,
          'echo "processes: $(ls /proc | grep -c "^[0-9]")"',
          'ps -e -o comm=',
        ].join('\n'),
      );
      expect(r.sandbox).toBe('bubblewrap');
      expect(r.output).not.toContain(canary);
      expect(r.output).toMatch(/^ancestor 1 \S*bwrap /m);
      // Neither the test runner (node) nor anything else outside is there to list.
      expect(r.output).not.toMatch(/^node$/m);
      expect(Number(/processes: (\d+)/.exec(r.output)?.[1])).toBeLessThan(10);
    } finally {
      delete process.env.SANDBOX_TEST_CANARY;
    }
  });

  it('writes only in the workspace and its own HOME and TMPDIR', async () => {
    const outside = join(dir, 'outside.txt');
    const r = await run(
      [
        'set +e',
        `echo x > ${outside} && echo "wrote outside"`,
        'echo y > in-workspace.txt && echo "wrote workspace"',
        'echo z > "$HOME/state" && echo "wrote home $HOME"',
        'echo t > "$TMPDIR/t" && echo "wrote tmp"',
        'touch /usr/local/conveyor-probe && echo "wrote /usr/local"',
      ].join('\n'),
    );
    expect(existsSync(outside)).toBe(false);
    expect(r.output).not.toContain('wrote outside');
    expect(r.output).toContain('Read-only file system');
    expect(existsSync('/usr/local/conveyor-probe')).toBe(false);
    expect(readFileSync(join(ws, 'in-workspace.txt'), 'utf8')).toBe('y\n');
    expect(r.output).toMatch(/wrote home \/\S+\/conveyor-\d+\/sandboxes\/cmd-[\w-]+\/home/);
    expect(r.output).toContain('wrote tmp');
  });

  it("cannot read the runner's temp folder, or the credentials in HOME", async () => {
    const runnerTemp = join(dir, 'runner-temp');
    mkdirSync(join(runnerTemp, '_runner_file_commands'), { recursive: true });
    writeFileSync(join(runnerTemp, '_runner_file_commands', 'set_env'), 'runner-temp-789');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'ssh-key-abc');
    writeFileSync(join(home, '.git-credentials'), 'https://x:git-cred-def@github.com');
    writeFileSync(join(home, 'notes.txt'), 'plain home file');
    const r = await run(`set +e; cat ${runnerTemp}/_runner_file_commands/set_env ${home}/.ssh/id_ed25519 ${home}/.git-credentials ${home}/notes.txt`, {
      runnerEnv: { RUNNER_TEMP: runnerTemp, HOME: home },
    });
    for (const secret of ['runner-temp-789', 'ssh-key-abc', 'git-cred-def']) expect(r.output).not.toContain(secret);
    expect(r.output).toContain('plain home file');
  });

  it('reaches allowed hosts through the proxy, and nothing else: refused hosts are counted', async () => {
    const port = server.port;
    const r = await run(
      [
        'set +e',
        `curl -s --max-time 20 http://localhost:${port}/plain`,
        `curl -s --max-time 20 --proxytunnel http://localhost:${port}/tunnel`,
        `curl -s --max-time 20 -o /dev/null -w "code %{http_code}\\n" http://127.0.0.1:${port}/by-address`,
        `curl -s --max-time 20 -o /dev/null -w "code %{http_code}\\n" http://127.0.0.1:${port}/again`,
        `curl -s --max-time 20 https://blocked.example:443/ || echo "tls refused $?"`,
        // Around the proxy there is no network at all.
        `curl -s --max-time 5 --noproxy "*" http://127.0.0.1:${port}/direct || echo "direct failed $?"`,
      ].join('\n'),
    );
    expect(r.output).toContain('reached /plain');
    expect(r.output).toContain('reached /tunnel');
    expect(r.output).toContain('code 403');
    expect(r.output).toMatch(/tls refused \d+/);
    expect(r.output).toMatch(/direct failed \d+/);
    expect(server.hits).not.toContain(`127.0.0.1:${port}/by-address`);
    expect(server.hits.some((h) => h.endsWith('/direct'))).toBe(false);
    expect(r.blocked).toEqual([
      { host: '127.0.0.1', port, count: 2 },
      { host: 'blocked.example', port: 443, count: 1 },
    ]);
  });

  it('with an open network (a gate, a deploy), reaches any host directly, and still writes only its workspace, its HOME and its own /tmp', async () => {
    const runnerTemp = join(dir, 'runner-temp');
    mkdirSync(runnerTemp);
    const r = await run(
      [
        'set +e',
        `curl -s --max-time 20 http://127.0.0.1:${server.port}/open`,
        `echo no > ${join(dir, 'outside.txt')} || echo "outside refused"`,
        `echo no > ${runnerTemp}/planted || echo "runner temp refused"`,
        'echo yes > /tmp/mine && echo "own tmp $(cat /tmp/mine)"',
        'echo home > "$HOME/h" && echo "own home"',
        `ls ${dir} 2>&1 | head -3; echo "listed"`,
      ].join('\n'),
      { policy: { network: 'open', writable: [ws] }, runnerEnv: { RUNNER_TEMP: runnerTemp } },
    );
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('reached /open');
    expect(r.blocked).toEqual([]);
    expect(r.output).toContain('outside refused');
    expect(r.output).toContain('own tmp yes');
    expect(r.output).toContain('own home');
    expect(existsSync(join(dir, 'outside.txt'))).toBe(false);
    expect(existsSync(join(runnerTemp, 'planted'))).toBe(false);
    // Its /tmp is its own: the host's (where this test's folder is) is not there to list.
    expect(existsSync('/tmp/mine')).toBe(false);
  });

  describe("the host's sockets", () => {
    /** A unix socket on the host that answers with a secret, as a Docker daemon or any local service would answer what it is asked. */
    async function secretSocket(path: string): Promise<() => Promise<void>> {
      mkdirSync(dirname(path), { recursive: true });
      const srv = createNetServer((c) => c.end('host-socket-secret\n'));
      await new Promise<void>((resolve) => srv.listen(path, resolve));
      return () => new Promise<void>((resolve) => srv.close(() => resolve()));
    }
    const connect = (path: string) => `socat -u UNIX-CONNECT:${path} - 2>&1 || echo "refused ${path}"`;

    it('reaches none from any command, open network or not: not in /run, not in /tmp, not anywhere else on the host; a socket it makes itself works', async () => {
      const places = [
        join(tmpdir(), `conveyor-test-${randomUUID()}`, 'in-tmp.sock'),
        join(dir, 'elsewhere', 's.sock'),
        join(process.cwd(), `.sock-${randomUUID().slice(0, 8)}`),
      ];
      if (existsSync('/run') && accessible('/run')) places.push(join('/run', `conveyor-test-${randomUUID().slice(0, 8)}.sock`));
      const closers = await Promise.all(places.map((p) => secretSocket(p)));
      try {
        for (const [i, network] of (['open', { allow: [] }] as NetworkPolicy[]).entries()) {
          const own = `${ws}/own-${i}.sock`;
          const r = await run(
            [
              'set +e',
              ...places.map(connect),
              `socat UNIX-LISTEN:${own},fork SYSTEM:'echo own-answer' & for _ in $(seq 100); do [ -S ${own} ] && break; sleep 0.05; done; socat -u UNIX-CONNECT:${own} -`,
            ].join('\n'),
            { policy: { network, writable: [ws] } },
          );
          expect(r.output, JSON.stringify(network)).not.toContain('host-socket-secret');
          for (const p of places) expect(r.output).toContain(`refused ${p}`);
          expect(r.output).toContain('own-answer');
        }
      } finally {
        await Promise.all(closers.map((c) => c()));
        for (const p of places) rmSync(p.includes('conveyor-test-') ? dirname(p) : p, { recursive: true, force: true });
      }
    });

    it("keeps the Docker daemon's socket for a service that asks for Docker, and only then", async () => {
      const docker = join(dir, 'docker', 'docker.sock');
      const close = await secretSocket(docker);
      try {
        const env = { ...process.env, DOCKER_HOST: `unix://${docker}` };
        const without = await run(connect(docker), { policy: { network: 'open', writable: [ws] }, runnerEnv: env });
        expect(without.output).not.toContain('host-socket-secret');
        const asked = await run(connect(docker), { policy: { network: 'open', writable: [ws], docker: true }, runnerEnv: env });
        expect(asked.output).toContain('host-socket-secret');
      } finally {
        await close();
      }
    });
  });

  it('keeps its caches between commands and its HOME nowhere else; folders it may only read stay unchanged', async () => {
    const cache = join(dir, 'cache', 'npm');
    const gitFolder = join(dir, 'ws.git');
    mkdirSync(gitFolder);
    writeFileSync(join(gitFolder, 'config'), 'ours\n');
    const policy = { network: 'open' as const, writable: [ws], caches: { '.npm': cache }, readOnly: [gitFolder] };
    const first = await run(`echo cached > "$HOME/.npm/entry"; echo other > "$HOME/other"; echo planted > ${gitFolder}/config || echo "git folder refused"`, {
      policy,
    });
    expect(first.output).toContain('git folder refused');
    expect(readFileSync(join(cache, 'entry'), 'utf8')).toBe('cached\n');
    expect(readFileSync(join(gitFolder, 'config'), 'utf8')).toBe('ours\n');
    const second = await run('cat "$HOME/.npm/entry"; cat "$HOME/other" 2>&1 || echo "home is new"', { policy });
    expect(second.output).toContain('cached');
    expect(second.output).toContain('home is new');
  });

  it('sees none of a folder its policy hides, and what it writes there stays out of the host folder; what it may write inside still shows', async () => {
    const hidden = join(dir, 'hidden');
    mkdirSync(join(hidden, 'inside'), { recursive: true });
    writeFileSync(join(hidden, '.npmrc'), 'registry=http://planted.invalid/\n');
    const policy = { network: 'open' as const, writable: [ws], hidden: [hidden, join(dir, 'not-there')] };
    const r = await run(
      `ls -A ${hidden} | wc -l | sed 's/^/entries: /'; cat ${hidden}/.npmrc 2>&1 || echo "no npmrc"; echo planted > ${hidden}/new && echo wrote`,
      {
        policy,
      },
    );
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('entries: 0');
    expect(r.output).toContain('no npmrc');
    expect(r.output).not.toContain('planted.invalid');
    expect(existsSync(join(hidden, 'new'))).toBe(false);
    expect(readFileSync(join(hidden, '.npmrc'), 'utf8')).toBe('registry=http://planted.invalid/\n');
  });

  it('ends with every process it started, however they detached', async () => {
    const mark = randomUUID();
    const r = await run(`export LEFTOVER=${mark}; setsid sleep 300 </dev/null >/dev/null 2>&1 & (sleep 301 </dev/null >/dev/null 2>&1 &); echo started`);
    expect(r.output).toContain('started');
    expect(processesWith('LEFTOVER', mark)).toEqual([]);
  });

  it('a kept command (a deploy) leaves its processes running until its mark is ended', async () => {
    const mark = randomUUID();
    const r = await run(`export LEFTOVER=${mark}; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo started`, {
      keep: true,
      policy: { network: 'open', writable: [ws] },
    });
    expect(r.exitCode).toBe(0);
    expect(processesWith('LEFTOVER', mark)).toHaveLength(1);
    expect(endMarked(r.mark)).toBeGreaterThanOrEqual(1);
    expect(processesWith('LEFTOVER', mark)).toEqual([]);
  });
});

describe("what a command finds in its HOME, and the bridges to the step process's services", () => {
  const seed = {
    homeFiles: { '.codex/config.toml': 'openai_base_url = "http://127.0.0.1:3129/v1"\n', '.gemini/settings.json': '{"security":{}}\n' },
    homeVariables: { CODEX_HOME: '.codex', GEMINI_CLI_HOME: '.' },
  };
  const show =
    'cat "$CODEX_HOME/config.toml" "$GEMINI_CLI_HOME/.gemini/settings.json"; stat -c "%a %n" "$HOME" "$HOME/.codex" "$HOME/.codex/config.toml"; echo "home=$HOME"';

  it('has the files its caller seeded, private to it (HOME and folders 0700, files 0600), in the sandbox and without one', async () => {
    for (const on of [sandbox, none]) {
      const r = await run(show, { policy: { network: { allow: [] }, writable: [ws], ...seed } }, on);
      expect(r.exitCode, r.output).toBe(0);
      expect(r.output).toContain('openai_base_url = "http://127.0.0.1:3129/v1"');
      expect(r.output).toContain('{"security":{}}');
      const home = /home=(\S+)/.exec(r.output)![1]!;
      expect(r.output).toContain(`700 ${home}\n700 ${home}/.codex\n600 ${home}/.codex/config.toml`);
      // Never the runner's own HOME; and gone with the command.
      expect(home).not.toBe(process.env.HOME);
      expect(existsSync(home)).toBe(false);
    }
  });

  it('refuses a seeded path that leaves its HOME', async () => {
    await expect(run('true', { policy: { network: { allow: [] }, writable: [ws], homeFiles: { '../escaped': 'x' } } })).rejects.toThrow(/not a path inside/);
  });

  it("reaches a bridged socket at 127.0.0.1:<port> inside, past the proxy (its loopback is its own), and nothing of the host's loopback", async () => {
    const socket = join(dir, 'svc.sock');
    // Reads what arrives (a paused socket would never see its end, and close() would wait for it).
    const svc = createNetServer((c) => c.resume().end('HTTP/1.1 200 OK\r\ncontent-length: 16\r\nconnection: close\r\n\r\nbridged-service\n'));
    await new Promise<void>((resolve) => svc.listen(socket, resolve));
    try {
      const r = await run(
        [
          'set +e',
          'echo "no_proxy=$NO_PROXY"',
          // curl honours the proxy variables: the bridge answers only because loopback bypasses the proxy.
          'curl -s --max-time 20 http://127.0.0.1:3129/v1/x',
          `curl -s --max-time 5 --noproxy "*" http://127.0.0.1:${server.port}/host-loopback || echo "host loopback unreachable"`,
        ].join('\n'),
        { policy: { network: { allow: [] }, writable: [ws], bridges: [{ port: 3129, socket }] } },
      );
      expect(r.output).toContain('no_proxy=127.0.0.1,localhost,::1');
      expect(r.output).toContain('bridged-service');
      expect(r.output).toContain('host loopback unreachable');
      expect(server.hits.some((h) => h.endsWith('/host-loopback'))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => svc.close(() => resolve()));
    }
  });

  it("refuses a bridge where the command keeps the host's network", async () => {
    await expect(run('true', { policy: { network: 'open', writable: [ws], bridges: [{ port: 3129, socket: join(dir, 'x.sock') }] } })).rejects.toThrow(
      /allow-list network/,
    );
  });
});

describe('without a sandbox', () => {
  it('runs the command as before and still ends every process it started (checked by pid)', async () => {
    const mark = randomUUID();
    const pidFile = join(dir, 'leftover.pid');
    const r = await run(`export LEFTOVER=${mark}; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > ${pidFile}; echo started`, {}, none);
    expect(r.sandbox).toBe('none');
    expect(r.exitCode).toBe(0);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(1);
    expect(processesWith('LEFTOVER', mark)).toEqual([]);
    const { processAlive } = await import('../../lib/process.ts');
    expect(processAlive(pid)).toBe(false);
  });
});
