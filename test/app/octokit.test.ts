// The Octokit the app gives Probot builds one event Octokit per installation, not one per webhook;
// an event about the installation itself builds afresh and drops the kept one. The shared Octokit
// still authenticates as the installation (GitHub mocked with nock).
import nock from 'nock';
import { Probot, type Context } from 'probot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConveyorOctokit } from '../../app/octokit.ts';
import { API, INSTALLATION, privateKey, tokenScope } from './harness.ts';

let probot: Probot;
const seen: Array<Context['octokit']> = [];
let delivery = 0;
const receive = (name: string, payload: Record<string, unknown>) => probot.receive({ id: `d-${++delivery}`, name, payload } as never);
const checkRun = (installation: number | undefined) => ({ action: 'completed', check_run: { id: 1 }, repository: { full_name: 'acme/web' }, ...(installation !== undefined ? { installation: { id: installation } } : {}) });

beforeEach(() => {
  nock.disableNetConnect();
  seen.length = 0;
  probot = new Probot({ appId: 1, privateKey, Octokit: ConveyorOctokit.defaults((o: object) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })) });
  // onAny's type omits what Probot's transform adds: each event is a Context.
  probot.onAny((context) => void seen.push((context as unknown as Context).octokit));
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("the app's Octokit for Probot", () => {
  it('gives every webhook of an installation the same Octokit, authenticated as that installation', async () => {
    const scopes = [
      tokenScope(),
      nock(API).get('/repos/acme/web').matchHeader('authorization', 'token ghs_test').times(2).reply(200, { full_name: 'acme/web' }),
    ];
    await receive('check_run', checkRun(INSTALLATION));
    await receive('workflow_run', { ...checkRun(INSTALLATION), workflow_run: { id: 3 } });
    await receive('check_run', checkRun(INSTALLATION + 1));
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).not.toBe(seen[0]);
    // One token for both requests: the shared Octokit keeps it as one per webhook would not.
    for (const octokit of seen.slice(0, 2)) expect((await octokit.rest.repos.get({ owner: 'acme', repo: 'web' })).data).toEqual({ full_name: 'acme/web' });
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
  });

  it('builds afresh after an event about the installation itself, and for webhooks without one', async () => {
    await receive('check_run', checkRun(INSTALLATION));
    await receive('installation', { action: 'new_permissions_accepted', installation: { id: INSTALLATION } });
    await receive('check_run', checkRun(INSTALLATION));
    await receive('check_run', checkRun(undefined));
    await receive('check_run', checkRun(undefined));
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });
});
