import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../core/config/schema.ts';
import { compilePlan } from '../../../core/plan/compile.ts';

/** A random DAG of steps: a hidden topological order, edges only from later to earlier nodes,
 * then written in another random order (needs may point forward in the file). */
const dagArb = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    topo: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
    written: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
    edges: fc.array(fc.array(fc.boolean(), { minLength: n, maxLength: n }), { minLength: n, maxLength: n }),
    defaulted: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  }),
);

describe('waves respect needs for random DAGs', () => {
  it('every need lies in an earlier wave, each step in the lowest such wave, plan order inside a wave', () => {
    fc.assert(
      fc.property(dagArb, ({ n, topo, written, edges, defaulted }) => {
        const rank = new Map(topo.map((node, i) => [node, i]));
        const id = (k: number) => `s${k}`;
        const steps = written.map((k, i) => {
          const needs = [...Array(n).keys()].filter((j) => rank.get(j)! < rank.get(k)! && edges[k]![j]).map(id);
          // Leaving `needs` out means "the step before", which is only a DAG edge if it points back in topo order.
          const before = i > 0 ? written[i - 1]! : undefined;
          const mayDefault = defaulted[i] && (before === undefined || rank.get(before)! < rank.get(k)!);
          return mayDefault ? { id: id(k), kind: 'approval' as const } : { id: id(k), kind: 'approval' as const, needs };
        });
        const config = configSchema.parse({ version: 1, services: { app: { repo: 'o/app' } }, pipelines: { default: { steps } } });
        const plan = compilePlan(config, 'default');

        const waveOf = new Map<string, number>();
        plan.waves.forEach((wave, w) => wave.forEach((s) => waveOf.set(s, w)));
        expect([...waveOf.keys()].sort()).toEqual(steps.map((s) => s.id).sort());
        expect(plan.waves.flat()).toHaveLength(n);
        const order = new Map(plan.steps.map((s, i) => [s.id, i]));
        for (const s of plan.steps) {
          const w = waveOf.get(s.id)!;
          for (const need of s.needs) expect(waveOf.get(need)!).toBeLessThan(w);
          // Topological levels: a step in wave w > 0 waits for something in wave w - 1.
          if (w > 0) expect(s.needs.some((need) => waveOf.get(need) === w - 1)).toBe(true);
          else expect(s.needs).toEqual([]);
        }
        for (const wave of plan.waves) {
          const positions = wave.map((s) => order.get(s)!);
          expect(positions).toEqual([...positions].sort((a, b) => a - b));
        }
      }),
      { numRuns: 300 },
    );
  });
});
