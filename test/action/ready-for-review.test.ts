// The run's draft PR becomes ready for review when the code step put the change in it (there is
// then something to review; people approve on it): the action marks it, once, by the GraphQL id
// the run keeps with the PR (no read of it first), and reports it without `draft`. A PR the run
// knows as ready is left as it is: a person who turned it back into a draft holds the merge.
// The step runs in-process: git against real bare repositories, GitHub's API mocked with nock.
import nock from 'nock';
import { githubStepContext } from '../helpers/github-step.ts';
import { prBodyScope } from '../helpers/pr-body-scope.ts';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StepContext } from '../../action/src/context.ts';
import { runCodeWork } from '../../action/src/steps/code.ts';
import type { PullRequestRef, StepPayload } from '../../core/contract/wire.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { GitRepo } from '../../lib/git.ts';
import { actionLogger } from '../../action/src/log.ts';

const API = 'https://api.github.com';
let remotes: Remotes;
let scratch: string;
let n = 0;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-ready-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
  remotes.create('acme/api', { 'README.md': 'api\n' });
  // The app opened the run's draft PR on this branch when the run started.
  git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
});
afterEach(() => {
  nock.cleanAll();
  remotes.cleanup();
  removeDir(scratch);
});

/** A step context that clones from the local remotes and talks to (mocked) GitHub as its forge. */
const githubContext = (): StepContext => githubStepContext(remotes, join(scratch, `ws-${++n}`));

const DRAFT: PullRequestRef = {
  repo: 'acme/web',
  number: 12,
  url: 'https://github.com/acme/web/pull/12',
  branch: 'conveyor/web-7',
  head: 'd'.repeat(40),
  draft: true,
  nodeId: 'PR_kwDOweb12',
};

/**
 * acme/web (its PR `pr` as the run knows it) and acme/api (no PR); the agent runs `agentRun` over
 * both. Pushed with git (`commits: git`), so that GitHub is asked for the draft alone here; the
 * commits GitHub makes itself are verified-commits.test.ts's.
 */
function payloadWith(pr: PullRequestRef, agentRun: string): StepPayload {
  const payload = makePayload({ repos: [{ repo: 'acme/web' }, { repo: 'acme/api' }], agentRun });
  return { ...payload, commits: 'git', repos: payload.repos.map((r) => (r.repo === 'acme/web' ? { ...r, pr } : r)) };
}

/** acme/web's PR body, written again after the push (what changed in it); GitHub keeps `draft` as it was. */
const prBody = (draft: boolean) =>
  prBodyScope({
    api: API,
    repo: 'acme/web',
    number: 12,
    branch: DRAFT.branch,
    url: DRAFT.url,
    nodeId: DRAFT.nodeId!,
    draft,
    head: () => remotes.head('acme/web', DRAFT.branch),
  });

const readyScope = (id: string) =>
  nock(API, { reqheaders: { authorization: 'token ghs_test' } })
    .post('/graphql', (b: { query: string; variables: { id: string } }) => b.query.includes('markPullRequestReadyForReview') && b.variables.id === id)
    .reply(200, { data: { markPullRequestReadyForReview: { pullRequest: { isDraft: false } } } });

describe("the run's draft pull request", () => {
  it('is marked ready for review after the push, once, by its GraphQL id, and reported without `draft`', async () => {
    const scope = readyScope('PR_kwDOweb12');
    // Marked ready before the body is written: GitHub answers it ready.
    const body = prBody(false);
    const result = await runCodeWork(githubContext(), payloadWith(DRAFT, 'echo hi > acme__web/hi.txt'), { agent: 'coder', mode: 'run', writes: [] });
    expect(result.conclusion, result.summary).toBe('success');
    expect(scope.isDone()).toBe(true);
    const head = remotes.head('acme/web', 'conveyor/web-7')!;
    expect(remotes.show('acme/web', 'conveyor/web-7', 'hi.txt')).toBe('hi');
    // Nothing else was asked of GitHub: the body, which says what changed, and the mark.
    body.done();
    expect(nock.pendingMocks()).toEqual([]);
    expect(result.prs).toEqual([{ repo: 'acme/web', number: 12, url: DRAFT.url, branch: 'conveyor/web-7', head, nodeId: 'PR_kwDOweb12' }]);
  });

  it('is marked ready when the agent adds nothing but the branch holds the work of an earlier attempt', async () => {
    remotes.commit('acme/web', 'conveyor/web-7', { 'earlier.txt': 'from the lost attempt\n' }, 'earlier work');
    const scope = readyScope('PR_kwDOweb12');
    const result = await runCodeWork(githubContext(), payloadWith(DRAFT, 'echo nothing new'), { agent: 'coder', mode: 'run', writes: [] });
    expect(result.conclusion, result.summary).toBe('success');
    expect(result.summary).toContain('already holds changes from an earlier attempt in acme/web');
    expect(scope.isDone()).toBe(true);
    expect(result.prs?.[0]).not.toHaveProperty('draft');
  });

  it('stays a draft, reported so, when GitHub refuses to mark it: the pushed change still counts', async () => {
    const lines: string[] = [];
    const refused = nock(API).post('/graphql').reply(403, { message: 'Resource not accessible by integration' });
    const body = prBody(true);
    const ctx = { ...githubContext(), log: actionLogger((line) => void lines.push(line)) };
    const result = await runCodeWork(ctx, payloadWith(DRAFT, 'echo hi > acme__web/hi.txt'), { agent: 'coder', mode: 'run', writes: [] });
    expect(result.conclusion, result.summary).toBe('success');
    expect(refused.isDone()).toBe(true);
    body.done();
    expect(remotes.show('acme/web', 'conveyor/web-7', 'hi.txt')).toBe('hi');
    expect(result.prs).toEqual([expect.objectContaining({ number: 12, draft: true, nodeId: 'PR_kwDOweb12' })]);
    expect(lines).toContainEqual(
      expect.stringMatching(/^conveyor: could not mark acme\/web#12 ready for review \(.*403.*\); it stays a draft until someone does$/),
    );
  });

  it('stays a draft when the step fails before pushing', async () => {
    const scope = readyScope('PR_kwDOweb12');
    const result = await runCodeWork(githubContext(), payloadWith(DRAFT, 'exit 3'), { agent: 'coder', mode: 'run', writes: [] });
    expect(result.conclusion).toBe('failure');
    expect(scope.isDone()).toBe(false);
    expect(remotes.head('acme/web', 'conveyor/web-7')).toBe(remotes.head('acme/web', 'main'));
  });
});

describe('a PR body GitHub will not take', () => {
  it('is said, and the pushed change still counts: the PR keeps the body it had', async () => {
    const { draft: _draft, ...ready } = DRAFT;
    const lines: string[] = [];
    const refused = nock(API).patch('/repos/acme/web/pulls/12').reply(422, { message: 'Validation Failed' });
    const ctx = { ...githubContext(), log: actionLogger((line) => void lines.push(line)) };
    const result = await runCodeWork(ctx, payloadWith(ready, 'echo hi > acme__web/hi.txt'), { agent: 'coder', mode: 'repair', writes: [] });
    expect(result.conclusion, result.summary).toBe('success');
    expect(refused.isDone()).toBe(true);
    expect(remotes.show('acme/web', 'conveyor/web-7', 'hi.txt')).toBe('hi');
    expect(result.prs).toEqual([expect.objectContaining({ repo: 'acme/web', number: 12 })]);
    expect(lines).toContainEqual(expect.stringMatching(/^conveyor: could not rewrite the body of acme\/web#12 \(.*422.*\); it says what it said before$/));
  });
});

describe('a pull request the run knows, that the step did not push to', () => {
  it('keeps its body, and what its branch holds is not counted (no diff of it): only the pushed PR says what changed', async () => {
    const { draft: _draft, ...ready } = DRAFT;
    const api: PullRequestRef = { repo: 'acme/api', number: 13, url: 'https://github.com/acme/api/pull/13', branch: 'conveyor/api-7', nodeId: 'PR_kwDOapi13' };
    git(remotes.bare('acme/api'), 'branch', 'conveyor/api-7', 'main');
    remotes.commit('acme/api', 'conveyor/api-7', { 'earlier.txt': 'an earlier attempt\n' }, 'earlier work');
    const payload = payloadWith(ready, 'echo again > acme__web/again.txt');
    const both = { ...payload, repos: payload.repos.map((r) => (r.repo === 'acme/api' ? { ...r, pr: api } : r)) };
    const diffs = vi.spyOn(GitRepo.prototype, 'diffStat');
    try {
      const body = prBody(false);
      const result = await runCodeWork(githubContext(), both, { agent: 'coder', mode: 'repair', writes: [] });
      expect(result.conclusion, result.summary).toBe('success');
      // acme/web's body alone is written again; nothing is asked of GitHub about acme/api.
      body.done();
      expect(nock.pendingMocks()).toEqual([]);
      expect(diffs.mock.contexts.map((g) => (g as GitRepo).dir.split('/').at(-1))).toEqual(['acme__web']);
      expect(result.prs).toEqual([expect.objectContaining({ repo: 'acme/web', number: 12 }), expect.objectContaining({ repo: 'acme/api', number: 13 })]);
    } finally {
      diffs.mockRestore();
    }
  });
});

describe('a pull request the run knows as ready', () => {
  it('is not marked again after a later push: a person who turned it back into a draft keeps it one', async () => {
    const { draft: _draft, ...ready } = DRAFT;
    const scope = readyScope('PR_kwDOweb12');
    const body = prBody(false);
    const result = await runCodeWork(githubContext(), payloadWith(ready, 'echo again > acme__web/again.txt'), { agent: 'coder', mode: 'repair', writes: [] });
    expect(result.conclusion, result.summary).toBe('success');
    expect(remotes.show('acme/web', 'conveyor/web-7', 'again.txt')).toBe('again');
    expect(scope.isDone()).toBe(false);
    body.done();
    expect(result.prs).toEqual([expect.objectContaining({ repo: 'acme/web', number: 12, nodeId: 'PR_kwDOweb12' })]);
    expect(result.prs?.[0]).not.toHaveProperty('draft');
  });
});
