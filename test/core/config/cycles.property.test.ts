// Property: whatever `needs` graph a pipeline has, a cycle is reported exactly when there is one,
// and the steps a reported cycle names really wait for each other in that order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config/load.ts';
import type { ConfigError } from '../../../core/config/load.ts';

type Step = { id: string; needs?: string[] };

// The steps' effective dependencies, computed here independently of the code under test: written
// `needs`, or else the step before.
const depsOf = (steps: Step[]): Map<string, string[]> => new Map(steps.map((s, i) => [s.id, s.needs ?? (i > 0 ? [steps[i - 1]!.id] : [])]));

// Kahn's algorithm: a graph has a cycle when some node never runs out of dependencies.
function hasCycle(deps: Map<string, string[]>): boolean {
  const waiting = new Map([...deps].map(([id, d]) => [id, new Set(d)]));
  let progress = true;
  while (progress) {
    progress = false;
    for (const [id, d] of waiting) {
      if (d.size === 0) {
        waiting.delete(id);
        for (const other of waiting.values()) other.delete(id);
        progress = true;
      }
    }
  }
  return waiting.size > 0;
}

const load = (steps: Step[]): ConfigError[] => {
  const config = { version: 1, services: { web: {} }, pipelines: { default: { steps: steps.map((s) => ({ ...s, kind: 'merge' })) } } };
  // JSON is YAML: the generated file goes through the same parser as a hand-written one.
  const r = loadConfig(JSON.stringify(config, null, 2), 'conveyor.yml');
  return r.ok ? [] : r.errors;
};

const CYCLE = /^needs forms a cycle: (.+?)(?: \(.*\))?$/;

function checkReportedCycles(steps: Step[], errors: ConfigError[]): number {
  const deps = depsOf(steps);
  let count = 0;
  for (const e of errors) {
    const m = CYCLE.exec(e.message);
    expect(m, `only cycles are wrong here, got: ${e.path}: ${e.message}`).not.toBeNull();
    const named = m![1]!.split(' -> ');
    expect(named.length).toBeGreaterThanOrEqual(2);
    expect(named[0]).toBe(named[named.length - 1]);
    for (let i = 0; i + 1 < named.length; i++) expect(deps.get(named[i]!)).toContain(named[i + 1]);
    // The error points at the `needs` entry where the cycle can be broken.
    const index = steps.findIndex((s) => s.id === named[0]);
    const entry = steps[index]!.needs?.indexOf(named[1]!);
    expect(e.path).toBe(`pipelines.default.steps[${index}].needs[${entry}]`);
    count++;
  }
  return count;
}

const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `s${i}`);

const graph = fc
  .integer({ min: 1, max: 8 })
  .chain((n) =>
    fc.tuple(...ids(n).map((id) => fc.option(fc.subarray(ids(n)), { nil: undefined }).map((needs): Step => (needs === undefined ? { id } : { id, needs })))),
  );

describe('cycles in needs', () => {
  it('are reported exactly when the graph has one, naming a real cycle', () => {
    fc.assert(
      fc.property(graph, (steps) => {
        const reported = checkReportedCycles(steps, load(steps));
        expect(reported > 0).toBe(hasCycle(depsOf(steps)));
      }),
      { numRuns: 300 },
    );
  });

  it('are always reported when one is planted', () => {
    const planted = graph.chain((steps) =>
      fc.tuple(
        fc.constant(steps),
        fc.shuffledSubarray(
          steps.map((s) => s.id),
          { minLength: 1 },
        ),
      ),
    );
    fc.assert(
      fc.property(planted, ([base, ring]) => {
        const steps = base.map((s) => ({ ...s, needs: s.needs && [...s.needs] }));
        ring.forEach((id, i) => {
          const step = steps.find((s) => s.id === id)!;
          const next = ring[(i + 1) % ring.length]!;
          step.needs = [...new Set([...(step.needs ?? []), next])];
        });
        expect(checkReportedCycles(steps, load(steps))).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
