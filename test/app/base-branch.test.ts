// A service without `base` works on its repository's default branch (issue #16 item 6), which is
// not always `main`: the repository's comes with the webhook, each other repository's is
// read once when the run starts (GET /repos/{owner}/{repo}); a `base` written in the file wins.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { API, createHarness, tokenScope, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { draftPrScope, permissionScope } from './scopes.ts';

const CONFIG = `version: 1
agents:
  coder: { run: echo done > feature.txt }
services:
  web: { repo: acme/web }
  api: { repo: acme/api }
  docs: { repo: acme/docs, base: release }
pipelines:
  default:
    service: web
    involves: [api, docs]
    steps:
      - { id: implement, kind: code, agent: coder }
`;

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true });

/** The labeled webhook of a repository whose default branch is `develop`. */
function labeledOnDevelop() {
  const payload = webhooks.labeled();
  return { ...payload, repository: { ...payload.repository, default_branch: 'develop' } };
}

const configOnDevelop = () =>
  nock(API)
    .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
    .query({ ref: 'develop' })
    .reply(200, { type: 'file', encoding: 'base64', content: Buffer.from(CONFIG).toString('base64'), path: '.github/conveyor.yml' });

describe('the base of a service without `base`, in GitHub mode', () => {
  it("is its repository's default branch: the webhook's for the issue's repository, one read for each other; a written base wins", async () => {
    let ref = '';
    const scopes = [
      tokenScope(),
      configOnDevelop(),
      permissionScope('alice', 'write'),
      // Read once, for the sibling without `base`; acme/docs names its base and is not read.
      nock(API).get('/repos/acme/api').reply(200, { full_name: 'acme/api', default_branch: 'trunk' }),
      // The run's draft PR goes against the default branch too.
      draftPrScope([], 'conveyor/web-7', 'develop'),
      nock(API)
        .post('/repos/acme/web/check-runs')
        .times(2)
        .reply(201, (_u, b) => ({ id: 101, html_url: 'x', status: 'queued', external_id: (b as { external_id?: string }).external_id ?? '', output: {} })),
      nock(API)
        .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: { ref: string }) => ((ref = b.ref), true))
        .reply(204),
      nock(API).post('/repos/acme/web/issues/7/comments').reply(201, { id: 900, html_url: 'c' }),
    ];
    await h.receive('issues', labeledOnDevelop());
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    const run = await h.conveyor.engine.get('acme-web-7');
    expect(run.plan.changeSet.map((r) => [r.repo, r.base])).toEqual([
      ['acme/web', 'develop'],
      ['acme/api', 'trunk'],
      ['acme/docs', 'release'],
    ]);
    expect(Object.fromEntries(Object.values(run.plan.services).map((s) => [s.name, s.base]))).toEqual({ web: 'develop', api: 'trunk', docs: 'release' });
    // The workflow is dispatched on the default branch, where the app trusts its workflow file.
    expect(ref).toBe('develop');
  });

  it('refuses to start, saying what to do, when the app cannot see a repository whose default branch it needs', async () => {
    let body = '';
    const scopes = [
      tokenScope(),
      configOnDevelop(),
      permissionScope('alice', 'write'),
      nock(API).get('/repos/acme/api').reply(404, { message: 'Not Found' }),
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => ((body = b.body), true))
        .reply(201, { id: 1, html_url: 'c' }),
    ];
    await h.receive('issues', labeledOnDevelop());
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(body).toBe(
      "Conveyor did not start pipeline `default`: the Conveyor app cannot see acme/api (a service's `repo`), so it cannot tell its default branch: install the app on it, or give the service a `base`.",
    );
    expect(await h.conveyor.deps.store.list()).toEqual([]);
  });
});
