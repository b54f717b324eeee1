// The token never leaks: an agent that dumps its environment, plants a hook and rewrites its git
// config; afterwards the workspace, every .git/config, the dump, the remotes' history, the logs
// and the result are searched for the token (and its encoded forms): nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { removeActionBundle, runAction } from '../helpers/action.ts';

let remotes: Remotes;
let scratch: string;

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-leak-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
  remotes.create('acme/api', { 'README.md': 'api\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});
afterAll(() => removeActionBundle());

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    const s = statSync(p);
    return s.isDirectory() ? allFiles(p) : s.isFile() ? [p] : [];
  });
}

describe('the token stays out of everything a step leaves', () => {
  it('is found nowhere after an agent dumps its environment', () => {
    const token = `ghs_${'Z9'.repeat(18)}`;
    const runtimeToken = 'rt-secret-value-0123456789';
    const apiSecret = 'my-api-secret-value-42';
    const forms = [token, runtimeToken, apiSecret, Buffer.from(`x-access-token:${token}`).toString('base64'), Buffer.from(token).toString('base64')];
    const hookDump = join(scratch, 'hook-ran.txt');
    const agent = [
      'env > "$CONVEYOR_WORKSPACE/env-dump.txt"',
      'env > acme__web/env-dump.txt',
      'echo "GITHUB_TOKEN is [$GITHUB_TOKEN] CONVEYOR_TOKEN is [$CONVEYOR_TOKEN] INPUT_TOKEN is [$INPUT_TOKEN]"',
      'cat acme__web/.git/config',
      `printf '#!/bin/sh\\nenv > ${hookDump}\\n' > acme__web/.git/hooks/pre-push && chmod +x acme__web/.git/hooks/pre-push`,
      `printf '#!/bin/sh\\nenv > ${hookDump}\\n' > acme__web/.git/hooks/pre-commit && chmod +x acme__web/.git/hooks/pre-commit`,
      'git -C acme__web config remote.origin.url file:///nowhere/evil.git',
      'echo change > acme__api/change.txt',
    ].join('\n');
    const ws = join(scratch, 'ws');
    const run = runAction({
      payload: makePayload({ repos: [{ repo: 'acme/web' }, { repo: 'acme/api' }], agentRun: agent }),
      dir: scratch,
      env: {
        GITHUB_SERVER_URL: remotes.url,
        CONVEYOR_TOKEN: token,
        GITHUB_TOKEN: token,
        INPUT_TOKEN: token,
        ACTIONS_RUNTIME_TOKEN: runtimeToken,
        MY_API_SECRET: apiSecret,
        CONVEYOR_WORKSPACE_ROOT: ws,
      },
    });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');

    // The agent ran and dumped what it had: the contract, but no secret by name.
    const dump = readFileSync(join(ws, 'env-dump.txt'), 'utf8');
    expect(dump).toContain('CONVEYOR_PROMPT_FILE=');
    expect(dump).toContain('CONVEYOR_RUN_ID=run-1');
    // Nor the step process's own files: an agent writing its result there could forge the step's.
    for (const name of ['GITHUB_TOKEN', 'CONVEYOR_TOKEN', 'INPUT_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'MY_API_SECRET', 'CONVEYOR_PAYLOAD_PATH', 'CONVEYOR_RESULT_PATH']) {
      expect(dump).not.toMatch(new RegExp(`^${name}=`, 'm'));
    }
    expect(existsSync(hookDump)).toBe(false);

    // Search every place the token could have gone.
    const places: [string, string][] = [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
      ['result', run.resultText],
    ];
    for (const f of allFiles(scratch)) places.push([f, readFileSync(f, 'latin1')]);
    const configs = allFiles(ws).filter((f) => f.endsWith('/.git/config'));
    expect(configs).toHaveLength(2);
    for (const repo of ['acme/web', 'acme/api']) {
      const bare = remotes.bare(repo);
      places.push([`${repo} history`, git(bare, 'log', '--all', '-p', '--format=%H%n%an%n%B')]);
      places.push([`${repo} config`, readFileSync(join(bare, 'config'), 'utf8')]);
    }
    for (const [where, text] of places) {
      for (const secret of forms) expect(text.includes(secret), `${where} holds a secret`).toBe(false);
    }
    // The agent's config rewrite was undone and the push went to the real remote.
    expect(readFileSync(join(ws, 'acme__web', '.git', 'config'), 'utf8')).not.toContain('evil');
    expect(remotes.branches('acme/web')).toContain('conveyor/web-7');
    expect(run.stdout).toContain('GITHUB_TOKEN is []');
  });
});
