// The token broker's limit on refusals, through real HTTP and real signed tokens: a repository
// whose workflows keep asking for tokens they are refused (someone polling attempt ids, or trying
// jobs the app did not dispatch) is answered 429 for a while, without the app judging the request
// any further or minting; other repositories are not held up, and tokens that are not GitHub's do
// not count against the repository they name (anyone could forge that claim).
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attemptKey } from '../../core/contract/attempt-ref.ts';
import type { AttemptFacts } from '../../app/token-broker.ts';
import { jobClaims, startIssuer, type TestIssuer } from '../helpers/oidc.ts';
import { CODE_PERMISSIONS, expectRefusal, startBroker, tokenEndpoint, type Broker } from '../helpers/broker.ts';
import { INSTALLATION } from './harness.ts';

const WEB = { runId: 'acme-web-7', step: 'implement', attempt: 1, epoch: 0 };
const API_ATTEMPT = { runId: 'acme-api-3', step: 'implement', attempt: 1, epoch: 0 };
const MINUTE = 60_000;

let issuer: TestIssuer;
let broker: Broker;
let clock: number;
let lookups: number;
const facts = new Map<string, AttemptFacts>();

const factsOf = (repo: string, workflowRunId: number): AttemptFacts => ({
  current: true,
  repo,
  defaultBranch: 'main',
  dispatch: 'dispatched',
  workflowRunId,
  installationId: INSTALLATION,
  repositories: [repo],
  stepKind: 'code',
});

const apiClaims = (over: Record<string, unknown> = {}) =>
  jobClaims({ repository: 'acme/api', workflow_ref: 'acme/api/.github/workflows/conveyor.yml@refs/heads/main', run_id: '7001', ...over });

beforeAll(async () => {
  issuer = await startIssuer();
  broker = await startBroker(
    issuer,
    {
      lookup: async (id) => {
        lookups++;
        return facts.get(attemptKey(id));
      },
    },
    { refusals: { capacity: 3, refillMs: MINUTE }, now: () => clock },
  );
});
afterAll(async () => {
  await broker.close();
  await issuer.close();
});

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  // Each test a fresh hour: the buckets of the tests before have long refilled.
  clock = (clock ?? Date.now()) + 60 * MINUTE;
  lookups = 0;
  facts.clear();
  facts.set(attemptKey({ ...WEB, mode: 'run' }), factsOf('acme/web', 9001));
  facts.set(attemptKey({ ...API_ATTEMPT, mode: 'run' }), factsOf('acme/api', 7001));
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('refusals from one repository', () => {
  it('after a few, every request from its workflows is answered 429 without being judged further; other repositories are answered', async () => {
    // Someone polls the attempts that come next with a genuine job token of the app's own run.
    const token = await issuer.sign(jobClaims());
    for (const attempt of [2, 3, 4]) expectRefusal(await broker.exchange({ token, ...WEB, attempt }), 404, 'unknown-attempt', /no attempt/);
    expect(lookups).toBe(3);
    // Now even the genuine request of acme/web is not looked at (no lookup) and nothing is minted (nock has no token endpoint).
    const limited = await broker.exchange({ token, ...WEB });
    expectRefusal(limited, 429, 'too-many-refusals', /3 token requests from workflows of acme\/web were refused .*ask again in 60 s/);
    expect(limited.retryAfter).toBe('60');
    expect(lookups).toBe(3);
    expect(broker.logged).toContainEqual(
      expect.stringMatching(/^warn: token for run acme-web-7 .*refused \(429 too-many-refusals\).* \(run=acme-web-7 .*status=429 refusal=too-many-refusals\)$/),
    );
    // acme/api's workflows are not held up by acme/web's.
    const scope = tokenEndpoint(['api'], CODE_PERMISSIONS);
    expect((await broker.exchange({ token: await issuer.sign(apiClaims()), ...API_ATTEMPT })).status).toBe(200);
    expect(scope.isDone()).toBe(true);
  });

  it('a refusal is forgiven per minute: the genuine job gets its token once the bucket refilled', async () => {
    const writer = await issuer.sign(jobClaims({ actor: 'mallory', run_id: '5555' }));
    for (let i = 0; i < 3; i++) expectRefusal(await broker.exchange({ token: writer, ...WEB }), 403, 'actor-mismatch', /mallory/);
    const genuine = await issuer.sign(jobClaims());
    expect((await broker.exchange({ token: genuine, ...WEB })).status).toBe(429);
    clock += 30_000;
    expect((await broker.exchange({ token: genuine, ...WEB })).retryAfter).toBe('30');
    clock += 30_000;
    const scope = tokenEndpoint(['web'], CODE_PERMISSIONS);
    expect((await broker.exchange({ token: genuine, ...WEB })).status).toBe(200);
    expect(scope.isDone()).toBe(true);
    // One refusal was forgiven, so the next one is answered, and the one after it limited again.
    expectRefusal(await broker.exchange({ token: writer, ...WEB }), 403, 'actor-mismatch', /mallory/);
    expect((await broker.exchange({ token: writer, ...WEB })).status).toBe(429);
  });

  it("tokens that are not GitHub's do not count against the repository they name, nor do retired attempts", async () => {
    const forged = await issuer.sign(jobClaims(), { key: await issuer.strayKey() });
    for (let i = 0; i < 5; i++) expectRefusal(await broker.exchange({ token: forged, ...WEB }), 401, 'token-signature', /signature/);
    // A genuine job whose attempt the app retired asks again on every renewal: that is no attack.
    facts.set(attemptKey({ ...WEB, mode: 'run' }), { ...factsOf('acme/web', 9001), current: false });
    const genuine = await issuer.sign(jobClaims());
    for (let i = 0; i < 5; i++) expectRefusal(await broker.exchange({ token: genuine, ...WEB }), 409, 'attempt-retired', /no longer current/);
    facts.set(attemptKey({ ...WEB, mode: 'run' }), factsOf('acme/web', 9001));
    const scope = tokenEndpoint(['web'], CODE_PERMISSIONS);
    expect((await broker.exchange({ token: genuine, ...WEB })).status).toBe(200);
    expect(scope.isDone()).toBe(true);
  });
});
