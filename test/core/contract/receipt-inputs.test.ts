// The engine digests the payload object it sends; the action digests what it parsed from the JSON
// text it received. inputsDigest skips the JSON round trip for plain data: these tests check that
// it gives, byte for byte, the digest of the action's path (JSON text, parsed, wire schema, agents'
// env left out), for payloads built by buildPayload with optional fields present, absent and
// undefined, and that values JSON would change still take the action's path.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256 } from '../../../core/canonical.ts';
import { buildPayload } from '../../../core/run/payload.ts';
import { inputsDigest } from '../../../core/contract/receipt.ts';
import { createRun } from '../../../core/run/reducer.ts';
import type { Run } from '../../../core/run/types.ts';
import { WIRE_VERSION, stepPayloadSchema } from '../../../core/contract/wire.ts';
import { planOf, TEST_ORIGIN } from '../../helpers/plans.ts';

/** The action's path, written out independently: JSON text, JSON.parse, the wire schema, no agent env. */
function actionDigest(payload: unknown): string {
  const parsed = stepPayloadSchema.parse(JSON.parse(JSON.stringify(payload)));
  const agents = Object.fromEntries(Object.entries(parsed.agents).map(([name, { env: _env, ...rest }]) => [name, rest]));
  return sha256(canonicalJson({ ...parsed, agents }));
}

const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate', repair: 2 },
  { id: 'review', kind: 'review', repair: 1, needs: ['implement'] },
  { id: 'preview', kind: 'deploy', needs: ['implement'] },
  { id: 'ship', kind: 'merge' },
]);
const text = fc.string({ unit: 'binary', maxLength: 40 });
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined | 'absent'> => fc.oneof(arb, fc.constant(undefined), fc.constant('absent' as const));
const environment = fc.record({
  service: fc.constantFrom('web', 'api'),
  envId: fc.string({ minLength: 1, maxLength: 12 }),
  state: fc.constantFrom('ready', 'failed', 'skipped'),
  url: maybe(fc.webUrl()),
});

function put<T extends object>(o: T, key: string, value: unknown): T {
  if (value !== 'absent') (o as Record<string, unknown>)[key] = value;
  return o;
}

const runs = fc
  .record({
    title: text,
    body: text,
    url: maybe(fc.webUrl()),
    requester: maybe(fc.string({ minLength: 1, maxLength: 10 })),
    secret: text,
    model: maybe(text),
    prHead: maybe(fc.stringMatching(/^[0-9a-f]{40}$/)),
    environments: fc.array(environment, { maxLength: 3 }),
    findings: maybe(text),
  })
  .map((g): Run => {
    const issue = put({ repo: 'acme/web', number: 7, title: g.title, body: g.body }, 'url', g.url);
    const agents = {
      coder: put({ name: 'coder', run: 'true', timeoutMinutes: 30, env: { TOKEN: g.secret } }, 'model', g.model),
      reviewer: { name: 'reviewer', run: 'true', model: 'openai/gpt', timeoutMinutes: 30, env: {} },
    };
    const run = createRun({ id: 'web-7', plan: { ...plan, agents }, issue, origin: TEST_ORIGIN, at: '2025-01-01T00:00:00.000Z' });
    if (g.requester !== 'absent') (run as { requester?: string }).requester = g.requester;
    const pr = put({ repo: 'acme/web', number: 1, url: 'https://github.com/acme/web/pull/1', branch: 'conveyor/web-7' }, 'head', g.prHead);
    const environments = g.environments.map((e) => put({ service: e.service, envId: e.envId, state: e.state }, 'url', e.url));
    const failed = put(
      {
        version: WIRE_VERSION,
        runId: 'web-7',
        step: 'test',
        mode: 'run',
        attempt: 1,
        epoch: 0,
        conclusion: 'failure',
        summary: 'failed',
        prs: [],
        commits: {},
        environments: [],
      },
      'findings',
      g.findings,
    );
    // The repair attempt the payloads below are built for, with the findings it was dispatched with.
    const repair = put({ attempt: 2, epoch: 1, mode: 'repair', startedAt: '2025-01-01T00:00:00.000Z' }, 'findings', g.findings);
    return {
      ...run,
      prs: [pr],
      environments: environments as Run['environments'],
      steps: { ...run.steps, test: { ...run.steps.test!, result: failed as never, attempts: [repair as never] } },
    };
  });

describe('inputsDigest', () => {
  it('equals the digest of the action path for payloads built by buildPayload', () => {
    fc.assert(
      fc.property(runs, fc.constantFrom('implement', 'test', 'review', 'preview', 'ship'), fc.constantFrom('run', 'repair' as const), (run, step, mode) => {
        const payload = buildPayload(run, { step, attempt: 2, epoch: 1, mode });
        expect(inputsDigest(payload)).toBe(actionDigest(payload));
        // What the action itself computes, on the payload as it parsed it.
        expect(inputsDigest(stepPayloadSchema.parse(JSON.parse(JSON.stringify(payload))))).toBe(actionDigest(payload));
      }),
      { numRuns: 300 },
    );
  });

  it('a teardown payload, and optional fields present as undefined, digest as the action does', () => {
    const run = createRun({ id: 'web-7', plan, issue: { repo: 'acme/web', number: 7, title: 't', body: 'b', url: undefined }, origin: TEST_ORIGIN, at: 'x' });
    const payload = buildPayload(run, {
      step: 'preview',
      attempt: 3,
      epoch: 0,
      mode: 'teardown',
      environments: [{ service: 'web', envId: 'e', state: 'ready', url: undefined }],
    });
    expect(inputsDigest(payload)).toBe(actionDigest(payload));
    const { coder: _coder, ...noCoder } = payload;
    expect(inputsDigest({ ...payload, requester: undefined, findings: undefined, coder: undefined })).toBe(actionDigest(noCoder));
    expect(inputsDigest({ ...payload, requester: undefined, findings: undefined })).toBe(actionDigest(payload));
  });

  it('values JSON would change take the action path: a Date, -0, a hole, a class instance, a toJSON', () => {
    const run = createRun({ id: 'web-7', plan, issue: { repo: 'acme/web', number: 7, title: 't', body: 'b' }, origin: TEST_ORIGIN, at: 'x' });
    const payload = buildPayload(run, { step: 'test', attempt: 1, epoch: 0, mode: 'run' });
    class Issue {
      constructor(
        readonly repo: string,
        readonly number: number,
        readonly title: string,
        readonly body: string,
      ) {}
    }
    const odd: unknown[] = [
      { ...payload, issue: { ...payload.issue, url: new Date(0) } },
      { ...payload, epoch: -0 },
      { ...payload, environments: [undefined] },
      { ...payload, issue: new Issue('acme/web', 7, 't', 'b') },
      { ...payload, issue: { ...payload.issue, toJSON: () => ({ repo: 'acme/api', number: 8, title: 'x', body: 'y' }) } },
    ];
    for (const p of odd) {
      let expected: string;
      try {
        expected = actionDigest(p);
      } catch {
        // The action would refuse this payload: the digest is of the raw JSON value, as before.
        const raw = JSON.parse(JSON.stringify(p)) as { agents: Record<string, { env?: unknown }> };
        const agents = Object.fromEntries(Object.entries(raw.agents).map(([n, { env: _env, ...rest }]) => [n, rest]));
        expected = sha256(canonicalJson({ ...raw, agents }));
      }
      expect(inputsDigest(p)).toBe(expected);
    }
  });
});
