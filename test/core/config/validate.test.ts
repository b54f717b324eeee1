import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { defaultLabel, DEFAULT_STEP_TIMEOUT_MINUTES, labelOf, needsOf } from '../../../core/config/defaults.ts';
import { relativePathProblem } from '../../../core/config/names.ts';
import { cycles, validateConfig } from '../../../core/config/validate.ts';

const design = (): Record<string, unknown> =>
  parse(readFileSync(join(import.meta.dirname, '../../fixtures/configs/valid/design.yml'), 'utf8')) as Record<string, unknown>;

describe('validateConfig', () => {
  it('finds nothing wrong with the DESIGN.md example', () => {
    expect(validateConfig(design())).toEqual([]);
  });

  it('returns problems by key path, before positions are known', () => {
    const config = design() as { pipelines: { default: { steps: Record<string, unknown>[] } } };
    config.pipelines.default.steps[4]!.needs = ['test', 'reviw', 'preview'];
    expect(validateConfig(config)).toEqual([
      { path: ['pipelines', 'default', 'steps', 4, 'needs', 1], message: 'unknown step "reviw"; did you mean "review"?' },
    ]);
  });

  it('reads a file that failed the schema without throwing, reporting what it can', () => {
    expect(validateConfig(null)).toEqual([]);
    expect(validateConfig({ pipelines: [], services: 'x' })).toEqual([]);
    const problems = validateConfig({
      services: { web: { 'depends-on': 'api' }, api: null },
      pipelines: { default: { service: 7, steps: [null, 5, { id: 'a', kind: 'code', agent: 'x', needs: [3, 'b'] }] } },
    });
    // `service: 7` is the schema's to report; what can be read is still checked.
    expect(problems.map((p) => p.message)).toEqual(['unknown step "b"; known: a', 'unknown agent "x": no agent is defined']);
  });

  it('does not judge the change set when the own service is unknown', () => {
    const problems = validateConfig({
      services: { web: { gate: 'make' }, api: {} },
      pipelines: { default: { service: 'wbe', steps: [{ id: 't', kind: 'gate', in: ['web'] }] } },
    });
    expect(problems).toEqual([{ path: ['pipelines', 'default', 'service'], message: 'unknown service "wbe"; did you mean "web"?' }]);
  });

  it('reports two separate cycles as two errors', () => {
    const steps = [
      { id: 'a', kind: 'merge', needs: ['b'] },
      { id: 'b', kind: 'merge', needs: ['a'] },
      { id: 'c', kind: 'merge', needs: ['c'] },
    ];
    const problems = validateConfig({ services: { web: {} }, pipelines: { default: { steps } } });
    expect(problems.map((p) => p.message)).toEqual(['needs forms a cycle: a -> b -> a', 'needs forms a cycle: c -> c']);
  });
});

describe('cycles', () => {
  it('finds each independent cycle once', () => {
    const edges: Record<string, string[]> = { a: ['b'], b: ['a'], c: ['d'], d: ['c'], e: [] };
    expect(cycles(Object.keys(edges), (n) => edges[n] ?? [])).toEqual([
      ['a', 'b', 'a'],
      ['c', 'd', 'c'],
    ]);
    expect(cycles(['e'], () => [])).toEqual([]);
  });
});

describe('relativePathProblem', () => {
  it.each(['src', 'src/', './docs', 'a/../b', 'apps/web/../api', 'a/./b'])('accepts %j', (p) => {
    expect(relativePathProblem(p)).toBeUndefined();
  });
  it.each([
    ['/etc', 'must be relative to the repository root, got "/etc"; remove the leading "/"'],
    ['~/x', 'must be relative to the repository root, got "~/x"; remove the leading "~"'],
    ['C:\\x', 'must be relative to the repository root, got "C:\\x"; remove the leading "C"'],
    ['..', 'must stay inside the repository, but ".." climbs out of it with ".."'],
    ['a/../../b', 'must stay inside the repository, but "a/../../b" climbs out of it with ".."'],
    ['a\\..\\..', 'must stay inside the repository, but "a\\..\\.." climbs out of it with ".."'],
  ])('refuses %j', (p, message) => {
    expect(relativePathProblem(p)).toBe(message);
  });
});

describe('defaults', () => {
  it('labels the default pipeline `conveyor` and others `conveyor:<name>`', () => {
    expect(defaultLabel('default')).toBe('conveyor');
    expect(defaultLabel('hotfix')).toBe('conveyor:hotfix');
    expect(labelOf('hotfix', 'urgent')).toBe('urgent');
  });

  it('makes a step without needs wait for the step before it', () => {
    const steps = [{ id: 'a' }, { id: 'b' }, { id: 'c', needs: [] }, { id: 'd', needs: ['a'] }];
    expect(steps.map((_, i) => needsOf(steps, i))).toEqual([[], ['a'], [], ['a']]);
  });

  it('has a timeout for every step kind', () => {
    expect(DEFAULT_STEP_TIMEOUT_MINUTES).toEqual({ code: 60, gate: 30, review: 30, deploy: 30, approval: 360, merge: 10 });
  });
});
