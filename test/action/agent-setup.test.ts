// An agent's setup (its CLI's install) is the pipeline author's command, but the agent then runs
// what it installed: nothing an agent or a gate produced may steer it, and it may change nothing
// another command runs. Run for real, through the action's entry in the bubblewrap sandbox: it
// runs in its own install folder and writes only there and in package caches of its own; the
// workspace, where agents leave files (a `.npmrc`, a Python module), is not there for it; another
// agent's install folder and the caches gates share stay as they were; and what it installs is on
// its agent's PATH, and on no other folder of the tools folder.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shellQuote } from '../../core/shell.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { createBench, type Bench } from './preset-fixture.ts';

let bench: Bench;
beforeEach(() => {
  bench = createBench();
});
afterEach(() => bench.cleanup());

/** The coder of acme/web (acme/api beside it, at the workspace root) with its own `run` and `setup` (no preset): its install folder is its own. */
function coderWith(run: string, setup: string): StepPayload {
  const payload = bench.payloadFrom(
    `
version: 1
agents:
  coder: { run: "true" }
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
  return { ...payload, agents: { coder: { ...payload.agents.coder!, run, setup } } };
}

const ownFolder = () => join(bench.cache, 'tools', 'custom', 'acme__web', 'coder');

/** A workspace root that already holds `files`, as an earlier run of the attempt left it: the embedded mode runs an attempt again in its folder, where its agent wrote. */
function workspaceWith(files: Record<string, string>): string {
  const ws = join(bench.scratch, 'ws');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(ws, path, '..'), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
  return ws;
}

describe("an agent's setup", () => {
  it("writes its own install folder and caches, and nothing else: not the workspace, another agent's install folder or the caches gates share", async () => {
    // The reviewer's pinned Claude Code, restored into its preset's folder; another agent's own setup's folder.
    bench.standIn('claude');
    const preset = join(bench.installFolder('claude-code'), 'bin', 'claude');
    const before = readFileSync(preset, 'utf8');
    const other = join(bench.cache, 'tools', 'custom', 'acme__web', 'reviewer', 'bin', 'review-tool');
    mkdirSync(join(other, '..'), { recursive: true });
    writeFileSync(other, '#!/bin/sh\necho the reviewer tool\n', { mode: 0o755 });
    const ws = join(bench.scratch, 'ws');
    const shared = { npm: join(bench.cache, 'npm'), xdg: join(bench.cache, 'xdg-cache') };

    const targets = [
      join(ws, 'from-setup'),
      join(ws, 'acme__web', 'from-setup'),
      preset,
      other,
      join(shared.npm, 'from-setup'),
      join(shared.xdg, 'from-setup'),
    ];
    const setup = [
      'set +e',
      ...targets.map((t) => `echo planted > ${shellQuote(t)} 2>/dev/null && echo "wrote ${t}"`),
      // Its package managers' caches, as npm and pip use them: its own.
      'echo mine > "$HOME/.npm/from-setup"',
      'echo mine > "$HOME/.cache/from-setup"',
      'set -e',
      // Its CLI, in the folder it runs in.
      `printf '#!/bin/sh\\necho "my-cli ran" > "$CONVEYOR_WORKSPACE/acme__web/my-cli-ran.txt"\\nprintf "%%s" "$PATH" > "$CONVEYOR_WORKSPACE/agent-path"\\n' > bin/my-cli`,
      'chmod +x bin/my-cli',
    ].join('\n');
    const { result, log } = await bench.run(coderWith('my-cli', setup), ws, { env: {} });

    // Nothing outside its own folders changed.
    expect(existsSync(join(ws, 'from-setup'))).toBe(false);
    expect(existsSync(join(ws, 'acme__web', 'from-setup'))).toBe(false);
    expect(readFileSync(preset, 'utf8')).toBe(before);
    expect(readFileSync(other, 'utf8')).toBe('#!/bin/sh\necho the reviewer tool\n');
    for (const cache of Object.values(shared)) expect(existsSync(join(cache, 'from-setup')), cache).toBe(false);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.sandbox?.mode).toBe('bubblewrap');
    // Its caches are kept, as its own: under setups/, as its folder is under tools/.
    const own = join(bench.cache, 'setups', 'custom', 'acme__web', 'coder');
    expect(readFileSync(join(own, 'npm', 'from-setup'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(own, 'xdg-cache', 'from-setup'), 'utf8')).toBe('mine\n');

    // Its CLI landed in its install folder and ran as the agent, found on its PATH, where no other tools folder is.
    expect(existsSync(join(ownFolder(), 'bin', 'my-cli'))).toBe(true);
    expect(bench.remotes.show('acme/web', 'conveyor/web-7', 'my-cli-ran.txt')).toBe('my-cli ran');
    const path = readFileSync(join(ws, 'agent-path'), 'utf8').split(':');
    expect(path[0]).toBe(join(ownFolder(), 'bin'));
    expect(path.filter((d) => d.startsWith(join(bench.cache, 'tools')))).toEqual([join(ownFolder(), 'bin')]);
  });

  it('reads no `.npmrc` an agent left in the workspace: it runs in its install folder, where npm looks for a project config', async () => {
    // node-options runs this file in every node process npm starts, as `npx <installer>` would run one.
    const planted = 'console.log("planted code ran");\n';
    const ws = workspaceWith({ '.npmrc': `node-options=--require ${join(bench.scratch, 'ws', 'planted.js')}\n`, 'planted.js': planted });
    const setup = `npm exec --offline -c 'node -e "console.log(process.cwd() + \\" holds the setup\\")"'`;
    const { result, log } = await bench.run(coderWith('echo change > acme__web/change.txt', setup), ws, { env: {} });
    expect(log).not.toContain('planted code ran');
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.sandbox?.mode).toBe('bubblewrap');
    expect(log).toContain(`${ownFolder()} holds the setup`);
  });

  it('imports no Python module an agent left in the workspace, as `python -m venv` (what pipx runs) would from where it runs', async () => {
    const ws = workspaceWith({ 'venv/__init__.py': '', 'venv/__main__.py': 'print("planted venv ran")\n' });
    const setup = 'python3 -m venv --without-pip venv';
    const { result, log } = await bench.run(coderWith('echo change > acme__web/change.txt', setup), ws, { env: {} });
    expect(log).not.toContain('planted venv ran');
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.sandbox?.mode).toBe('bubblewrap');
    // The real module made the environment, in its install folder.
    expect(existsSync(join(ownFolder(), 'venv', 'pyvenv.cfg'))).toBe(true);
  });
});
