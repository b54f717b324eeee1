// The local forge's branch rules (a file beside the bare repository) and its merge queue, on real
// bare repositories and a real SQLite file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MergeRefused } from '../../../engine/ports/forge.ts';
import { openLocalForge, type LocalForge } from '../../../adapters/forge/local.ts';
import { rejectionOf } from '../../helpers/errors.ts';
import { createRemotes, git, type Remotes } from '../../helpers/repos.ts';

let remotes: Remotes;
let forge: LocalForge;
beforeEach(async () => {
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
  git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
  remotes.commit('acme/web', 'conveyor/web-7', { 'feature.txt': 'feature\n' }, 'feature');
  forge = await openLocalForge(remotes.dir);
});
afterEach(() => {
  forge.close();
  remotes.cleanup();
});

const rules = (json: unknown) => writeFileSync(join(remotes.dir, 'acme', 'web.rules.json'), JSON.stringify(json));

describe('the local forge’s branch rules', () => {
  it('reads them from <owner>/<name>.rules.json for the branches it names, none without the file, and refuses an unknown key', async () => {
    expect(await forge.branchRules('acme/web', 'main')).toEqual({ mergeQueue: false, upToDate: false });
    rules({ 'merge-queue': true, 'up-to-date': true, branches: ['main'] });
    expect(await forge.branchRules('acme/web', 'main')).toEqual({ mergeQueue: true, upToDate: true });
    expect(await forge.branchRules('acme/web', 'release')).toEqual({ mergeQueue: false, upToDate: false });
    rules({ 'merge-queues': true });
    await expect(forge.branchRules('acme/web', 'main')).rejects.toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/web\.rules\.json: .*merge-queues/),
    });
  });

  it('counts the commits of the base a head lacks', async () => {
    const head = remotes.head('acme/web', 'conveyor/web-7')!;
    expect(await forge.commitsBehind('acme/web', 'main', head)).toBe(0);
    remotes.commit('acme/web', 'main', { 'base.txt': 'base\n' }, 'base moves');
    expect(await forge.commitsBehind('acme/web', 'main', head)).toBe(1);
  });
});

describe('the local merge queue', () => {
  it('enqueues only at the expected head, merges on its tick, and removes a PR that conflicts by then, saying so', async () => {
    const pr = await forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'Add feature', body: '' });
    const moved = await rejectionOf(forge.mergeQueue.enqueue(pr, 'f'.repeat(40)), MergeRefused);
    expect(moved.message).toMatch(/moved to .*not enqueued/);
    expect(await forge.mergeQueue.holds('acme/web', pr.number)).toBe(false);

    await forge.mergeQueue.enqueue(pr, pr.head);
    expect(await forge.mergeQueue.holds('acme/web', pr.number)).toBe(true);
    // The base moves with a conflicting change before the queue's turn.
    remotes.commit('acme/web', 'main', { 'feature.txt': 'conflict\n' }, 'conflicting base');
    expect(await forge.mergeQueue.tick()).toEqual([{ repo: 'acme/web', number: pr.number, change: 'removed', reason: 'MERGE_CONFLICT' }]);
    expect(await forge.mergeQueue.holds('acme/web', pr.number)).toBe(false);
    expect((await forge.getPullRequest('acme/web', pr.number)).state).toBe('open');

    // Resolved on the work branch, enqueued again: merged, with the queue's own message.
    remotes.commit('acme/web', 'conveyor/web-7', { 'feature.txt': 'conflict\n', 'other.txt': 'x\n' }, 'resolve');
    const again = await forge.getPullRequest('acme/web', pr.number);
    await forge.mergeQueue.enqueue(again, again.head);
    expect(await forge.mergeQueue.tick()).toEqual([{ repo: 'acme/web', number: pr.number, change: 'merged' }]);
    expect((await forge.getPullRequest('acme/web', pr.number)).state).toBe('merged');
    expect(git(remotes.bare('acme/web'), 'log', '-1', '--format=%s', 'main')).toBe(`Add feature (#${pr.number})`);
    expect(await forge.mergeQueue.tick()).toEqual([]);
  });
});
