// Issue #23: everything an agent produced is untrusted data, and so is every command that runs it.
// Each attack of the outside review, replayed on the real action (bundled, as the embedded mode and
// GitHub's runner run it) with real bubblewrap, real git and real sockets, and where it matters
// without a sandbox too (Conveyor's own git must hold there as well).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StepPayload } from '../../core/contract/wire.ts';
import { removeActionBundle, runAction, runActionAsync } from '../helpers/action.ts';
import { codeStep, gateStep, makePayload } from '../helpers/payload.ts';
import { pathWithoutBubblewrap } from '../helpers/processes.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

let remotes: Remotes;
let scratch: string;
const SECRET = 'TOP-SECRET-runner-file-0123456789';

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-untrusted-');
  remotes.create('acme/web', { 'README.md': 'web\n', 'src/a.txt': 'a\n' });
  // A file of the runner's the commands must not get at (outside every workspace).
  writeFileSync(join(scratch, 'runner-secret.txt'), `${SECRET}\n`);
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});
afterAll(() => removeActionBundle());

const secretFile = () => join(scratch, 'runner-secret.txt');

/** A script Conveyor's git would run if it read what a command planted: it leaves a marker, and the environment it saw. */
function planted(name: string): { path: string; ran: () => boolean } {
  const path = join(scratch, `${name}.sh`);
  const marker = join(scratch, `${name}-ran`);
  writeFileSync(path, `#!/bin/sh\nenv > ${marker}\ncat /proc/$PPID/environ >> ${marker} 2>/dev/null\nexit 0\n`);
  chmodSync(path, 0o755);
  return { path, ran: () => existsSync(marker) };
}

const sandboxes = [
  { name: 'in the sandbox', env: {} as Record<string, string> },
  { name: 'without a sandbox (best-effort)', env: { PATH: pathWithoutBubblewrap() } },
];

function run(payload: StepPayload, env: Record<string, string> = {}) {
  return runAction({ payload, dir: scratch, env: { GITHUB_SERVER_URL: remotes.url, CONVEYOR_WORKSPACE_ROOT: join(scratch, 'ws'), ...env } });
}

describe.each(sandboxes)("Conveyor's own git, $name", ({ env }) => {
  it("runs nothing an author gate's test plants in the checkout's git folder (core.fsmonitor, a filter), then commits and pushes as it should", () => {
    const monitor = planted('fsmonitor');
    const filter = planted('filter');
    // A discriminating test must fail on the base: this one also reaches for the git folder.
    const test = [
      '#!/bin/sh',
      'gd=$(sed -n "s/^gitdir: //p" "$CONVEYOR_WORKSPACE/acme__web/.git")',
      `printf '[core]\\n\\tfsmonitor = ${monitor.path}\\n[filter "x"]\\n\\tclean = ${filter.path}\\n' >> "$gd/config" && echo "planted in $gd"`,
      'echo "*.txt filter=x" >> "$CONVEYOR_WORKSPACE/acme__web/.gitattributes"',
      'exit 1',
    ].join('\n');
    const author = `mkdir -p test && cat > test/accept.sh <<'EOF'\n${test}\nEOF`;
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      agentRun: author,
      step: gateStep({ author: 'coder', path: 'test/accept.sh', run: 'sh {path}' }),
    });
    const r = run(payload, env);
    expect(r.result?.conclusion, r.stdout).toBe('success');
    expect(monitor.ran()).toBe(false);
    expect(filter.ran()).toBe(false);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'test/accept.sh')).toContain('exit 1');
    expect(readFileSync(join(scratch, 'ws.git', 'acme__web', 'config'), 'utf8')).not.toContain('fsmonitor');
  });

  it('runs the git it found when the step started, never one a command plants earlier on PATH', () => {
    const bin = join(scratch, 'user-bin');
    mkdirSync(bin);
    const marker = join(scratch, 'planted-git-ran');
    // As a gate's `npm ci` could on GitHub's images, where ~/.local/bin comes before /usr/bin.
    const agent = [
      'set +e',
      `printf '#!/bin/sh\\nenv > ${marker}\\nexit 0\\n' > ${bin}/git && chmod +x ${bin}/git && echo "planted git"`,
      'echo change > change.txt',
    ].join('\n');
    const path = `${bin}:${env.PATH ?? process.env.PATH ?? ''}`;
    const r = run(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent }), { ...env, PATH: path });
    expect(r.result?.conclusion, r.stdout).toBe('success');
    expect(existsSync(marker)).toBe(false);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'change.txt')).toBe('change');
    // In the sandbox the folder is read-only to the agent; without one the plant lands, and is never run.
    if (env.PATH) expect(r.stdout).toContain('planted git');
    else expect(r.stdout).toMatch(/Read-only file system/);
  });

  it('checks `writes` on what the push sends: a replace ref that makes the diff look clean changes nothing', () => {
    const agent = [
      'set +e',
      'echo b > src/a.txt && git add src/a.txt && git -c user.name=a -c user.email=a@a commit -qm src',
      'echo rewritten > README.md && git add README.md && git -c user.name=a -c user.email=a@a commit -qm readme',
      // `git diff base HEAD` would now show src/ alone.
      'git replace HEAD HEAD~1 && echo "replace-ref $((40 + 2))"',
      'true',
    ].join('\n');
    const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent, step: codeStep({ writes: ['src/'] }) });
    const r = run(payload, env);
    expect(r.result?.conclusion, r.stdout).toBe('failure');
    if (env.PATH) {
      // Without a sandbox the agent could commit and plant the ref: the push is still judged by its trees.
      expect(r.stdout).toContain('replace-ref 42');
      expect(r.result?.error).toMatchObject({ code: 'writes-violation', message: expect.stringContaining('acme/web: README.md') });
    } else {
      // In the sandbox it could not even commit: its repository is read-only to it.
      expect(r.stdout).not.toContain('replace-ref 42');
      expect(r.result?.error?.code).toBe('writes-violation');
    }
    expect(remotes.branches('acme/web')).toEqual(['main']);
  });
});

describe('files a command hands back are data', () => {
  it("a usage file linked to a runner's file fails the step, and nothing of it is read", () => {
    const agent = `echo change > change.txt; ln -s ${secretFile()} "$CONVEYOR_USAGE_FILE"`;
    const r = run(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent }), { PATH: pathWithoutBubblewrap() });
    expect(r.result?.conclusion).toBe('failure');
    expect(r.result?.error).toMatchObject({ code: 'output-refused', message: expect.stringContaining('is a symbolic link') });
    expect(r.stdout + r.resultText).not.toContain(SECRET);
  });

  it("a reviewer's verdict linked to a file it cannot read (in the sandbox) is refused, not quoted into the check run", () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    remotes.commit('acme/web', 'conveyor/web-7', { 'src/a.txt': 'changed\n' });
    const reviewer = `ln -sf ${secretFile()} "$CONVEYOR_RESULT_FILE"`;
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      agentRun: reviewer,
      step: { id: 'review', kind: 'review', agent: 'coder', needs: [], timeoutMinutes: 30 },
    });
    const r = run(payload);
    expect(r.result?.conclusion).toBe('failure');
    expect(r.result?.error).toMatchObject({ code: 'output-refused', message: expect.stringContaining('$CONVEYOR_RESULT_FILE') });
    expect(r.resultText).not.toContain(SECRET);
    expect(r.stdout).not.toContain(SECRET);
  });

  it("an author's gate file that is a link is refused, and not committed", () => {
    const author = `mkdir -p test && ln -s ${secretFile()} test/accept.sh`;
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      agentRun: author,
      step: gateStep({ author: 'coder', path: 'test/accept.sh', run: 'sh {path}' }),
    });
    const r = run(payload);
    expect(r.result?.error).toMatchObject({ code: 'output-refused', message: expect.stringContaining('is a symbolic link') });
    expect(remotes.branches('acme/web')).toEqual(['main']);
    expect(r.resultText).not.toContain(SECRET);
  });

  it("a git repository an agent leaves in a checkout is not committed: adding it would run its configuration's filters", () => {
    const filter = planted('nested-filter');
    const agent = [
      'mkdir -p vendor/lib && cd vendor/lib && git init -q && echo x > f.txt && echo "*.txt filter=x" > .gitattributes',
      'git add . && git -c user.name=a -c user.email=a@a commit -qm nested',
      `git config filter.x.clean ${filter.path}`,
      'echo changed > f.txt',
    ].join('\n');
    const r = run(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent }));
    expect(r.result?.error).toMatchObject({ code: 'nested-repository', message: expect.stringContaining('vendor/lib') });
    expect(filter.ran()).toBe(false);
    expect(remotes.branches('acme/web')).toEqual(['main']);
  });
});

describe("the host's sockets", () => {
  let servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    servers = [];
  });
  async function secretSocket(path: string): Promise<void> {
    mkdirSync(join(path, '..'), { recursive: true });
    const server = createServer((c) => c.end(`${SECRET}\n`));
    await new Promise<void>((r) => server.listen(path, r));
    servers.push(server);
  }

  it("are out of a gate's reach, open network or not: in /tmp, in /run, anywhere else on the host", async () => {
    const places = [join('/tmp', `conveyor-test-${process.pid}-${Date.now()}`, 's.sock'), join(scratch, 'service', 's.sock')];
    if (existsSync('/run')) places.push(join('/run', `conveyor-test-${process.pid}.sock`));
    for (const p of places) await secretSocket(p);
    try {
      const gate = places.map((p) => `socat -u UNIX-CONNECT:${p} - 2>/dev/null || echo "refused ${p}"`).join('\n');
      const r = await runActionAsync({
        payload: makePayload({ repos: [{ repo: 'acme/web' }], step: gateStep({ run: `set +e\n${gate}\ntrue` }) }),
        dir: scratch,
        env: { GITHUB_SERVER_URL: remotes.url },
        timeoutMs: 60_000,
      });
      if (r === 'hung') throw new Error('the gate hung on a host socket');
      expect(r.result?.conclusion, r.stdout).toBe('success');
      for (const p of places) expect(r.stdout).toContain(`refused ${p}`);
      expect(r.stdout).not.toContain(SECRET);
    } finally {
      for (const p of places) if (p.startsWith('/tmp/') || p.startsWith('/run/')) removeDir(p.startsWith('/tmp/') ? join(p, '..') : p);
    }
  });
});

describe('a step process', () => {
  it('exits once its result is written, though its agent left a request to a plain-http endpoint hanging (the proxy ends it)', async () => {
    // An endpoint that takes the request and never answers.
    const hanging: Socket[] = [];
    const server = createServer((c) => hanging.push(c));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      agentRun: `curl -s --max-time 3 http://127.0.0.1:${port}/v1/messages || true\necho change > change.txt`,
    });
    payload.agents.coder = { ...payload.agents.coder!, network: { allow: ['127.0.0.1'] } };
    const r = await runActionAsync({ payload, dir: scratch, env: { GITHUB_SERVER_URL: remotes.url }, timeoutMs: 60_000 });
    for (const c of hanging) c.destroy();
    await new Promise((resolve) => server.close(resolve));
    expect(r).not.toBe('hung');
    if (r === 'hung') return;
    expect(r.status).toBe(0);
    expect(r.result?.conclusion).toBe('success');
  }, 90_000);
});
