// What people see of a run, after a crash that lost the records of its tracking comment and summary
// check run (or a store restored from an older backup): for a run this process did not start, the
// reporter looks on GitHub before it makes either again.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trackingMarker } from '../../core/github/tracking.ts';
import { openSqliteStore } from '../../adapters/store/sqlite.ts';
import { API, createHarness, tokenScope, type Harness } from './harness.ts';
import { planWith, pr, RUN, seed, WEB_HEAD } from './decisions-setup.ts';

let h: Harness;
beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness();
  tokenScope();
  await seed(
    h,
    planWith([
      { id: 'implement', kind: 'code' },
      { id: 'approve', kind: 'approval' },
    ]),
    { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
    { approvalCheck: false },
  );
  // A crash took the records with it.
  const file = new Database(join(h.dir, 'app.db'));
  file.exec('DELETE FROM github_comments; DELETE FROM github_summaries');
  file.close();
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

describe('the reporter of a run this process did not start', () => {
  it('finds its tracking comment and summary check run on GitHub, edits them, makes neither again, and records them', async () => {
    const bodies: string[] = [];
    const scopes = [
      nock(API)
        .get('/repos/acme/web/issues/7/comments')
        .query(true)
        .reply(200, [
          { id: 899, html_url: 'c899', body: 'Someone else' },
          { id: 900, html_url: 'https://github.com/acme/web/issues/7#issuecomment-900', body: `Conveyor ${trackingMarker(RUN)}` },
        ]),
      // Edited once, after the check runs' write: it links the approval check run that write made.
      nock(API)
        .patch('/repos/acme/web/issues/comments/900', (b: { body: string }) => bodies.push(b.body) > 0)
        .reply(200, {}),
      nock(API)
        .get(`/repos/acme/web/commits/${WEB_HEAD}/check-runs`)
        .query({ check_name: 'conveyor', filter: 'all', per_page: '100' })
        .reply(200, {
          total_count: 2,
          check_runs: [
            {
              id: 499,
              name: 'conveyor',
              external_id: `${RUN}-2`,
              status: 'completed',
              conclusion: 'success',
              html_url: 'x',
              details_url: null,
              started_at: null,
              output: {},
            },
            {
              id: 500,
              name: 'conveyor',
              external_id: RUN,
              status: 'in_progress',
              conclusion: null,
              html_url: 'x',
              details_url: null,
              started_at: null,
              output: {},
            },
          ],
        }),
      // The run waits for an approval: its summary is completed as action_required.
      nock(API)
        .patch('/repos/acme/web/check-runs/500', (b: { status: string; conclusion: string }) => b.status === 'completed' && b.conclusion === 'action_required')
        .reply(200, {}),
      // The PR's body: this process never wrote it, so it reads it before writing the run's status into it.
      nock(API).get('/repos/acme/web/issues/1').reply(200, { number: 1, body: 'What the action wrote.' }),
      nock(API)
        .patch('/repos/acme/web/pulls/1', (b: { body: string }) => b.body.startsWith('What the action wrote.') && b.body.includes('/conveyor approve'))
        .reply(200, { number: 1, html_url: 'x', state: 'open', head: { ref: 'conveyor/web-7', sha: WEB_HEAD }, base: { ref: 'main' } }),
      // The approval step's check run: no record of it was seeded, so it is made.
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor / approve')
        .reply(201, { id: 600, html_url: 'https://github.com/acme/web/runs/600', status: 'completed', output: {} }),
    ];
    const made = nock(API)
      .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor')
      .reply(201, { id: 501 });
    const commented = nock(API).post('/repos/acme/web/issues/7/comments').reply(201, { id: 901 });
    await h.conveyor.deps.reporter.report(RUN);
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(made.isDone()).toBe(false);
    expect(commented.isDone()).toBe(false);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('press **Approve** on the [`conveyor / approve`](https://github.com/acme/web/runs/600) check run');

    // Recorded in the file, for any later process.
    const other = await openSqliteStore(join(h.dir, 'app.db'));
    try {
      expect(await other.links.comment(RUN)).toEqual({ id: 900, url: 'https://github.com/acme/web/issues/7#issuecomment-900' });
      expect(await other.links.summary(RUN, WEB_HEAD)).toBe(500);
    } finally {
      await other.close();
    }
  });
});
