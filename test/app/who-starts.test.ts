// Who may start a run: write on the issue's repository, and on the pipeline's primary repository
// where that is another (its writers decide the run, app/deciders.ts), by label or `/conveyor run`
// alike. A writer of the issue's repository only opens no draft PR in a repository they cannot
// write to, and starts nothing there.
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { API, createHarness, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { configScope, permissionScope } from './scopes.ts';

// The issue and the file are in acme/web; the pipeline works on acme/api (its primary repository).
const CONFIG = `version: 1
agents:
  coder: { run: echo done > feature.txt }
services:
  api: { repo: acme/api, base: main }
pipelines:
  default:
    service: api
    steps:
      - { id: implement, kind: code, agent: coder }
`;

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true, token: true });

const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

/** The comment on issue 7 that answers the start, collected. */
const issueComment = (into: string[]) =>
  nock(API)
    .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => into.push(b.body) > 0)
    .reply(201, { id: 1, html_url: 'c' });

const refusal =
  '@carol only people with write permission on acme/api can start a Conveyor run: acme/api is the primary repository of pipeline `default` (you have read there). Nothing was started.';

describe('starting a run whose primary repository is not its issue’s', () => {
  it('`/conveyor run` from a writer of the issue’s repository who only reads the primary one is refused with a reply', async () => {
    const said: string[] = [];
    const scopes = [permissionScope('carol', 'write'), configScope(CONFIG), permissionScope('carol', 'read', 'acme/api'), issueComment(said)];
    await h.receive('issue_comment', webhooks.comment('/conveyor run', 'carol'));
    allDone(scopes);
    expect(said).toEqual([refusal]);
    expect(await h.conveyor.deps.store.list()).toEqual([]);
    // Nothing was asked of acme/api but the permission: no draft PR, no branch.
    expect(h.calls.filter((c) => c.path.startsWith('/repos/acme/api/'))).toEqual([{ method: 'GET', path: '/repos/acme/api/collaborators/carol/permission' }]);
  });

  it('so is their label', async () => {
    const said: string[] = [];
    const scopes = [configScope(CONFIG), permissionScope('carol', 'write'), permissionScope('carol', 'read', 'acme/api'), issueComment(said)];
    await h.receive('issues', webhooks.labeled('conveyor', 7, 'carol'));
    allDone(scopes);
    expect(said).toEqual([refusal]);
    expect(await h.conveyor.deps.store.list()).toEqual([]);
  });

  it('a writer of both gets as far as the draft PR in the primary repository', async () => {
    const said: string[] = [];
    const scopes = [
      permissionScope('alice', 'write'),
      configScope(CONFIG),
      permissionScope('alice', 'maintain', 'acme/api'),
      // The base branch is not there: the start stops at the draft PR, saying so.
      nock(API).get('/repos/acme/api/branches/main').reply(404, { message: 'Branch not found' }),
      issueComment(said),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor run', 'alice'));
    allDone(scopes);
    expect(said).toEqual([expect.stringContaining("Conveyor did not start: it could not open the run's draft pull request in acme/api")]);
  });
});
