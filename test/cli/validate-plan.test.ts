import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config/load.ts';
import { compilePlan } from '../../core/plan/compile.ts';
import { hashPlan } from '../../core/plan/hash.ts';
import { planSchema } from '../../core/plan/types.ts';
import { git, removeDir, tempDir, writeFiles } from '../helpers/repos.ts';
import { cliSync, ROOT } from '../helpers/cli.ts';

const DESIGN = join(ROOT, 'test/fixtures/configs/plan/design.yml');

let dir: string;
beforeAll(() => {
  dir = tempDir('conveyor-cli-');
  mkdirSync(join(dir, '.github'));
  copyFileSync(DESIGN, join(dir, '.github/conveyor.yml'));
  writeFiles(dir, {
    'two.yml': `version: 1
agents: { coder: { run: ./code.sh } }
services: { web: { repo: acme/web } }
pipelines:
  default: { steps: [ { id: a, kind: code, agent: coder } ] }
  hotfix: { steps: [ { id: b, kind: code, agent: coder } ] }
`,
    'bad.yml': `version: 1
agents: { coder: { run: ./code.sh } }
services: { web: { repo: acme/web, gate: npm test } }
pipelines:
  default:
    steps:
      - { id: a, kind: code, agent: codr }
      - { id: b, kind: gate, needs: [c] }
`,
    'broken.yml': 'version: 1\nservices: [\n',
    'endpoint.yml': `version: 1
agents:
  coder: { preset: codex, endpoint: "https://gateway.example.com/v1", secrets: [OPENAI_API_KEY] }
services: { web: { repo: acme/web } }
pipelines:
  default: { steps: [ { id: a, kind: code, agent: coder } ] }
`,
    'preset.yml': `version: 1
agents:
  coder: { preset: claude-code }
services: { web: { repo: acme/web } }
pipelines:
  default: { steps: [ { id: a, kind: code, agent: coder } ] }
`,
  });
});
afterAll(() => removeDir(dir));

describe('conveyor validate', () => {
  it('prints one line with the counts and exits 0 on a valid file (default path)', () => {
    const r = cliSync(['validate'], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe('✓ .github/conveyor.yml: 1 pipeline, 3 services, 2 agents\n');
  });

  it('prints every error as PATH:LINE:COL key.path: message on stderr and exits 1', () => {
    const r = cliSync(['validate', '--config', 'bad.yml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^bad\.yml:7:\d+ pipelines\.default\.steps\[0\]\.agent: .*"codr"/);
    expect(lines[1]).toMatch(/^bad\.yml:8:\d+ pipelines\.default\.steps\[1\]\.needs\[0\]: .*"c"/);
    expect(lines[2]).toBe('✗ bad.yml: 2 errors');
  });

  it('reports a YAML syntax error with its position and exits 1', () => {
    const r = cliSync(['validate', '-c', 'broken.yml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^broken\.yml:\d+:\d+ /);
  });

  it('exits 2 naming a missing file and what to do', () => {
    const r = cliSync(['validate', '--config', 'nope/conveyor.yml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no configuration file at nope/conveyor.yml');
    expect(r.stderr).toContain('conveyor init');
  });

  it('exits 2 when --config names a folder', () => {
    const r = cliSync(['validate', '--config', '.github'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('.github is not a file');
  });

  it("warns, without failing, when a preset's credential is neither listed nor set in this shell", () => {
    const r = cliSync(['validate', '-c', 'preset.yml'], { cwd: dir, env: { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: '' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('✓ preset.yml: 1 pipeline, 1 service, 1 agent (1 warning)\n');
    expect(r.stderr).toMatch(
      /^preset\.yml:3:20 agents\.coder\.preset: warning: agent "coder" \(Claude Code\) will find no credential: its CLI reads one of ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN, and none is listed in `secrets` or set in this shell\./,
    );
    const set = cliSync(['validate', '-c', 'preset.yml'], { cwd: dir, env: { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat-1' } });
    expect(set).toMatchObject({ code: 0, stderr: '', stdout: '✓ preset.yml: 1 pipeline, 1 service, 1 agent\n' });
  });

  it('says where an agent with an endpoint goes, and which of its keys Conveyor keeps from it', () => {
    const r = cliSync(['validate', '-c', 'endpoint.yml'], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      '✓ endpoint.yml: 1 pipeline, 1 service, 1 agent\n  agent "coder" talks to https://gateway.example.com/v1; CODEX_API_KEY, OPENAI_API_KEY kept by Conveyor\'s key forwarder\n',
    );
  });

  it('exits 2 on bad usage', () => {
    const r = cliSync(['validate', '--bogus'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
  });
});

describe('conveyor plan', () => {
  const expected = (() => {
    const loaded = loadConfig(readFileSync(DESIGN, 'utf8'), DESIGN);
    if (!loaded.ok) throw new Error('design fixture invalid');
    return compilePlan(loaded.config, 'default');
  })();

  it('shows waves, repair loops, change set, deploy waves and the plan hash', () => {
    const r = cliSync(['plan'], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const out = r.stdout;
    expect(out).toContain('Pipeline default  (label "conveyor")');
    expect(out).toMatch(/Waves[^\n]*\n {2}1 {2}implement +code +agent coder/);
    expect(out).toMatch(/\n {2}5 {2}approve +approval +1 approval from anyone with write access; needs preview, review, test/);
    expect(out).toMatch(/Repair loops\n {2}test +on failure: coder repairs.*2 repairs at most/);
    expect(out).toMatch(/ {2}review +on a failing verdict: coder repairs.*1 repair at most/);
    expect(out).toMatch(/Change set\n {2}acme\/web {2}primary {2}base main {2}services web\n {2}acme\/api {2}sibling {2}base main {2}services api\n/);
    expect(out).toMatch(/Deploy waves[^\n]*\n {2}1 {2}api\n {2}2 {2}web\n/);
    expect(out).toContain(`Plan hash  ${expected.hash}`);
    // The protected paths, the default's here, and what they mean with this pipeline's approval step.
    expect(out).toMatch(
      /Protected paths {2}the default\n {2}a change to one merges only after an approval of the heads that hold it\n {2}\.github\/\*\* {2}CODEOWNERS/,
    );
    expect(out).toContain('**/package-lock.json');
  });

  it('--json prints the compiled plan with its hash', () => {
    const r = cliSync(['plan', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const plan = planSchema.parse(JSON.parse(r.stdout));
    expect(plan).toEqual(expected);
    expect(hashPlan(plan)).toBe(plan.hash);
  });

  it('compiles the pipeline asked for', () => {
    const r = cliSync(['plan', '-c', 'two.yml', '--pipeline', 'hotfix', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ pipeline: 'hotfix', label: 'conveyor:hotfix', waves: [['b']] });
  });

  it('exits 2 on an unknown pipeline, naming the known ones and the closest', () => {
    const r = cliSync(['plan', '-c', 'two.yml', '--pipeline', 'hotfx'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no pipeline "hotfx" in two.yml; did you mean "hotfix"? Known pipelines: default, hotfix');
  });

  it('exits 1 with the errors of an invalid file', () => {
    const r = cliSync(['plan', '-c', 'bad.yml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bad\.yml:7:\d+ pipelines\.default\.steps\[0\]\.agent: /);
  });

  it('takes the repository of a service without repo from --repo or the git remote origin, else exits 2', () => {
    const repoDir = tempDir('conveyor-cli-repo-');
    try {
      writeFiles(repoDir, {
        '.github/conveyor.yml':
          'version: 1\nagents: { a: { run: ./a } }\nservices: { app: {} }\npipelines: { default: { steps: [ { id: go, kind: code, agent: a } ] } }\n',
      });
      // No remote to infer it from: the plan is shown under a stand-in name, and says so.
      const none = cliSync(['plan', '--json'], { cwd: repoDir });
      expect(none.code).toBe(0);
      const standIn = `local/${basename(repoDir)}`;
      expect(JSON.parse(none.stdout).services.app.repo).toBe(standIn);
      expect(none.stderr).toContain(`shown in ${standIn}`);
      expect(none.stderr).toContain('pass --repo owner/name for the hash a run would be pinned to');
      // A run needs the real one.
      const run = cliSync(['run', '--config', '.github/conveyor.yml', '--title', 't', '--remotes', repoDir, '--state', join(repoDir, 'state.db')], {
        cwd: repoDir,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('service "app" has no `repo`');
      expect(run.stderr).toContain('--repo owner/name');

      const given = cliSync(['plan', '--json', '--repo', 'me/app'], { cwd: repoDir });
      expect(JSON.parse(given.stdout).changeSet).toEqual([{ repo: 'me/app', base: 'main', role: 'primary', services: ['app'] }]);

      const bad = cliSync(['plan', '--repo', 'not a repo'], { cwd: repoDir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--repo must be "owner/name", got "not a repo"');
      // It would name a folder outside --remotes in the embedded mode.
      const outside = cliSync(['plan', '--repo', '../app'], { cwd: repoDir });
      expect(outside.code).toBe(2);
      expect(outside.stderr).toContain('--repo must be "owner/name", got "../app"');

      git(repoDir, 'init', '-q');
      git(repoDir, 'remote', 'add', 'origin', 'git@github.com:acme/app.git');
      const inferred = cliSync(['plan', '--json'], { cwd: repoDir });
      expect(inferred.code).toBe(0);
      expect(JSON.parse(inferred.stdout).services.app.repo).toBe('acme/app');
    } finally {
      removeDir(repoDir);
    }
  });
});

describe('conveyor --help and --version', () => {
  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const r = cliSync(['--version'], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('--help lists the commands, and each command has its own help', () => {
    const r = cliSync(['--help'], { cwd: dir });
    expect(r.code).toBe(0);
    for (const c of ['validate', 'plan', 'init']) expect(r.stdout).toMatch(new RegExp(`\\n {2}${c} `));
    const plan = cliSync(['plan', '--help'], { cwd: dir });
    expect(plan.code).toBe(0);
    for (const o of ['--config <path>', '--pipeline <name>', '--json', '--repo <owner/name>']) expect(plan.stdout).toContain(o);
  });
});
