// Workflow runs (adapters/github/forge/workflows.ts) against GitHub's REST API, mocked with nock.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { API, onlyNock, quick } from './quick.ts';

onlyNock();

describe('workflows', () => {
  it("dispatches a workflow asking for its run's id; a server that does not know return_run_details gets the dispatch without it", async () => {
    const inputs = { payload: '{}', 'check-run': '5' };
    const scope = nock(API)
      .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', { ref: 'main', inputs, return_run_details: true })
      .reply(200, { workflow_run_id: 55, run_url: `${API}/repos/acme/web/actions/runs/55`, html_url: 'https://github.com/acme/web/actions/runs/55' })
      .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', { ref: 'main', inputs, return_run_details: true })
      .reply(422, { message: 'Invalid request.\n\n"return_run_details" is not a permitted key.' })
      .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', { ref: 'main', inputs })
      .reply(204);
    const { workflows } = quick();
    expect(await workflows.dispatch('acme/web', 'conveyor.yml', 'main', inputs)).toEqual({ runId: 55, url: 'https://github.com/acme/web/actions/runs/55' });
    expect(await workflows.dispatch('acme/web', 'conveyor.yml', 'main', inputs)).toEqual({});
    scope.done();
  });
});
