// The plain gate end to end: the bundled entry runs a command in every repository of the change
// set, on the work branch where it exists, and reports the failing lines of each repository.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gateStep, makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { removeActionBundle, runAction } from '../helpers/action.ts';

let remotes: Remotes;
let scratch: string;
const REPOS = [{ repo: 'acme/web' }, { repo: 'acme/api' }, { repo: 'acme/docs' }];
const CHECK = [
  'echo "running in $CONVEYOR_REPO step=$CONVEYOR_STEP attempt=$CONVEYOR_ATTEMPT run=$CONVEYOR_RUN_ID"',
  'for i in $(seq 1 30); do echo "noise line $i"; done',
  'if [ ! -f ok.txt ]; then echo "FAIL: ok.txt is missing in $CONVEYOR_REPO"; echo "token is [${GITHUB_TOKEN:-}]"; exit 1; fi',
  'echo "all good"',
].join('\n');

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-gate-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
  remotes.create('acme/api', { 'README.md': 'api\n', 'ok.txt': 'yes\n' });
  remotes.create('acme/docs', { 'README.md': 'docs\n', 'ok.txt': 'yes\n' });
  // Only the work branch of web has ok.txt: the gate must run there, not on the base.
  git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
  remotes.commit('acme/web', 'conveyor/web-7', { 'ok.txt': 'yes\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});
afterAll(() => removeActionBundle());

describe('gate step', () => {
  it('passes when the command passes in every repository', () => {
    const run = runAction({
      payload: makePayload({ repos: REPOS, step: gateStep({ run: CHECK }) }),
      dir: scratch,
      env: { GITHUB_SERVER_URL: remotes.url },
    });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    expect(run.result?.findings).toBeUndefined();
    expect(run.stdout).toContain('running in acme/docs step=test attempt=1 run=run-1');
    expect(run.result?.commits['acme/web']).toBe(remotes.head('acme/web', 'conveyor/web-7'));
    expect(run.result?.commits['acme/api']).toBe(remotes.head('acme/api', 'main'));
  });

  it("says in its summary which services' commands may reach the runner's Docker daemon (docker: true), and none where no service asks", () => {
    const docker = runAction({
      payload: makePayload({ repos: REPOS, step: gateStep({ run: 'true' }), services: { api: { docker: true } } }),
      dir: scratch,
      env: { GITHUB_SERVER_URL: remotes.url },
    });
    expect(docker.result?.conclusion, docker.stdout + docker.stderr).toBe('success');
    expect(docker.result?.summary).toContain('Every command ran in bubblewrap');
    expect(docker.result?.summary).toContain("The commands of `api` may reach the runner's Docker daemon (`docker: true`), which is root on the runner.");
    const none = runAction({ payload: makePayload({ repos: REPOS, step: gateStep({ run: 'true' }) }), dir: scratch, env: { GITHUB_SERVER_URL: remotes.url } });
    expect(none.result?.summary).toContain('Every command ran in bubblewrap');
    expect(none.result?.summary).not.toContain('Docker');
  });

  it('fails with the failing lines of each failing repository, named, without secrets', () => {
    remotes.commit('acme/docs', 'main', { 'ok.txt': '' }, 'keep');
    git(remotes.bare('acme/docs'), 'branch', 'conveyor/docs-7', 'main');
    // Remove ok.txt on docs' work branch through a scratch clone.
    const work = tempDir('conveyor-gate-scratch-');
    git(work, 'clone', '--quiet', '--branch', 'conveyor/docs-7', remotes.bare('acme/docs'), '.');
    git(work, 'rm', '--quiet', 'ok.txt');
    git(work, 'commit', '--quiet', '-m', 'drop ok');
    git(work, 'push', '--quiet', 'origin', 'conveyor/docs-7');
    removeDir(work);

    const token = 'ghs_gate_token_0123456789abcdef';
    const run = runAction({
      payload: makePayload({ repos: REPOS, step: gateStep({ run: CHECK }) }),
      dir: scratch,
      env: { GITHUB_SERVER_URL: remotes.url, CONVEYOR_TOKEN: token, GITHUB_TOKEN: token },
    });
    expect(run.result?.conclusion).toBe('failure');
    expect(run.result?.error?.code).toBe('gate-failed');
    const findings = run.result?.findings ?? '';
    expect(findings).toContain('### acme/docs');
    expect(findings).toContain('FAIL: ok.txt is missing in acme/docs');
    expect(findings).toContain('token is []');
    expect(findings).not.toContain('acme/web');
    expect(findings).not.toContain('noise line 3\n');
    expect(Buffer.byteLength(findings)).toBeLessThanOrEqual(8192);
    expect(run.result?.error?.message).toContain('acme/docs');
    expect(run.resultText).not.toContain(token);
  });

  it('says in words when a failing command printed nothing: no empty code block, and its command whole in its code span', () => {
    const run = runAction({
      payload: makePayload({ repos: [{ repo: 'acme/web' }], step: gateStep({ run: "test -f 'missing`1`.txt'" }) }),
      dir: scratch,
      env: { GITHUB_SERVER_URL: remotes.url },
    });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('failure');
    const summary = run.result?.summary ?? '';
    expect(run.result?.findings).toBe("### acme/web: ``test -f 'missing`1`.txt'`` (exit 1)\nIt printed nothing.\n");
    expect(summary).toContain('It printed nothing.');
    expect(summary).not.toMatch(/```[a-z]*\n\s*```/);
    expect(summary).toMatch(/\| acme\/web \| ``test -f 'missing`1`\.txt'`` \| \*\*failed\*\* \(exit 1\) \| (<1s|\d+s) \|/);
  });

  it('runs each service gate in the `in` services only', () => {
    const payload = makePayload({
      repos: REPOS,
      step: gateStep({ in: ['api', 'docs'] }),
      services: { api: { gate: 'test -f ok.txt && echo api-gate-ran' }, docs: { gate: 'echo docs-gate-ran' } },
    });
    const run = runAction({ payload, dir: scratch, env: { GITHUB_SERVER_URL: remotes.url } });
    expect(run.result?.conclusion, run.stdout).toBe('success');
    expect(run.stdout).toContain('api-gate-ran');
    expect(run.stdout).toContain('docs-gate-ran');
    expect(Object.keys(run.result?.commits ?? {}).sort()).toEqual(['acme/api', 'acme/docs']);
  });

  it('refuses a gate with nothing to run', () => {
    const run = runAction({ payload: makePayload({ repos: REPOS, step: gateStep() }), dir: scratch, env: { GITHUB_SERVER_URL: remotes.url } });
    expect(run.result?.error?.code).toBe('bad-payload');
    expect(run.result?.error?.message).toContain('step.run');
  });
});
