// The workflow template's cache of the agents' CLIs: a key of the step's presets and versions, the
// runner's OS and architecture, computed from the payload as a runner runs the step (bash, jq), and
// the folders it saves and restores: only those the action installs this step's presets' CLIs into.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { installDir } from '../../action/src/sandbox.ts';
import { PRESETS, presetSetup, type PresetName } from '../../core/config/presets.ts';
import { ROOT } from '../helpers/cli.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

interface Step {
  id?: string;
  name?: string;
  run?: string;
  uses?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

const template = parse(readFileSync(join(ROOT, 'workflows', 'conveyor.yml'), 'utf8')) as { jobs: { step: { steps: Step[] } } };
const steps = template.jobs.step.steps;
const keyStep = steps.find((s) => s.id === 'cli');
const cacheStep = steps.find((s) => s.uses?.startsWith('actions/cache@'));

let dir: string;
let calls = 0;
beforeEach(() => {
  dir = tempDir('conveyor-cli-cache-');
});
afterEach(() => removeDir(dir));

/** What a step wrote to $GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` blocks, as the runner reads them. */
function outputsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1);
      expect(end, `the block ${block[1]} is not closed`).toBeGreaterThan(i);
      out[block[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line) {
      const at = line.indexOf('=');
      out[line.slice(0, at)] = line.slice(at + 1);
    }
  }
  return out;
}

const TOOLS = '/opt/hostedtoolcache/conveyor/tools';

/** Runs the key step's script as the runner does, with `payload` in its environment; the outputs it wrote to $GITHUB_OUTPUT. */
function outputsFor(payload: unknown, path = process.env.PATH!): Record<string, string> {
  const output = join(dir, `output-${++calls}`);
  const r = spawnSync('/bin/bash', ['-e', '-c', keyStep!.run!], {
    env: {
      PATH: path,
      PAYLOAD: typeof payload === 'string' ? payload : JSON.stringify(payload),
      // What the step's `env` makes of `runner.tool_cache` on a hosted runner.
      TOOLS,
      GITHUB_OUTPUT: output,
      RUNNER_OS: 'Linux',
      RUNNER_ARCH: 'X64',
    },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  try {
    return outputsOf(readFileSync(output, 'utf8'));
  } catch {
    return {};
  }
}

/** An agent of `preset` at `version` as the plan carries it: its preset's own install as its setup. */
const presetAgent = (name: string, preset: PresetName, version: string) => ({ name, preset, version, setup: presetSetup(PRESETS[preset], version) });

describe("the workflow template's cache of the agents' CLIs", () => {
  it("is restored before the action runs, into the folders named by the key step's output", () => {
    expect(keyStep).toBeDefined();
    expect(cacheStep).toBeDefined();
    const action = steps.findIndex((s) => s.uses?.startsWith('conveyor-dev/conveyor'));
    expect(steps.indexOf(keyStep!)).toBeLessThan(steps.indexOf(cacheStep!));
    expect(steps.indexOf(cacheStep!)).toBeLessThan(action);
    expect(cacheStep!.with).toEqual({ path: '${{ steps.cli.outputs.paths }}', key: '${{ steps.cli.outputs.key }}' });
    expect(cacheStep!.if).toBe("steps.cli.outputs.key != ''");
    // The payload reaches the script as a variable, never spliced into its text; the tools folder is
    // the action's under the runner's tool cache (RUNNER_TOOL_CACHE, which the action goes by).
    expect(keyStep!.env).toEqual({ PAYLOAD: '${{ inputs.payload }}', TOOLS: '${{ runner.tool_cache }}/conveyor/tools' });
    expect(keyStep!.run).not.toContain('${{');
  });

  it("saves and restores the install folders of this step's preset agents alone, each the one the action installs into", () => {
    const agents = {
      coder: presetAgent('coder', 'claude-code', '2.1.197'),
      reviewer: presetAgent('reviewer', 'codex', '0.171.0'),
      again: presetAgent('again', 'claude-code', '2.1.197'),
      plain: { name: 'plain', run: './agent.sh', setup: './install-my-agent.sh' },
    };
    const { paths } = outputsFor({ agents });
    const env = { RUNNER_TOOL_CACHE: '/opt/hostedtoolcache' };
    const ws = { repos: [{ repo: 'acme/web', role: 'primary' as const }] };
    expect(paths?.split('\n')).toEqual([installDir(env, ws, agents.coder), installDir(env, ws, agents.reviewer)]);
    expect(paths).toBe(`${TOOLS}/claude-code-2.1.197\n${TOOLS}/codex-0.171.0`);
    // Never the whole tools folder: another agent's own setup's folder, another version's, stay out of it.
    expect(paths?.split('\n')).not.toContain(TOOLS);
    expect(installDir(env, ws, agents.plain)).toBe(`${TOOLS}/custom/acme__web/plain`);
  });

  it("is keyed on the step's presets and versions, the OS and the architecture", () => {
    const agents = {
      coder: { name: 'coder', preset: 'claude-code', version: '2.1.197' },
      reviewer: { name: 'reviewer', preset: 'codex', version: '0.171.0' },
      again: { name: 'again', preset: 'claude-code', version: '2.1.197' },
      plain: { name: 'plain', run: './agent.sh' },
    };
    expect(outputsFor({ agents }).key).toBe('conveyor-cli-claude-code-2.1.197+codex-0.171.0-Linux-X64');
    expect(outputsFor({ agents: { coder: agents.coder } }).key).toBe('conveyor-cli-claude-code-2.1.197-Linux-X64');
    // A version with build metadata names its folder as the action does.
    expect(outputsFor({ agents: { coder: { preset: 'codex', version: '1.0.0+b7' } } }).paths).toBe(`${TOOLS}/codex-1.0.0+b7`);
  });

  it('names no cache for a step without a preset agent, a payload that is not JSON, or a runner without jq', () => {
    expect(outputsFor({ agents: { plain: { run: './agent.sh' } } })).toEqual({});
    expect(outputsFor({})).toEqual({});
    expect(outputsFor('not json')).toEqual({});
    expect(outputsFor({ agents: { coder: { preset: 'codex', version: '1' } } }, '/nonexistent')).toEqual({});
  });

  it('keeps a hand-written payload from writing other outputs or naming a folder outside the tools folder', () => {
    const outputs = outputsFor({ agents: { coder: { preset: 'codex\nevil=1', version: '1.0 $(touch pwned)' } } });
    expect(outputs).toEqual({ key: 'conveyor-cli-codexevil1-1.0touchpwned-Linux-X64', paths: `${TOOLS}/codexevil1-1.0touchpwned` });
    const escaping = outputsFor({ agents: { coder: { preset: '../../..', version: '/etc\nCONVEYOR_CLI_PATHS\n/home' } } });
    expect(Object.keys(escaping)).toEqual(['key', 'paths']);
    expect(escaping.paths).toBe(`${TOOLS}/......-etcCONVEYOR_CLI_PATHShome`);
  });
});
