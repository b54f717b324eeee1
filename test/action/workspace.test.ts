// The workspace on real bare remotes: folders, refusals, resume, and the token's path to git.
import { cpSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertCloneTarget, cloneUrl, prepareWorkspace, repoFolder, repoGit, restoreGitConfigs, type WorkspaceContext } from '../../action/src/workspace.ts';
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
  return { serverUrl, token: async () => 'ghs_workspace_token_123', env: { PATH: process.env.PATH ?? '/bin' }, scrub: (t) => t };
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

describe("preparing from a file:// server (git's local clone)", () => {
  const objectFiles = (gitDir: string): string[] =>
    readdirSync(join(gitDir, 'objects'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));

  it('leaves the checkout no remote to push to (only Conveyor pushes, to the checked URL), copies objects instead of linking them, and keeps the whole history', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    remotes.commit('acme/web', 'main', { 'b.txt': 'b\n' });
    const head = remotes.commit('acme/web', 'main', { 'c.txt': 'c\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'work' });
    const web = ws.repos[0]!;
    expect(web).toMatchObject({ url: `${remotes.url}/acme/web.git`, baseCommit: head, preparedHead: head, baseMerge: 'new-branch' });
    // Conveyor pushes to the URL that was checked against the server; the checkout knows no remote
    // (an agent's `git push` has nowhere to go), only the refs fetched from it, to merge the base.
    expect(web.url).toBe(`${remotes.url}/acme/web.git`);
    expect(web.gitConfig).not.toContain('[remote');
    expect(git(web.dir, 'remote')).toBe('');
    expect(git(web.dir, 'rev-parse', 'refs/remotes/origin/main')).toBe(head);
    expect(web.gitConfig).not.toContain('ghs_');
    // Every file of the base is checked out, and the full history is there (merges need it).
    expect(readFileSync(join(web.dir, 'c.txt'), 'utf8')).toBe('c\n');
    expect(git(web.dir, 'rev-list', '--count', 'HEAD')).toBe('3');
    expect(git(web.dir, 'status', '--porcelain')).toBe('');
    // The agent works in this checkout: no object file of it may be the remote's own file.
    const remoteInodes = new Set(objectFiles(remotes.bare('acme/web')).map((f) => statSync(f).ino));
    const mine = objectFiles(join(web.dir, '.git'));
    expect(mine.length).toBeGreaterThan(0);
    for (const f of mine) {
      expect(statSync(f).nlink, f).toBe(1);
      expect(remoteInodes.has(statSync(f).ino), f).toBe(false);
    }
  });

  it('resumes a work branch and merges an advanced base into it, or leaves a conflicting one unmerged', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n', 'shared.txt': 'one\n' });
    remotes.create('acme/api', { 'shared.txt': 'one\n' });
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-1', 'main');
    git(remotes.bare('acme/api'), 'branch', 'conveyor/api-1', 'main');
    const webWork = remotes.commit('acme/web', 'conveyor/web-1', { 'work.txt': 'work\n' });
    const webBase = remotes.commit('acme/web', 'main', { 'base.txt': 'base\n' });
    const apiWork = remotes.commit('acme/api', 'conveyor/api-1', { 'shared.txt': 'work side\n' });
    remotes.commit('acme/api', 'main', { 'shared.txt': 'base side\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web'), repo('acme/api')], { root, mode: 'work' });
    const [web, api] = ws.repos;
    expect(web).toMatchObject({ resumed: true, startCommit: webWork, baseCommit: webBase, baseMerge: 'merged', checkedOut: 'conveyor/web-1' });
    expect(web!.preparedHead).toBe(git(web!.dir, 'rev-parse', 'HEAD'));
    expect(git(web!.dir, 'rev-parse', 'HEAD^1', 'HEAD^2')).toBe(`${webWork}\n${webBase}`);
    expect(readFileSync(join(web!.dir, 'work.txt'), 'utf8')).toBe('work\n');
    expect(readFileSync(join(web!.dir, 'base.txt'), 'utf8')).toBe('base\n');
    expect(api).toMatchObject({ resumed: true, startCommit: apiWork, preparedHead: apiWork, baseMerge: 'conflict' });
    expect(git(api!.dir, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(api!.dir, 'shared.txt'), 'utf8')).toBe('work side\n');
    expect(ws.notes.join('\n')).toMatch(/acme\/api: the base branch `main` does not merge cleanly/);
  });

  it('checkout mode takes an existing work branch as it is, without merging', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-1', 'main');
    const work = remotes.commit('acme/web', 'conveyor/web-1', { 'work.txt': 'work\n' });
    remotes.commit('acme/web', 'main', { 'base.txt': 'base\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'checkout' });
    expect(ws.repos[0]).toMatchObject({ checkedOut: 'conveyor/web-1', preparedHead: work, startCommit: work, baseMerge: 'not-merged' });
    expect(git(ws.repos[0]!.dir, 'rev-parse', 'HEAD')).toBe(work);
  });

  it('refuses a file:// server on another host before cloning anything', async () => {
    await expect(prepareWorkspace(ctx('file://otherhost/srv/remotes'), [repo('acme/web')], { root, mode: 'work' })).rejects.toMatchObject({
      code: 'clone-refused',
      message: expect.stringContaining('GITHUB_SERVER_URL "file://otherhost/srv/remotes" is not a folder on this machine'),
    });
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('restoring .git/config after a user command', () => {
  it('undoes a rewritten config, one moved behind a symbolic link, and a commondir that points git at another config', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    remotes.create('acme/api', { 'b.txt': 'b\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web'), repo('acme/api')], { root, mode: 'work' });
    const [web, api] = ws.repos;
    // What a command could leave: web reads its configuration from elsewhere (.git/commondir), in
    // which the push URL is rewritten; api's config became a link to a file it controls.
    const evil = join(root, 'evil');
    cpSync(join(web!.dir, '.git'), evil, { recursive: true });
    writeFileSync(join(evil, 'config'), `[core]\n\trepositoryformatversion = 0\n[url "file:///nowhere/"]\n\tinsteadOf = ${remotes.url}/\n`);
    writeFileSync(join(web!.dir, '.git', 'commondir'), `${evil}\n`);
    expect(git(web!.dir, 'rev-parse', '--git-common-dir')).toBe(evil);
    rmSync(join(api!.dir, '.git', 'config'));
    symlinkSync(join(evil, 'config'), join(api!.dir, '.git', 'config'));

    await restoreGitConfigs(ws);
    expect(git(web!.dir, 'rev-parse', '--git-common-dir')).toBe('.git');
    expect(lstatSync(join(api!.dir, '.git', 'config')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(evil, 'config'), 'utf8')).toContain('nowhere'); // not written through the link
    for (const r of [web!, api!]) {
      expect(readFileSync(join(r.dir, '.git', 'config'), 'utf8')).toBe(r.gitConfig);
      writeFileSync(join(r.dir, 'c.txt'), 'c\n');
      await repoGit(ctx(), r.dir).commitAll('Add c\n');
      expect(await repoGit(ctx(), r.dir).push({ to: r.url, ref: 'HEAD', branch: r.workBranch, lease: '' })).toEqual({ pushed: true });
      expect(remotes.branches(r.repo)).toContain(r.workBranch);
    }
  });

  it('refuses a checkout whose .git is no longer a folder', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'work' });
    const gitDir = join(ws.repos[0]!.dir, '.git');
    renameSync(gitDir, join(root, 'moved'));
    writeFileSync(gitDir, `gitdir: ${join(root, 'moved')}\n`);
    await expect(restoreGitConfigs(ws)).rejects.toMatchObject({ code: 'bad-input', message: expect.stringContaining('is no longer a folder') });
  });
});
