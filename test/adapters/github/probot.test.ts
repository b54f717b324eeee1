// The app's Octokit: Probot's, given the policy by withGitHubPolicy (as `conveyor serve` gives it),
// and the installation Octokit probot.auth() makes from it, GitHub mocked with nock. It sends the
// installation token, to GitHub Enterprise Server's base URL when configured; the policy replaces
// Probot's own (which never retries a secondary limit); and a token that cannot be minted is not
// mistaken for a missing thing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import { Probot, ProbotOctokit } from 'probot';
import { gitHub, type GitHub } from '../../../adapters/github/forge/github.ts';
import { GitHubApiError } from '../../../adapters/github/errors.ts';
import { withGitHubPolicy } from '../../../adapters/github/octokit.ts';
import { API, INSTALLATION, privateKey } from '../../app/harness.ts';
import { rejectionOf } from '../../helpers/errors.ts';

const GHE = 'https://ghe.example.com';
const MINT = `/app/installations/${INSTALLATION}/access_tokens`;
const SECONDARY = { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' };

/** The app's GitHub adapter for the installation, its waits a thousand times shorter, writes not paced. */
async function appGitHub(baseUrl?: string): Promise<GitHub> {
  const probot = new Probot({
    appId: 1,
    privateKey,
    ...(baseUrl ? { baseUrl } : {}),
    Octokit: withGitHubPolicy(ProbotOctokit, { msPerSecond: 1, paceWrites: false }),
  });
  (await probot.ready()).log.level = 'silent';
  return gitHub({ octokit: await probot.auth(INSTALLATION) });
}

const minted = (base: string, token: string) =>
  nock(base)
    .post(`${base === API ? '' : '/api/v3'}${MINT}`)
    .reply(201, { token, expires_at: '2099-01-01T00:00:00Z', permissions: {} });

beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});
const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

describe("the app's installation Octokit", () => {
  it('sends the installation token, to the configured GitHub Enterprise Server', async () => {
    const scopes = [
      minted(GHE, 'ghs_ghe'),
      nock(GHE, { reqheaders: { authorization: 'token ghs_ghe' } })
        .patch('/api/v3/repos/acme/web/check-runs/7', { status: 'in_progress', output: { title: 't', summary: 's' } })
        .reply(200, { id: 7, status: 'in_progress', html_url: `${GHE}/acme/web/runs/7` }),
    ];
    const github = await appGitHub(`${GHE}/api/v3`);
    expect((await github.checks.update('acme/web', 7, { status: 'in_progress', output: { title: 't', summary: 's' } })).url).toBe(`${GHE}/acme/web/runs/7`);
    allDone(scopes);
  });

  it("has the policy, not Probot's own: a secondary limit is retried (Probot gives up at once), at most 3 times", async () => {
    const github = await appGitHub();
    const retried = [
      minted(API, 'ghs_one'),
      nock(API)
        .get('/repos/acme/web/collaborators/bob/permission')
        .reply(403, SECONDARY, { 'retry-after': '1' })
        .get('/repos/acme/web/collaborators/bob/permission')
        .reply(200, { permission: 'write' }),
    ];
    expect(await github.people.permission('acme/web', 'bob')).toBe('write');
    allDone(retried);
    const bounded = nock(API).get('/repos/acme/web/collaborators/bob/permission').times(4).reply(429, SECONDARY, { 'retry-after': '1' });
    const e = await rejectionOf(github.people.permission('acme/web', 'bob'), GitHubApiError);
    expect(e.message).toBe(`GitHub GET /repos/{owner}/{repo}/collaborators/{username}/permission failed (HTTP 429): ${SECONDARY.message}`);
    allDone([bounded]);
  });

  it('a token that cannot be minted fails the call naming the credentials; its 404 is not "not there"', async () => {
    const github = await appGitHub();
    const refused = nock(API).post(MINT).times(2).reply(404, { message: 'Not Found' });
    const file = await rejectionOf(github.repos.readFile('acme/web', '.github/conveyor.yml', 'main'), GitHubApiError);
    expect(file.message).toBe(
      "GitHub GET /repos/{owner}/{repo}/contents/{path} was not sent: the installation's token could not be had (HTTP 404): Not Found. Is the app still installed on the repository, with the permissions it asks for?",
    );
    expect({ credentials: file.credentials, absent: file.absent }).toEqual({ credentials: true, absent: false });
    await rejectionOf(github.people.permission('acme/web', 'bob'), GitHubApiError);
    allDone([refused]);
    // A server error while minting is retried as any call's; the call then goes through.
    const scopes = [
      nock(API).post(MINT).reply(502, 'Bad Gateway', { 'content-type': 'text/html' }),
      minted(API, 'ghs_two'),
      nock(API, { reqheaders: { authorization: 'token ghs_two' } })
        .get('/repos/acme/web/collaborators/bob/permission')
        .reply(200, { permission: 'admin' }),
    ];
    expect(await github.people.permission('acme/web', 'bob')).toBe('admin');
    allDone(scopes);
  });
});
