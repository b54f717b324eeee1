// Each agent preset's command line, run for real: a stand-in executable of the CLI's name on PATH
// (test/fixtures/agents/stand-in.mjs) records its argv, standard input and environment. The flags,
// the prompt, the model and exactly the credentials the agent lists (its own and its preset's)
// arrive; no other secret-named variable, nor another command's secret, nor a GitHub token does.
// The coder works at the root of two repositories, the reviewer inside the primary one.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRESETS, type PresetName } from '../../core/config/presets.ts';
import { modelApiOf } from '../../core/config/model-api.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import type { Usage } from '../../core/contract/usage.ts';
import { isSecretName } from '../../lib/secrets.ts';
import { git } from '../helpers/repos.ts';
import { createBench, type Bench, type StandInRecord } from './preset-fixture.ts';

/** What the runner's environment holds: every preset's credentials, others' secrets, and tokens. */
const RUNNER_SECRETS: Record<string, string> = {
  ANTHROPIC_API_KEY: 'sk-ant-stand-in-0001',
  CLAUDE_CODE_OAUTH_TOKEN: 'oauth-stand-in-0002',
  CODEX_API_KEY: 'codex-stand-in-0003',
  OPENAI_API_KEY: 'sk-openai-stand-in-0004',
  GEMINI_API_KEY: 'gemini-stand-in-0005',
  GOOGLE_API_KEY: 'google-stand-in-0006',
  COPILOT_GITHUB_TOKEN: 'github_pat_stand_in_0007',
  DEEPSEEK_API_KEY: 'deepseek-stand-in-0008',
  OPENROUTER_API_KEY: 'openrouter-stand-in-0009',
  // Listed by the coder only: not secret-named, so only `secrets` keeps it from the reviewer.
  TEAM_MODEL_ROUTE: 'team-route-stand-in-0010',
  // A service's, for its deploys only.
  VERCEL_TOKEN: 'vercel-stand-in-0011',
  // Listed nowhere.
  DB_PASSWORD: 'hunter2-stand-in-0012',
  GITHUB_TOKEN: 'ghs_workflowtokenstandin0013',
};

/** The usage each CLI's stand-in reports (test/fixtures/agents/stand-in.mjs), as the result carries it. */
const USAGE: Record<PresetName, Usage | undefined> = {
  // Input tokens: uncached, cache writes and cache reads together.
  'claude-code': { inputTokens: 150, outputTokens: 40, costUsd: 0.0123, turns: 3, models: ['claude-sonnet-4-5'] },
  // Two turn.completed events, summed.
  codex: { inputTokens: 300, outputTokens: 50, turns: 2 },
  gemini: { inputTokens: 210, outputTokens: 45, models: ['gemini-2.5-pro'] },
  // From the file it writes with --usage-output-file.
  copilot: { inputTokens: 400, outputTokens: 60, models: ['gpt-5'] },
  aider: undefined,
};

const MODELS: Record<PresetName, { model: string; onCli: string }> = {
  'claude-code': { model: 'anthropic/claude-sonnet-4-5', onCli: 'claude-sonnet-4-5' },
  codex: { model: 'openai/gpt-5', onCli: 'gpt-5' },
  gemini: { model: 'google/gemini-2.5-pro', onCli: 'gemini-2.5-pro' },
  copilot: { model: 'github/gpt-5', onCli: 'gpt-5' },
  aider: { model: 'anthropic/claude-sonnet-4-5', onCli: 'anthropic/claude-sonnet-4-5' },
};

/** The argv each preset's CLI must get, written out here independently of the preset data. */
function expectedArgv(preset: PresetName, role: 'coder' | 'reviewer', ws: string, dir: string): (string | RegExp)[] {
  const model = ['--model', MODELS[preset].onCli];
  switch (preset) {
    case 'claude-code': {
      const base = ['--print', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions', '--add-dir', ws, ...model];
      // The coder's max-usd: Claude Code stops itself at it.
      return role === 'coder' ? [...base, '--max-budget-usd', '2.5'] : [...base, '--json-schema', /^\{"type":"object".*"verdict"/];
    }
    case 'codex': {
      const base = ['exec', '--json', '--color', 'never', '--dangerously-bypass-approvals-and-sandbox'];
      return role === 'coder'
        ? [...base, '--skip-git-repo-check', ...model]
        : [...base, ...model, '--output-schema', join(dir, 'verdict.schema.json'), '--output-last-message', join(dir, 'review-result.json')];
    }
    case 'gemini':
      return [
        '--output-format',
        'stream-json',
        '--approval-mode',
        'yolo',
        '--skip-trust',
        '--include-directories',
        ws,
        '--prompt',
        'Do what the instructions above ask.',
        ...model,
      ];
    case 'copilot':
      return [
        '--allow-all',
        '--no-ask-user',
        '--no-auto-update',
        '--output-format',
        'json',
        ...model,
        '--usage-output-file',
        join(dir, role === 'coder' ? 'cli-usage.json' : 'review-cli-usage.json'),
        '--prompt',
        /^# Conveyor: /,
      ];
    case 'aider': {
      const base = [
        '--yes-always',
        '--no-auto-commits',
        '--no-gitignore',
        '--no-check-update',
        '--no-show-model-warnings',
        '--no-pretty',
        '--no-fancy-input',
        '--analytics-disable',
      ];
      return role === 'coder'
        ? [...base, '--no-git', ...model, '--message-file', join(dir, 'prompt.md')]
        : [...base, ...model, '--chat-mode', 'ask', '--message-file', join(dir, 'review-prompt.md')];
    }
  }
}

/** The folder of a run's own files (its prompt, result, usage), made for that run outside the workspace. */
const filesOf = (rec: StandInRecord): string => dirname(rec.env.CONVEYOR_PROMPT_FILE!);

let bench: Bench;
let scratch: string;
let remotes: Bench['remotes'];

beforeEach(() => {
  bench = createBench();
  scratch = bench.scratch;
  remotes = bench.remotes;
});
afterEach(() => bench.cleanup());

const standIn = (name: string) => bench.standIn(name);
const recordOf = (ws: string, cli: string) => bench.recordOf(ws, cli);

function payloadFor(preset: PresetName, step: 'implement' | 'review'): StepPayload {
  return bench.payloadFrom(
    `
version: 1
agents:
  coder: { preset: ${preset}, model: ${MODELS[preset].model}, secrets: [TEAM_MODEL_ROUTE], max-usd: 2.5 }
  reviewer: { preset: ${preset}, model: ${MODELS[preset].model} }
services:
  web: { repo: acme/web, secrets: [VERCEL_TOKEN], deploy: { run: ./preview.sh } }
  api: { repo: acme/api }
pipelines:
  default:
    service: web
    involves: [api]
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: review, kind: review, agent: reviewer }
`,
    step,
  );
}

const run = (payload: StepPayload, ws: string, path?: string) => bench.run(payload, ws, { env: RUNNER_SECRETS, ...(path ? { path } : {}) });

/** The credentials of the preset's coder that Conveyor's key forwarder keeps from it. */
const keptKeys = (preset: PresetName): string[] => modelApiOf({ preset, model: MODELS[preset].model })?.keys.map((k) => k.variable) ?? [];

/** The names in an environment that are secrets of this test or look like one. */
const secretNames = (env: Record<string, string>): string[] =>
  Object.keys(env)
    .filter((k) => k in RUNNER_SECRETS || isSecretName(k))
    .sort();

function expectArgv(got: string[], want: (string | RegExp)[]): void {
  expect(got.length, JSON.stringify(got)).toBe(want.length);
  want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
}

describe.each(Object.keys(PRESETS) as PresetName[])('the %s preset', (name) => {
  const preset = PRESETS[name];

  it('runs the coder with its flags, the prompt, the model and exactly its credentials', async () => {
    standIn(preset.cli);
    const ws = join(scratch, 'ws-code');
    const { result, log } = await run(payloadFor(name, 'implement'), ws);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(remotes.show('acme/web', 'conveyor/web-7', 'stand-in.txt')).toBe(`written by the ${preset.cli} stand-in`);
    // What a CLI leaves in the repository for itself is not committed.
    expect(git(remotes.bare('acme/web'), 'ls-tree', '--name-only', 'conveyor/web-7').split('\n').sort()).toEqual(['README.md', 'stand-in.txt']);

    const rec = recordOf(ws, preset.cli);
    expectArgv(rec.argv, expectedArgv(name, 'coder', ws, filesOf(rec)));
    // Two repositories: the coder works at the workspace root.
    expect(rec.cwd).toBe(ws);
    // Its files are in a folder of their own, outside the workspace.
    expect(filesOf(rec).startsWith(ws)).toBe(false);
    const prompt = rec.prompt!;
    expect(prompt).toContain('Add a greeting');
    if ('flag' in preset.prompt) {
      expect(rec.stdin).toBe('');
      expect(rec.argv.at(-1)).toBe(preset.prompt.value === 'path' ? join(filesOf(rec), 'prompt.md') : prompt.trimEnd());
    } else expect(rec.stdin).toBe(prompt);
    expect(rec.env.CONVEYOR_MODEL).toBe(MODELS[name].model);
    for (const [k, v] of Object.entries(preset.env)) expect(rec.env[k]).toBe(v);

    // Exactly its preset's credentials and its own listed secret: with their values where they
    // pass by name, a placeholder where Conveyor's key forwarder keeps the key (model-route.test.ts).
    const wanted = [...preset.credentials, 'TEAM_MODEL_ROUTE'].sort();
    expect(secretNames(rec.env)).toEqual(wanted);
    const kept = keptKeys(name);
    for (const k of wanted) {
      if (kept.includes(k)) expect(rec.env[k]).toMatch(/^conveyor-placeholder-[0-9a-f]{32}$/);
      else expect(rec.env[k]).toBe(RUNNER_SECRETS[k]);
    }
    expect(JSON.stringify(rec)).not.toContain(RUNNER_SECRETS[kept[0] ?? 'none'] ?? 'no kept key');
    // Conveyor's sandbox is the guard, and the CLI is told so where it asks.
    for (const [k, v] of Object.entries(preset.sandboxedEnv)) expect(rec.env[k]).toBe(v);
    // The CLI was on PATH: its install did not run.
    expect(existsSync(join(ws, 'stand-in-npm.json'))).toBe(false);
    expect(log).toContain(`agent "coder" gets ${wanted.join(', ')}`);

    // What it used, read from its CLI's own output; max-usd reaches the CLI where it can stop itself.
    expect(result.usage).toEqual(USAGE[name]);
    if (USAGE[name]) expect(log).toContain(`agent "coder" (${preset.title}) used`);
    else expect(log).toContain('reported no usage');
    expect(rec.env.CONVEYOR_MAX_USD).toBe('2.5');
    if ('unsupported' in preset.maxUsd) expect(log).toContain(`max-usd 2.5 cannot stop it (${preset.maxUsd.unsupported})`);
  });

  it('runs the reviewer inside the primary repository and reads its verdict the way the CLI gives it', async () => {
    standIn(preset.cli);
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    remotes.commit('acme/web', 'conveyor/web-7', { 'greet.js': 'export const greet = () => "hello";\n' });
    const ws = join(scratch, 'ws-review');
    const { result, log } = await run(payloadFor(name, 'review'), ws);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.review?.verdict).toBe('pass');
    expect(result.review?.findings).toEqual([{ file: null, line: null, message: `checked by the ${preset.cli} stand-in` }]);

    const rec = recordOf(ws, preset.cli);
    expectArgv(rec.argv, expectedArgv(name, 'reviewer', ws, filesOf(rec)));
    expect(rec.cwd).toBe(join(ws, 'acme__web'));
    const prompt = rec.prompt!;
    expect(prompt).toContain('| `../acme__api` | acme/api |');
    expect(prompt).toContain(join(filesOf(rec), 'diffs.patch'));
    // The coder's own secret and the service's stay out; its preset's credentials come in.
    expect(secretNames(rec.env)).toEqual([...preset.credentials].sort());
    expect(rec.env.CONVEYOR_MODEL).toBe(MODELS[name].model);
    expect(result.usage).toEqual(USAGE[name]);
  });
});

describe('a preset whose CLI is not installed', () => {
  /** The runner's PATH with no `claude` on it, after `before` (the stand-in npm's folder, and what node needs). */
  const pathWithout = (...before: string[]) => [...before, bench.bin, ...process.env.PATH!.split(':').filter((d) => !existsSync(join(d, 'claude')))].join(':');

  it('installs it with its setup first, in its install folder, then runs it', async () => {
    standIn('npm');
    const ws = join(scratch, 'ws-install');
    const { result, log } = await run(payloadFor('claude-code', 'implement'), ws, pathWithout());
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    // The version the preset was checked with, into a tools folder of that preset and version, run there.
    const install = bench.installFolder('claude-code');
    expect(install).toBe(join(scratch, 'cache', 'tools', 'claude-code-2.1.197'));
    const npm = recordOf(install, 'npm');
    expect(npm.argv).toEqual(['install', '--global', '@anthropic-ai/claude-code@2.1.197']);
    expect(npm.env.npm_config_prefix).toBe(install);
    expect(npm.cwd).toBe(install);
    expect(npm.env.CONVEYOR_WORKSPACE).toBeUndefined();
    const claude = recordOf(ws, 'claude');
    expect(claude.argv[0]).toBe('--print');
    expect(claude.env.PATH!.split(':')[0]).toBe(join(install, 'bin'));
    expect(log).toContain('setup of agent "coder"');
  });

  it('installs the pinned version though another version of its CLI is earlier on PATH, and once: a later step finds it in its install folder', async () => {
    standIn('npm');
    // A runner's own `claude` of another version, unpinned, first on PATH.
    const stale = join(scratch, 'stale-bin');
    mkdirSync(stale);
    writeFileSync(join(stale, 'claude'), '#!/bin/sh\necho "claude 1.0.0 (stale)"\ntouch "$CONVEYOR_WORKSPACE/stale-claude-ran"\n', { mode: 0o755 });
    const path = pathWithout(stale);
    const install = bench.installFolder('claude-code');

    const ws = join(scratch, 'ws-stale');
    const first = await run(payloadFor('claude-code', 'implement'), ws, path);
    // The agent ran the pinned CLI its setup installed, not the one found first on the runner's PATH.
    expect(existsSync(join(ws, 'stale-claude-ran'))).toBe(false);
    expect(first.result.conclusion, `${first.result.summary}\n${first.log}`).toBe('success');
    expect(recordOf(install, 'npm').argv).toEqual(['install', '--global', '@anthropic-ai/claude-code@2.1.197']);
    expect(recordOf(ws, 'claude').argv[0]).toBe('--print');

    // A later step (its folder restored from GitHub's cache, or left on a runner that stays) installs nothing.
    rmSync(join(install, 'stand-in-npm.json'));
    const later = join(scratch, 'ws-later');
    const second = await run(payloadFor('claude-code', 'implement'), later, path);
    expect(second.result.conclusion, `${second.result.summary}\n${second.log}`).toBe('success');
    expect(existsSync(join(install, 'stand-in-npm.json'))).toBe(false);
    expect(recordOf(later, 'claude').argv[0]).toBe('--print');
    expect(existsSync(join(later, 'stale-claude-ran'))).toBe(false);
  });

  it('installs another version into its own folder: a version changed in the configuration is never the old one found on PATH', async () => {
    standIn('npm');
    const path = pathWithout();
    expect((await run(payloadFor('claude-code', 'implement'), join(scratch, 'ws-a'), path)).result.conclusion).toBe('success');
    const pinned = bench.payloadFrom(
      `
version: 1
agents:
  coder: { preset: claude-code, version: 2.1.190 }
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
`,
      'implement',
    );
    const ws = join(scratch, 'ws-b');
    const { result, log } = await run(pinned, ws, path);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    const install = bench.installFolder('claude-code', '2.1.190');
    expect(install).toBe(join(scratch, 'cache', 'tools', 'claude-code-2.1.190'));
    expect(recordOf(install, 'npm').argv).toEqual(['install', '--global', '@anthropic-ai/claude-code@2.1.190']);
    expect(recordOf(ws, 'claude').env.PATH!.split(':')[0]).toBe(join(install, 'bin'));
  });
});

describe("an agent's private HOME", () => {
  const config = (agents: string) => `
version: 1
agents:
${agents}
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
`;

  it("keeps what its CLI unpacks there (Copilot CLI's package, in ~/.cache/copilot/pkg) for its next run, and for that agent alone", async () => {
    standIn('copilot');
    const agents = (name: string) => `  ${name}: { preset: copilot, env: { STAND_IN_UNPACK: .cache/copilot/pkg } }`;
    const first = join(scratch, 'ws-1');
    expect((await run(bench.payloadFrom(config(agents('coder')), 'implement'), first)).result.sandbox?.mode).toBe('bubblewrap');
    expect(recordOf(first, 'copilot').unpacked).toBe('made');
    const second = join(scratch, 'ws-2');
    expect((await run(bench.payloadFrom(config(agents('coder')), 'implement'), second)).result.conclusion).toBe('success');
    expect(recordOf(second, 'copilot').unpacked).toBe('found');
    // Another agent (a reviewer judging the coder's work would be one) starts without what the coder left.
    const other = join(scratch, 'ws-3');
    const renamed = config(`${agents('writer')}`).replace('agent: coder', 'agent: writer');
    expect((await run(bench.payloadFrom(renamed, 'implement'), other)).result.conclusion).toBe('success');
    expect(recordOf(other, 'copilot').unpacked).toBe('made');
  });

  it('keeps ~/.cache for every agent', async () => {
    standIn('claude');
    const agents = '  coder: { preset: claude-code, env: { STAND_IN_UNPACK: .cache/claude } }';
    await run(bench.payloadFrom(config(agents), 'implement'), join(scratch, 'ws-1'));
    await run(bench.payloadFrom(config(agents), 'implement'), join(scratch, 'ws-2'));
    expect(recordOf(join(scratch, 'ws-2'), 'claude').unpacked).toBe('found');
  });
});
