// Security rules of the step runner that are not about the token (security.e2e.test.ts covers
// that): issue text never reaches a command line, and a push never overwrites work it did not
// start from.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalForge } from '../../adapters/forge/local.ts';
import { removeActionBundle, runAction } from '../helpers/action.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { pathWithoutBubblewrap } from '../helpers/processes.ts';

let remotes: Remotes;
let scratch: string;

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-rules-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});
afterAll(() => removeActionBundle());

describe('security rules of the step runner', () => {
  it('issue text travels in files: shell syntax in the title and body runs nowhere and arrives verbatim', async () => {
    const marker = join(scratch, 'pwned');
    const title = `Fix $(touch ${marker}) and \`touch ${marker}\`; touch ${marker} #`;
    const body = `Body with "$(touch ${marker})" and '; touch ${marker}; '\n`;
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      issue: { title, body },
      // The agent only copies the prompt: if the text ran anywhere, the marker would exist.
      agentRun: 'cp "$CONVEYOR_PROMPT_FILE" prompt-copy.md',
    });
    const run = runAction({ payload, dir: scratch, env: { GITHUB_SERVER_URL: remotes.url } });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('success');
    expect(existsSync(marker)).toBe(false);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'prompt-copy.md')).toContain(title);
    const forge = await LocalForge.open(remotes.dir);
    try {
      const pr = await forge.findPullRequest('acme/web', 'conveyor/web-7');
      expect(pr?.title).toContain(title);
    } finally {
      forge.close();
    }
    expect(git(remotes.bare('acme/web'), 'log', '-1', '--format=%B', 'conveyor/web-7')).toContain('#7');
  });

  it('pushes with a lease on the commit the step started from: a push made meanwhile by someone else is kept, ours refused', () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    const started = remotes.head('acme/web', 'conveyor/web-7')!;
    // The agent's "meanwhile": another clone pushes to the work branch while the agent runs.
    const other = join(scratch, 'other');
    const agent = [
      `git clone --quiet "${remotes.bare('acme/web')}" "${other}"`,
      `git -C "${other}" checkout --quiet conveyor/web-7`,
      `echo theirs > "${other}/theirs.txt"`,
      `git -C "${other}" add theirs.txt`,
      `git -C "${other}" -c user.name=Other -c user.email=o@example.com commit --quiet -m theirs`,
      `git -C "${other}" push --quiet origin conveyor/web-7`,
      'echo ours > ours.txt',
    ].join('\n');
    // The agent stands in for someone else pushing meanwhile, which a sandboxed agent cannot do
    // (the remote is outside its workspace): this runner has no bubblewrap, the lease is the rule here.
    const run = runAction({
      payload: makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent }),
      dir: scratch,
      env: { GITHUB_SERVER_URL: remotes.url, PATH: pathWithoutBubblewrap() },
    });
    expect(run.result?.conclusion, run.stdout + run.stderr).toBe('failure');
    expect(run.result?.sandbox?.mode).toBe('none');
    expect(run.result?.error?.code).toBe('push-rejected');
    expect(run.result?.error?.message).toContain(started.slice(0, 12));
    const head = remotes.head('acme/web', 'conveyor/web-7')!;
    expect(head).not.toBe(started);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'theirs.txt')).toBe('theirs');
    expect(() => remotes.show('acme/web', 'conveyor/web-7', 'ours.txt')).toThrow();
  });
});
