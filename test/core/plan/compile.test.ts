import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePlan, listPipelines, MissingRepoError, reposWithoutBase } from '../../../core/plan/compile.ts';
import { hashPlan, verifyPlanHash } from '../../../core/plan/hash.ts';
import { planSchema } from '../../../core/plan/types.ts';
import { planDiff } from '../../../core/plan/diff.ts';
import { formatPlan } from '../../../core/plan/format.ts';
import { DEFAULT_PROTECT } from '../../../core/config/protect.ts';
import { configOf, fixtureText } from './configs.ts';

describe('compilePlan on the DESIGN.md example', () => {
  const plan = compilePlan(configOf(fixtureText('design.yml')), 'default');

  it('resolves every step with its defaults', () => {
    expect(plan.steps).toEqual([
      { id: 'implement', kind: 'code', agent: 'coder', writes: [], needs: [], timeoutMinutes: 60 },
      {
        id: 'test',
        kind: 'gate',
        run: 'npm test',
        in: ['api', 'web'],
        repair: { agent: 'coder', maxAttempts: 2 },
        needs: ['implement'],
        timeoutMinutes: 30,
      },
      { id: 'review', kind: 'review', agent: 'reviewer', repair: { agent: 'coder', maxAttempts: 1 }, needs: ['test'], timeoutMinutes: 30 },
      { id: 'preview', kind: 'deploy', services: ['api', 'web'], needs: ['review'], timeoutMinutes: 30 },
      {
        id: 'approve',
        kind: 'approval',
        approvers: [],
        minApprovals: 1,
        allowRequester: false,
        needs: ['preview', 'review', 'test'],
        timeoutMinutes: 360,
      },
      { id: 'ship', kind: 'merge', method: 'squash', needs: ['approve'], timeoutMinutes: 10 },
    ]);
  });

  it('orders the steps into waves (the example is a chain)', () => {
    expect(plan.waves).toEqual([['implement'], ['test'], ['review'], ['preview'], ['approve'], ['ship']]);
  });

  it('keeps only the agents used, with defaults', () => {
    expect(plan.agents).toEqual({
      coder: {
        name: 'coder',
        run: 'claude -p --permission-mode acceptEdits < "$CONVEYOR_PROMPT_FILE"',
        model: 'anthropic/claude-sonnet-4-5',
        timeoutMinutes: 45,
        env: {},
      },
      reviewer: {
        name: 'reviewer',
        run: 'codex exec - < "$CONVEYOR_PROMPT_FILE" > "$CONVEYOR_RESULT_FILE"',
        model: 'openai/gpt-5',
        timeoutMinutes: 45,
        env: {},
      },
    });
  });

  it('resolves the services it acts on, and not the others (docs)', () => {
    expect(plan.services).toEqual({
      api: { name: 'api', repo: 'acme/api', path: 'services/api', base: 'main', dependsOn: [], deploy: { run: 'make preview', timeoutMinutes: 15 } },
      web: {
        name: 'web',
        repo: 'acme/web',
        base: 'main',
        dependsOn: ['api'],
        deploy: { run: './scripts/preview.sh', teardown: './scripts/preview-down.sh', timeoutMinutes: 15 },
      },
    });
  });

  it('derives the change set and the deploy waves, providers first', () => {
    expect(plan.changeSet).toEqual([
      { repo: 'acme/web', base: 'main', role: 'primary', services: ['web'] },
      { repo: 'acme/api', base: 'main', role: 'sibling', services: ['api'] },
    ]);
    expect(plan.deployWaves).toEqual([['api'], ['web']]);
    expect(plan).toMatchObject({ pipeline: 'default', label: 'conveyor', service: 'web', involves: ['api'] });
  });

  it('carries the SHA-256 of its canonical JSON and parses with the plan schema', () => {
    expect(plan.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashPlan(plan)).toBe(plan.hash);
    expect(verifyPlanHash(plan)).toBe(true);
    expect(verifyPlanHash({ ...plan, label: 'other' })).toBe(false);
    expect(planSchema.parse(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
  });
});

const MONOREPO = `
version: 1
agents:
  coder: { run: ./agent.sh }
  author: { run: ./author.sh, timeout-minutes: 20, env: { B: "2", A: "1" } }
services:
  web: { depends-on: [api, auth], gate: npm test }
  api: { path: services/api, depends-on: [db], gate: make check, deploy: { run: make up } }
  auth: { repo: acme/auth, base: develop, depends-on: [db], gate: make test }
  db: { repo: acme/db, deploy: { run: ./db-up.sh } }
  billing: { repo: acme/billing, depends-on: [web] }
pipelines:
  default:
    service: web
    involves: [auth, api]
    steps:
      - { id: build, kind: code, agent: coder, writes: [src/, services/api/] }
      - { id: accept, kind: gate, author: author, path: test/accept.test.ts, run: "npx vitest run {path}", in: [web] }
      - { id: lint, kind: gate, needs: [build] }
      - { id: up, kind: deploy, needs: [build] }
      - { id: ok, kind: approval, approvers: [bob, "@acme/leads", alice], min-approvals: 2, allow-requester: true, needs: [lint, up, accept] }
      - { id: land, kind: merge, method: rebase }
  hotfix:
    service: auth
    steps:
      - { id: fix, kind: code, agent: coder }
`;

describe('compilePlan defaults and derived parts', () => {
  const config = configOf(MONOREPO);
  const plan = compilePlan(config, 'default', { primaryRepo: 'acme/app' });

  it('gives services without repo the primary repository, and several services share its entry', () => {
    expect(plan.services.web?.repo).toBe('acme/app');
    expect(plan.services.api?.repo).toBe('acme/app');
    expect(plan.changeSet).toEqual([
      { repo: 'acme/app', base: 'main', role: 'primary', services: ['api', 'web'] },
      { repo: 'acme/auth', base: 'develop', role: 'sibling', services: ['auth'] },
    ]);
  });

  it('throws a MissingRepoError naming the service when the primary repository is unknown', () => {
    expect(() => compilePlan(config, 'default')).toThrow(MissingRepoError);
    expect(() => compilePlan(config, 'default')).toThrow(/service "api" has no `repo`/);
    // A pipeline whose services all name their repository needs no primary repository.
    expect(compilePlan(config, 'hotfix').changeSet).toEqual([{ repo: 'acme/auth', base: 'develop', role: 'primary', services: ['auth'] }]);
  });

  it('runs steps in waves by needs, plan order inside a wave', () => {
    expect(plan.waves).toEqual([['build'], ['accept', 'lint', 'up'], ['ok'], ['land']]);
    expect(plan.steps.find((s) => s.id === 'accept')?.needs).toEqual(['build']);
    expect(plan.steps.find((s) => s.id === 'ok')?.needs).toEqual(['accept', 'lint', 'up']);
  });

  it('writes out step defaults and puts sets in one order', () => {
    expect(plan.steps.find((s) => s.id === 'lint')).toEqual({ id: 'lint', kind: 'gate', in: ['api', 'auth', 'web'], needs: ['build'], timeoutMinutes: 30 });
    expect(plan.steps.find((s) => s.id === 'accept')).toMatchObject({ author: 'author', path: 'test/accept.test.ts', in: ['web'] });
    expect(plan.steps.find((s) => s.id === 'ok')).toMatchObject({ approvers: ['@acme/leads', 'alice', 'bob'], minApprovals: 2, allowRequester: true });
    expect(plan.steps.find((s) => s.id === 'build')).toMatchObject({ writes: ['services/api/', 'src/'] });
    expect(plan.steps.find((s) => s.id === 'land')).toMatchObject({ method: 'rebase', needs: ['ok'] });
  });

  it('deploys by default the services of the change set that have something to stand up', () => {
    expect(plan.steps.find((s) => s.id === 'up')).toMatchObject({ services: ['api'] });
    expect(plan.services.web?.deploy).toBeNull();
    expect(plan.services.api?.deploy).toEqual({ run: 'make up', timeoutMinutes: 15 });
  });

  it('orders deploy waves by depends-on inside the change set only, alphabetical inside a wave', () => {
    expect(Object.keys(plan.services)).toEqual(['api', 'auth', 'web']);
    // db is outside the change set, so the edges to it do not count; billing is not involved.
    expect(plan.deployWaves).toEqual([['api', 'auth'], ['web']]);
  });

  it('keeps only the agents used, env sorted', () => {
    expect(Object.keys(plan.agents)).toEqual(['author', 'coder']);
    expect(plan.agents.author).toEqual({ name: 'author', run: './author.sh', timeoutMinutes: 20, env: { A: '1', B: '2' } });
    expect(Object.keys(plan.agents.author!.env)).toEqual(['A', 'B']);
  });

  it('labels a pipeline other than default conveyor:<name>', () => {
    expect(compilePlan(config, 'hotfix').label).toBe('conveyor:hotfix');
    expect(listPipelines(config)).toEqual(['default', 'hotfix']);
  });

  it('refuses a pipeline that does not exist, naming the known ones', () => {
    expect(() => compilePlan(config, 'nope')).toThrow(/no pipeline "nope"; known: default, hotfix/);
  });

  it('takes the only service when a pipeline names none', () => {
    const single = configOf(`
version: 1
agents: { a: { run: ./a } }
services: { solo: { repo: me/solo } }
pipelines: { default: { steps: [ { id: go, kind: code, agent: a } ] } }
`);
    const p = compilePlan(single, 'default');
    expect(p.service).toBe('solo');
    expect(p.changeSet).toEqual([{ repo: 'me/solo', base: 'main', role: 'primary', services: ['solo'] }]);
    expect(p.deployWaves).toEqual([['solo']]);
  });
});

describe('every valid configuration fixture compiles', () => {
  const validDir = new URL('../../fixtures/configs/valid/', import.meta.url);
  const files = readdirSync(validDir).filter((f) => f.endsWith('.yml'));

  it('finds the shared fixtures, DESIGN.md example among them', () => {
    expect(files).toContain('design.yml');
    const shared = compilePlan(configOf(readFileSync(new URL('design.yml', validDir), 'utf8')), 'default');
    expect(shared.hash).toBe(compilePlan(configOf(fixtureText('design.yml')), 'default').hash);
  });

  for (const file of files) {
    it(file, () => {
      const config = configOf(readFileSync(new URL(file, validDir), 'utf8'), file);
      for (const name of listPipelines(config)) {
        const plan = planSchema.parse(compilePlan(config, name, { primaryRepo: 'acme/primary' }));
        expect(plan.waves.flat().sort()).toEqual(plan.steps.map((s) => s.id).sort());
        expect(plan.changeSet[0]).toMatchObject({ role: 'primary' });
        expect(plan.changeSet.flatMap((r) => r.services).sort()).toEqual([plan.service, ...plan.involves].sort());
        expect(plan.deployWaves.flat().sort()).toEqual([plan.service, ...plan.involves].sort());
      }
    });
  }
});

describe('compilePlan: the sandbox', () => {
  const text = (extra: { agent?: string; service?: string; pipeline?: string }) => `
version: 1
agents:
  coder: { run: ./agent.sh${extra.agent ?? ''} }
services:
  web: { gate: npm test${extra.service ?? ''} }
pipelines:
  default:${extra.pipeline ?? ''}
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate }
`;

  it('writes nothing of it for the defaults, so plans from before it keep their hash', () => {
    const plan = compilePlan(configOf(text({})), 'default', { primaryRepo: 'acme/web' });
    expect(plan.agents.coder).not.toHaveProperty('network');
    expect(plan.services.web).not.toHaveProperty('network');
    expect(plan).not.toHaveProperty('sandbox');
    const explicit = compilePlan(configOf(text({ pipeline: '\n    sandbox: best-effort', agent: ', network: { allow: [] }' })), 'default', {
      primaryRepo: 'acme/web',
    });
    expect(explicit.hash).toBe(plan.hash);
  });

  it('carries allowed hosts (lower case, sorted, once), an empty service list (no network), and `sandbox: required`', () => {
    const plan = compilePlan(
      configOf(
        text({
          agent: ', network: { allow: [Api.Anthropic.com, "*.example.com", api.anthropic.com] }',
          service: ', network: { allow: [] }',
          pipeline: '\n    sandbox: required',
        }),
      ),
      'default',
      { primaryRepo: 'acme/web' },
    );
    expect(plan.agents.coder?.network).toEqual({ allow: ['*.example.com', 'api.anthropic.com'] });
    expect(plan.services.web?.network).toEqual({ allow: [] });
    expect(plan.sandbox).toBe('required');
    expect(planSchema.parse(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
  });
});

describe('compilePlan: commits', () => {
  const text = (pipeline: string) => `
version: 1
agents: { coder: { run: ./agent.sh } }
services: { web: { gate: npm test } }
pipelines:
  default:${pipeline}
    steps:
      - { id: implement, kind: code, agent: coder }
`;
  const compiled = (pipeline: string) => compilePlan(configOf(text(pipeline)), 'default', { primaryRepo: 'acme/web' });

  it('writes nothing for verified, the default, so plans from before the key keep their hash', () => {
    const plan = compiled('');
    expect(plan).not.toHaveProperty('commits');
    expect(compiled('\n    commits: verified').hash).toBe(plan.hash);
  });

  it('carries `commits: git` into the plan and its hash (it changes how every step commits), and says so in the plan', () => {
    const plan = compiled('\n    commits: git');
    expect(plan.commits).toBe('git');
    expect(plan.hash).not.toBe(compiled('').hash);
    expect(planSchema.parse(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
    expect(formatPlan(plan)).toContain('Commits  git: pushed as plain git commits');
    expect(formatPlan(compiled(''))).toContain('Commits  verified: made by GitHub through its API, which signs them (git in the embedded mode)');
  });
});

describe('compilePlan: runs-on', () => {
  const text = (pipeline: string, steps: Record<string, string> = {}) => `
version: 1
agents: { coder: { run: ./agent.sh } }
services: { web: { gate: npm test } }
pipelines:
  default:${pipeline}
    steps:
      - { id: implement, kind: code, agent: coder${steps.implement ?? ''} }
      - { id: test, kind: gate${steps.test ?? ''} }
      - { id: approve, kind: approval }
      - { id: ship, kind: merge${steps.ship ?? ''} }
`;
  const compile = (t: string) => compilePlan(configOf(t), 'default', { primaryRepo: 'acme/web' });
  const runsOn = (plan: ReturnType<typeof compile>) => Object.fromEntries(plan.steps.map((s) => [s.id, s.runsOn]));

  it("gives every step but an approval the pipeline's runner, and a step's own overrides it", () => {
    const plan = compile(text('\n    runs-on: [self-hosted, linux]', { test: ', runs-on: [self-hosted, gpu]' }));
    expect(runsOn(plan)).toEqual({ implement: ['linux', 'self-hosted'], test: ['gpu', 'self-hosted'], approve: undefined, ship: ['linux', 'self-hosted'] });
    expect(plan.steps.find((s) => s.id === 'approve')).not.toHaveProperty('runsOn');
    expect(planSchema.parse(plan)).toEqual(plan);
  });

  it('writes the labels as a set: any order and repeats mean the same runner, and a list of one is that label', () => {
    const a = compile(text('\n    runs-on: [self-hosted, gpu]'));
    const b = compile(text('\n    runs-on: [gpu, self-hosted, gpu]'));
    expect(b.hash).toBe(a.hash);
    expect(runsOn(compile(text('\n    runs-on: [gpu]')))).toEqual(runsOn(compile(text('\n    runs-on: gpu'))));
  });

  it('writes nothing for the default (ubuntu-latest), so plans from before the key keep their hash', () => {
    const none = compile(text(''));
    expect(runsOn(none)).toEqual({ implement: undefined, test: undefined, approve: undefined, ship: undefined });
    expect(compile(text('\n    runs-on: ubuntu-latest', { implement: ', runs-on: [ubuntu-latest]' })).hash).toBe(none.hash);
  });

  it('is part of the plan hash: a step moved to another runner shows as changed', () => {
    const before = compile(text(''));
    const after = compile(text('', { test: ', runs-on: [self-hosted, arm64]' }));
    expect(after.hash).not.toBe(before.hash);
    expect(planDiff(before, after).map((d) => d.step)).toEqual(['test']);
  });

  it('is shown by the plan: the runner of each step that has one, the default spelled out', () => {
    const out = formatPlan(compile(text('\n    runs-on: [self-hosted, gpu]', { test: ', runs-on: ubuntu-latest' })));
    expect(out).toMatch(/implement +code +agent coder; timeout 1h; runs on \[gpu, self-hosted\]\n/);
    expect(out).toMatch(/test +gate +runs each service's gate command; in web; needs implement; timeout 30m; runs on ubuntu-latest\n/);
    expect(out).toMatch(/approve +approval +1 approval from anyone with write access; needs test\n/);
    expect(out).toMatch(/ship +merge +squash merge, providers first; needs approve; conflict repairs run on \[gpu, self-hosted\]\n/);
    expect(formatPlan(compile(text('')))).toMatch(/ship +merge +[^\n]*needs approve\n/);
  });
});

describe('compilePlan: the base of a service without `base`', () => {
  const config = configOf(`
version: 1
agents: { coder: { run: ./agent.sh } }
services:
  web: {}
  api: { repo: acme/api }
  docs: { repo: acme/docs, base: release }
  deployer: { repo: acme/infra, deploy: { run: ./up.sh } }
  unused: { repo: acme/unused }
pipelines:
  default:
    service: web
    involves: [api, docs]
    steps:
      - { id: implement, kind: code, agent: coder }
`);

  it("is the repository's default branch where given, else main; a written base wins", () => {
    const plan = compilePlan(config, 'default', { primaryRepo: 'acme/web', defaultBranches: { 'acme/web': 'develop', 'acme/docs': 'trunk' } });
    expect(plan.changeSet.map((r) => [r.repo, r.base])).toEqual([
      ['acme/web', 'develop'],
      ['acme/api', 'main'],
      ['acme/docs', 'release'],
    ]);
  });

  it("names the repositories whose default branch the plan needs: its services' without `base`, once each", () => {
    expect(reposWithoutBase(config, 'default', 'acme/web')).toEqual(['acme/web', 'acme/api']);
    expect(reposWithoutBase(config, 'nope', 'acme/web')).toEqual([]);
  });
});

describe('compilePlan: `protect`', () => {
  const text = (pipeline: string) => `
version: 1
agents: { coder: { run: ./agent.sh } }
services: { web: {} }
pipelines:
  default:${pipeline}
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: ship, kind: merge }
`;
  const compile = (yaml: string) => compilePlan(configOf(yaml), 'default', { primaryRepo: 'acme/web' });

  it('writes nothing for the default, spelled out or not, so plans from before the key keep their hash', () => {
    const none = compile(text(''));
    expect(none).not.toHaveProperty('protect');
    const spelled = compile(text(`\n    protect: [${DEFAULT_PROTECT.map((p) => JSON.stringify(p)).join(', ')}]`));
    expect(spelled).not.toHaveProperty('protect');
    expect(spelled.hash).toBe(none.hash);
  });

  it('keeps a list of its own (and `[]`, nothing protected) in the plan and its hash, and the plan shows what it means', () => {
    const own = compile(text('\n    protect: [infra/**, " Dockerfile", infra/**]'));
    expect(own.protect).toEqual(['infra/**', 'Dockerfile']);
    const off = compile(text('\n    protect: []'));
    expect(off.protect).toEqual([]);
    expect(new Set([own.hash, off.hash, compile(text('')).hash]).size).toBe(3);
    expect(formatPlan(own)).toContain(
      'Protected paths  as written\n  no approval step: a change to one stops before the merge (protected-paths)\n  infra/**  Dockerfile\n',
    );
    expect(formatPlan(off)).toContain('Protected paths  none (`protect: []`): a change merges without a person seeing it\n');
  });
});

describe('formatPlan: the environments each step sees', () => {
  const config = configOf(`
version: 1
agents: { coder: { run: ./agent.sh }, reviewer: { run: ./review.sh } }
services:
  web: { repo: acme/web, depends-on: [api], deploy: { run: ./up.sh } }
  api: { repo: acme/api, deploy: { run: ./up.sh } }
  docs: { repo: acme/docs, deploy: none }
pipelines:
  default:
    service: web
    involves: [api, docs]
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: unit, kind: gate, run: npm test }
      - { id: preview, kind: deploy }
      - { id: e2e, kind: gate, run: node e2e.mjs, in: [web], repair: { agent: coder } }
      - { id: review, kind: review, agent: reviewer, needs: [unit] }
      - { id: approve, kind: approval, needs: [e2e, review] }
      - { id: ship, kind: merge }
`);

  it('lists the steps after a deploy with the services whose environments they get; the steps before it and approvals get none', () => {
    const out = formatPlan(compilePlan(config, 'default'));
    const section = /Environments[^\n]*\n((?: {2}[^\n]*\n)+)/.exec(out)?.[1];
    expect(section).toBe(
      [
        "  e2e        api, web (from preview); CONVEYOR_ENV_URL is web's",
        "  ship       api, web (from preview); CONVEYOR_ENV_URL is web's (its conflict repairs)",
        '  a repair or push that changes a repository they were deployed from deploys again first (its consumers too)',
        '',
      ].join('\n'),
    );
  });

  it('says so when no step runs after a deploy', () => {
    const last = configOf(`
version: 1
agents: { coder: { run: ./agent.sh } }
services:
  web: { repo: acme/web, deploy: { run: ./up.sh } }
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: preview, kind: deploy }
      - { id: approve, kind: approval }
`);
    expect(formatPlan(compilePlan(last, 'default'))).toMatch(/Environments[^\n]*\n {2}none: no step with commands runs after a deploy\n\n/);
  });
});
