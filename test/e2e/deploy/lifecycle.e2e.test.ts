// Preview environments through the real `conveyor` command: kept while a run waits, torn down when
// it is cancelled or by `conveyor teardown` after a failure (retried, failures reported), kept by
// --keep-envs, and a deploy resumed after SIGKILL part-way through deploys only what had not settled.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, startCli, waitForOutput } from '../../helpers/cli.ts';
import { processesWith } from '../../helpers/processes.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../../helpers/repos.ts';
import { createRecorder, readTimes } from '../../action/deploy-fixture.ts';
import { pathWithoutBubblewrap } from '../../helpers/processes.ts';

let remotes: Remotes;
let dir: string;
let rec: string;

function config(webBehaviour = 'ok'): string {
  const path = join(dir, 'conveyor.yml');
  writeFileSync(
    path,
    `version: 1
services:
  web:
    repo: acme/web
    depends-on: [api]
    deploy: { run: '"$REC/deploy.sh" 0 ${webBehaviour}', teardown: '"$REC/teardown.sh"' }
  api:
    repo: acme/api
    deploy: { run: '"$REC/deploy.sh" 0 ok', teardown: '"$REC/teardown.sh"' }
pipelines:
  default:
    service: web
    involves: [api]
    steps:
      - { id: preview, kind: deploy }
      - { id: check, kind: gate, run: 'test -z "$FAIL_GATE"' }
      - { id: approve, kind: approval }
`,
  );
  return path;
}

const state = () => join(dir, 'state.db');
// What these tests watch (order, retries, what is up) is recorded in $REC, outside the workspaces,
// where a sandboxed deploy cannot write: they run without bubblewrap. The sandbox's walls for
// deploys are checked in test/e2e/sandbox and test/lib/sandbox.test.ts.
const unsandboxed = { PATH: pathWithoutBubblewrap() };
const run = (env: Record<string, string> = {}, ...extra: string[]) =>
  cli(['run', '--config', config(), '--remotes', remotes.dir, '--title', 'Preview it', '--state', state(), ...extra], {
    cwd: dir,
    env: { ...unsandboxed, REC: rec, ...env },
  });
const conveyor = (args: string[], env: Record<string, string> = {}) =>
  cli([...args, '--state', state()], { cwd: dir, env: { ...unsandboxed, REC: rec, ...env } });

interface Status {
  status: string;
  environments: { service: string; state: string; url?: string; error?: string }[];
}
async function status(id: string): Promise<Status> {
  const r = await conveyor(['status', id, '--json']);
  return JSON.parse(r.stdout) as Status;
}
const tornDown = () => (existsSync(join(rec, 'teardown.log')) ? readFileSync(join(rec, 'teardown.log'), 'utf8').trim().split('\n') : []);

beforeEach(() => {
  remotes = createRemotes();
  dir = tempDir('conveyor-e2e-deploy-');
  rec = createRecorder(dir);
  remotes.create('acme/web', { 'README.md': 'web\n' });
  remotes.create('acme/api', { 'README.md': 'api\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(dir);
});

describe('preview environments over a run', () => {
  it('keeps them while the run waits and tears them down, consumers first, when it is cancelled', async () => {
    const r = await run();
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const waiting = await status('web-1');
    expect(waiting.environments.map((e) => [e.service, e.state])).toEqual([
      ['api', 'ready'],
      ['web', 'ready'],
    ]);
    expect(r.stdout).toContain('http://web.preview.test/web-1-web');
    expect(tornDown()).toEqual([]);
    // Each teardown outlasts several of the cancelling command's lease heartbeats, which must not
    // take the teardown it carries out for a step to stop.
    const c = await conveyor(['cancel', 'web-1'], { TEARDOWN_SLEEP: '2.5' });
    expect(c.stdout, c.stderr).toContain('Run web-1: cancelled');
    expect(tornDown().map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['web web-1-web', 'api web-1-api']);
    expect((await status('web-1')).environments).toEqual([]);
  });

  it('keeps them after a failed run; `conveyor teardown` retries, reports what stays up, and removes it on a later try', async () => {
    const r = await run({ FAIL_GATE: '1' });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect((await status('web-1')).environments.filter((e) => e.state === 'ready')).toHaveLength(2);
    expect(tornDown()).toEqual([]);
    // Each teardown command fails its first 5 tries: 4 tries (1 + 3 retries) are not enough.
    const first = await conveyor(['teardown', 'web-1'], { TEARDOWN_FAILS: '5' });
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(first.stdout).toMatch(/STILL UP web .*teardown failed/);
    expect(first.stdout).toMatch(/STILL UP api /);
    expect(first.stderr).toContain('conveyor teardown web-1');
    expect(tornDown().filter((l) => l.startsWith('web '))).toHaveLength(4);
    const stuck = await status('web-1');
    expect(stuck.environments.map((e) => e.error)).toEqual([expect.stringContaining('teardown failed'), expect.stringContaining('teardown failed')]);
    const second = await conveyor(['teardown', 'web-1'], { TEARDOWN_FAILS: '5' });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/removed +web/);
    expect((await status('web-1')).environments).toEqual([]);
    const again = await conveyor(['teardown', 'web-1']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('no environment up');
  });

  it('tears them down when the run succeeds, unless --keep-envs keeps them for `conveyor teardown`', async () => {
    const done = await run({}, '--approve');
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(tornDown()).toHaveLength(2);

    const kept = await cli(['run', '--config', config(), '--remotes', remotes.dir, '--title', 'Again', '--state', state(), '--approve', '--keep-envs'], {
      cwd: dir,
      env: { ...unsandboxed, REC: rec },
    });
    expect(kept.code, kept.stdout + kept.stderr).toBe(0);
    expect(tornDown()).toHaveLength(2);
    const s = await status('web-2');
    expect(s.status).toBe('succeeded');
    expect(s.environments.map((e) => e.state)).toEqual(['ready', 'ready']);
    const t = await conveyor(['teardown', 'web-2']);
    expect(t.code, t.stdout + t.stderr).toBe(0);
    expect(
      tornDown()
        .slice(2)
        .map((l) => l.split(' ')[1]),
    ).toEqual(['web-2-web', 'web-2-api']);
  });

  it('refuses an unknown run with the runs it knows', async () => {
    await run();
    const r = await conveyor(['teardown', 'nope-1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no run nope-1');
    expect(r.stderr).toContain('web-1');
  });

  it('records each environment as it settles, and after SIGKILL part-way deploys only what had not settled', async () => {
    const started = startCli(['run', '--config', config('block'), '--remotes', remotes.dir, '--title', 'Preview it', '--state', state()], {
      cwd: dir,
      env: { ...unsandboxed, REC: rec },
    });
    await waitForOutput(
      () => (existsSync(join(rec, 'log')) ? readFileSync(join(rec, 'log'), 'utf8') : ''),
      (t) => t.includes('web start'),
    );
    // The provider's outcome reached the store while the step still runs.
    let live: Status | undefined;
    while (!live?.environments.some((e) => e.service === 'api' && e.state === 'ready')) live = await status('web-1');
    expect(live.status).toBe('running');
    // Kill everything: the driving process, the step process and the blocked deploy, each whole.
    // The deploy runs in a process group of its own: it and everything it started are found by
    // the variable they all inherit.
    started.child.kill('SIGKILL');
    await started.done;
    const attempt = join(dir, 'attempts', 'web-1', 'preview.run.1.0');
    for (const pid of [-Number(readFileSync(join(attempt, 'pid'), 'utf8')), ...processesWith('REC', rec)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    writeFileSync(join(rec, 'go'), '');
    const retried = await conveyor(['retry', 'web-1', '--approve']);
    expect(retried.code, retried.stdout + retried.stderr).toBe(0);
    const times = readTimes(rec);
    expect(times.get('api')!.starts).toBe(1);
    expect(times.get('web')!.starts).toBe(2);
    const redone = JSON.parse(readFileSync(join(dir, 'attempts', 'web-1', 'preview.run.1.1', 'payload.json'), 'utf8')) as {
      environments: { service: string }[];
    };
    expect(redone.environments.map((e) => e.service)).toEqual(['api']);
    // Succeeded: both were torn down at the end, the resumed consumer included.
    expect(
      tornDown()
        .map((l) => l.split(' ')[0])
        .sort(),
    ).toEqual(['api', 'web']);
  });
});
