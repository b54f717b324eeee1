// The local forge's revert of a merged pull request (as GitHub's revertPullRequest): a PR on
// `revert-<number>-<branch>` whose one commit undoes what the merge brought, however it merged, on
// the base as it is now; asked again, the same PR. Real bare repositories, a real SQLite file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLocalForge, type LocalForge } from '../../../adapters/forge/local.ts';
import { createRemotes, git, type Remotes } from '../../helpers/repos.ts';

let remotes: Remotes;
let forge: LocalForge;

beforeEach(async () => {
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
  git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
  remotes.commit('acme/web', 'conveyor/web-7', { 'feature.txt': 'feature\n' }, 'feature one');
  remotes.commit('acme/web', 'conveyor/web-7', { 'feature2.txt': 'more\n', 'README.md': 'web, with a feature\n' }, 'feature two');
  remotes.commit('acme/web', 'main', { 'base.txt': 'base\n' }, 'base moves');
  forge = await openLocalForge(remotes.dir);
});
afterEach(() => {
  forge.close();
  remotes.cleanup();
});

const files = (rev: string) => git(remotes.bare('acme/web'), 'ls-tree', '-r', '--name-only', rev).split('\n');

async function merged(method: 'merge' | 'squash' | 'rebase'): Promise<number> {
  const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'Feature (#7)', body: 'B' });
  await forge.mergePullRequest('acme/web', pr.number, { method, title: 'Feature (#7)', expectedHead: pr.head });
  return pr.number;
}

describe('LocalForge.revertPullRequest', () => {
  for (const method of ['merge', 'squash', 'rebase'] as const) {
    it(`reverts a PR merged by ${method}, every one of its commits, on the base as it moved since`, async () => {
      const number = await merged(method);
      const mergedAt = remotes.head('acme/web', 'main')!;
      // The base moves on after the merge: the revert keeps that.
      remotes.commit('acme/web', 'main', { 'later.txt': 'later\n' }, 'after the merge');
      const pr = await forge.revertPullRequest('acme/web', number, { title: 'Revert "Feature (#7)"', body: 'Reverts it.' });
      expect(pr).toMatchObject({
        number: number + 1,
        state: 'open',
        branch: `revert-${number}-conveyor/web-7`,
        base: 'main',
        title: 'Revert "Feature (#7)"',
        body: 'Reverts it.',
      });
      const branch = `revert-${number}-conveyor/web-7`;
      expect(git(remotes.bare('acme/web'), 'rev-list', '--count', `main..${branch}`)).toBe('1');
      expect(files(branch).sort()).toEqual(['README.md', 'base.txt', 'later.txt']);
      expect(remotes.show('acme/web', branch, 'README.md')).toBe('web');
      expect(git(remotes.bare('acme/web'), 'log', '-1', '--format=%B', branch)).toBe(`Revert "Feature (#7)"\n\nThis reverts acme/web#${number} (${mergedAt}).`);

      // The revert PR merges like any other, and the base is back to what it had without the feature.
      await forge.mergePullRequest('acme/web', pr.number, { method: 'squash', title: 'Revert' });
      expect(files('main').sort()).toEqual(['README.md', 'base.txt', 'later.txt']);
    });
  }

  it('answers the revert PR already open when asked again (a command given twice, or after a crash)', async () => {
    const number = await merged('squash');
    const first = await forge.revertPullRequest('acme/web', number, { title: 'Revert', body: 'B' });
    const again = await forge.revertPullRequest('acme/web', number, { title: 'Revert', body: 'B' });
    expect(again).toMatchObject({ number: first.number, head: first.head });
  });

  it('refuses a PR that is not merged, and a revert that no longer applies, saying why', async () => {
    const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' });
    await expect(forge.revertPullRequest('acme/web', pr.number, { title: 'Revert', body: 'B' })).rejects.toMatchObject({
      code: 'forge-failed',
      message: 'acme/web#1 is open: only a merged pull request can be reverted',
    });
    await forge.mergePullRequest('acme/web', pr.number, { method: 'squash', title: 'T' });
    // Someone changed the merged file again since: undoing the merge would undo their change too.
    remotes.commit('acme/web', 'main', { 'README.md': 'web, rewritten by hand\n' }, 'by hand');
    await expect(forge.revertPullRequest('acme/web', pr.number, { title: 'Revert', body: 'B' })).rejects.toMatchObject({
      code: 'forge-failed',
      message: expect.stringMatching(
        /^the revert of acme\/web#1 does not apply cleanly onto main as it is now \(conflicts in README\.md\): .*Revert it by hand\.$/s,
      ),
    });
    expect(remotes.branches('acme/web')).not.toContain('revert-1-conveyor/web-7');
  });
});
