// The deploy step through the action's entry, on real repositories, with deploy scripts that
// record what they received and when: ordering over the service graph, peer URLs, outcomes.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { envIdFor } from '../../core/steps/deploy-plan.ts';
import { createFixture, deployCommand, type Fixture } from './deploy-fixture.ts';
import { processesWith } from '../helpers/processes.ts';

let f: Fixture;
beforeEach(() => {
  f = createFixture();
});
afterEach(() => f.cleanup());

const envs = (r: { environments: { service: string; state: string }[] }) => Object.fromEntries(r.environments.map((e) => [e.service, e.state]));

describe('deploy step: order over the service graph', () => {
  it('deploys a chain providers first, each consumer with the URL of its provider', async () => {
    const payload = f.payload(
      { web: { dependsOn: ['api'], run: deployCommand(0.2) }, api: { dependsOn: ['db'], run: deployCommand(0.2) }, db: { run: deployCommand(0.2) } },
      { own: 'web' },
    );
    const result = await f.deploy(payload);
    expect(result.conclusion, result.summary).toBe('success');
    expect(envs(result)).toEqual({ db: 'ready', api: 'ready', web: 'ready' });
    const t = f.times();
    expect(t.get('api')!.start).toBeGreaterThanOrEqual(t.get('db')!.end!);
    expect(t.get('web')!.start).toBeGreaterThanOrEqual(t.get('api')!.end!);
    const web = f.envOf('web');
    const apiUrl = `http://api.preview.test/${envIdFor('web-7', 'api')}`;
    // Only direct providers are peers.
    expect(web.CONVEYOR_PEER_URLS).toBe(`api=${apiUrl}`);
    expect(web.CONVEYOR_PEER_API_URL).toBe(apiUrl);
    expect(web.CONVEYOR_PEER_DB_URL).toBeUndefined();
    expect(f.envOf('db').CONVEYOR_PEER_URLS).toBe('');
    expect(web.CONVEYOR_ENV_ID).toBe('web-7-web');
    expect(web.CONVEYOR_DEPLOY_KEY).toBe('web-7/web/1.0');
    expect(web.CONVEYOR_STEP).toBe('preview');
    expect(web.CONVEYOR_OUTPUT).toMatch(/\/deploy-web-[^/]+\/output$/);
    expect(web.CONVEYOR_PROGRESS_PATH).toBeUndefined();
    expect(web.CONVEYOR_PAYLOAD_PATH).toBeUndefined();
    expect(web.pwd).toMatch(/acme__mono\/apps\/web$/);
    expect(result.environments.find((e) => e.service === 'web')?.url).toBe(`http://web.preview.test/${web.CONVEYOR_ENV_ID}`);
    for (const s of ['web', 'api', 'db']) expect(result.summary).toContain(`http://${s}.preview.test/`);
  });

  it('deploys a diamond: both sides in parallel, the top after both', async () => {
    const payload = f.payload(
      {
        top: { dependsOn: ['left', 'right'], run: deployCommand(0.1) },
        left: { dependsOn: ['base'], run: deployCommand(0.6) },
        right: { dependsOn: ['base'], run: deployCommand(0.6) },
        base: { run: deployCommand(0.1) },
      },
      { own: 'top' },
    );
    const result = await f.deploy(payload);
    expect(result.conclusion, result.summary).toBe('success');
    const t = f.times();
    const [l, r, b, top] = ['left', 'right', 'base', 'top'].map((s) => t.get(s)!);
    expect(l!.start).toBeGreaterThanOrEqual(b!.end!);
    expect(r!.start).toBeGreaterThanOrEqual(b!.end!);
    expect(l!.start).toBeLessThan(r!.end!);
    expect(r!.start).toBeLessThan(l!.end!);
    expect(top!.start).toBeGreaterThanOrEqual(Math.max(l!.end!, r!.end!));
    expect(
      f
        .envOf('top')
        .CONVEYOR_PEER_URLS!.split(',')
        .map((p) => p.split('=')[0]),
    ).toEqual(['left', 'right']);
  });

  it('runs independent services at the same time, and starts each consumer when its own providers settle', async () => {
    const payload = f.payload(
      {
        fast: { run: deployCommand(0.1) },
        slow: { run: deployCommand(1.2) },
        'fast-user': { dependsOn: ['fast'], run: deployCommand(0.1) },
        'slow-user': { dependsOn: ['slow'], run: deployCommand(0.1) },
      },
      { own: 'fast-user' },
    );
    const result = await f.deploy(payload);
    expect(result.conclusion, result.summary).toBe('success');
    const t = f.times();
    // fast and slow overlap; fast-user does not wait for slow (same wave as slow-user).
    expect(t.get('fast')!.start).toBeLessThan(t.get('slow')!.end!);
    expect(t.get('slow')!.start).toBeLessThan(t.get('fast')!.end!);
    expect(t.get('fast-user')!.start).toBeLessThan(t.get('slow')!.end!);
    expect(t.get('slow-user')!.start).toBeGreaterThanOrEqual(t.get('slow')!.end!);
  });

  it('records an infraless service as skipped and deploys the rest', async () => {
    const payload = f.payload({ web: { dependsOn: ['docs'], run: deployCommand(0) }, docs: {} }, { own: 'web' });
    const result = await f.deploy(payload);
    expect(result.conclusion, result.summary).toBe('success');
    expect(envs(result)).toEqual({ web: 'ready', docs: 'skipped' });
    expect(f.times().has('docs')).toBe(false);
    expect(result.summary).toContain('`deploy: none`');
  });

  it('deploys the work branch of a repository the run changed and the base of one it did not', async () => {
    const payload = f.payload(
      { web: { repo: 'acme/web', dependsOn: ['api'], run: deployCommand(0) }, api: { repo: 'acme/api', run: deployCommand(0) } },
      { own: 'web', prs: ['acme/web'] },
    );
    f.remotes.commit('acme/web', 'conveyor/web-7', { 'marker.txt': 'work' });
    const result = await f.deploy(payload);
    expect(result.conclusion, result.summary).toBe('success');
    expect(f.envOf('web').marker).toBe('work');
    expect(f.envOf('api').marker).toBe('base');
    expect(result.environments.find((e) => e.service === 'web')?.commit).toBe(f.remotes.head('acme/web', 'conveyor/web-7'));
  });
});

describe('deploy step: outcomes', () => {
  it('goes on when a peer fails: its consumer starts without its URL and the summary says so', async () => {
    const payload = f.payload(
      { web: { dependsOn: ['api', 'auth'], run: deployCommand(0) }, api: { run: deployCommand(0, 'fail') }, auth: { run: deployCommand(0) } },
      { own: 'web' },
    );
    const result = await f.deploy(payload);
    expect(result.conclusion, result.summary).toBe('success');
    expect(envs(result)).toEqual({ api: 'failed', auth: 'ready', web: 'ready' });
    const api = result.environments.find((e) => e.service === 'api')!;
    expect(api.error).toBe('exited with 3');
    expect(api.outputTail).toContain('boom from api');
    const web = f.envOf('web');
    expect(web.CONVEYOR_PEER_URLS).toBe(`auth=http://auth.preview.test/${envIdFor('web-7', 'auth')}`);
    expect(web.CONVEYOR_PEER_API_URL).toBeUndefined();
    expect(result.summary).toContain('started without the URL of api');
    expect(result.summary).toContain('1 peer failed (api)');
  });

  it('fails the step when the own service fails: nothing starts after it, running deploys finish and are recorded', async () => {
    const payload = f.payload(
      { web: { run: deployCommand(0.1, 'fail') }, slow: { run: deployCommand(0.8) }, late: { dependsOn: ['slow'], run: deployCommand(0) } },
      { own: 'web' },
    );
    const result = await f.deploy(payload);
    expect(result.conclusion).toBe('failure');
    expect(result.error?.code).toBe('deploy-failed');
    expect(result.error?.message).toContain('own service web');
    expect(envs(result)).toEqual({ slow: 'ready', web: 'failed' });
    const t = f.times();
    expect(t.has('late')).toBe(false);
    expect(t.get('slow')!.end).toBeGreaterThan(t.get('web')!.end!);
    expect(result.summary).toMatch(/late \| \| \*\*not started\*\*/);
  });

  it('fails a peer that exits 0 without reporting a URL', async () => {
    const payload = f.payload({ web: { dependsOn: ['api'], run: deployCommand(0) }, api: { run: deployCommand(0, 'nourl') } }, { own: 'web' });
    const result = await f.deploy(payload);
    expect(result.conclusion).toBe('success');
    const api = result.environments.find((e) => e.service === 'api')!;
    expect(api.state).toBe('failed');
    expect(api.error).toMatch(/^no url reported/);
    expect(api.outputTail).toContain('says nowhere');
  });

  it('fails a service that reports anything but an http(s) URL: a javascript: link with Markdown and a mention never becomes a ready environment', async () => {
    const evil = 'javascript:alert(document.cookie)//[click](https://x) @octocat';
    const payload = f.payload(
      { web: { dependsOn: ['api'], run: deployCommand(0) }, api: { run: `echo ${JSON.stringify(`url=${evil}`)} > "$CONVEYOR_OUTPUT"` } },
      { own: 'web' },
    );
    const result = await f.deploy(payload);
    const api = result.environments.find((e) => e.service === 'api')!;
    expect(api.state).toBe('failed');
    expect(api.url).toBeUndefined();
    expect(api.error).toMatch(/^reported url "javascript:alert.*" is not an http\(s\) URL/);
    // Its consumer starts without it.
    expect(f.envOf('web').CONVEYOR_PEER_URLS ?? '').not.toContain('javascript:');
  });

  it('tells colliding provider slugs apart with -2', async () => {
    const payload = f.payload(
      { web: { dependsOn: ['api_v1', 'api-v1'], run: deployCommand(0) }, 'api-v1': { run: deployCommand(0) }, api_v1: { run: deployCommand(0) } },
      { own: 'web' },
    );
    const result = await f.deploy(payload);
    expect(result.conclusion, result.summary).toBe('success');
    const web = f.envOf('web');
    const [a, b] = ['api-v1', 'api_v1'].map((s) => `http://${s}.preview.test/${envIdFor('web-7', s)}`);
    expect(web.CONVEYOR_PEER_URLS).toBe(`api-v1=${a},api-v1-2=${b}`);
    expect(web.CONVEYOR_PEER_API_V1_URL).toBe(a);
    expect(web.CONVEYOR_PEER_API_V1_2_URL).toBe(b);
    // Their environments are told apart too (the slug lost the difference; a hash keeps it).
    const ids = result.environments.filter((e) => e.service.startsWith('api')).map((e) => e.envId);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
  });

  it('kills a deploy at its timeout, with every process it started', async () => {
    // Found by a variable they inherit: inside the sandbox, `$!` is a pid of its own PID namespace.
    const mark = randomUUID();
    const payload = f.payload(
      { web: { run: `export DEPLOY_MARK=${mark}; sleep 300 & setsid sleep 300 </dev/null >/dev/null 2>&1 & wait`, timeoutMinutes: 1 } },
      { own: 'web' },
    );
    const result = await f.deploy(payload, {}, { minuteMs: 400 });
    expect(result.conclusion).toBe('failure');
    expect(result.environments[0]).toMatchObject({ service: 'web', state: 'failed', error: 'timed out after 1 min' });
    expect(processesWith('DEPLOY_MARK', mark)).toEqual([]);
  });

  it('keeps secrets out of the deploy environment and out of what it reports', async () => {
    const payload = f.payload({ web: { run: deployCommand(0, 'secret') } }, { own: 'web' });
    const result = await f.deploy(payload, { GITHUB_TOKEN: 'ghs_supersecret123', SUPER_SECRET_TOKEN: 'hunter2-hunter2' });
    expect(result.conclusion, result.summary).toBe('success');
    expect(f.envOf('web').token).toBe('[]');
    expect(JSON.stringify(result)).not.toContain('hunter2-hunter2');
  });
});

describe('deploy step: resume', () => {
  it('deploys only what had not settled when the same attempt is dispatched again', async () => {
    const specs = { web: { dependsOn: ['api'], run: deployCommand(0) }, api: { run: deployCommand(0) }, auth: { run: deployCommand(0, 'fail') } };
    const settled = [
      { service: 'api', envId: envIdFor('web-7', 'api'), state: 'ready' as const, url: 'http://api.kept.test' },
      { service: 'auth', envId: envIdFor('web-7', 'auth'), state: 'failed' as const, error: 'exited with 3' },
    ];
    const result = await f.deploy(f.payload(specs, { own: 'web', epoch: 1, environments: settled }));
    expect(result.conclusion, result.summary).toBe('success');
    const t = f.times();
    expect([...t.keys()]).toEqual(['web']);
    expect(f.envOf('web').CONVEYOR_PEER_API_URL).toBe('http://api.kept.test');
    expect(envs(result)).toEqual({ api: 'ready', auth: 'failed', web: 'ready' });
    expect(result.summary).toContain('kept from an earlier dispatch');
    // Each settled outcome was appended to the progress file as it settled.
    const progress = readFileSync(`${f.scratch}/progress-1.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { environment: { service: string } });
    expect(progress.map((p) => p.environment.service)).toEqual(['web']);
  });

  it('on a fresh attempt (a retry) redeploys failures and environments whose source moved, keeps the rest', async () => {
    const specs = { web: { repo: 'acme/web', dependsOn: ['api'], run: deployCommand(0) }, api: { repo: 'acme/api', run: deployCommand(0) } };
    const first = await f.deploy(f.payload(specs, { own: 'web' }));
    expect(first.conclusion).toBe('success');
    f.remotes.commit('acme/web', 'main', { 'marker.txt': 'moved' });
    const second = await f.deploy({ ...f.payload(specs, { own: 'web', environments: first.environments }), attempt: 2 });
    expect(second.conclusion).toBe('success');
    expect(f.times().get('api')!.starts).toBe(1);
    expect(f.times().get('web')!.starts).toBe(2);
  });
});

describe('teardown mode', () => {
  const teardown = '"$REC/teardown.sh"';
  const lines = () => readFileSync(`${f.rec}/teardown.log`, 'utf8').trim().split('\n');

  it('removes consumers before providers, runs again harmlessly, and needs no command where none is declared', async () => {
    const specs = { web: { dependsOn: ['api'], run: deployCommand(0), teardown }, api: { run: deployCommand(0), teardown }, cdn: { run: deployCommand(0) } };
    const up = await f.deploy(f.payload(specs, { own: 'web' }));
    expect(up.conclusion, up.summary).toBe('success');
    for (let i = 0; i < 2; i++) {
      const down = await f.deploy(f.payload(specs, { own: 'web', mode: 'teardown', environments: up.environments }));
      expect(down.conclusion, down.summary).toBe('success');
      expect(down.mode).toBe('teardown');
      expect(down.environments.map((e) => e.service).sort()).toEqual(['api', 'cdn', 'web']);
      expect(down.summary).toContain('no `teardown` command');
    }
    expect(lines().map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['web web-7-web', 'api web-7-api', 'web web-7-web', 'api web-7-api']);
    // A teardown command gets the identity, its environment and URL, in the service's folder, and
    // nothing of the step process's own or of the runner's secrets.
    const web = f.envOf('web', 'teardown');
    expect(web).toMatchObject({
      CONVEYOR_ENV_ID: 'web-7-web',
      CONVEYOR_ENV_URL: 'http://web.preview.test/web-7-web',
      CONVEYOR_REPO: 'acme/mono',
      CONVEYOR_SERVICE: 'web',
      CONVEYOR_STEP: 'preview',
      CONVEYOR_RUN_ID: 'web-7',
      token: '[]',
    });
    expect(web.pwd).toMatch(/acme__mono\/apps\/web$/);
    expect(web.CONVEYOR_PROGRESS_PATH).toBeUndefined();
    expect(web.CONVEYOR_PAYLOAD_PATH).toBeUndefined();
    expect(web.CONVEYOR_DEPLOY_KEY).toBeUndefined();
  });

  it('removes its own checkout when done (a temporary one: no CONVEYOR_WORKSPACE_ROOT)', async () => {
    const specs = { web: { run: deployCommand(0), teardown } };
    const up = await f.deploy(f.payload(specs, { own: 'web' }));
    const down = await f.deploy(f.payload(specs, { own: 'web', mode: 'teardown', environments: up.environments }), { CONVEYOR_WORKSPACE_ROOT: '' });
    expect(down.conclusion, down.summary).toBe('success');
    const ran = f.envOf('web', 'teardown').pwd!;
    // A temporary workspace among Conveyor's own folders, gone with its git folders.
    expect(ran).toMatch(/\/conveyor-\d+\/ws-\w+\//);
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(`${dirname(ran)}.git`)).toBe(false);
  });

  it('retries a failing teardown 3 times, then reports it as a failure naming the environment', async () => {
    const specs = { web: { run: deployCommand(0), teardown } };
    const env = { service: 'web', envId: 'web-7-web', state: 'ready' as const, url: 'http://web' };
    const down = await f.deploy(f.payload(specs, { own: 'web', mode: 'teardown', environments: [env] }), {
      TEARDOWN_FAILS: '9',
      GITHUB_TOKEN: 'ghs_teardown_secret',
    });
    expect(down.conclusion).toBe('failure');
    expect(down.error?.code).toBe('teardown-failed');
    expect(down.error?.message).toContain('web (web-7-web: exited with 1)');
    expect(down.environments).toEqual([]);
    expect(lines()).toHaveLength(4);
    expect(down.summary).toContain('still busy');
    expect(f.envOf('web', 'teardown').token).toBe('[]');
  });

  it('refuses an environment of a service the payload does not describe', async () => {
    const specs = { web: { run: deployCommand(0), teardown } };
    const down = await f.deploy(
      f.payload(specs, { own: 'web', mode: 'teardown', environments: [{ service: 'ghost', envId: 'web-7-ghost', state: 'ready', url: 'http://g' }] }),
    );
    expect(down.conclusion).toBe('failure');
    expect(down.error?.code).toBe('bad-payload');
    expect(down.error?.message).toContain('service "ghost"');
  });
});

describe('deploy step: bad input', () => {
  it('fails a service whose path is not in its repository, naming the path', async () => {
    const payload = f.payload({ web: { run: deployCommand(0) } }, { own: 'web' });
    payload.services.web!.path = 'apps/nowhere';
    const result = await f.deploy(payload);
    expect(result.conclusion).toBe('failure');
    expect(result.environments[0]?.error).toBe('path "apps/nowhere" does not exist in acme/mono (branch main)');
  });

  it('names a step service the payload does not describe', async () => {
    const payload = f.payload({ web: { run: deployCommand(0) } }, { own: 'web', stepServices: ['web', 'wbe'] });
    const result = await f.deploy(payload);
    expect(result.conclusion).toBe('failure');
    expect(result.error).toMatchObject({ code: 'bad-payload', message: expect.stringContaining('step.services: service "wbe"') });
  });
});
