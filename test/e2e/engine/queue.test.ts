// The embedded mode end to end where the local forge requires a merge queue (a rules file beside
// each bare repository): the real `conveyor` command enqueues the provider's PR, the local queue
// merges it on its tick, and only then is the consumer's enqueued and merged, as on GitHub; a run
// cancelled while its merge waits for the queue leaves nothing in it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSession } from '../../../cli/embedded.ts';
import { openLocalForge } from '../../../adapters/forge/local.ts';
import { cli } from '../../helpers/cli.ts';
import { createFleet, RIGHT_FIRST_TIME, type Fleet } from '../../helpers/fleet.ts';
import { git } from '../../helpers/repos.ts';

interface QueueJson {
  steps: Record<string, { status: string; attempts: Array<{ queue?: { entries: Array<{ repo: string; merged?: boolean }>; merged: string[] } }> }>;
  prs: Array<{ repo: string; number: number }>;
}

describe('conveyor run where the base branches require a merge queue', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  it('enqueues the provider, lets the queue merge it, then enqueues and merges the consumer', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    for (const repo of ['api', 'web'])
      writeFileSync(join(fleet.remotes.dir, 'acme', `${repo}.rules.json`), JSON.stringify({ 'merge-queue': true, branches: ['main'] }));
    const r = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '7', '--approve'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Run web-7: succeeded');

    const s = await cli(['status', 'web-7', '--json', '--state', fleet.state]);
    const run = JSON.parse(s.stdout) as QueueJson;
    const queue = run.steps.ship!.attempts.at(-1)!.queue!;
    // Enqueued one after the other, providers first; the consumer only once the provider had merged.
    expect(queue.entries.map((e) => [e.repo, e.merged])).toEqual([
      ['acme/api', true],
      ['acme/web', true],
    ]);
    const api = run.prs.find((p) => p.repo === 'acme/api')!;
    expect(queue.merged).toEqual([`acme/api#${api.number}`]);
    expect(fleet.remotes.show('acme/api', 'main', 'api-7.txt')).toBe('endpoint');
    expect(fleet.remotes.show('acme/web', 'main', 'web-7.txt')).toBe('call site');
    // The queue merged them with its own message, as GitHub's does (no Conveyor trailers).
    expect(git(fleet.remotes.bare('acme/api'), 'log', '-1', '--format=%s', 'main')).toMatch(new RegExp(`\\(#${api.number}\\)$`));
    expect(git(fleet.remotes.bare('acme/api'), 'log', '-1', '--format=%B', 'main')).not.toMatch(/Conveyor-Run:/);
  });

  it('`conveyor cancel` on a run whose merge waits for the queue takes its PR out: nothing is left queued, nothing merges afterwards', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    for (const repo of ['api', 'web'])
      writeFileSync(join(fleet.remotes.dir, 'acme', `${repo}.rules.json`), JSON.stringify({ 'merge-queue': true, branches: ['main'] }));
    const first = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '9'));
    expect(first.code, first.stdout + first.stderr).toBe(3);
    // The approval given and the merge carried out by the real engine on the real local forge, but
    // the queue's turn never comes: as when the `conveyor` that enqueued was killed before its tick.
    const session = await openSession(fleet.state, fleet.remotes.dir, true);
    try {
      await session.engine.apply('web-9', { type: 'decision', at: new Date().toISOString(), step: 'approve', decision: 'approve', by: 'carol' });
      await session.engine.idle();
      const run = await session.engine.get('web-9');
      expect(run.steps.ship).toMatchObject({ status: 'queued' });
      expect(run.steps.ship!.attempts.at(-1)!.queue!.entries.map((e) => e.repo)).toEqual(['acme/api']);
    } finally {
      await session.close();
    }
    const api = JSON.parse((await cli(['status', 'web-9', '--json', '--state', fleet.state])).stdout) as QueueJson;
    const number = api.prs.find((p) => p.repo === 'acme/api')!.number;
    const before = await openLocalForge(fleet.remotes.dir);
    try {
      expect(await before.mergeQueue.holds('acme/api', number)).toBe(true);
    } finally {
      before.close();
    }

    const cancelled = await cli(['cancel', 'web-9', '--state', fleet.state]);
    expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(0);
    const s = JSON.parse((await cli(['status', 'web-9', '--json', '--state', fleet.state])).stdout) as QueueJson & {
      status: string;
      steps: Record<string, { reason?: string }>;
    };
    expect(s.status).toBe('cancelled');
    expect(s.steps.ship!.reason).toBe(`cancelled by conveyor-cli; took acme/api#${number} out of the merge queue`);

    const after = await openLocalForge(fleet.remotes.dir);
    try {
      expect(await after.mergeQueue.holds('acme/api', number)).toBe(false);
      // The queue's next turn (any run's driver) has nothing of it to merge.
      expect(await after.mergeQueue.tick()).toEqual([]);
    } finally {
      after.close();
    }
    for (const repo of ['acme/api', 'acme/web']) expect(git(fleet.remotes.bare(repo), 'rev-list', '--count', 'main')).toBe('1');
  });

  it('without a queue, a base that requires PRs up to date has one that is behind repaired first: the base merged in, the gate run again', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    writeFileSync(join(fleet.remotes.dir, 'acme', 'web.rules.json'), JSON.stringify({ 'up-to-date': true }));
    // Stopped at the approval, the base of acme/web moves on.
    const first = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '8'));
    expect(first.code, first.stdout + first.stderr).toBe(3);
    fleet.remotes.commit('acme/web', 'main', { 'other.txt': 'someone else\n' }, 'someone else merged');
    // The approval was given on a head that no longer holds the base: the repair merges it in, the
    // gate runs again, and the approval (now stale) is asked for again before anything merges.
    const approve = await cli(['approve', 'web-8', '--state', fleet.state]);
    expect(approve.code, approve.stdout + approve.stderr).toBe(3);
    expect(() => fleet.remotes.show('acme/web', 'main', 'web-8.txt')).toThrow(/does not exist/);
    const again = await cli(['approve', 'web-8', '--state', fleet.state]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const s = JSON.parse((await cli(['status', 'web-8', '--json', '--state', fleet.state])).stdout) as {
      steps: Record<string, { attempts: Array<{ mode: string; conclusion?: string; findings?: string }> }>;
    };
    expect(s.steps.ship!.attempts.map((a) => [a.mode, a.conclusion])).toEqual([
      ['run', 'failure'],
      ['repair', 'success'],
      ['run', 'success'],
    ]);
    expect(s.steps.ship!.attempts[1]!.findings).toContain('it is behind `main`, whose rules require it up to date before it merges');
    // The gate ran again on the head holding the base.
    expect(s.steps.test!.attempts.length).toBe(2);
    expect(fleet.remotes.show('acme/web', 'main', 'other.txt')).toBe('someone else');
    expect(fleet.remotes.show('acme/web', 'main', 'web-8.txt')).toBe('call site');
  });
});
