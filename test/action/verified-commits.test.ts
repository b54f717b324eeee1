// `commits: verified` (the default): on GitHub the code step's commits are made by GitHub through
// its Git data API, so GitHub signs them. Every call and its payload is asserted here, with GitHub's
// answers computed on the real bare repository (test/helpers/git-data.ts), so what the branch holds
// afterwards is checked with git: the very tree of the local commit, file modes and links and
// binary bytes intact, the same parents (a merge keeps both), the issue's author as co-author.
// The lease holds as a push's: someone else's push since the step started is a refusal, reported
// as a rejected push. A file over GitHub's limit fails the step before anything is written; a
// change too large for one request is sent in several. The step runs in-process: git against
// real bare repositories, GitHub's API mocked with nock.
import nock from 'nock';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type StepContext } from '../../action/src/context.ts';
import { runCodeWork } from '../../action/src/steps/code.ts';
import { runAuthorGate } from '../../action/src/steps/gate-author.ts';
import type { PullRequestRef, StepPayload } from '../../core/contract/wire.ts';
import { GitDataOnBare } from '../helpers/git-data.ts';
import { GITHUB_API as API, githubStepContext, gitDataScope as sharedGitDataScope, refPath, updateRefReply } from '../helpers/github-step.ts';
import { prBodyScope } from '../helpers/pr-body-scope.ts';
import { gateStep, makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

const BRANCH = 'conveyor/web-7';
let remotes: Remotes;
let scratch: string;
let gh: GitDataOnBare;
let n = 0;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-verified-');
  remotes.create('acme/web', { 'README.md': 'web\n', 'old.txt': 'old\n', 'script.sh': 'echo hi\n' });
  gh = new GitDataOnBare(remotes.bare('acme/web'));
});
afterEach(() => {
  nock.cleanAll();
  remotes.cleanup();
  removeDir(scratch);
});

/** A step context that clones from the local remotes and talks to (mocked) GitHub as its forge. */
const githubContext = (lines: string[] = []): StepContext => githubStepContext(remotes, join(scratch, `ws-${++n}`), lines);

/** The run's PR as the run knows it (ready: marking it costs no call), on the draft's branch. */
const PR: PullRequestRef = { repo: 'acme/web', number: 12, url: 'https://github.com/acme/web/pull/12', branch: BRANCH, nodeId: 'PR_kwDOweb12' };
const AUTHOR = { login: 'octocat', id: 583231 };

function payloadFor(agentRun: string, how: { pr?: boolean } = {}): StepPayload {
  const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentRun, issue: { author: AUTHOR } });
  return how.pr === false ? payload : { ...payload, repos: payload.repos.map((r) => ({ ...r, pr: PR })) };
}

const work = { agent: 'coder', mode: 'run' as const, writes: [] };
type Body = Record<string, unknown>;

/** GitHub's Git data API on acme/web's work branch, each route answered from the bare repository. */
const gitDataScope = (times: Parameters<typeof sharedGitDataScope>[2] = {}) => sharedGitDataScope(gh, { repo: 'acme/web', branch: BRANCH }, times);

/** The run's PR body, written again by the code step once it pushed (what changed in it). */
const prBody = () =>
  prBodyScope({ api: API, repo: 'acme/web', number: 12, branch: BRANCH, url: PR.url, nodeId: PR.nodeId!, head: () => remotes.head('acme/web', BRANCH) });

/** The mode of every file of a commit in the bare repository, by path. */
const modesOf = (rev: string) =>
  Object.fromEntries(
    git(remotes.bare('acme/web'), 'ls-tree', '-r', rev)
      .split('\n')
      .map((l) => [l.split('\t')[1]!, l.split(' ')[0]!]),
  );

describe('a change made through GitHub’s Git data API', () => {
  beforeEach(() => {
    // The run's draft PR's branch: the step starts from it.
    git(remotes.bare('acme/web'), 'branch', BRANCH, 'main');
  });

  it('sends text inline, a binary file as a base64 blob, an executable bit, a link and a removal, in one tree on the start commit; one commit, co-authored; the branch moved without force', async () => {
    const start = remotes.head('acme/web', BRANCH)!;
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe]);
    const scope = gitDataScope({ blobs: 1 });
    const body = prBody();
    const lines: string[] = [];
    const agent = [
      'printf "hello\\n" > hi.txt',
      'printf "web, changed\\n" > README.md',
      'rm old.txt',
      'chmod +x script.sh',
      'ln -s hi.txt link',
      `printf '${[...png].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}' > logo.png`,
    ].join(' && ');
    const result = await runCodeWork(githubContext(lines), payloadFor(agent), work);
    expect(result.conclusion, result.summary).toBe('success');
    scope.done();
    body.done();

    // The blob: the binary file's bytes, base64.
    expect(gh.bodies.blobs).toEqual([{ content: png.toString('base64'), encoding: 'base64' }]);
    // One tree request on the start commit's tree: the removal first, the rest by path.
    const scriptSha = git(remotes.bare('acme/web'), 'rev-parse', 'main:script.sh');
    expect(gh.bodies.trees).toHaveLength(1);
    const tree = gh.bodies.trees[0]!;
    expect(tree.base_tree).toBe(git(remotes.bare('acme/web'), 'rev-parse', `${start}^{tree}`));
    expect(tree.tree).toEqual([
      { path: 'old.txt', mode: '100644', type: 'blob', sha: null },
      { path: 'README.md', mode: '100644', type: 'blob', content: 'web, changed\n' },
      { path: 'hi.txt', mode: '100644', type: 'blob', content: 'hello\n' },
      { path: 'link', mode: '120000', type: 'blob', content: 'hi.txt' },
      { path: 'logo.png', mode: '100644', type: 'blob', sha: expect.stringMatching(/^[0-9a-f]{40}$/) },
      // Only its mode changed: GitHub has the blob, sent by its id.
      { path: 'script.sh', mode: '100755', type: 'blob', sha: scriptSha },
    ]);

    // One commit on the start commit, with no author or committer (GitHub signs only its own), co-authored by the issue's author.
    expect(gh.bodies.commits).toHaveLength(1);
    const commit = gh.bodies.commits[0]!;
    expect(Object.keys(commit).sort()).toEqual(['message', 'parents', 'tree']);
    expect(commit.parents).toEqual([start]);
    expect(commit.message).toMatch(/\n\nConveyor-Run: run-1\nCo-authored-by: octocat <583231\+octocat@users\.noreply\.github\.com>\n$/);
    // The branch moved as a fast-forward only, to GitHub's commit.
    const head = remotes.head('acme/web', BRANCH)!;
    expect(gh.bodies.refs).toEqual([{ ref: `heads/${BRANCH}`, sha: head, force: false }]);

    // What the branch holds is exactly what the agent left: modes, the link, the binary bytes.
    expect(modesOf(head)).toEqual({ 'README.md': '100644', 'hi.txt': '100644', link: '120000', 'logo.png': '100644', 'script.sh': '100755' });
    expect(git(remotes.bare('acme/web'), 'rev-parse', `${head}:logo.png`)).toBe((tree.tree as Array<{ sha?: string }>)[4]!.sha);
    expect(remotes.show('acme/web', BRANCH, 'link')).toBe('hi.txt');
    expect(execBytes(`${head}:logo.png`)).toEqual(png);
    expect(git(remotes.bare('acme/web'), 'log', '-1', '--format=%an', head)).toBe('conveyor[bot]');

    // The step reports GitHub's commit (not the local one), and says it is Verified.
    expect(result.commits['acme/web']).toBe(head);
    expect(result.prs).toEqual([expect.objectContaining({ repo: 'acme/web', number: 12, head })]);
    expect(result.summary).toContain("pushed 6 changed file(s), committed by GitHub's API (Verified)");
    expect(lines).toContainEqual(expect.stringMatching(/^conveyor: acme\/web: 1 commit\(s\) through GitHub's API \(1 tree request\(s\), 1 blob\(s\)\)/));
  });

  it.each([
    ['422 "Update is not a fast forward"', 'someone else pushed'],
    ['409', 'GitHub refused'],
  ])('reports a lease GitHub refused (%s) as a rejected push: the branch keeps what is there', async (_what, how) => {
    const scope = nock(API)
      .post('/repos/acme/web/git/trees')
      .reply((_u, b) => {
        // Someone pushes to the work branch while the step sends its change.
        if (how === 'someone else pushed') remotes.commit('acme/web', BRANCH, { 'theirs.txt': 'theirs\n' }, 'their push');
        return gh.tree(b as Body);
      })
      .post('/repos/acme/web/git/commits')
      .reply((_u, b) => gh.commit(b as Body));
    if (how === 'someone else pushed') scope.patch(refPath('acme/web', BRANCH)).reply(updateRefReply(gh));
    else scope.patch(refPath('acme/web', BRANCH)).reply(409, { message: 'Reference update failed' });
    // The refusal is read back once: the branch is not at the commit made (a retried call that landed would be).
    scope
      .get((path) => decodeURIComponent(path) === `/repos/acme/web/git/ref/heads/${BRANCH}`)
      .reply(() => [200, { ref: `refs/heads/${BRANCH}`, object: { sha: remotes.head('acme/web', BRANCH), type: 'commit' } }]);
    const before = remotes.head('acme/web', BRANCH);
    const result = await runCodeWork(githubContext(), payloadFor('echo mine > mine.txt'), work);
    scope.done();
    expect(result.conclusion).toBe('failure');
    expect(result.error?.code).toBe('push-rejected');
    expect(result.error?.message).toMatch(
      new RegExp(`^update of ${BRANCH} in acme/web through GitHub's API was refused \\(someone else pushed since the step started from [0-9a-f]{12}\\?\\): `),
    );
    expect(result.error?.message).toContain(how === 'someone else pushed' ? 'Update is not a fast forward (HTTP 422' : 'Reference update failed (HTTP 409');
    if (how === 'someone else pushed') expect(remotes.show('acme/web', BRANCH, 'theirs.txt')).toBe('theirs');
    else expect(remotes.head('acme/web', BRANCH)).toBe(before);
    expect(() => remotes.show('acme/web', BRANCH, 'mine.txt')).toThrow();
  });

  it('splits a change too large for one tree request: each request on the tree the one before made, a large text file as a blob of its own', async () => {
    // Six text files of 200 KiB (five fill a request's 1 MiB of inline content) and one of 300 KiB (over the inline size of a file).
    const scope = gitDataScope({ blobs: 1, trees: 2 });
    const body = prBody();
    const agent = 'for i in 1 2 3 4 5 6; do head -c 204800 /dev/zero | tr "\\0" "a" > part$i.txt; done && head -c 307200 /dev/zero | tr "\\0" "b" > big.txt';
    const result = await runCodeWork(githubContext(), payloadFor(agent), work);
    expect(result.conclusion, result.summary).toBe('success');
    scope.done();
    body.done();
    const [first, second] = gh.bodies.trees as Array<{ base_tree: string; tree: Array<Record<string, unknown>> }>;
    // By its id, a blob costs the request nothing: the first holds it and five of the inline files.
    expect(first!.tree.map((e) => e.path)).toEqual(['big.txt', 'part1.txt', 'part2.txt', 'part3.txt', 'part4.txt', 'part5.txt']);
    expect(first!.tree[0]).toEqual({ path: 'big.txt', mode: '100644', type: 'blob', sha: git(remotes.bare('acme/web'), 'rev-parse', `${BRANCH}:big.txt`) });
    expect(first!.tree[1]).toEqual({ path: 'part1.txt', mode: '100644', type: 'blob', content: 'a'.repeat(204800) });
    expect(second!.tree.map((e) => e.path)).toEqual(['part6.txt']);
    // The first request is on the start commit's tree, the second on the tree the first made; the commit has the last.
    expect(first!.base_tree).toBe(git(remotes.bare('acme/web'), 'rev-parse', 'main^{tree}'));
    expect(second!.base_tree).not.toBe(first!.base_tree);
    expect(gh.bodies.commits[0]!.tree).toBe(git(remotes.bare('acme/web'), 'rev-parse', `${BRANCH}^{tree}`));
    expect(git(remotes.bare('acme/web'), 'ls-tree', '--name-only', second!.base_tree).split('\n')).toContain('part5.txt');
    expect(gh.bodies.blobs).toHaveLength(1);
    expect(remotes.show('acme/web', BRANCH, 'part6.txt')).toBe('a'.repeat(204800));
    expect(git(remotes.bare('acme/web'), 'ls-tree', '--name-only', BRANCH).split('\n')).toEqual([
      'README.md',
      'big.txt',
      'old.txt',
      ...[1, 2, 3, 4, 5, 6].map((i) => `part${i}.txt`),
      'script.sh',
    ]);
  });

  it('fails the step before anything is written when a file is over GitHub’s 100 MiB, naming it', async () => {
    const before = remotes.head('acme/web', BRANCH);
    // No scope: any call to GitHub would fail the step differently (nock refuses it).
    const result = await runCodeWork(githubContext(), payloadFor('echo small > small.txt && mkdir data && head -c 104857601 /dev/zero > data/huge.bin'), work);
    expect(result.conclusion).toBe('failure');
    expect(result.error).toEqual({
      code: 'change-too-large',
      message: expect.stringContaining(
        'acme/web: GitHub takes no file over 100 MiB (104857600 bytes), and the change holds `data/huge.bin` (104857601 bytes); nothing was sent to the branch.',
      ),
    });
    expect(nock.pendingMocks()).toEqual([]);
    expect(remotes.head('acme/web', BRANCH)).toBe(before);
  });

  it("fails the step naming the file when GitHub's API does not take its blob, and makes no tree, commit or branch update", async () => {
    const before = remotes.head('acme/web', BRANCH);
    const scope = nock(API).post('/repos/acme/web/git/blobs').reply(422, {
      message: 'Sorry, your input was too large to process. Consider creating the blob in a local clone of the repository and then pushing it to GitHub.',
    });
    const result = await runCodeWork(githubContext(), payloadFor('head -c 300000 /dev/urandom > blob.bin'), work);
    scope.done();
    expect(result.conclusion).toBe('failure');
    expect(result.error?.code).toBe('change-too-large');
    expect(result.error?.message).toMatch(
      /^acme\/web: GitHub's API did not take `blob\.bin` \(293 KiB\); nothing was sent to the branch\. GitHub refused a file of 300000 bytes in acme\/web \(HTTP 422\): Sorry, your input was too large/,
    );
    expect(result.error?.message).toContain(
      'then pushing it to GitHub. Keep the file out of the repository, or push with git (`commits: git`) where the branch does not require signed commits.',
    );
    expect(remotes.head('acme/web', BRANCH)).toBe(before);
  });
});

/** A blob's bytes in the bare repository. */
function execBytes(rev: string): Buffer {
  return execFileSync('git', ['cat-file', 'blob', rev], { cwd: remotes.bare('acme/web') });
}

describe('merge commits made through the API', () => {
  it('sends the base merged in before the agent as a merge of both parents, and the change on the merge GitHub made', async () => {
    git(remotes.bare('acme/web'), 'branch', BRANCH, 'main');
    const start = remotes.commit('acme/web', BRANCH, { 'work.txt': 'earlier work\n' }, 'earlier attempt');
    const base = remotes.commit('acme/web', 'main', { 'base.txt': 'base moved\n' }, 'base moves on');
    const scope = gitDataScope({ trees: 2, commits: 2 });
    const body = prBody();
    const result = await runCodeWork(githubContext(), payloadFor('echo more > more.txt'), { ...work, mode: 'repair' });
    expect(result.conclusion, result.summary).toBe('success');
    scope.done();
    body.done();
    const [merge, change] = gh.bodies.commits as Array<{ parents: string[]; message: string; tree: string }>;
    // The merge keeps both parents in order; its tree is made on the parent it differs least from.
    expect(merge!.parents).toEqual([start, base]);
    expect(merge!.message).toMatch(/^Merge /);
    const head = remotes.head('acme/web', BRANCH)!;
    const madeMerge = git(remotes.bare('acme/web'), 'rev-parse', `${head}^`);
    expect(change!.parents).toEqual([madeMerge]);
    expect(git(remotes.bare('acme/web'), 'rev-list', '--parents', '-1', madeMerge).split(' ').slice(1)).toEqual([start, base]);
    // Both of the merge's paths are held by one of its parents as they are: sent by their ids, nothing inline.
    const mergeTree = gh.bodies.trees[0] as { tree: Array<Record<string, unknown>> };
    expect(mergeTree.tree.every((e) => typeof e.sha === 'string')).toBe(true);
    expect((gh.bodies.trees[1] as { tree: unknown[] }).tree).toEqual([{ path: 'more.txt', mode: '100644', type: 'blob', content: 'more\n' }]);
    expect(remotes.show('acme/web', BRANCH, 'base.txt')).toBe('base moved');
    expect(remotes.show('acme/web', BRANCH, 'work.txt')).toBe('earlier work');
    expect(result.commits['acme/web']).toBe(head);
  });

  it("sends a conflict repair's merge with both parents, only the resolved file inline", async () => {
    git(remotes.bare('acme/web'), 'branch', BRANCH, 'main');
    const start = remotes.commit('acme/web', BRANCH, { 'README.md': 'web, the work\n', 'work.txt': 'work\n' }, 'the work');
    const base = remotes.commit('acme/web', 'main', { 'README.md': 'web, the base\n', 'b.txt': 'b\n', 'c.txt': 'c\n' }, 'the base');
    const scope = gitDataScope();
    const body = prBody();
    const result = await runCodeWork(githubContext(), payloadFor('printf "web, both\\n" > README.md'), { ...work, mode: 'repair', resolveConflicts: true });
    expect(result.conclusion, result.summary).toBe('success');
    scope.done();
    body.done();
    const [merge] = gh.bodies.commits as Array<{ parents: string[]; message: string }>;
    expect(merge!.parents).toEqual([start, base]);
    expect(merge!.message).toMatch(/^Merge main into conveyor\/web-7 \(acme\/web#7\)\n\nIts conflicts resolved by the repair agent/);
    expect(merge!.message).toContain('Co-authored-by: octocat <583231+octocat@users.noreply.github.com>');
    // Made on the base's tree (it differs least from it): the resolution inline, the work's file by its id.
    const tree = gh.bodies.trees[0] as { base_tree: string; tree: unknown[] };
    expect(tree.base_tree).toBe(git(remotes.bare('acme/web'), 'rev-parse', `${base}^{tree}`));
    expect(tree.tree).toEqual([
      { path: 'README.md', mode: '100644', type: 'blob', content: 'web, both\n' },
      { path: 'work.txt', mode: '100644', type: 'blob', sha: git(remotes.bare('acme/web'), 'rev-parse', `${start}:work.txt`) },
    ]);
    expect(gh.bodies.blobs).toEqual([]);
    expect(remotes.show('acme/web', BRANCH, 'README.md')).toBe('web, both');
    expect(remotes.show('acme/web', BRANCH, 'c.txt')).toBe('c');
  });
});

describe('a new work branch made through the API', () => {
  it("is created where none exists: the gate author's file, committed by GitHub", async () => {
    const scope = gitDataScope({ update: 0 })
      .post('/repos/acme/web/git/refs')
      .reply((_u, b) => gh.createRef(b as Body));
    const payload = {
      ...payloadFor('mkdir -p test && echo "exit 1" > test/accept.sh', { pr: false }),
      step: gateStep({ author: 'coder', path: 'test/accept.sh', run: 'sh {path}' }),
    };
    const result = await runAuthorGate(githubContext(), payload);
    expect(result.conclusion, result.summary).toBe('success');
    scope.done();
    const head = remotes.head('acme/web', BRANCH)!;
    expect(gh.bodies.refs).toEqual([{ ref: `refs/heads/${BRANCH}`, sha: head }]);
    expect(gh.bodies.commits[0]).toMatchObject({ parents: [remotes.head('acme/web', 'main')] });
    expect(result.commits).toEqual({ 'acme/web': head });
    expect(remotes.show('acme/web', BRANCH, 'test/accept.sh')).toBe('exit 1');
  });

  it('is refused when someone made the branch meanwhile (GitHub: "Reference already exists"), reported as a rejected push', async () => {
    const scope = nock(API)
      .post('/repos/acme/web/git/trees')
      .reply((_u, b) => {
        remotes.commit('acme/web', BRANCH, { 'theirs.txt': 'theirs\n' }, 'their branch');
        return gh.tree(b as Body);
      })
      .post('/repos/acme/web/git/commits')
      .reply((_u, b) => gh.commit(b as Body))
      .post('/repos/acme/web/git/refs')
      .reply((_u, b) => gh.createRef(b as Body))
      .get((path) => decodeURIComponent(path) === `/repos/acme/web/git/ref/heads/${BRANCH}`)
      .reply(() => [200, { ref: `refs/heads/${BRANCH}`, object: { sha: remotes.head('acme/web', BRANCH), type: 'commit' } }]);
    const result = await runCodeWork(githubContext(), payloadFor('echo mine > mine.txt', { pr: false }), work);
    scope.done();
    expect(result.error?.code).toBe('push-rejected');
    expect(result.error?.message).toMatch(/started from nothing\?\): Reference already exists \(HTTP 422; the branch is at [0-9a-f]{12}\)$/);
    expect(remotes.show('acme/web', BRANCH, 'theirs.txt')).toBe('theirs');
  });
});

describe('git instead of the API', () => {
  it('pushes with git, and asks nothing of GitHub but the PR body, when the pipeline says `commits: git`', async () => {
    git(remotes.bare('acme/web'), 'branch', BRANCH, 'main');
    const body = prBody();
    const result = await runCodeWork(githubContext(), { ...payloadFor('echo hi > hi.txt'), commits: 'git' }, work);
    expect(result.conclusion, result.summary).toBe('success');
    body.done();
    const head = remotes.head('acme/web', BRANCH)!;
    // Conveyor's own git commit, as it was made in the workspace: nothing of GitHub's.
    expect(git(remotes.bare('acme/web'), 'log', '-1', '--format=%an|%B', head)).toMatch(
      /^Conveyor\|[\s\S]*Co-authored-by: octocat <583231\+octocat@users\.noreply\.github\.com>$/,
    );
    expect(result.summary).toContain('pushed 1 changed file(s),');
    expect(result.summary).not.toContain("GitHub's API");
  });

  it('pushes with git in the embedded mode, whatever `commits` says: the local forge makes no commits', async () => {
    git(remotes.bare('acme/web'), 'branch', BRANCH, 'main');
    const ctx = createContext({
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_SERVER_URL: remotes.url, CONVEYOR_WORKSPACE_ROOT: join(scratch, 'embedded') },
      log: () => undefined,
    });
    try {
      expect((await ctx.forge()).gitData).toBeUndefined();
      // The local forge opens the run's PR itself.
      const result = await runCodeWork(ctx, { ...payloadFor('echo hi > hi.txt', { pr: false }), commits: 'verified' }, work);
      expect(result.conclusion, result.summary).toBe('success');
      expect(git(remotes.bare('acme/web'), 'log', '-1', '--format=%an', BRANCH)).toBe('Conveyor');
      expect(result.commits['acme/web']).toBe(remotes.head('acme/web', BRANCH));
    } finally {
      (await ctx.forge()).close?.();
    }
  });
});
