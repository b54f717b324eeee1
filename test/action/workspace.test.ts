// The workspace on real bare remotes: folders, refusals, resume, and the token's path to git.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitEnvironment, gitPrefix } from '../../action/src/git.ts';
import { assertCloneTarget, cloneUrl, prepareWorkspace, repoFolder, type WorkspaceContext } from '../../action/src/workspace.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

let remotes: Remotes;
let root: string;
beforeEach(() => {
  remotes = createRemotes();
  root = tempDir('conveyor-ws-test-');
});
afterEach(() => {
  remotes.cleanup();
  removeDir(root);
});

function ctx(serverUrl = remotes.url): WorkspaceContext {
  return { serverUrl, token: 'ghs_workspace_token_123', env: { PATH: process.env.PATH ?? '/bin' }, scrub: (t) => t };
}
const repo = (name: string, base = 'main') => ({ repo: name, role: 'sibling' as const, services: [], base, workBranch: `conveyor/${name.split('/')[1]}-1` });

describe('clone targets', () => {
  it('builds <server>/<owner>/<name>.git and names folders owner__name', () => {
    expect(cloneUrl('https://github.com/', 'acme/web')).toBe('https://github.com/acme/web.git');
    expect(cloneUrl('file:///srv/remotes', 'acme/web.js')).toBe('file:///srv/remotes/acme/web.js.git');
    expect(repoFolder('acme/web')).toBe('acme__web');
    expect(repoFolder('acme-x/web')).not.toBe(repoFolder('acme/x-web'));
  });

  it('refuses another host, traversal, credentials and other schemes', () => {
    expect(() => assertCloneTarget('https://evil.example.com/acme/web.git', 'https://github.com')).toThrow(/not on https:\/\/github.com/);
    expect(() => assertCloneTarget('https://github.com.evil.example/acme/web.git', 'https://github.com')).toThrow(/clone-refused|not on/);
    expect(() => assertCloneTarget('https://x:y@github.com/acme/web.git', 'https://github.com')).toThrow();
    expect(() => assertCloneTarget('file:///srv/other/acme/web.git', 'file:///srv/remotes')).toThrow();
    expect(() => cloneUrl('file:///srv/remotes', '../etc')).toThrow(/no "\.\."/);
    expect(() => cloneUrl('file:///srv/remotes', 'acme/..')).toThrow();
    expect(() => cloneUrl('ssh://github.com', 'acme/web')).toThrow(/expected https/);
    expect(() => cloneUrl('https://user:pw@github.com', 'acme/web')).toThrow(/credentials/);
    expect(() => cloneUrl('https://github.com', 'a/../b')).toThrow(expect.objectContaining({ code: 'clone-refused' }));
  });
});

describe('prepareWorkspace', () => {
  it('clones in parallel, records start commits, and keeps the token out of .git/config', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    remotes.create('acme/api', { 'b.txt': 'b\n' }, 'trunk');
    git(remotes.bare('acme/api'), 'branch', 'conveyor/api-1', 'trunk');
    const ws = await prepareWorkspace(ctx(), [repo('acme/web'), repo('acme/api', 'trunk')], { root, mode: 'work' });
    const [web, api] = ws.repos;
    expect(web).toMatchObject({ folder: 'acme__web', resumed: false, startCommit: '', baseMerge: 'new-branch', checkedOut: 'conveyor/web-1' });
    expect(api).toMatchObject({ folder: 'acme__api', resumed: true, startCommit: remotes.head('acme/api', 'conveyor/api-1'), baseMerge: 'up-to-date' });
    expect(git(join(root, 'acme__web'), 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('conveyor/web-1');
    for (const r of ws.repos) expect(readFileSync(join(r.dir, '.git', 'config'), 'utf8')).not.toContain('ghs_');
  });

  it('fails clearly on a missing base branch and on a non-empty folder', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    await expect(prepareWorkspace(ctx(), [repo('acme/web', 'develop')], { root, mode: 'work' })).rejects.toMatchObject({
      code: 'clone-failed',
      message: expect.stringContaining('base branch "develop" does not exist in acme/web'),
    });
    await expect(prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'work' })).rejects.toMatchObject({ code: 'bad-input' });
  });

  it('checkout mode takes the base when there is no work branch', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'checkout' });
    expect(ws.repos[0]).toMatchObject({ checkedOut: 'main', preparedHead: remotes.head('acme/web', 'main') });
  });
});

describe('the token reaches git through a scoped credential helper only', () => {
  it('answers the server with the token, and no other host', () => {
    const token = 'ghs_helper_token_456';
    const args = gitPrefix('https://github.com');
    expect(args.join(' ')).not.toContain(token);
    const fill = (host: string) =>
      execFileSync('git', [...args, 'credential', 'fill'], {
        input: `protocol=https\nhost=${host}\n\n`,
        env: gitEnvironment({ PATH: process.env.PATH ?? '/bin' }, token),
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    expect(fill('github.com')).toContain(`password=${token}`);
    expect(() => fill('evil.example.com')).toThrow();
  });
});
