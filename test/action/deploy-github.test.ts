// Preview environments as GitHub Deployments: the deploy and teardown steps against GitHub's REST
// API mocked with nock (git still runs against real local repositories).
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createContext, type StepContext } from '../../action/src/context.ts';
import { runDeploy } from '../../action/src/steps/deploy.ts';
import { runTeardown } from '../../action/src/steps/teardown.ts';
import { GitHubForge } from '../../adapters/github/forge/forge.ts';
import { octokitLog } from '../../adapters/github/octokit.ts';
import { pathWithoutBubblewrap } from '../helpers/processes.ts';
import { createFixture, deployCommand, type Fixture } from './deploy-fixture.ts';
import { silentLogger } from '../../lib/logger.ts';

const API = 'https://api.github.com';
/** The action's forge, its waits a thousand times shorter and writes not paced (real time here). */
const QUICK = { token: 'ghs_test', baseUrl: API, msPerSecond: 1, paceWrites: false, log: octokitLog(silentLogger) };
let f: Fixture;
let n = 0;

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
beforeEach(() => {
  f = createFixture();
});
afterEach(() => {
  nock.cleanAll();
  f.cleanup();
});

/** A step context that clones from the local remotes and talks to (mocked) GitHub as its forge. */
function githubContext(): StepContext {
  const ctx = createContext({
    env: {
      // The recorder ($REC) is outside the workspace, where a sandboxed deploy cannot write (see deploy-fixture.ts).
      PATH: pathWithoutBubblewrap(),
      HOME: process.env.HOME,
      GITHUB_SERVER_URL: f.remotes.url,
      CONVEYOR_WORKSPACE_ROOT: join(f.scratch, `ws-${++n}`),
      REC: f.rec,
    },
    log: () => undefined,
  });
  const forge = new GitHubForge(QUICK);
  return { ...ctx, forge: async () => forge };
}

type Body = Record<string, unknown>;
const deploymentFor = (envId: string, ref: string) => (b: Body) =>
  b.environment === envId &&
  b.ref === ref &&
  b.transient_environment === true &&
  b.production_environment === false &&
  b.auto_merge === false &&
  Array.isArray(b.required_contexts) &&
  (b.required_contexts as unknown[]).length === 0;

describe('GitHub Deployments of preview environments', () => {
  it('creates a transient deployment per environment: in progress, then success with its URL or failure; inactive on teardown', async () => {
    const teardown = '"$REC/teardown.sh"';
    const payload = f.payload(
      { web: { dependsOn: ['api'], run: deployCommand(0), teardown }, api: { run: deployCommand(0, 'fail'), teardown } },
      { own: 'web' },
    );
    const head = f.remotes.head('acme/mono', 'main')!;
    const scope = nock(API, { reqheaders: { authorization: 'token ghs_test' } })
      .post('/repos/acme/mono/deployments', deploymentFor('web-7-api', head))
      .reply(201, { id: 11 })
      .post('/repos/acme/mono/deployments/11/statuses', (b: Body) => b.state === 'in_progress')
      .reply(201, { id: 1 })
      .post('/repos/acme/mono/deployments/11/statuses', (b: Body) => b.state === 'failure' && b.description === 'exited with 3')
      .reply(201, { id: 2 })
      .post('/repos/acme/mono/deployments', deploymentFor('web-7-web', head))
      .reply(201, { id: 12 })
      .post('/repos/acme/mono/deployments/12/statuses', (b: Body) => b.state === 'in_progress')
      .reply(201, { id: 3 })
      .post('/repos/acme/mono/deployments/12/statuses', (b: Body) => b.state === 'success' && b.environment_url === 'http://web.preview.test/web-7-web')
      .reply(201, { id: 4 });
    const result = await runDeploy(githubContext(), payload);
    expect(result.conclusion, result.summary).toBe('success');
    scope.done();
    const web = result.environments.find((e) => e.service === 'web')!;
    expect(web.deployment).toEqual({ repo: 'acme/mono', id: 12 });

    const inactive = nock(API)
      .post('/repos/acme/mono/deployments/12/statuses', (b: Body) => b.state === 'inactive')
      .reply(201, { id: 5 });
    const down = await runTeardown(githubContext(), { ...payload, mode: 'teardown', environments: result.environments });
    expect(down.conclusion, down.summary).toBe('success');
    expect(down.environments.map((e) => e.service)).toEqual(['web']);
    inactive.done();
  });

  it('deploys anyway when GitHub refuses the deployment, and says so in the summary', async () => {
    const payload = f.payload({ web: { run: deployCommand(0) } }, { own: 'web' });
    // A server error is tried again three times (plugin-retry) before the note says so.
    const scope = nock(API).post('/repos/acme/mono/deployments').times(4).reply(500, { message: 'Server Error' });
    const result = await runDeploy(githubContext(), payload);
    scope.done();
    expect(result.conclusion).toBe('success');
    expect(result.environments[0]).toMatchObject({ state: 'ready', url: 'http://web.preview.test/web-7-web' });
    expect(result.environments[0]?.deployment).toBeUndefined();
    expect(result.summary).toMatch(/GitHub deployment: creating the deployment of web failed: .*HTTP 500/);
  });

  it("refuses an answer without a deployment (GitHub's 202 when it would merge first)", async () => {
    const forge = new GitHubForge(QUICK);
    const scope = nock(API).post('/repos/acme/web/deployments').reply(202, { message: 'Auto-merged main into topic' });
    await expect(forge.createDeployment({ repo: 'acme/web', ref: 'abc', environment: 'e', description: 'd', transient: true })).rejects.toThrow(
      'GitHub POST /repos/{owner}/{repo}/deployments failed (HTTP 202): Auto-merged main into topic (no deployment of acme/web@abc was created)',
    );
    scope.done();
  });
});
