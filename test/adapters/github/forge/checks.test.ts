// Check runs (adapters/github/forge/checks.ts) against GitHub's REST API, mocked with nock.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { API, onlyNock, quick } from './quick.ts';

onlyNock();

describe('check runs', () => {
  const apiCheck = (id: number, externalId: string) => ({
    id,
    html_url: `https://github.com/acme/web/runs/${id}`,
    status: 'queued',
    conclusion: null,
    external_id: externalId,
    details_url: null,
    started_at: null,
    output: { summary: null, text: null },
  });

  it('finds a check run by its external id among those of a name on a commit', async () => {
    const scope = nock(API)
      .get(`/repos/acme/web/commits/${'a'.repeat(40)}/check-runs`)
      .query({ check_name: 'conveyor / code', filter: 'all', per_page: '100' })
      .reply(200, { total_count: 2, check_runs: [apiCheck(1, 'r:code:1:0'), apiCheck(2, 'r:code:2:0')] });
    expect(await quick().checks.find('acme/web', 'a'.repeat(40), 'conveyor / code', 'r:code:2:0')).toEqual({
      id: 2,
      url: 'https://github.com/acme/web/runs/2',
      status: 'queued',
      conclusion: null,
      externalId: 'r:code:2:0',
      detailsUrl: null,
      startedAt: null,
      output: { summary: null, text: null },
    });
    scope.done();
  });

  it('finds the newest of several with the same name and external id, whatever order GitHub lists them in (a completed one is followed by a new one)', async () => {
    for (const order of [
      [3, 7],
      [7, 3],
    ]) {
      const scope = nock(API)
        .get(`/repos/acme/web/commits/${'b'.repeat(40)}/check-runs`)
        .query({ check_name: 'conveyor', filter: 'all', per_page: '100' })
        .reply(200, { total_count: 3, check_runs: [apiCheck(order[0]!, 'run-1'), apiCheck(5, 'run-2'), apiCheck(order[1]!, 'run-1')] });
      expect((await quick().checks.find('acme/web', 'b'.repeat(40), 'conveyor', 'run-1'))?.id).toBe(7);
      scope.done();
    }
  });
});
