import { describe, expect, it } from 'vitest';
import type { Config } from '../../../core/config/schema.ts';
import { compilePlan } from '../../../core/plan/compile.ts';
import { PIPELINE_ENTRY, planDiff } from '../../../core/plan/diff.ts';
import { configOf, fixtureText } from './configs.ts';

const DESIGN = fixtureText('design.yml');
const base = configOf(DESIGN);
const basePlan = compilePlan(base, 'default');

function planOfText(text: string) {
  return compilePlan(configOf(text), 'default');
}

describe('plan hash stability: same meaning, same hash, no diff', () => {
  const variants: Array<[string, string]> = [
    ['comments removed', DESIGN.replace(/\s+#.*$/gm, '')],
    ['comments added', `# a header\n${DESIGN.replace('pipelines:', '# the pipelines\npipelines:  # trailing')}`],
    ['whitespace: blank lines and wider flow spacing', DESIGN.replace(/\n/g, '\n\n').replace(/\{ /g, '{    ').replace(/, /g, ' ,  ')],
    ['block style, key order, defaults written out', fixtureText('design-rewritten.yml')],
    [
      'an unused agent, an unrelated service and another pipeline',
      `${DESIGN}
  other:
    service: docs
    steps:
      - { id: x, kind: code, agent: spare }
`
        .replace('agents:', 'agents:\n  spare: { run: ./spare.sh }')
        .replace('services:', 'services:\n  extra: { repo: acme/extra, depends-on: [web] }'),
    ],
    ['the unrelated docs service changed', DESIGN.replace('deploy: none  ', 'deploy: { run: ./docs-preview.sh }')],
    ['the primary repository defaulted instead of written', DESIGN.replace('    repo: acme/web   ', '    ')],
  ];

  for (const [name, text] of variants) {
    it(name, () => {
      expect(text).not.toBe(DESIGN);
      const plan = name.startsWith('the primary repository') ? compilePlan(configOf(text), 'default', { primaryRepo: 'acme/web' }) : planOfText(text);
      expect(plan.hash).toBe(basePlan.hash);
      expect(plan).toEqual(basePlan);
      expect(planDiff(basePlan, plan)).toEqual([]);
    });
  }
});

type Mutation = [name: string, mutate: (c: Config) => void, expectedSteps: string[]];

const pipeline = (c: Config) => c.pipelines.default!;
const step = (c: Config, id: string) => pipeline(c).steps.find((s) => s.id === id)! as Record<string, unknown>;
const NON_APPROVAL = ['implement', 'test', 'review', 'preview', 'ship'];

const MUTATIONS: Mutation[] = [
  ['an agent command', (c) => void (c.agents!.coder!.run = 'aider --yes'), ['implement', 'test', 'review']],
  ['an agent model', (c) => void (c.agents!.reviewer!.model = 'openai/gpt-6'), ['review']],
  ['an agent timeout', (c) => void (c.agents!.coder!['timeout-minutes'] = 90), ['implement', 'test', 'review']],
  ['an agent env', (c) => void (c.agents!.reviewer!.env = { STRICT: '1' }), ['review']],
  ['a gate command', (c) => void (step(c, 'test').run = 'npm run test:all'), ['test']],
  ['a step timeout', (c) => void (step(c, 'test')['timeout-minutes'] = 31), ['test']],
  ['needs', (c) => void (step(c, 'approve').needs = ['test', 'review']), ['approve']],
  ['repair attempts', (c) => void (step(c, 'test').repair = { agent: 'coder', 'max-attempts': 3 }), ['test']],
  ['the repair agent', (c) => void (step(c, 'review').repair = { agent: 'reviewer', 'max-attempts': 1 }), ['review']],
  ['a gate limited to some services', (c) => void (step(c, 'test').in = ['web']), ['test']],
  ['the services a deploy step stands up', (c) => void (step(c, 'preview').services = ['web']), ['preview']],
  ['the merge method', (c) => void (step(c, 'ship').method = 'rebase'), ['ship']],
  ['approvers', (c) => void (step(c, 'approve').approvers = ['alice']), ['approve']],
  ['min-approvals', (c) => void (step(c, 'approve')['min-approvals'] = 2), ['approve']],
  ['allow-requester', (c) => void (step(c, 'approve')['allow-requester'] = true), ['approve']],
  ['writes', (c) => void (step(c, 'implement').writes = ['src/']), ['implement']],
  ['a step added', (c) => void pipeline(c).steps.push({ id: 'notify', kind: 'approval' }), ['notify']],
  [
    'a step removed',
    (c) => {
      pipeline(c).steps = pipeline(c).steps.filter((s) => s.id !== 'review');
      step(c, 'approve').needs = ['test', 'preview'];
    },
    ['approve', 'preview', 'review'],
  ],
  ['a step kind', (c) => void (pipeline(c).steps[3] = { id: 'preview', kind: 'approval' }), ['preview']],
  ['a sibling repository', (c) => void (c.services.api!.repo = 'acme/api2'), NON_APPROVAL],
  ['a service path', (c) => void (c.services.api!.path = 'api'), NON_APPROVAL],
  ['a base branch', (c) => void (c.services.web!.base = 'develop'), NON_APPROVAL],
  ['a deploy command', (c) => void (c.services.web!.deploy = { run: './preview2.sh' }), NON_APPROVAL],
  ['a deploy timeout', (c) => void (c.services.api!.deploy = { run: 'make preview', 'timeout-minutes': 20 }), NON_APPROVAL],
  ['depends-on', (c) => void (c.services.web!['depends-on'] = []), NON_APPROVAL],
  ["a service's gate command", (c) => void (c.services.web!.gate = 'make check'), NON_APPROVAL],
  ['involves', (c) => void (pipeline(c).involves = ['api', 'docs']), [...NON_APPROVAL, PIPELINE_ENTRY]],
  ['the own service', (c) => void (pipeline(c).service = 'api'), [...NON_APPROVAL, PIPELINE_ENTRY]],
  ['the label', (c) => void (pipeline(c).label = 'ship-it'), [PIPELINE_ENTRY]],
];

describe('plan hash sensitivity: what changes what runs changes the hash', () => {
  for (const [name, mutate, expected] of MUTATIONS) {
    it(`${name} -> ${expected.join(', ')}`, () => {
      const config = structuredClone(base);
      mutate(config);
      const plan = compilePlan(config, 'default', { primaryRepo: 'acme/web' });
      expect(plan.hash).not.toBe(basePlan.hash);
      const diff = planDiff(basePlan, plan);
      expect(diff.map((d) => d.step).sort()).toEqual([...expected].sort());
    });
  }

  it('the order of two steps of one wave: the pipeline entry, as no step itself changed', () => {
    const parallel = structuredClone(base);
    step(parallel, 'preview').needs = ['test'];
    const swapped = structuredClone(parallel);
    const steps = pipeline(swapped).steps;
    step(swapped, 'ship').needs = ['approve'];
    step(swapped, 'review').needs = ['test'];
    [steps[2], steps[3]] = [steps[3]!, steps[2]!];
    const before = compilePlan(parallel, 'default');
    const after = compilePlan(swapped, 'default');
    expect(before.waves[2]).toEqual(['review', 'preview']);
    expect(after.waves[2]).toEqual(['preview', 'review']);
    expect(after.hash).not.toBe(before.hash);
    expect(planDiff(before, after).map((d) => d.step)).toEqual([PIPELINE_ENTRY]);
  });

  it('reports added and removed steps with one side only', () => {
    const config = structuredClone(base);
    pipeline(config).steps = pipeline(config).steps.filter((s) => s.id !== 'ship');
    pipeline(config).steps.push({ id: 'land', kind: 'merge', method: 'merge' });
    const diff = planDiff(basePlan, compilePlan(config, 'default'));
    expect(diff).toEqual([
      { step: 'land', after: expect.objectContaining({ step: expect.objectContaining({ id: 'land', method: 'merge' }) }) },
      { step: 'ship', before: expect.objectContaining({ step: expect.objectContaining({ id: 'ship' }) }) },
    ]);
  });

  it('shows the step before and after', () => {
    const config = structuredClone(base);
    step(config, 'ship').method = 'merge';
    const [entry] = planDiff(basePlan, compilePlan(config, 'default'));
    expect(entry).toMatchObject({ step: 'ship', before: { step: { method: 'squash' } }, after: { step: { method: 'merge' } } });
  });
});
