// The network path of the workspace (what GitHub sees), offline: git's own smart-HTTP server
// (`git http-backend`) behind a small Node server that demands the token as Basic auth, the way
// GitHub does. The token must reach git through the scoped credential helper and nowhere else.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareWorkspace, type WorkspaceContext } from '../../action/src/workspace.ts';
import { serveGit, type GitHttp } from '../helpers/git-http.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

const TOKEN = 'ghs_http_token_789';

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

let remotes: Remotes;
let http: GitHttp;
let root: string;
beforeEach(async () => {
  remotes = createRemotes();
  http = await serveGit(remotes.dir, TOKEN);
  root = tempDir('conveyor-ws-http-');
});
afterEach(async () => {
  await http.close();
  remotes.cleanup();
  removeDir(root);
});

const ctx = (token?: string): WorkspaceContext => ({
  serverUrl: http.url,
  ...(token ? { token } : {}),
  env: { PATH: process.env.PATH ?? '/bin' },
  scrub: (t) => t.split(TOKEN).join('***'),
});
const repo = (name: string) => ({ repo: name, role: 'sibling' as const, services: [], base: 'main', workBranch: `conveyor/${name.split('/')[1]}-1` });

describe('preparing from an http(s) server', () => {
  it('fetches base and work branch with the token given per command, and writes it nowhere', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    remotes.create('acme/api', { 'b.txt': 'b\n' });
    git(remotes.bare('acme/api'), 'branch', 'conveyor/api-1', 'main');
    const work = remotes.commit('acme/api', 'conveyor/api-1', { 'work.txt': 'work\n' });
    const base = remotes.commit('acme/api', 'main', { 'base.txt': 'base\n' });

    const ws = await prepareWorkspace(ctx(TOKEN), [repo('acme/web'), repo('acme/api')], { root, mode: 'work' });
    const [web, api] = ws.repos;
    expect(web).toMatchObject({ url: `${http.url}/acme/web.git`, resumed: false, baseCommit: remotes.head('acme/web', 'main'), baseMerge: 'new-branch' });
    expect(api).toMatchObject({ resumed: true, startCommit: work, baseCommit: base, baseMerge: 'merged' });
    expect(readFileSync(join(api!.dir, 'work.txt'), 'utf8')).toBe('work\n');
    expect(readFileSync(join(api!.dir, 'base.txt'), 'utf8')).toBe('base\n');
    // The server was asked with the token, so it went through the credential helper...
    expect(http.authorizations).toContain(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
    // ...and it is in no file of the workspace, and the remote URL carries no credential.
    for (const r of ws.repos) {
      expect(git(r.dir, 'remote', 'get-url', 'origin')).toBe(`${http.url}/${r.repo}.git`);
      expect(r.gitConfig).not.toContain(TOKEN);
    }
    const base64 = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    for (const f of allFiles(root)) {
      const text = readFileSync(f, 'latin1');
      expect(text.includes(TOKEN) || text.includes(base64), f).toBe(false);
    }
  });

  it('fails with clone-failed, without prompting, when the server refuses the missing token', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    await expect(prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'work' })).rejects.toMatchObject({ code: 'clone-failed' });
    expect(http.authorizations).toEqual([]);
  });

  it('names a missing base branch', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    await expect(prepareWorkspace(ctx(TOKEN), [{ ...repo('acme/web'), base: 'develop' }], { root, mode: 'work' })).rejects.toMatchObject({
      code: 'clone-failed',
      message: expect.stringContaining('base branch "develop" does not exist in acme/web'),
    });
  });
});
