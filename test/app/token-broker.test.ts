// The token broker through real HTTP (the app's own server module): runners' OIDC tokens signed
// with real RS256 keys by an issuer on 127.0.0.1 (its JWKS served there), GitHub's token endpoint
// mocked with nock, which asserts the exact repositories and permissions asked for. A valid token
// gets a scoped installation token; every way a token can be wrong or come from the wrong job is
// refused with its own code and message, and never with a token or a stack trace. Only the
// workflow run the app dispatched gets one (its recorded run id, its first attempt, started by the
// app's bot), and a repository whose workflows keep being refused is answered 429 for a while.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attemptKey, type AttemptRef } from '../../core/contract/attempt-ref.ts';
import type { AttemptFacts } from '../../app/token-broker.ts';
import { jobClaims, startIssuer, type TestIssuer } from '../helpers/oidc.ts';
import { CODE_PERMISSIONS, expectRefusal, startBroker, tokenEndpoint, type Broker } from '../helpers/broker.ts';
import { API, INSTALLATION } from './harness.ts';

const ATTEMPT = { runId: 'acme-web-7', step: 'implement', attempt: 1, epoch: 0 };

let issuer: TestIssuer;
let broker: Broker;
/** The in-memory attempt authority's facts, by external id. */
const facts = new Map<string, AttemptFacts>();
const exchange = (body: unknown) => broker.exchange(body);

function factsOf(over: Partial<AttemptFacts> = {}): AttemptFacts {
  return {
    current: true,
    repo: 'acme/web',
    defaultBranch: 'main',
    dispatch: 'dispatched',
    workflowRunId: 9001,
    installationId: INSTALLATION,
    repositories: ['acme/web', 'acme/api'],
    stepKind: 'code',
    ...over,
  };
}

/** An attempt as a token request names it: its mode is `run` unless it says otherwise. */
const keyOf = (ref: Omit<AttemptRef, 'mode'> & Partial<Pick<AttemptRef, 'mode'>>) => attemptKey({ mode: 'run', ...ref });

function know(ref: Parameters<typeof keyOf>[0], f: AttemptFacts): void {
  facts.set(keyOf(ref), f);
}

beforeAll(async () => {
  issuer = await startIssuer();
  broker = await startBroker(issuer, { lookup: async (ref) => facts.get(attemptKey(ref)) });
});

afterAll(async () => {
  await broker.close();
  await issuer.close();
});

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  facts.clear();
  know(ATTEMPT, factsOf());
});

afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('POST /conveyor/token', () => {
  it("gives a valid job token an installation token for the change set's repositories, with a step's permissions", async () => {
    const scope = tokenEndpoint(['web', 'api'], CODE_PERMISSIONS);
    const r = await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT });
    expect(r).toEqual({ status: 200, body: { token: 'ghs_scoped', expires_at: '2099-01-01T00:00:00Z' } });
    expect(scope.isDone()).toBe(true);
  });

  it('adds deployments write for a deploy step and for its teardown, and nothing else', async () => {
    const deploy = { runId: 'acme-web-7', step: 'preview', attempt: 2, epoch: 1 };
    const teardown = { runId: 'acme-web-7', step: 'preview', attempt: 14, epoch: 0, mode: 'teardown' as const };
    know(deploy, factsOf({ stepKind: 'deploy' }));
    know(teardown, factsOf({ stepKind: 'deploy', workflowRunId: 9002 }));
    const scopes = [
      tokenEndpoint(['web', 'api'], { ...CODE_PERMISSIONS, deployments: 'write' }),
      tokenEndpoint(['web', 'api'], { ...CODE_PERMISSIONS, deployments: 'write' }, { token: 'ghs_teardown' }),
    ];
    expect((await exchange({ token: await issuer.sign(jobClaims()), ...deploy })).status).toBe(200);
    const r = await exchange({ token: await issuer.sign(jobClaims({ run_id: '9002' })), ...teardown });
    expect(r).toMatchObject({ status: 200, body: { token: 'ghs_teardown' } });
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
  });

  it('accepts a clock a little off (60 s)', async () => {
    const scope = tokenEndpoint(['web', 'api'], CODE_PERMISSIONS);
    // Expired 30 s ago by this machine's clock: within the skew.
    expect((await exchange({ token: await issuer.sign(jobClaims(), { expiresIn: -30 }), ...ATTEMPT })).status).toBe(200);
    expect(scope.isDone()).toBe(true);
  });

  it('keeps the keys it fetched, and fetches them again for a key id it does not hold (a rotation)', async () => {
    const scope = tokenEndpoint(['web', 'api'], CODE_PERMISSIONS).persist();
    expect((await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT })).status).toBe(200);
    const fetched = issuer.jwksFetches;
    expect((await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT })).status).toBe(200);
    expect(issuer.jwksFetches).toBe(fetched);
    const rotated = await issuer.addKey();
    expect((await exchange({ token: await issuer.sign(jobClaims(), { kid: rotated }), ...ATTEMPT })).status).toBe(200);
    expect(issuer.jwksFetches).toBe(fetched + 1);
    expect(scope.isDone()).toBe(true);
  });

  describe('answers only the workflow run the app dispatched', () => {
    it("refuses a writer's own dispatch of the default branch's conveyor.yml: the right workflow and branch, started by a person", async () => {
      // All the job's claims are right but who started it, and so its run id, which the app never recorded.
      const token = await issuer.sign(jobClaims({ actor: 'mallory', run_id: '5555' }));
      expectRefusal(
        await exchange({ token, ...ATTEMPT }),
        403,
        'actor-mismatch',
        /workflow run 5555 was started by mallory, but the app's own runs are started by conveyor-app\[bot\]/,
      );
      // The reason is in the app's log, as a warning.
      expect(broker.logged).toContainEqual(
        expect.stringMatching(
          /^warn: token for run acme-web-7 step implement .*refused \(403 actor-mismatch\).* \(run=acme-web-7 step=implement attempt=1 epoch=0 mode=run status=403 refusal=actor-mismatch\)$/,
        ),
      );
    });

    it('refuses a run the app started but a person triggered again (triggering_actor)', async () => {
      expectRefusal(await exchange({ token: await issuer.sign(jobClaims({ triggering_actor: 'mallory' })), ...ATTEMPT }), 403, 'actor-mismatch', /mallory/);
    });

    it('refuses a re-run of the dispatched run (run_attempt 2): Conveyor never re-runs, a person did', async () => {
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims({ run_attempt: '2' })), ...ATTEMPT }),
        403,
        'run-attempt-mismatch',
        /attempt 2 of workflow run 9001, a re-run; only its first attempt, the app's dispatch, is given tokens/,
      );
    });

    it('gives nothing while the dispatch is under way (its link is still creating-check): 425, ask again', async () => {
      know(ATTEMPT, factsOf({ dispatch: 'creating-check', workflowRunId: undefined }));
      const r = await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT });
      // Not even a mint was asked for (nock answers none).
      expectRefusal(r, 425, 'dispatch-under-way', /still being dispatched/);
      expect(r.retryAfter).toBe('2');
    });

    it('refuses a dispatched attempt whose workflow run the app does not know and cannot look for', async () => {
      know(ATTEMPT, factsOf({ workflowRunId: undefined }));
      expectRefusal(await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT }), 403, 'run-unknown', /does not know which workflow run/);
    });

    describe('on GitHub Enterprise Server, where a dispatch says no run id', () => {
      let ghes: Broker;
      let found: number | undefined;
      const looked: string[] = [];
      beforeAll(async () => {
        ghes = await startBroker(issuer, {
          lookup: async (ref) => facts.get(attemptKey(ref)),
          findWorkflowRun: async (ref) => {
            looked.push(attemptKey(ref));
            return found;
          },
        });
      });
      afterAll(() => ghes.close());
      beforeEach(() => {
        know(ATTEMPT, factsOf({ workflowRunId: undefined }));
        found = undefined;
        looked.length = 0;
      });

      it('refuses until the run is found by its marker (425), then answers that run alone', async () => {
        const token = await issuer.sign(jobClaims());
        expectRefusal(await ghes.exchange({ token, ...ATTEMPT }), 425, 'run-not-found', /none started by conveyor-app\[bot\] names its check run/);
        found = 4242;
        expectRefusal(
          await ghes.exchange({ token, ...ATTEMPT }),
          403,
          'run-id-mismatch',
          /workflow run 9001, but this attempt was dispatched as workflow run 4242/,
        );
        found = 9001;
        const scope = tokenEndpoint(['web', 'api'], CODE_PERMISSIONS);
        expect((await ghes.exchange({ token, ...ATTEMPT })).status).toBe(200);
        expect(scope.isDone()).toBe(true);
        expect(looked).toEqual([`acme-web-7:implement:1:0`, `acme-web-7:implement:1:0`, `acme-web-7:implement:1:0`]);
      });

      it("refuses a person's run before looking on GitHub at all", async () => {
        expectRefusal(await ghes.exchange({ token: await issuer.sign(jobClaims({ actor: 'mallory' })), ...ATTEMPT }), 403, 'actor-mismatch', /mallory/);
        expect(looked).toEqual([]);
      });
    });
  });

  describe('refuses, saying what did not match', () => {
    it('a bad signature (signed with another key under a published key id)', async () => {
      const forged = await issuer.sign(jobClaims(), { key: await issuer.strayKey() });
      expectRefusal(await exchange({ token: forged, ...ATTEMPT }), 401, 'token-signature', /signature does not verify/);
    });

    it('an unknown key id', async () => {
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims(), { kid: 'not-published' }), ...ATTEMPT }),
        401,
        'token-unknown-key',
        /key id .* does not publish/,
      );
    });

    it('an expired token (past the clock skew)', async () => {
      expectRefusal(await exchange({ token: await issuer.sign(jobClaims(), { expiresIn: -120 }), ...ATTEMPT }), 401, 'token-expired', /expired/);
    });

    it('a token not valid yet (past the clock skew)', async () => {
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims(), { notBefore: 600, expiresIn: 900 }), ...ATTEMPT }),
        401,
        'token-not-yet-valid',
        /not valid yet/,
      );
    });

    it('the wrong audience', async () => {
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims(), { audience: 'sts.amazonaws.com' }), ...ATTEMPT }),
        401,
        'token-audience',
        /audience must be "conveyor"/,
      );
    });

    it('the wrong issuer', async () => {
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims(), { issuer: 'https://token.actions.githubusercontent.com' }), ...ATTEMPT }),
        401,
        'token-issuer',
        /not issued by http:\/\/127\.0\.0\.1/,
      );
    });

    it('a token without the claims of a workflow job', async () => {
      const { workflow_ref: _w, ...claims } = jobClaims();
      expectRefusal(await exchange({ token: await issuer.sign(claims), ...ATTEMPT }), 401, 'token-claims', /workflow_ref/);
    });

    it('not a JWT at all', async () => {
      expectRefusal(await exchange({ token: 'not.a.jwt', ...ATTEMPT }), 401, 'token-malformed', /not a JWT/);
    });

    it('a job of another repository', async () => {
      const token = await issuer.sign(jobClaims({ repository: 'mallory/web', workflow_ref: 'mallory/web/.github/workflows/conveyor.yml@refs/heads/main' }));
      expectRefusal(
        await exchange({ token, ...ATTEMPT }),
        403,
        'repository-mismatch',
        /from a workflow of mallory\/web, but this attempt was dispatched to acme\/web/,
      );
    });

    it('the workflow on another branch', async () => {
      const token = await issuer.sign(jobClaims({ workflow_ref: 'acme/web/.github/workflows/conveyor.yml@refs/heads/feature' }));
      expectRefusal(
        await exchange({ token, ...ATTEMPT }),
        403,
        'workflow-mismatch',
        /conveyor\.yml@refs\/heads\/feature, but only acme\/web\/\.github\/workflows\/conveyor\.yml@refs\/heads\/main/,
      );
    });

    it('another workflow file on the default branch', async () => {
      const token = await issuer.sign(jobClaims({ workflow_ref: 'acme/web/.github/workflows/print-secrets.yml@refs/heads/main' }));
      expectRefusal(await exchange({ token, ...ATTEMPT }), 403, 'workflow-mismatch', /print-secrets\.yml/);
    });

    it('another event', async () => {
      expectRefusal(await exchange({ token: await issuer.sign(jobClaims({ event_name: 'push' })), ...ATTEMPT }), 403, 'event-mismatch', /started by push/);
    });

    it("a run id that is not the attempt's workflow run", async () => {
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims({ run_id: '1234' })), ...ATTEMPT }),
        403,
        'run-id-mismatch',
        /workflow run 1234, but this attempt was dispatched as workflow run 9001/,
      );
    });

    it('an attempt already retired (409: genuine, but the app has moved on)', async () => {
      know(ATTEMPT, factsOf({ current: false }));
      expectRefusal(await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT }), 409, 'attempt-retired', /attempt 1 dispatch 1 is no longer current/);
    });

    it('an attempt the app never dispatched', async () => {
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT, attempt: 5 }),
        404,
        'unknown-attempt',
        /no attempt run acme-web-7 step implement attempt 5/,
      );
    });

    it('a change set spanning owners', async () => {
      know(ATTEMPT, factsOf({ repositories: ['acme/web', 'other/api'] }));
      expectRefusal(await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT }), 422, 'change-set-owners', /2 owners \(acme\/web, other\/api\)/);
    });

    it("GitHub's refusal to mint, without its details beyond status and message", async () => {
      const scope = nock(API)
        .post(`/app/installations/${INSTALLATION}/access_tokens`)
        .reply(422, { message: 'There is at least one repository that does not exist or is not accessible to the parent installation.' });
      expectRefusal(
        await exchange({ token: await issuer.sign(jobClaims()), ...ATTEMPT }),
        502,
        'github-refused',
        /HTTP 422.*not accessible to the parent installation/,
      );
      expect(scope.isDone()).toBe(true);
    });

    it('a body that is not a token request, naming the field', async () => {
      const token = await issuer.sign(jobClaims());
      expectRefusal(await exchange({ token, ...ATTEMPT, attempt: 0 }), 400, 'bad-request', /attempt:/);
      expectRefusal(await exchange({ ...ATTEMPT }), 400, 'bad-request', /token:/);
      expectRefusal(await exchange({ token, ...ATTEMPT, step: 'Bad Step' }), 400, 'bad-request', /step: must be a step id/);
      expectRefusal(await exchange('{"token": '), 400, 'bad-request', /not JSON/);
    });

    it('anything but POST, and a body far larger than a token request', async () => {
      const get = await fetch(`${broker.base}/conveyor/token`);
      expect({ status: get.status, allow: get.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
      const big = await exchange({ token: 'x'.repeat(70_000), ...ATTEMPT });
      expect({ status: big.status, error: big.body.error }).toEqual({ status: 413, error: 'body-too-large' });
    });
  });
});
