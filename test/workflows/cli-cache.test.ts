// The workflow template's cache of the agents' CLIs: a key of the step's presets and versions, the
// runner's OS and architecture, computed from the payload as a runner runs the step (bash, jq), and
// restored into the folder the action installs a preset's CLI into.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { installDir, toolsDir } from '../../action/src/sandbox.ts';
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

/** Runs the key step's script as the runner does, with `payload` in its environment; what it wrote to $GITHUB_OUTPUT. */
function keyOf(payload: unknown, path = process.env.PATH!): string {
  const output = join(dir, `output-${++calls}`);
  const r = spawnSync('/bin/bash', ['-e', '-c', keyStep!.run!], {
    env: {
      PATH: path,
      PAYLOAD: typeof payload === 'string' ? payload : JSON.stringify(payload),
      GITHUB_OUTPUT: output,
      RUNNER_OS: 'Linux',
      RUNNER_ARCH: 'X64',
    },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  try {
    return readFileSync(output, 'utf8');
  } catch {
    return '';
  }
}

describe("the workflow template's cache of the agents' CLIs", () => {
  it('is restored before the action runs, into the tools folder the action installs a preset into', () => {
    expect(keyStep).toBeDefined();
    expect(cacheStep).toBeDefined();
    const action = steps.findIndex((s) => s.uses?.startsWith('conveyor-dev/conveyor'));
    expect(steps.indexOf(keyStep!)).toBeLessThan(steps.indexOf(cacheStep!));
    expect(steps.indexOf(cacheStep!)).toBeLessThan(action);
    expect(cacheStep!.with).toEqual({ path: '${{ runner.tool_cache }}/conveyor/tools', key: '${{ steps.cli.outputs.key }}' });
    expect(cacheStep!.if).toBe("steps.cli.outputs.key != ''");
    // The payload reaches the script as a variable, never spliced into its text.
    expect(keyStep!.env).toEqual({ PAYLOAD: '${{ inputs.payload }}' });
    expect(keyStep!.run).not.toContain('${{');
    // What `runner.tool_cache` names is RUNNER_TOOL_CACHE: the action's tools folder is inside the cached path.
    const env = { RUNNER_TOOL_CACHE: '/opt/hostedtoolcache' };
    expect(toolsDir(env)).toBe('/opt/hostedtoolcache/conveyor/tools');
    expect(installDir(env, { preset: 'copilot', version: '1.0.102' })).toBe('/opt/hostedtoolcache/conveyor/tools/copilot-1.0.102');
  });

  it("is keyed on the step's presets and versions, the OS and the architecture", () => {
    const agents = {
      coder: { name: 'coder', preset: 'claude-code', version: '2.1.197' },
      reviewer: { name: 'reviewer', preset: 'codex', version: '0.171.0' },
      again: { name: 'again', preset: 'claude-code', version: '2.1.197' },
      plain: { name: 'plain', run: './agent.sh' },
    };
    expect(keyOf({ agents })).toBe('key=conveyor-cli-claude-code-2.1.197+codex-0.171.0-Linux-X64\n');
    expect(keyOf({ agents: { coder: agents.coder } })).toBe('key=conveyor-cli-claude-code-2.1.197-Linux-X64\n');
  });

  it('names no cache for a step without a preset agent, a payload that is not JSON, or a runner without jq', () => {
    expect(keyOf({ agents: { plain: { run: './agent.sh' } } })).toBe('');
    expect(keyOf({})).toBe('');
    expect(keyOf('not json')).toBe('');
    expect(keyOf({ agents: { coder: { preset: 'codex', version: '1' } } }, '/nonexistent')).toBe('');
  });

  it('keeps a hand-written payload from writing other outputs: only the key, one line of safe characters', () => {
    const key = keyOf({ agents: { coder: { preset: 'codex\nevil=1', version: '1.0 $(touch pwned)' } } });
    expect(key).toBe('key=conveyor-cli-codexevil1-1.0touchpwned-Linux-X64\n');
  });
});
