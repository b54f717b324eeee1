// The pipeline's `ci`: validated with positions and suggestions like every other key, compiled into
// a step of its own just before the first approval or merge (which then waits for it), and shown by
// `conveyor plan`.
import { describe, expect, it } from 'vitest';
import { formatConfigError, loadConfig } from '../../../core/config/load.ts';
import { compilePlan } from '../../../core/plan/compile.ts';
import { formatPlan } from '../../../core/plan/format.ts';
import { configOf } from './configs.ts';

const file = (ci: string, steps = '      - { id: approve, kind: approval }\n      - { id: ship, kind: merge }\n') => `version: 1
agents:
  coder: { run: echo }
  reviewer: { run: echo }
services:
  web: { repo: acme/web }
pipelines:
  default:
${ci}    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: npm test }
      - { id: review, kind: review, agent: reviewer, needs: [implement] }
${steps}`;

const errors = (text: string): string[] => {
  const loaded = loadConfig(text, 'conveyor.yml');
  return loaded.ok ? [] : loaded.errors.map(formatConfigError);
};

describe('pipelines.<name>.ci', () => {
  it('compiles to a ci step before the first approval, taking what it needed; the approval then needs it', () => {
    const plan = compilePlan(configOf(file('    ci: { repair: { agent: coder, max-attempts: 3 }, wait-minutes: 90 }\n')), 'default');
    expect(plan.steps.map((s) => s.id)).toEqual(['implement', 'test', 'review', 'ci', 'approve', 'ship']);
    expect(plan.steps[3]).toEqual({ id: 'ci', kind: 'ci', needs: ['review'], timeoutMinutes: 90, repair: { agent: 'coder', maxAttempts: 3 } });
    expect(plan.steps[4]?.needs).toEqual(['ci']);
    expect(plan.waves).toEqual([['implement'], ['test', 'review'], ['ci'], ['approve'], ['ship']]);
    expect(formatPlan(plan)).toMatch(
      /ci .*waits for the checks the base branches require \(other apps' check runs and statuses\) on the PRs' heads; a failing one is repaired by coder \(max 3\); waits at most 90m; needs review/,
    );
  });

  it('comes last, after every step nothing needs, without an approval or merge; its defaults: a 60 minute wait, no repair', () => {
    const plan = compilePlan(configOf(file('    ci: {}\n', '')), 'default');
    expect(plan.steps.at(-1)).toEqual({ id: 'ci', kind: 'ci', needs: ['review', 'test'], timeoutMinutes: 60 });
    expect(formatPlan(plan)).toContain('a failing one waits for a person');
  });

  it('leaves a pipeline without it (and its hash) as it was', () => {
    const plan = compilePlan(configOf(file('')), 'default');
    expect(plan.steps.some((s) => s.kind === 'ci')).toBe(false);
  });

  it('reports a misspelt key, an unknown repair agent and a step that takes its id, with positions and suggestions', () => {
    expect(errors(file('    ci: { wait-minute: 5 }\n'))).toEqual([
      expect.stringMatching(/^conveyor\.yml:9:\d+ pipelines\.default\.ci\.wait-minute: unknown key "wait-minute"; did you mean "wait-minutes"\?/),
    ]);
    expect(errors(file('    ci: { repair: { agent: codr } }\n'))).toEqual([
      expect.stringMatching(/^conveyor\.yml:9:\d+ pipelines\.default\.ci\.repair\.agent: unknown agent "codr"; did you mean "coder"\?/),
    ]);
    expect(errors(file('    ci: { wait-minutes: 0 }\n'))).toEqual([
      expect.stringMatching(/pipelines\.default\.ci\.wait-minutes: must be from 1 to 360 minutes/),
    ]);
    expect(errors(file('    ci: {}\n', '      - { id: ci, kind: gate, run: make ci }\n'))).toEqual([
      expect.stringMatching(/^conveyor\.yml:14:\d+ pipelines\.default\.steps\[3\]\.id: step id "ci" is the id of the step the pipeline's `ci` compiles to/),
    ]);
  });
});
