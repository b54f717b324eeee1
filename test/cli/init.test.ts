import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config/load.ts';
import { compilePlan } from '../../core/plan/compile.ts';
import { DEFAULT_RUNS_ON } from '../../core/config/defaults.ts';
import { createRun } from '../../core/run/reducer.ts';
import { buildPayload } from '../../core/run/payload.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { cliSync, ROOT } from '../helpers/cli.ts';
import { TEST_ORIGIN } from '../helpers/plans.ts';

const STARTER = readFileSync(join(ROOT, 'examples/starter/conveyor.yml'), 'utf8');
const WORKFLOW = readFileSync(join(ROOT, 'workflows/conveyor.yml'), 'utf8');

let dir: string;
beforeEach(() => {
  dir = tempDir('conveyor-init-');
});
afterEach(() => removeDir(dir));

describe('conveyor init', () => {
  it('writes the starter configuration and the workflow, and the configuration validates', () => {
    const r = cliSync(['init'], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('✓ wrote .github/conveyor.yml');
    expect(r.stdout).toContain('✓ wrote .github/workflows/conveyor.yml');
    // The next steps match the template: no key or token to set (issue #15).
    expect(r.stdout).toContain("trades the runner's OIDC token");
    // ...at the app the repository's variable names, which the workflow needs (the payload cannot say where).
    expect(r.stdout).toContain('set the repository (or organisation) variable CONVEYOR_PUBLIC_URL');
    expect(r.stdout).not.toMatch(/PRIVATE_KEY|CONVEYOR_APP_ID/);
    expect(readFileSync(join(dir, '.github/conveyor.yml'), 'utf8')).toBe(STARTER);
    expect(readFileSync(join(dir, '.github/workflows/conveyor.yml'), 'utf8')).toBe(WORKFLOW);

    const v = cliSync(['validate'], { cwd: dir });
    expect(v).toMatchObject({ code: 0, stdout: '✓ .github/conveyor.yml: 1 pipeline, 1 service, 2 agents\n' });
    const p = cliSync(['plan', '--repo', 'me/app'], { cwd: dir });
    expect(p.code).toBe(0);
    expect(p.stdout).toContain('me/app  primary');
    // In a folder not yet pushed anywhere, the plan still shows, under a stand-in repository.
    const standIn = cliSync(['plan'], { cwd: dir });
    expect(standIn.code).toBe(0);
    expect(standIn.stdout).toContain(`local/${basename(dir)}  primary`);
    expect(standIn.stderr).toContain('pass --repo owner/name');
  });

  it('writes into --dir', () => {
    const r = cliSync(['init', '--dir', dir], { cwd: ROOT });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, '.github/conveyor.yml'), 'utf8')).toBe(STARTER);
  });

  it('refuses to overwrite without --force, naming the file, and writes nothing', () => {
    expect(cliSync(['init'], { cwd: dir }).code).toBe(0);
    writeFileSync(join(dir, '.github/conveyor.yml'), '# mine\n');
    const r = cliSync(['init'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.github/conveyor.yml already exists');
    expect(r.stderr).toContain('--force');
    expect(readFileSync(join(dir, '.github/conveyor.yml'), 'utf8')).toBe('# mine\n');

    const forced = cliSync(['init', '--force'], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('(overwritten)');
    expect(readFileSync(join(dir, '.github/conveyor.yml'), 'utf8')).toBe(STARTER);
  });

  it('refuses when only the workflow exists, and writes neither file', () => {
    expect(cliSync(['init'], { cwd: dir }).code).toBe(0);
    removeDir(join(dir, '.github/conveyor.yml'));
    const r = cliSync(['init'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.github/workflows/conveyor.yml already exists');
    expect(() => readFileSync(join(dir, '.github/conveyor.yml'))).toThrow();
  });

  it('exits 2 when --dir does not exist', () => {
    const r = cliSync(['init', '--dir', join(dir, 'missing')], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not an existing folder');
  });
});

describe('the starter configuration', () => {
  it('points editors at the committed JSON Schema on its first line', () => {
    const first = STARTER.split('\n')[0]!;
    const m = /^# yaml-language-server: \$schema=https:\/\/raw\.githubusercontent\.com\/conveyor-dev\/conveyor\/main\/(.+)$/.exec(first);
    expect(m).not.toBeNull();
    expect(m![1]).toBe('schema/conveyor.schema.json');
    expect(JSON.parse(readFileSync(join(ROOT, m![1]!), 'utf8'))).toHaveProperty('properties.pipelines');
  });

  it('is valid and compiles', () => {
    const loaded = loadConfig(STARTER, 'starter');
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const plan = compilePlan(loaded.config, 'default', { primaryRepo: 'me/app' });
    expect(plan.waves.flat()).toEqual(['implement', 'test', 'review', 'approve', 'ship']);
    expect(plan.label).toBe('conveyor');
  });
});

describe('the workflow template', () => {
  const wf = parse(WORKFLOW) as {
    on: { workflow_dispatch: { inputs: Record<string, { required?: boolean; type?: string }> } };
    permissions: Record<string, string>;
    jobs: Record<string, { steps: Array<{ uses?: string; run?: string; with?: Record<string, string>; env?: Record<string, string> }> }>;
  };
  const steps = Object.values(wf.jobs).flatMap((j) => j.steps);

  it('is started by workflow_dispatch with a required payload input', () => {
    expect(Object.keys(wf.on)).toEqual(['workflow_dispatch']);
    expect(wf.on.workflow_dispatch.inputs.payload).toMatchObject({ required: true, type: 'string' });
  });

  it("asks its own token for reading contents and for the runner's OIDC token, nothing more", () => {
    expect(wf.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
  });

  it('holds no key and no token: the action trades the OIDC token at the app (issue #15)', () => {
    // The app's private key no longer lives in Actions secrets, and nothing mints a token here.
    expect(WORKFLOW).not.toMatch(/create-github-app-token|PRIVATE_KEY|token-file/);
    // Actions secrets appear only as commented examples of the agents' and deploys' credentials.
    const code = WORKFLOW.split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n');
    expect(code).not.toMatch(/secrets\./);
    // The sandbox's install, the CLI cache's key and the cache, then the action: nothing else.
    expect(steps).toHaveLength(4);
    expect(steps.filter((s) => s.uses !== undefined).map((s) => s.uses)).toEqual(['actions/cache@v4', 'conveyor-dev/conveyor@v1']);
    const run = steps.find((s) => s.uses === 'conveyor-dev/conveyor@v1')!;
    expect(run.uses).toBe('conveyor-dev/conveyor@v1');
    expect(run.with).toEqual({ payload: '${{ inputs.payload }}' });
    // A repository variable may pin where the OIDC token goes; the check run names the attempt.
    expect(run.env).toEqual({ CONVEYOR_CHECK_RUN_ID: '${{ inputs.check-run }}', CONVEYOR_PUBLIC_URL: '${{ vars.CONVEYOR_PUBLIC_URL }}' });
  });

  it("shows where the agents' and deploys' credentials go: the action step's env, from Actions secrets", () => {
    const runStep = WORKFLOW.slice(WORKFLOW.indexOf('- name: Run the step'));
    for (const name of ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY', 'COPILOT_GITHUB_TOKEN', 'VERCEL_TOKEN']) {
      expect(runStep).toMatch(new RegExp(`^ {10}# ${name}: \\$\\{\\{ secrets\\.${name} \\}\\}`, 'm'));
    }
    // Uncommented, each lands in the action step's env: (checked by parsing the file with one of them on).
    const on = parse(WORKFLOW.replace('# ANTHROPIC_API_KEY:', 'ANTHROPIC_API_KEY:')) as {
      jobs: { step: { steps: { uses?: string; env?: Record<string, string> }[] } };
    };
    expect(on.jobs.step.steps.find((st) => st.uses === 'conveyor-dev/conveyor@v1')?.env?.ANTHROPIC_API_KEY).toBe('${{ secrets.ANTHROPIC_API_KEY }}');
  });

  it('names its runs with the check run id the app looks them up by', () => {
    expect((parse(WORKFLOW) as { 'run-name': string })['run-name']).toBe('conveyor / ${{ inputs.step }} [check run ${{ inputs.check-run }}]');
  });

  it('makes the sandbox possible before the step, only when missing, and never fails the job (test/workflows/sandbox-step.test.ts runs it)', () => {
    const install = steps.find((s) => s.run?.includes('apt-get install'));
    expect(install?.run).toContain('apt-get install -y -qq bubblewrap socat');
    expect(install?.run).toContain('if ! command -v bwrap >/dev/null || ! command -v socat >/dev/null; then');
    expect(install?.run).toContain('apparmor_restrict_unprivileged_userns');
    expect((install as { 'continue-on-error'?: boolean })['continue-on-error']).toBe(true);
    expect(steps.indexOf(install!)).toBeLessThan(steps.findIndex((s) => s.uses === 'conveyor-dev/conveyor@v1'));
  });

  it("runs its job on the step's runs-on, read from the payload the app builds, else on ubuntu-latest", () => {
    const job = (parse(WORKFLOW) as { jobs: { step: { 'runs-on': string } } }).jobs.step['runs-on'];
    // A stand-in for GitHub's evaluation of exactly this expression shape: a path into the payload, or the fallback.
    const shape = /^\$\{\{ fromJSON\(inputs\.payload\)\.([\w.]+) \|\| '([^']+)' \}\}$/.exec(job);
    expect(shape, job).not.toBeNull();
    const [, path, fallback] = shape!;
    expect(fallback).toBe(DEFAULT_RUNS_ON);
    const evaluate = (payload: StepPayload): unknown =>
      path!.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], JSON.parse(JSON.stringify(payload))) ?? fallback;
    const config = (runsOn: string) => `
version: 1
agents: { coder: { run: ./agent.sh } }
services: { web: {} }
pipelines:
  default:${runsOn}
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: npm test, runs-on: [self-hosted, gpu] }
`;
    const payloadOf = (text: string, step: string) => {
      const loaded = loadConfig(text, 'conveyor.yml');
      if (!loaded.ok) throw new Error('invalid');
      const plan = compilePlan(loaded.config, 'default', { primaryRepo: 'acme/web' });
      const run = createRun({ id: 'acme-web-7', plan, issue: { repo: 'acme/web', number: 7, title: 't', body: 'b' }, origin: TEST_ORIGIN, at: 'x' });
      return buildPayload(run, { step, attempt: 1, epoch: 0, mode: 'run' });
    };
    expect(evaluate(payloadOf(config(''), 'implement'))).toBe('ubuntu-latest');
    expect(evaluate(payloadOf(config(''), 'test'))).toEqual(['gpu', 'self-hosted']);
    expect(evaluate(payloadOf(config('\n    runs-on: macos-14'), 'implement'))).toBe('macos-14');
    // Still one payload input: GitHub limits a workflow_dispatch's inputs.
    expect(Object.keys(wf.on.workflow_dispatch.inputs)).toEqual(['payload', 'step', 'check-run']);
  });

  it('has no ${{ }} expression inside any run: line', () => {
    for (const s of steps) if (s.run !== undefined) expect(s.run).not.toContain('${{');
    expect(WORKFLOW.split('\n').filter((l) => /^\s*-?\s*run:/.test(l) && l.includes('${{'))).toEqual([]);
  });
});
