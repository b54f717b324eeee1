// Agents, gates and their leftovers in the sandbox, through the real `conveyor run` (the embedded
// mode runs the action in a child process, as on a runner). An agent tries what an agent
// following injected orders would: reach a host it is not allowed, read its ancestors' environment
// in /proc, list other processes, write outside its workspace, read the runner's temp folder.
// Every attempt fails, the blocked connection shows in the status, and the allowed host answers.
// A gate with the open network reaches the same server; whatever a gate leaves running (setsid)
// is gone when its step ends, with the sandbox and without one. `sandbox: required` on a runner
// without bubblewrap fails the step with sandbox-unavailable.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../../lib/process.ts';
import { cli } from '../../helpers/cli.ts';
import { createFleet, type Fleet } from '../../helpers/fleet.ts';
import { loopbackServer, pathWithoutBubblewrap, processesWith, type LoopbackServer } from '../../helpers/processes.ts';
import { removeDir } from '../../helpers/repos.ts';

interface Attempt {
  mode: string;
  conclusion?: string;
  summary?: string;
  error?: { code: string; message: string };
  sandbox?: { mode: string; blocked: { host: string; port: number; count: number }[] };
}
interface Status {
  status: string;
  steps: Record<string, { attempts: Attempt[] }>;
}

let server: LoopbackServer;
let fleet: Fleet;

beforeAll(async () => {
  server = await loopbackServer();
});
afterAll(() => server.close());
beforeEach(() => {
  fleet = createFleet();
});
afterEach(() => {
  fleet.cleanup();
  removeDir(fleet.dir);
});

async function status(runId: string): Promise<Status> {
  const r = await cli(['status', runId, '--json', '--state', fleet.state]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

function config(steps: string, options: { agentEnv?: Record<string, string>; sandbox?: string } = {}): string {
  const env = Object.entries(options.agentEnv ?? {})
    .map(([k, v]) => `\n      ${k}: ${JSON.stringify(v)}`)
    .join('');
  return `version: 1
agents:
  prober:
    run: bash "$PROBE"
    network:
      allow: [localhost]
    env:
      PROBE: ${JSON.stringify(join(fleet.dir, 'probe.sh'))}${env}
services:
  web:
    repo: acme/web
pipelines:
  default:
    service: web${options.sandbox ? `\n    sandbox: ${options.sandbox}` : ''}
    steps:
${steps}
`;
}

/** What the agent tries, each outcome written to probe.txt in its checkout (committed and pushed with the change). */
const PROBE = `set +e
{
  echo "== allowed"; curl -s --max-time 30 "http://localhost:$PORT/allowed"
  echo "== not allowed"; curl -s --max-time 30 -o /dev/null -w "status %{http_code}\\n" "http://127.0.0.1:$PORT/not-allowed"
  echo "== ancestors"
  p=$$
  while [ "$p" -gt 0 ]; do
    echo "pid $p: $(tr '\\0' ' ' < /proc/$p/cmdline | cut -c1-60)"
    tr '\\0' '\\n' < /proc/$p/environ
    p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
  done
  echo "== processes"; ps -e -o comm=
  echo "== outside"; echo planted > "$OUTSIDE" && echo "wrote outside" || echo "write refused"
  echo "== runner temp"; ls -a "$RUNNER_DIR"; cat "$RUNNER_DIR"/*
} > probe.txt 2>&1
echo probed
`;

describe('the sandbox in the embedded mode', () => {
  it("an agent cannot reach a host it is not allowed, read its ancestors, see other processes, write outside its workspace or read the runner's temp folder; the status lists the blocked connection", async () => {
    writeFileSync(join(fleet.dir, 'probe.sh'), PROBE);
    const canary = `canary-${randomUUID()}`;
    // The runner's temp folder (where it keeps the files a step sets the job's environment with).
    const runnerTemp = join(fleet.dir, 'runner-temp');
    mkdirSync(runnerTemp);
    const credentials = `runner-credentials-${randomUUID()}`;
    writeFileSync(join(runnerTemp, 'runner-credentials'), credentials);
    const outside = join(fleet.dir, 'outside.txt');
    fleet.writeConfig(
      config('      - { id: implement, kind: code, agent: prober }', { agentEnv: { PORT: String(server.port), OUTSIDE: outside, RUNNER_DIR: runnerTemp } }),
    );

    // The driving process holds a secret (as a developer's shell would), and runs where a runner would.
    const r = await cli(fleet.runArgs('--title', 'Probe', '--issue', '3'), {
      env: { DEPLOY_API_SECRET: canary, RUNNER_TEMP: runnerTemp },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const probe = fleet.remotes.show('acme/web', 'conveyor/web-3', 'probe.txt');
    // The allowed host answered; the other name of the same server was refused by the proxy.
    expect(probe).toContain('reached /allowed');
    expect(probe).toContain('status 403');
    expect(server.hits).toContain(`localhost:${server.port}/allowed`);
    expect(server.hits.some((h) => h.endsWith('/not-allowed'))).toBe(false);
    // Its ancestors end at the sandbox's own init: neither `conveyor run` nor the step process is there.
    expect(probe).toMatch(/^pid 1: \S*bwrap /m);
    expect(probe).not.toContain(canary);
    expect(probe).not.toContain('CONVEYOR_PAYLOAD_PATH=');
    expect(probe).not.toMatch(/^node$/m);
    // Nothing written outside, nothing of the runner's temp folder read.
    expect(probe).toContain('write refused');
    expect(existsSync(outside)).toBe(false);
    expect(probe).not.toContain(credentials);
    expect(probe).toContain('== runner temp');

    const s = await status('web-3');
    const attempt = s.steps.implement!.attempts[0]!;
    expect(attempt.sandbox).toEqual({ mode: 'bubblewrap', blocked: [{ host: '127.0.0.1', port: server.port, count: 1 }] });
    expect(attempt.summary).toContain('Every command ran in bubblewrap');
    expect(attempt.summary).toContain(`| \`127.0.0.1\` | ${server.port} | 1 |`);
    const text = await cli(['status', 'web-3', '--state', fleet.state]);
    expect(text.stdout).toContain(`implement attempt 1  blocked 127.0.0.1:${server.port}`);
  });

  for (const sandboxed of [true, false]) {
    it(`a gate with the open network reaches the server, and what it left running is gone when its step ends (${sandboxed ? 'sandbox' : 'no bubblewrap: the fallback'})`, async () => {
      const mark = randomUUID();
      const pidFile = join(fleet.dir, 'leftover.pid');
      // Without a sandbox the gate may write anywhere, and leaves the leftover's pid for the test; in it, only in its workspace.
      const gate = `curl -sf --max-time 30 http://127.0.0.1:${server.port}/gate-${mark}; export LEFTOVER=${mark}; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > ${sandboxed ? '"$CONVEYOR_WORKSPACE/leftover.pid"' : pidFile}`;
      fleet.writeConfig(config(`      - { id: test, kind: gate, run: ${JSON.stringify(gate)} }`));
      const r = await cli(fleet.runArgs('--title', 'Gate', '--issue', '4'), sandboxed ? {} : { env: { PATH: pathWithoutBubblewrap() } });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(server.hits).toContain(`127.0.0.1:${server.port}/gate-${mark}`);
      const left = processesWith('LEFTOVER', mark);
      for (const pid of left) process.kill(pid, 'SIGKILL');
      expect(left).toEqual([]);
      const attempt = (await status('web-4')).steps.test!.attempts[0]!;
      if (sandboxed) {
        expect(attempt.sandbox).toEqual({ mode: 'bubblewrap', blocked: [] });
        expect(existsSync(pidFile)).toBe(false);
        return;
      }
      // Without a sandbox, `$!` is the host's pid: checked by it too.
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(pid).toBeGreaterThan(1);
      expect(processAlive(pid)).toBe(false);
      // Said once, in the log, the summary and (through the summary) the check run.
      const note = "no sandbox: bubblewrap (bwrap) is not installed on this runner; agents can read this runner's files and reach any host";
      expect(attempt.sandbox).toEqual({ mode: 'none', reason: 'bubblewrap (bwrap) is not installed on this runner', blocked: [] });
      expect(attempt.summary).toContain(note);
      const log = readFileSync(join(dirname(fleet.state), 'attempts', 'web-4', 'test.run.1.0', 'output.log'), 'utf8');
      expect(log.split(note)).toHaveLength(2);
      expect((await cli(['status', 'web-4', '--state', fleet.state])).stdout).toContain('test attempt 1  ran without a sandbox');
    });
  }

  it('`sandbox: required` on a runner without bubblewrap fails the step with sandbox-unavailable, before any agent runs', async () => {
    writeFileSync(join(fleet.dir, 'probe.sh'), 'echo ran > ran.txt\n');
    fleet.writeConfig(config('      - { id: implement, kind: code, agent: prober }', { sandbox: 'required' }));
    const r = await cli(fleet.runArgs('--title', 'Required', '--issue', '5'), { env: { PATH: pathWithoutBubblewrap() } });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const attempt = (await status('web-5')).steps.implement!.attempts[0]!;
    expect(attempt.conclusion).toBe('failure');
    expect(attempt.error?.code).toBe('sandbox-unavailable');
    expect(attempt.error?.message).toContain('the pipeline requires a sandbox (`sandbox: required`), and bubblewrap (bwrap) is not installed on this runner');
    expect(fleet.remotes.branches('acme/web')).toEqual(['main']);
  });
});
