// The network path of the workspace (what GitHub sees), offline: git's own smart-HTTP server
// (`git http-backend`) behind a small Node server that demands the token as Basic auth, the way
// GitHub does. The token must reach git through the scoped credential helper and nowhere else.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  http = await serveGit(remotes.dir, { token: TOKEN, config: { 'uploadpack.allowFilter': 'true', 'uploadpack.allowAnySHA1InWant': 'true' } });
  root = tempDir('conveyor-ws-http-');
});
afterEach(async () => {
  await http.close();
  remotes.cleanup();
  removeDir(root);
});

const ctx = (token?: string): WorkspaceContext => ({
  serverUrl: http.url,
  ...(token ? { token: async () => token } : {}),
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
      expect(readFileSync(join(r.gitDir, 'config'), 'utf8')).not.toContain(TOKEN);
    }
    const base64 = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    for (const f of allFiles(root)) {
      const text = readFileSync(f, 'latin1');
      expect(text.includes(TOKEN) || text.includes(base64), f).toBe(false);
    }
  });

  it('starts a new work branch from a shallow clone of the base: its last commit and files, in one fetch; the branch pushed from it lands, and the next step resumes it with the history merges need', async () => {
    remotes.create('acme/web', { 'a.txt': 'one\n', 'b.txt': 'b\n' });
    remotes.commit('acme/web', 'main', { 'a.txt': 'two\n' });
    const head = remotes.commit('acme/web', 'main', { 'a.txt': 'three\n' });
    const before = http.requests.length;
    const first = await prepareWorkspace(ctx(TOKEN), [repo('acme/web')], { root, mode: 'work' });
    const web = first.repos[0]!;
    expect(web).toMatchObject({ resumed: false, startCommit: '', baseCommit: head, preparedHead: head, baseMerge: 'new-branch', checkedOut: 'conveyor/web-1' });
    expect(git(web.dir, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(readFileSync(join(web.gitDir, 'shallow'), 'utf8').trim()).toBe(head);
    expect(readFileSync(join(web.dir, 'a.txt'), 'utf8')).toBe('three\n');
    // Every object of the checkout came with the clone; nothing is left to ask the server for.
    expect(git(web.dir, 'rev-list', '--objects', '--missing=print', 'HEAD')).not.toMatch(/^\?/m);
    expect(readFileSync(join(web.gitDir, 'config'), 'utf8')).not.toMatch(/promisor/);
    // ls-remote (advertisement, ls-refs), then the clone (advertisement, ls-refs, one fetch): no second fetch for contents.
    expect(http.requests.slice(before).filter((r) => r.startsWith('POST') && r.includes('git-upload-pack'))).toHaveLength(3);

    // The agent's work is committed and pushed from the shallow clone, as a new branch (lease: it must not exist).
    writeFileSync(join(web.dir, 'work.txt'), 'work\n');
    const pushedHead = (await web.git.commitAll('the work')).head;
    expect(await web.git.push({ to: web.url, ref: pushedHead, branch: web.workBranch, lease: '' })).toEqual({ pushed: true });
    expect(remotes.head('acme/web', 'conveyor/web-1')).toBe(pushedHead);
    expect(git(remotes.bare('acme/web'), 'fsck', '--connectivity-only', '--no-dangling')).toBe('');

    // Meanwhile the base advances: the next step resumes the branch with the whole history, merges
    // the base in, and the review's diff against the base is the work alone.
    const advanced = remotes.commit('acme/web', 'main', { 'c.txt': 'c\n' });
    const next = await prepareWorkspace(ctx(TOKEN), [repo('acme/web')], { root: join(root, 'next'), mode: 'work' });
    const resumed = next.repos[0]!;
    expect(resumed).toMatchObject({ resumed: true, startCommit: pushedHead, baseCommit: advanced, baseMerge: 'merged' });
    expect(git(resumed.dir, 'rev-list', '--count', 'HEAD')).toBe('6'); // three base commits, the work, the advance, the merge
    expect(readFileSync(join(resumed.dir, 'c.txt'), 'utf8')).toBe('c\n');
    const review = await resumed.git.diff('refs/remotes/origin/main...HEAD');
    expect(review).toContain('+++ b/work.txt');
    expect(review).not.toContain('c.txt');
  });

  it("takes a code step's own attempt on the draft PR's branch (one empty commit on the base) from one shallow fetch, and falls back to the whole history once the base moved", async () => {
    remotes.create('acme/web', { 'a.txt': 'one\n', 'b.txt': 'b\n' });
    const head = remotes.commit('acme/web', 'main', { 'a.txt': 'two\n' });
    // What the app's start leaves: the work branch, one empty commit on the base's head.
    const start = git(remotes.bare('acme/web'), 'commit-tree', 'main^{tree}', '-p', 'main', '-m', 'Conveyor starts here');
    git(remotes.bare('acme/web'), 'update-ref', 'refs/heads/conveyor/web-1', start);
    const before = http.requests.length;
    const ws = await prepareWorkspace(ctx(TOKEN), [repo('acme/web')], { root, mode: 'work', fresh: true });
    const web = ws.repos[0]!;
    expect(web).toMatchObject({
      resumed: true,
      startCommit: start,
      baseCommit: head,
      preparedHead: start,
      baseMerge: 'up-to-date',
      checkedOut: 'conveyor/web-1',
    });
    expect(readFileSync(join(web.dir, 'a.txt'), 'utf8')).toBe('two\n');
    expect(git(web.dir, 'rev-list', '--objects', '--missing=print', 'HEAD')).not.toMatch(/^\?/m);
    // ls-remote, then one clone: no blobless clone, no second fetch.
    expect(http.requests.slice(before).filter((r) => r.startsWith('POST') && r.includes('git-upload-pack'))).toHaveLength(3);
    writeFileSync(join(web.dir, 'work.txt'), 'work\n');
    const pushedHead = (await web.git.commitAll('the work')).head;
    expect(await web.git.push({ to: web.url, ref: pushedHead, branch: web.workBranch, lease: start })).toEqual({ pushed: true });
    expect(remotes.head('acme/web', 'conveyor/web-1')).toBe(pushedHead);
    expect(git(remotes.bare('acme/web'), 'fsck', '--connectivity-only', '--no-dangling')).toBe('');
    const diff = await web.git.diff('refs/remotes/origin/main...HEAD');
    expect(diff).toContain('+++ b/work.txt');

    // The base moved past the branch's start: the shallow try does not hold the merge base, so the
    // branch comes with the whole history and the base is merged in.
    git(remotes.bare('acme/web'), 'update-ref', 'refs/heads/conveyor/web-1', start);
    const advanced = remotes.commit('acme/web', 'main', { 'c.txt': 'c\n' });
    const again = (await prepareWorkspace(ctx(TOKEN), [repo('acme/web')], { root: join(root, 'again'), mode: 'work', fresh: true })).repos[0]!;
    expect(again).toMatchObject({ resumed: true, startCommit: start, baseCommit: advanced, baseMerge: 'merged' });
    expect(readFileSync(join(again.dir, 'c.txt'), 'utf8')).toBe('c\n');
    expect(readFileSync(join(again.gitDir, 'config'), 'utf8')).toMatch(/promisor = true/);
  });

  it('resumes a work branch from a blobless clone: the whole history, the files of the checkout, and older contents only when a diff asks, with the token', async () => {
    remotes.create('acme/web', { 'a.txt': 'one\n', 'b.txt': 'b\n' });
    remotes.commit('acme/web', 'main', { 'a.txt': 'two\n' });
    remotes.commit('acme/web', 'main', { 'a.txt': 'three\n' });
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-1', 'main');
    const work = remotes.commit('acme/web', 'conveyor/web-1', { 'work.txt': 'work\n' });
    const ws = await prepareWorkspace(ctx(TOKEN), [repo('acme/web')], { root, mode: 'checkout' });
    const web = ws.repos[0]!;
    expect(web).toMatchObject({ resumed: true, preparedHead: work, checkedOut: 'conveyor/web-1', baseMerge: 'not-merged' });
    const config = readFileSync(join(web.gitDir, 'config'), 'utf8');
    expect(config).toMatch(/promisor = true/);
    expect(config).toMatch(/partialclonefilter = blob:none/);
    // Every commit is there (merges need them); of the contents, only what the checkout holds.
    expect(git(web.dir, 'rev-list', '--count', 'HEAD')).toBe('4');
    expect(readFileSync(join(web.dir, 'a.txt'), 'utf8')).toBe('three\n');
    const missing = () =>
      git(web.dir, 'rev-list', '--objects', '--missing=print', 'HEAD')
        .split('\n')
        .filter((l) => l.startsWith('?'));
    expect(missing()).toHaveLength(2); // a.txt's "one" and "two"
    // A diff that needs them asks the server, with the token, like every other network command.
    const asked = http.authorizations.length;
    const patch = await web.git.diff('HEAD~3..HEAD');
    expect(patch).toContain('-one\n+three');
    expect(http.authorizations.length).toBeGreaterThan(asked);
    expect(new Set(http.authorizations)).toEqual(new Set([`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`]));
    expect(missing()).toHaveLength(1); // "two": nobody asked for it
  });

  it('reads no configuration of a repository the workspace lies in (its rewrites or credentials do not apply)', async () => {
    remotes.create('acme/web', { 'a.txt': 'a\n' });
    // CONVEYOR_WORKSPACE_ROOT (and even the temp folder) may lie inside another checkout.
    git(root, 'init', '--quiet');
    git(root, 'config', `url.http://127.0.0.1:1/.insteadOf`, `${http.url}/`);
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = join(root, 'tmp');
    mkdirSync(process.env.TMPDIR);
    try {
      const ws = await prepareWorkspace(ctx(TOKEN), [repo('acme/web')], { root: join(root, 'ws'), mode: 'work' });
      expect(ws.repos[0]).toMatchObject({ baseCommit: remotes.head('acme/web', 'main'), baseMerge: 'new-branch' });
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
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
