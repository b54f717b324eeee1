// The local forge on real bare repositories and a real SQLite file.
import { MergeRefused } from '../../../engine/ports/forge.ts';
import { rejectionOf } from '../../helpers/errors.ts';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLocalForge, type LocalForge } from '../../../adapters/forge/local.ts';
import { createRemotes, git, type Remotes } from '../../helpers/repos.ts';

let remotes: Remotes;

beforeEach(() => {
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
  git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
  remotes.commit('acme/web', 'conveyor/web-7', { 'feature.txt': 'feature\n' }, 'feature one');
  remotes.commit('acme/web', 'conveyor/web-7', { 'feature2.txt': 'more\n' }, 'feature two');
  remotes.commit('acme/web', 'main', { 'base.txt': 'base\n' }, 'base moves');
});
afterEach(() => remotes.cleanup());

async function open(): Promise<LocalForge> {
  return openLocalForge(remotes.dir);
}

describe('LocalForge', () => {
  it('opens, finds, updates and lists pull requests shared between two connections', async () => {
    const a = await open();
    const b = await open();
    try {
      const pr = await a.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' });
      expect(pr).toMatchObject({ number: 1, state: 'open', head: remotes.head('acme/web', 'conveyor/web-7'), url: `${remotes.url}/acme/web/pull/1` });
      expect((await b.findPullRequest('acme/web', 'conveyor/web-7'))?.number).toBe(1);
      await b.updatePullRequest('acme/web', 1, { body: 'linked' });
      expect((await a.getPullRequest('acme/web', 1)).body).toBe('linked');
      await expect(b.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' })).rejects.toThrow(
        /already exists \(#1\)/,
      );
      await expect(a.openPullRequest({ repo: 'acme/web', branch: 'nope', base: 'main', title: 'T', body: 'B' })).rejects.toThrow(
        /branch "nope" does not exist/,
      );
      expect(await a.listPullRequests('acme/web', { branches: ['conveyor/web-7'], state: 'open' })).toHaveLength(1);
      expect(await a.listPullRequests('acme/web', { branches: ['other'] })).toEqual([]);
    } finally {
      a.close();
      b.close();
    }
  });

  for (const method of ['merge', 'squash', 'rebase'] as const) {
    it(`merges by ${method}: the work branch into the base with the given message`, async () => {
      const forge = await open();
      try {
        const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' });
        const result = await forge.mergePullRequest('acme/web', pr.number, {
          method,
          title: 'Add feature (#1)',
          message: 'Conveyor-Run: run-9',
          expectedHead: pr.head,
        });
        expect(result.merged).toBe(true);
        expect(remotes.head('acme/web', 'main')).toBe(result.sha);
        expect(remotes.show('acme/web', 'main', 'feature2.txt')).toBe('more');
        expect(remotes.show('acme/web', 'main', 'base.txt')).toBe('base');
        const bare = remotes.bare('acme/web');
        const trailers = git(bare, 'log', '-1', '--format=%B', 'main');
        const parsed = execFileSync('git', ['interpret-trailers', '--parse'], { input: `${trailers}\n`, encoding: 'utf8' });
        expect(parsed.trim()).toBe('Conveyor-Run: run-9');
        const parents = git(bare, 'log', '-1', '--format=%P', 'main').split(' ');
        expect(parents).toHaveLength(method === 'merge' ? 2 : 1);
        if (method !== 'rebase') expect(trailers.split('\n')[0]).toBe('Add feature (#1)');
        const after = await forge.getPullRequest('acme/web', pr.number);
        expect(after).toMatchObject({ state: 'merged', mergeCommit: result.sha });
        await expect(forge.mergePullRequest('acme/web', pr.number, { method, title: 'again' })).rejects.toMatchObject({ code: 'merge-failed' });
      } finally {
        forge.close();
      }
    });
  }

  it('reports mergeability as GitHub does, and refuses a merge when the head moved, and a merge that conflicts, as a conflict', async () => {
    const forge = await open();
    try {
      const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' });
      expect(await forge.getPullRequest('acme/web', pr.number)).toMatchObject({ mergeable: true, mergeableState: 'clean' });
      const moved = await rejectionOf(
        forge.mergePullRequest('acme/web', pr.number, { method: 'merge', title: 'x', expectedHead: 'f'.repeat(40) }),
        MergeRefused,
      );
      expect(moved).toMatchObject({ conflict: false, message: expect.stringMatching(/moved/) });
      remotes.commit('acme/web', 'main', { 'feature.txt': 'conflict\n' }, 'conflicting base');
      expect(await forge.getPullRequest('acme/web', pr.number)).toMatchObject({ state: 'open', mergeable: false, mergeableState: 'dirty' });
      const conflict = await rejectionOf(forge.mergePullRequest('acme/web', pr.number, { method: 'squash', title: 'x' }), MergeRefused);
      expect(conflict).toMatchObject({ conflict: true, message: expect.stringMatching(/does not squash cleanly/) });
      expect((await forge.getPullRequest('acme/web', pr.number)).state).toBe('open');
    } finally {
      forge.close();
    }
  });
  it('merges two pull requests into the same base at once: the one that loses the race starts again from the new base', async () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-8', 'main');
    remotes.commit('acme/web', 'conveyor/web-8', { 'other.txt': 'other\n' }, 'other feature');
    const a = await open();
    const b = await open();
    try {
      const one = await a.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'One', body: '' });
      const two = await b.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-8', base: 'main', title: 'Two', body: '' });
      const results = await Promise.all([
        a.mergePullRequest('acme/web', one.number, { method: 'squash', title: 'One' }),
        b.mergePullRequest('acme/web', two.number, { method: 'squash', title: 'Two' }),
      ]);
      expect(results.map((r) => r.merged)).toEqual([true, true]);
      expect(remotes.show('acme/web', 'main', 'feature2.txt')).toBe('more');
      expect(remotes.show('acme/web', 'main', 'other.txt')).toBe('other');
      expect(git(remotes.bare('acme/web'), 'log', '--format=%s', 'main').split('\n').slice(0, 2).sort()).toEqual(['One', 'Two']);
    } finally {
      a.close();
      b.close();
    }
  });

  it('refuses to merge a pull request with no changes against its base, saying so', async () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-9', 'main');
    const forge = await open();
    try {
      const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-9', base: 'main', title: 'Empty', body: '' });
      await expect(forge.mergePullRequest('acme/web', pr.number, { method: 'squash', title: 'Empty' })).rejects.toThrow(
        /has no changes against main: nothing to merge/,
      );
    } finally {
      forge.close();
    }
  });
});

describe('LocalForge reviews', () => {
  it('records a review with its comments on lines, seen by another connection, oldest first', async () => {
    const a = await open();
    const b = await open();
    try {
      const pr = await a.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' });
      const first = await a.createReview({
        repo: 'acme/web',
        number: pr.number,
        commit: pr.head,
        event: 'REQUEST_CHANGES',
        body: 'fix it',
        comments: [
          { path: 'feature.txt', line: 1, body: 'why feature?' },
          { path: 'feature2.txt', line: 1, body: 'and this' },
        ],
      });
      expect(first).toMatchObject({ state: 'CHANGES_REQUESTED', author: 'conveyor', commit: pr.head, url: `${pr.url}#review-${first.id}` });
      const second = await b.createReview({ repo: 'acme/web', number: pr.number, commit: pr.head, event: 'COMMENT', body: 'fine now', comments: [] });
      const listed = await b.listReviews('acme/web', pr.number);
      expect(listed.map((r) => [r.id, r.state, r.body])).toEqual([
        [first.id, 'CHANGES_REQUESTED', 'fix it'],
        [second.id, 'COMMENTED', 'fine now'],
      ]);
      expect(listed[0]!.comments).toEqual([
        { path: 'feature.txt', line: 1, body: 'why feature?' },
        { path: 'feature2.txt', line: 1, body: 'and this' },
      ]);
      await expect(a.createReview({ repo: 'acme/web', number: 99, commit: pr.head, event: 'COMMENT', body: 'x', comments: [] })).rejects.toThrow(
        /pull request acme\/web#99 does not exist/,
      );
    } finally {
      a.close();
      b.close();
    }
  });

  it('dismisses a review that requests changes, keeping why; refuses to dismiss a comment, which is edited instead', async () => {
    const forge = await open();
    try {
      const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' });
      const changes = await forge.createReview({ repo: 'acme/web', number: pr.number, commit: pr.head, event: 'REQUEST_CHANGES', body: 'no', comments: [] });
      const comment = await forge.createReview({ repo: 'acme/web', number: pr.number, commit: pr.head, event: 'COMMENT', body: 'hm', comments: [] });
      await forge.dismissReview('acme/web', pr.number, changes.id, 'replaced by a later review');
      await expect(forge.dismissReview('acme/web', pr.number, comment.id, 'x')).rejects.toThrow(
        /is COMMENTED: only a review that requests changes can be dismissed \(edit a comment instead\)/,
      );
      await forge.editReview('acme/web', pr.number, comment.id, 'outdated');
      await expect(forge.editReview('acme/web', pr.number, 999, 'x')).rejects.toThrow(/has no review 999/);
      const [dismissed, edited] = await forge.listReviews('acme/web', pr.number);
      expect(dismissed).toMatchObject({ state: 'DISMISSED', body: 'no', dismissal: 'replaced by a later review' });
      expect(edited).toMatchObject({ state: 'COMMENTED', body: 'outdated' });
      expect(edited).not.toHaveProperty('dismissal');
    } finally {
      forge.close();
    }
  });
});

describe('LocalForge issues', () => {
  it('gives out issue numbers per repository to every connection, in one sequence with its pull requests, as GitHub does', async () => {
    const a = await open();
    const b = await open();
    try {
      expect(a.openIssue({ repo: 'acme/web', title: 'One', body: '' }).number).toBe(1);
      // Another connection (another state database's command) gets the next one, not the same.
      expect(b.openIssue({ repo: 'acme/web', title: 'Two', body: 'b' })).toEqual({ repo: 'acme/web', number: 2, title: 'Two', body: 'b' });
      const pr = await a.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'T', body: 'B' });
      expect(pr.number).toBe(3);
      expect(b.openIssue({ repo: 'acme/web', title: 'Four', body: '' }).number).toBe(4);
      // A number a person gave is recorded (kept as it was when it exists) and never given out again.
      expect(a.openIssue({ repo: 'acme/web', title: 'Nine', body: '', number: 9 }).number).toBe(9);
      expect(a.openIssue({ repo: 'acme/web', title: 'Again', body: '', number: 9 }).title).toBe('Nine');
      expect(b.openIssue({ repo: 'acme/web', title: 'Ten', body: '' }).number).toBe(10);
      // Past the numbers a state database used before the forge gave them out.
      expect(b.openIssue({ repo: 'acme/web', title: 'Late', body: '', after: 20 }).number).toBe(21);
      expect(() => a.openIssue({ repo: 'acme/nope', title: 'X', body: '' })).toThrow(/repository acme\/nope does not exist/);
    } finally {
      a.close();
      b.close();
    }
  });
});
