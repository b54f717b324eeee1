// A work branch whose PR ended (merged or closed) is started over from the base, not resumed
// (action/src/steps/code.ts endedPullRequest): its new head does not descend from its old one, so
// the branch is replaced, leased on the old head as git's `--force-with-lease` leases it. Through
// GitHub's Git data API (`commits: verified`) that is a read of the branch and a forced update
// while it is still at the old head; with git, the leased push. Either way someone else's push
// since the step read the branch is refused and reported as a rejected push, the branch keeping
// theirs. The step runs in-process: git against real bare repositories, GitHub's API mocked with
// nock, every scope done.
import nock from 'nock';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCodeWork } from '../../action/src/steps/code.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { GitDataOnBare } from '../helpers/git-data.ts';
import { GITHUB_API as API, getRefReply, githubStepContext, gitDataScope, refPath } from '../helpers/github-step.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

const BRANCH = 'conveyor/web-7';
let remotes: Remotes;
let scratch: string;
let gh: GitDataOnBare;
let n = 0;
/** The ended run's head of the work branch: what the step starts from, and replaces. */
let oldHead: string;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-started-over-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
  gh = new GitDataOnBare(remotes.bare('acme/web'));
  // An earlier run's branch, its PR squash-merged: main holds its change in a commit of its own.
  git(remotes.bare('acme/web'), 'branch', BRANCH, 'main');
  oldHead = remotes.commit('acme/web', BRANCH, { 'old.txt': 'the ended run\n' }, 'the ended run');
  remotes.commit('acme/web', 'main', { 'old.txt': 'the ended run\n' }, 'the ended run (#5)');
});
afterEach(() => {
  nock.cleanAll();
  remotes.cleanup();
  removeDir(scratch);
});

const context = (lines: string[] = []) => githubStepContext(remotes, join(scratch, `ws-${++n}`), lines);
const work = { agent: 'coder', mode: 'run' as const, writes: [] };
const payloadFor = (agentRun: string, commits: StepPayload['commits']): StepPayload => ({
  ...makePayload({ repos: [{ repo: 'acme/web' }], agentRun }),
  commits,
});

/** A pull request as GitHub lists and opens it. */
const pull = (number: number, how: { state: 'open' | 'closed'; merged?: boolean; body?: string; head?: string }) => ({
  number,
  html_url: `https://github.com/acme/web/pull/${number}`,
  node_id: `PR_web${number}`,
  title: 'Issue',
  body: how.body ?? '',
  state: how.state,
  draft: false,
  merged_at: how.merged ? '2024-05-01T00:00:00Z' : null,
  merge_commit_sha: how.merged ? 'c'.repeat(40) : null,
  head: { ref: BRANCH, sha: how.head ?? oldHead },
  base: { ref: 'main' },
});

/**
 * The PR listing that finds the branch's PR ended (none open, #5 merged or closed), and the new PR
 * the step opens (its body already says all a rewrite would). `meanwhile` runs as GitHub
 * answers the listing: after the step read the branch, before it sends anything.
 */
function pullsScope(ended: { merged: boolean }, meanwhile?: () => void, opened = true): nock.Scope {
  const scope = nock(API, { reqheaders: { authorization: 'token ghs_test' } })
    .get('/repos/acme/web/pulls')
    .query({ head: `acme:${BRANCH}`, state: 'open', per_page: '10' })
    .reply(200, [])
    .get('/repos/acme/web/pulls')
    .query({ head: `acme:${BRANCH}`, state: 'closed', per_page: '100' })
    .reply(() => {
      meanwhile?.();
      return [200, [pull(5, { state: 'closed', merged: ended.merged })]];
    });
  if (!opened) return scope;
  return scope
    .post('/repos/acme/web/pulls', (b: { head?: string; base?: string }) => b.head === BRANCH && b.base === 'main')
    .reply((_u, b) => [201, pull(6, { state: 'open', body: (b as { body: string }).body, head: remotes.head('acme/web', BRANCH) })]);
}

/** The branch is the base and the new change, nothing of the ended run's branch. */
function expectStartedOver(change: string) {
  const bare = remotes.bare('acme/web');
  const head = remotes.head('acme/web', BRANCH)!;
  expect(git(bare, 'rev-parse', `${head}^`)).toBe(remotes.head('acme/web', 'main'));
  expect(git(bare, 'rev-list', head).split('\n')).not.toContain(oldHead);
  expect(remotes.show('acme/web', BRANCH, change)).toBe('new');
  return head;
}

describe('a work branch whose PR ended, started over', () => {
  it.each([
    ['merged', true],
    ['closed', false],
  ])("through GitHub's API (PR %s): replaced by a forced update while it is still at the old head", async (how, merged) => {
    // One tree and one commit, then the lease: the branch read, and moved with force.
    const data = gitDataScope(gh, { repo: 'acme/web', branch: BRANCH })
      .get(refPath('acme/web', BRANCH, 'ref'))
      .reply(getRefReply(gh, BRANCH));
    const pulls = pullsScope({ merged });
    const result = await runCodeWork(context(), payloadFor('echo new > new.txt', 'verified'), work);
    expect(result.conclusion, result.summary).toBe('success');
    data.done();
    pulls.done();
    const head = expectStartedOver('new.txt');
    expect(gh.bodies.commits).toEqual([expect.objectContaining({ parents: [remotes.head('acme/web', 'main')] })]);
    expect(gh.bodies.refs).toEqual([{ ref: `heads/${BRANCH}`, sha: head, force: true }]);
    expect(result.commits['acme/web']).toBe(head);
    expect(result.prs).toEqual([expect.objectContaining({ repo: 'acme/web', number: 6, head })]);
    expect(result.summary).toContain(`\`${BRANCH}\` was not resumed (its pull request acme/web#5 was ${how}); it starts over from \`main\`.`);
  });

  it('with git (`commits: git`): pushed leased on the old head', async () => {
    const pulls = pullsScope({ merged: true });
    const result = await runCodeWork(context(), payloadFor('echo new > new.txt', 'git'), work);
    expect(result.conclusion, result.summary).toBe('success');
    pulls.done();
    const head = expectStartedOver('new.txt');
    expect(git(remotes.bare('acme/web'), 'log', '-1', '--format=%an', head)).toBe('Conveyor');
    expect(result.commits['acme/web']).toBe(head);
  });

  it.each(['verified', 'git'] as const)(
    'is refused (`commits: %s`) when someone pushed to the branch since the step read it: reported as a rejected push, theirs kept',
    async (commits) => {
      let theirs = '';
      const pulls = pullsScope({ merged: true }, () => (theirs = remotes.commit('acme/web', BRANCH, { 'theirs.txt': 'theirs\n' }, 'their push')), false);
      // Through the API: the tree and the commit are made, the branch read, and not moved.
      const data =
        commits === 'verified'
          ? gitDataScope(gh, { repo: 'acme/web', branch: BRANCH }, { update: 0 })
              .get(refPath('acme/web', BRANCH, 'ref'))
              .reply(getRefReply(gh, BRANCH))
          : undefined;
      const result = await runCodeWork(context(), payloadFor('echo new > new.txt', commits), work);
      pulls.done();
      data?.done();
      expect(result.conclusion).toBe('failure');
      expect(result.error?.code).toBe('push-rejected');
      expect(result.error?.message).toContain(`someone else pushed since the step started from ${oldHead.slice(0, 12)}?`);
      if (commits === 'verified') expect(result.error?.message).toMatch(new RegExp(`the branch is at ${theirs.slice(0, 12)}, not at ${oldHead.slice(0, 12)}`));
      expect(remotes.head('acme/web', BRANCH)).toBe(theirs);
      expect(gh.bodies.refs).toEqual([]);
    },
  );
});
