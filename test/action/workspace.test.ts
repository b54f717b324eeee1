// The workspace on real bare remotes: folders, refusals, resume, and the token's path to git.
import { chmodSync, cpSync, existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  return { serverUrl, token: async () => 'ghs_workspace_token_123', scrub: (t) => t };
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
    for (const r of ws.repos) {
      expect(readFileSync(join(r.gitDir, 'config'), 'utf8')).not.toContain('ghs_');
      // The git folder lies beside the workspace, not in it: the checkout holds only a pointer.
      expect(r.gitDir).toBe(join(`${ws.root}.git`, r.folder));
      expect(readFileSync(join(r.dir, '.git'), 'utf8')).toBe(`gitdir: ${r.gitDir}\n`);
    }
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
    const config = readFileSync(join(web.gitDir, 'config'), 'utf8');
    expect(config).not.toContain('[remote');
    expect(git(web.dir, 'remote')).toBe('');
    expect(git(web.dir, 'rev-parse', 'refs/remotes/origin/main')).toBe(head);
    expect(config).not.toContain('ghs_');
    // Every file of the base is checked out, and the full history is there (merges need it).
    expect(readFileSync(join(web.dir, 'c.txt'), 'utf8')).toBe('c\n');
    expect(git(web.dir, 'rev-list', '--count', 'HEAD')).toBe('3');
    expect(git(web.dir, 'status', '--porcelain')).toBe('');
    // The agent works in this checkout: no object file of it may be the remote's own file.
    const remoteInodes = new Set(objectFiles(remotes.bare('acme/web')).map((f) => statSync(f).ino));
    const mine = objectFiles(web.gitDir);
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

describe("the checkouts' git folders after a user command", () => {
  it('are what Conveyor left: a rewritten config, one behind a link, and a common dir that points git elsewhere are undone before its next command', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    remotes.create('acme/api', { 'b.txt': 'b\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web'), repo('acme/api')], { root, mode: 'work' });
    const [web, api] = ws.repos;
    const configs = ws.repos.map((r) => readFileSync(join(r.gitDir, 'config'), 'utf8'));
    // What a command that could write there (no sandbox) would leave: web reads its configuration
    // from elsewhere (commondir), in which the push URL is rewritten; api's config became a link.
    const evil = join(root, 'evil');
    cpSync(web!.gitDir, evil, { recursive: true });
    writeFileSync(join(evil, 'config'), `[core]\n\trepositoryformatversion = 0\n[url "file:///nowhere/"]\n\tinsteadOf = ${remotes.url}/\n`);
    writeFileSync(join(web!.gitDir, 'commondir'), `${evil}\n`);
    rmSync(join(api!.gitDir, 'config'));
    symlinkSync(join(evil, 'config'), join(api!.gitDir, 'config'));

    for (const [i, r] of [web!, api!].entries()) {
      writeFileSync(join(r.dir, 'c.txt'), 'c\n');
      const { head } = await r.git.commitAll('Add c\n');
      expect(await r.git.push({ to: r.url, ref: head, branch: r.workBranch, lease: '' })).toEqual({ pushed: true });
      expect(remotes.branches(r.repo)).toContain(r.workBranch);
      expect(readFileSync(join(r.gitDir, 'config'), 'utf8')).toBe(configs[i]);
    }
    expect(existsSync(join(web!.gitDir, 'commondir'))).toBe(false);
    expect(lstatSync(join(api!.gitDir, 'config')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(evil, 'config'), 'utf8')).toContain('nowhere'); // not written through the link
  });

  it("are never the checkout's own .git: a command that makes one there with its own configuration changes nothing Conveyor's git reads", async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'work' });
    const web = ws.repos[0]!;
    const marker = join(root, 'fsmonitor-ran');
    const script = join(root, 'fsmonitor.sh');
    writeFileSync(script, `#!/bin/sh\necho ran > ${marker}\n`);
    chmodSync(script, 0o755);
    rmSync(join(web.dir, '.git'));
    git(web.dir, 'init', '--quiet');
    git(web.dir, 'config', 'core.fsmonitor', script);
    writeFileSync(join(web.dir, 'c.txt'), 'c\n');
    const { committed, head } = await web.git.commitAll('Add c\n');
    expect(committed).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(git(root, `--git-dir=${web.gitDir}`, 'log', '-1', '--format=%s', head)).toBe('Add c');
    // And the checkout names Conveyor's git folder again, for the commands that run there next.
    expect(readFileSync(join(web.dir, '.git'), 'utf8')).toBe(`gitdir: ${web.gitDir}\n`);
  });

  it('refuses a git folder that is no longer a folder', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'work' });
    const web = ws.repos[0]!;
    renameSync(web.gitDir, join(root, 'moved'));
    symlinkSync(join(root, 'moved'), web.gitDir);
    await expect(web.git.currentCommit()).rejects.toMatchObject({ code: 'bad-input', message: expect.stringContaining('is no longer a folder') });
  });
});

describe('a conflict repair', () => {
  it('finds the base merging into its work branch, the conflicts marked in the files, for the agent to resolve by editing them', async () => {
    remotes.create('acme/web', { 'shared.txt': 'one\n', 'other.txt': 'o\n' });
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-1', 'main');
    const work = remotes.commit('acme/web', 'conveyor/web-1', { 'shared.txt': 'work side\n' });
    remotes.commit('acme/web', 'main', { 'shared.txt': 'base side\n', 'other.txt': 'moved\n' });
    const ws = await prepareWorkspace(ctx(), [repo('acme/web')], { root, mode: 'work', resolveConflicts: true });
    const web = ws.repos[0]!;
    expect(web).toMatchObject({ baseMerge: 'resolving', conflicts: ['shared.txt'], preparedHead: work });
    expect(readFileSync(join(web.dir, 'shared.txt'), 'utf8')).toMatch(/^<<<<<<< [\s\S]*=======[\s\S]*>>>>>>> /m);
    expect(readFileSync(join(web.dir, 'other.txt'), 'utf8')).toBe('moved\n');
    expect(ws.notes.join('\n')).toMatch(/Conveyor has started merging the base branch `main`.*`shared.txt`.*do not run git/);
    // Resolved by editing alone, the commit records the merge.
    writeFileSync(join(web.dir, 'shared.txt'), 'both sides\n');
    const { head } = await web.git.commitAll('Merge main\n');
    expect(git(web.dir, 'rev-list', '--parents', '-n', '1', head).split(' ')).toHaveLength(3);
  });
});
