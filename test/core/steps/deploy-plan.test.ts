// The deploy step's pure plan: targets, providers, names, peer variables, resume and the schedule.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  criticalPath,
  deployKey,
  envIdFor,
  environmentVariables,
  keptOutcomes,
  peerVariables,
  planDeploy,
  slugOf,
  startable,
} from '../../../core/steps/deploy-plan.ts';
import { ConveyorError } from '../../../core/errors.ts';
import type { ResolvedService } from '../../../core/plan/types.ts';
import type { Environment } from '../../../core/contract/wire.ts';

function services(spec: Record<string, { deps?: string[]; deploy?: boolean }>): Record<string, ResolvedService> {
  return Object.fromEntries(
    Object.entries(spec).map(([name, s]) => [
      name,
      { name, repo: `acme/${name}`, base: 'main', dependsOn: s.deps ?? [], deploy: s.deploy === false ? null : { run: 'deploy', timeoutMinutes: 5 } },
    ]),
  );
}

describe('planDeploy', () => {
  it('orders the targets providers first and records services without deploy as skipped', () => {
    const svc = services({ web: { deps: ['api', 'docs'] }, api: { deps: ['db'] }, db: {}, docs: { deploy: false } });
    const plan = planDeploy({ runId: 'web-7', services: svc, stepServices: ['api', 'db', 'web'], changeSetServices: ['web', 'api', 'db', 'docs'], own: 'web' });
    expect(plan.waves).toEqual([['db'], ['api'], ['web']]);
    expect(plan.targets.map((t) => [t.service, t.providers])).toEqual([
      ['db', []],
      ['api', ['db']],
      ['web', ['api']],
    ]);
    expect(plan.skipped).toEqual(['docs']);
    expect(plan.own).toBe('web');
  });

  it('makes a consumer wait for providers reached through a service that stands up nothing', () => {
    const svc = services({ web: { deps: ['gateway'] }, gateway: { deps: ['api'], deploy: false }, api: {} });
    const plan = planDeploy({ runId: 'r', services: svc, stepServices: ['api', 'web'], changeSetServices: ['web', 'gateway', 'api'] });
    expect(plan.targets.find((t) => t.service === 'web')?.providers).toEqual(['api']);
  });

  it("restricts the graph to the step's services", () => {
    const svc = services({ web: { deps: ['api'] }, api: {} });
    const plan = planDeploy({ runId: 'r', services: svc, stepServices: ['web'], changeSetServices: ['web', 'api'] });
    expect(plan.targets.map((t) => [t.service, t.providers])).toEqual([['web', []]]);
  });

  it('names an unknown service and a cycle', () => {
    expect(() => planDeploy({ runId: 'r', services: services({ web: {} }), stepServices: ['wbe'], changeSetServices: ['web'] })).toThrow(
      /step\.services: service "wbe" .*known: web/,
    );
    const cyclic = services({ a: { deps: ['b'] }, b: { deps: ['a'] } });
    try {
      planDeploy({ runId: 'r', services: cyclic, stepServices: ['a', 'b'], changeSetServices: [] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConveyorError);
      expect((e as Error).message).toMatch(/cycle: a -> b -> a|cycle: b -> a -> b/);
    }
  });
});

describe('names and variables', () => {
  const dnsLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

  it('gives each run and service a stable DNS label of at most 63 characters', () => {
    expect(envIdFor('web-7', 'api')).toBe('web-7-api');
    expect(envIdFor('web-7', 'api')).toBe(envIdFor('web-7', 'api'));
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.string({ minLength: 1, maxLength: 80 }), (run, service) => {
        expect(envIdFor(run, service)).toMatch(dnsLabel);
      }),
    );
    const long = 'x'.repeat(70);
    expect(envIdFor('run-1', long)).not.toBe(envIdFor('run-1', `${long}y`));
    expect(envIdFor('run-1', 'api_v1')).not.toBe(envIdFor('run-1', 'api-v1'));
  });

  it('keys a deploy by run, service and dispatch', () => {
    expect(deployKey('web-7', 'api', 2, 1)).toBe('web-7/api/2.1');
  });

  it('passes every ready provider, colliding slugs suffixed -2, -3', () => {
    expect(peerVariables([])).toEqual({ CONVEYOR_PEER_URLS: '' });
    expect(
      peerVariables([
        { service: 'API', url: 'http://a' },
        { service: 'api', url: 'http://b' },
        { service: 'api.', url: 'http://c' },
        { service: 'db', url: 'http://d' },
      ]),
    ).toEqual({
      CONVEYOR_PEER_URLS: 'api=http://a,api-2=http://b,api-3=http://c,db=http://d',
      CONVEYOR_PEER_API_URL: 'http://a',
      CONVEYOR_PEER_API_2_URL: 'http://b',
      CONVEYOR_PEER_API__URL: 'http://c',
      CONVEYOR_PEER_DB_URL: 'http://d',
    });
    expect(slugOf('My_Service!')).toBe('my-service');
  });

  it('tells a step after a deploy its ready environments: the own URL, one variable each, and the pairs, sorted by service', () => {
    const ready = (service: string, url: string): Environment => ({ service, envId: `r-${service}`, state: 'ready', url });
    expect(
      environmentVariables(
        [
          ready('web', 'http://w'),
          { service: 'broken', envId: 'r-broken', state: 'failed', error: 'exited with 1' },
          { service: 'docs', envId: 'r-docs', state: 'skipped' },
          ready('my-api', 'http://a'),
          ready('my_api', 'http://b'),
        ],
        'web',
      ),
    ).toEqual({
      CONVEYOR_ENV_URL: 'http://w',
      CONVEYOR_ENV_URLS: 'my-api=http://a,my-api-2=http://b,web=http://w',
      CONVEYOR_ENV_MY_API_URL: 'http://a',
      CONVEYOR_ENV_MY_API_2_URL: 'http://b',
      CONVEYOR_ENV_WEB_URL: 'http://w',
    });
    // The own service without an environment: no CONVEYOR_ENV_URL rather than another's.
    expect(environmentVariables([ready('api', 'http://a')], 'web')).toEqual({ CONVEYOR_ENV_URLS: 'api=http://a', CONVEYOR_ENV_API_URL: 'http://a' });
    // Nothing ready: no variable at all (a step before any deploy looks the same).
    expect(environmentVariables([{ service: 'web', envId: 'r-web', state: 'failed' }], 'web')).toEqual({});
  });
});

describe('resume and schedule', () => {
  const svc = services({ web: { deps: ['api'] }, api: {}, auth: {}, docs: { deploy: false } });
  const plan = planDeploy({ runId: 'r', services: svc, stepServices: ['api', 'auth', 'web'], changeSetServices: ['web', 'api', 'auth', 'docs'], own: 'web' });
  const env = (service: string, state: Environment['state'], extra: Partial<Environment> = {}): Environment => ({
    service,
    envId: envIdFor('r', service),
    state,
    ...extra,
  });

  it('keeps everything settled on a re-dispatch of the same attempt', () => {
    const given = [env('api', 'ready', { url: 'u', commit: 'old' }), env('auth', 'failed'), env('other', 'ready')];
    const kept = keptOutcomes(plan, given, { epoch: 1, headOf: () => 'new' });
    expect([...kept.keys()]).toEqual(['api', 'auth']);
  });

  it('on a fresh attempt keeps ready environments of an unchanged source and skips, and redoes failures', () => {
    const given = [
      env('api', 'ready', { url: 'u', commit: 'c1' }),
      env('auth', 'ready', { url: 'u', commit: 'c1' }),
      env('web', 'failed', { commit: 'c2' }),
      env('docs', 'skipped'),
    ];
    const kept = keptOutcomes(plan, given, { epoch: 0, headOf: (s) => (s === 'api' ? 'c1' : 'c9') });
    expect([...kept.keys()].sort()).toEqual(['api', 'docs']);
  });

  it('on a fresh attempt deploys again every consumer of a provider that deploys again, even from an unchanged source', () => {
    const chain = planDeploy({
      runId: 'r',
      services: services({ web: { deps: ['api'] }, api: { deps: ['db'] }, db: {}, auth: {} }),
      stepServices: ['api', 'auth', 'db', 'web'],
      changeSetServices: ['web', 'api', 'db', 'auth'],
      own: 'web',
    });
    const given = ['db', 'api', 'web', 'auth'].map((s) => env(s, 'ready', { url: `http://${s}`, commit: 'c1' }));
    // Only db's repository moved: api and web were told its URL, so they deploy again after it; auth stays.
    const kept = keptOutcomes(chain, given, { epoch: 0, headOf: (s) => (s === 'db' ? 'c2' : 'c1') });
    expect([...kept.keys()]).toEqual(['auth']);
    // A re-dispatch of the same attempt keeps what it settled, whatever moved.
    expect([...keptOutcomes(chain, given, { epoch: 1, headOf: () => 'c9' }).keys()].sort()).toEqual(['api', 'auth', 'db', 'web']);
  });

  it('starts a target once its own providers settled, and nothing once the own service failed', () => {
    const settled = new Map<string, Environment>();
    expect(startable(plan, settled, new Set(), false).map((t) => t.service)).toEqual(['api', 'auth']);
    settled.set('api', env('api', 'failed'));
    expect(startable(plan, settled, new Set(['auth']), false).map((t) => t.service)).toEqual(['web']);
    expect(startable(plan, settled, new Set(), true)).toEqual([]);
  });

  it('measures the critical path', () => {
    const d: Record<string, number> = { api: 3, auth: 5, web: 1 };
    expect(criticalPath(plan, (s) => d[s] ?? 0)).toBe(5);
    d.web = 4;
    expect(criticalPath(plan, (s) => d[s] ?? 0)).toBe(7);
  });
});
