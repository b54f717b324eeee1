// The token never leaks: an agent that dumps its environment, plants a hook and rewrites its git
// config; afterwards the workspace, every .git/config, the dump, the remotes' history, the logs
// and the result are searched for the token (and its encoded forms): nothing.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attemptKey, refOf } from '../../core/contract/attempt-ref.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { actionBundle, removeActionBundle, runAction } from '../helpers/action.ts';
import { pathWithoutBubblewrap } from '../helpers/processes.ts';

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
      // The checkout's git folder (outside the workspace) is there to read, and only to read.
      'gd=$(git -C acme__web rev-parse --absolute-git-dir)',
      'cat "$gd/config"',
      'set +e',
      `printf '#!/bin/sh\\nenv > ${hookDump}\\n' > "$gd/hooks/pre-push" && chmod +x "$gd/hooks/pre-push" && echo "planted hook $((1 + 1))"`,
      `printf '#!/bin/sh\\nenv > ${hookDump}\\n' > "$gd/hooks/pre-commit" && chmod +x "$gd/hooks/pre-commit" && echo "planted hook $((1 + 2))"`,
      'git -C acme__web config remote.origin.url file:///nowhere/evil.git && echo "rewrote the remote $((1 + 3))"',
      'set -e',
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
    for (const name of [
      'GITHUB_TOKEN',
      'CONVEYOR_TOKEN',
      'INPUT_TOKEN',
      'ACTIONS_RUNTIME_TOKEN',
      'MY_API_SECRET',
      'CONVEYOR_PAYLOAD_PATH',
      'CONVEYOR_RESULT_PATH',
    ]) {
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
    const configs = allFiles(`${ws}.git`).filter((f) => f.endsWith('/config'));
    expect(configs).toHaveLength(2);
    for (const f of configs) places.push([f, readFileSync(f, 'latin1')]);
    for (const repo of ['acme/web', 'acme/api']) {
      const bare = remotes.bare(repo);
      places.push([`${repo} history`, git(bare, 'log', '--all', '-p', '--format=%H%n%an%n%B')]);
      places.push([`${repo} config`, readFileSync(join(bare, 'config'), 'utf8')]);
    }
    for (const [where, text] of places) {
      for (const secret of forms) expect(text.includes(secret), `${where} holds a secret`).toBe(false);
    }
    // The sandbox kept the git folder read-only: nothing was planted, and the push went to the real remote.
    expect(run.stdout).toMatch(/Read-only file system/);
    expect(run.stdout).not.toMatch(/planted hook \d|rewrote the remote \d/);
    expect(readFileSync(join(`${ws}.git`, 'acme__web', 'config'), 'utf8')).not.toContain('evil');
    expect(remotes.branches('acme/web')).toContain('conveyor/web-7');
    expect(run.stdout).toContain('GITHUB_TOKEN is []');
  });
});

describe('a token given to the action (the input `token`)', () => {
  // Every process above the agent (the shell, the step process) as the agent can read it: its
  // environment and command line in /proc.
  const dumpAncestors = (out: string) =>
    [
      'p=$$',
      'while [ "$p" -gt 1 ]; do',
      `  { tr '\\0' '\\n' < /proc/$p/environ; tr '\\0' ' ' < /proc/$p/cmdline; echo; } >> ${out} 2>/dev/null`,
      // The parent's pid follows the state, after the name in parentheses (which may hold spaces).
      "  p=$(sed 's/.*) //' /proc/$p/stat | awk '{print $2}')",
      'done',
    ].join('\n');

  it('is in no environment the agent can read: no process above the agent is visible in its sandbox', () => {
    const token = `ghs_${'F1'.repeat(18)}`;
    // Written in the workspace (kept: CONVEYOR_WORKSPACE_ROOT), the only place the agent may write.
    const ws = join(scratch, 'ws');
    const run = runAction({
      payload: makePayload({ repos: [{ repo: 'acme/web' }], agentRun: `${dumpAncestors('"$CONVEYOR_WORKSPACE/ancestors.txt"')}\necho change > change.txt` }),
      dir: scratch,
      env: { GITHUB_SERVER_URL: remotes.url, INPUT_TOKEN: token, CONVEYOR_WORKSPACE_ROOT: ws },
    });
    expect(run.result?.conclusion, JSON.stringify(run.result?.error) + run.stdout + run.stderr).toBe('success');
    expect(run.result?.sandbox?.mode).toBe('bubblewrap');
    const seen = readFileSync(join(ws, 'ancestors.txt'), 'utf8');
    expect(seen).toContain('CONVEYOR_RUN_ID=run-1'); // the agent's own shell was read
    // ...but not the step process above it (before the sandbox it was): neither its own variables
    // nor its command line.
    expect(seen).not.toMatch(/CONVEYOR_PAYLOAD_PATH=/);
    expect(seen).not.toContain(actionBundle());
    expect(seen.includes(token)).toBe(false);
    for (const f of allFiles(scratch)) expect(readFileSync(f, 'latin1').includes(token), `${f} holds the token`).toBe(false);
  });

  it('without bubblewrap (best-effort), the step says so, and the token is readable above the agent: the sandbox is what hides it', () => {
    const token = `ghs_${'H2'.repeat(18)}`;
    const out = join(scratch, 'ancestors-input.txt');
    const run = runAction({
      payload: makePayload({ repos: [{ repo: 'acme/web' }], agentRun: `${dumpAncestors(out)}\necho change > change.txt` }),
      dir: scratch,
      env: { GITHUB_SERVER_URL: remotes.url, INPUT_TOKEN: token, CONVEYOR_WORKSPACE_ROOT: join(scratch, 'ws3'), PATH: pathWithoutBubblewrap() },
    });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    expect(run.result?.sandbox).toEqual({ mode: 'none', reason: 'bubblewrap (bwrap) is not installed on this runner', blocked: [] });
    const note = "no sandbox: bubblewrap (bwrap) is not installed on this runner; agents can read this runner's files and reach any host";
    expect(run.stdout.split(note)).toHaveLength(2); // once in the log
    expect(run.result?.summary).toContain(note);
    expect(readFileSync(out, 'utf8')).toContain(`INPUT_TOKEN=${token}`);
  });

  // GitHub mode: the step process takes the token once and uses it for the check run too.
  it('on GitHub, one token serves the check run and the step', async () => {
    const token = `ghs_${'G7'.repeat(18)}`;
    const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentRun: 'echo change > change.txt' });
    writeFileSync(join(scratch, 'payload.json'), JSON.stringify(payload));
    const check: Record<string, unknown> = {
      id: 5,
      status: 'queued',
      external_id: attemptKey(refOf(payload)),
      details_url: null,
    };
    const calls: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        calls.push(`${req.method} ${req.headers.authorization === `token ${token}` ? 'with' : 'without'} the token`);
        if (req.method === 'PATCH') Object.assign(check, JSON.parse(body) as object);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(check));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith('GITHUB_') && !k.startsWith('CONVEYOR_') && !k.startsWith('INPUT_')) base[k] = v;
    const env = {
      ...base,
      CONVEYOR_PAYLOAD_PATH: join(scratch, 'payload.json'),
      CONVEYOR_CHECK_RUN_ID: '5',
      GITHUB_REPOSITORY: 'acme/web',
      GITHUB_API_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      GITHUB_SERVER_URL: remotes.url,
      CONVEYOR_WORKSPACE_ROOT: join(scratch, 'ws'),
      INPUT_TOKEN: token,
    };
    try {
      const ok = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [actionBundle()], { env });
        let stdout = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.on('close', (code) => resolve({ code, stdout }));
      });
      expect(ok.code, ok.stdout).toBe(0);
      expect(check).toMatchObject({ status: 'completed', conclusion: 'success' });
      // The check run read once (this payload promises nothing), then written once, when the step completes it.
      expect(calls).toEqual(['GET with the token', 'PATCH with the token']);
      expect(remotes.branches('acme/web')).toContain('conveyor/web-7');
    } finally {
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});

describe('agents cannot push', () => {
  it("an agent's own pushes go nowhere: the checkout knows no remote, and the sandbox keeps the remotes' folder read-only; only Conveyor pushes, to the work branch", () => {
    const bare = remotes.bare('acme/web');
    const mainBefore = remotes.head('acme/web', 'main');
    // The agent tries to commit to main and to push every way it has: the remote's name, the default push, and the folder's path.
    const agentRun = [
      'set +e',
      'git checkout -q -B main origin/main > pushes.txt 2>&1 || echo "refused: checkout" >> pushes.txt',
      'echo evil > evil.txt; git add evil.txt >> pushes.txt 2>&1 || echo "refused: add" >> pushes.txt',
      'git -c user.name=a -c user.email=a@a commit -qm evil >> pushes.txt 2>&1 || echo "refused: commit" >> pushes.txt',
      // A branch of its own each time: a push that changes nothing could not fail.
      'git push origin HEAD:refs/heads/agent-1 >> pushes.txt 2>&1 || echo "refused: origin" >> pushes.txt',
      'git push >> pushes.txt 2>&1 || echo "refused: default" >> pushes.txt',
      `git push ${JSON.stringify(`file://${bare}`)} HEAD:refs/heads/agent-2 >> pushes.txt 2>&1 || echo "refused: the folder" >> pushes.txt`,
      'rm -f evil.txt; echo change > change.txt',
    ].join('\n');
    const run = runAction({ payload: makePayload({ repos: [{ repo: 'acme/web' }], agentRun }), dir: scratch, env: { GITHUB_SERVER_URL: remotes.url } });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    expect(remotes.head('acme/web', 'main')).toBe(mainBefore);
    expect(remotes.branches('acme/web').sort()).toEqual(['conveyor/web-7', 'main']);
    const pushes = remotes.show('acme/web', 'conveyor/web-7', 'pushes.txt');
    // Its repository is read-only to it: no commit of its own, on any branch.
    expect(pushes).toContain('refused: add');
    expect(pushes).toContain('refused: commit');
    expect(pushes).toContain('refused: origin');
    expect(pushes).toContain('refused: default');
    expect(pushes).toContain('refused: the folder');
  });
});
