// Graph walks over `needs` and `depends-on`: iterative, so a generated configuration chaining
// thousands of services is checked and planned, and its cycles named, without exhausting the stack.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config/load.ts';
import { describeCycle, findCycle, topologicalWaves } from '../../core/graph.ts';
import { compilePlan } from '../../core/plan/compile.ts';

/** A configuration of `n` services, each consuming the next (and the last the first, when `cycle`). */
function chain(n: number, cycle = false): string {
  const lines = ['version: 1', 'agents:', '  coder: { run: "true" }', 'services:'];
  for (let i = 0; i < n; i++) {
    const provider = i + 1 < n ? `s${i + 1}` : cycle ? 's0' : undefined;
    lines.push(`  s${i}: { repo: acme/s${i}${provider ? `, depends-on: [${provider}]` : ''}, deploy: { run: "true" } }`);
  }
  lines.push('pipelines:', '  default:', '    service: s0', `    involves: [${Array.from({ length: n - 1 }, (_, i) => `s${i + 1}`).join(', ')}]`);
  lines.push('    steps:', '      - { id: implement, kind: code, agent: coder }', '      - { id: preview, kind: deploy }');
  return lines.join('\n');
}

describe('graph walks', () => {
  it('order a depends-on chain of 8,000 services into 8,000 deploy waves, providers first', () => {
    const loaded = loadConfig(chain(8_000), 'chain.yml');
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const plan = compilePlan(loaded.config, 'default', { primaryRepo: 'acme/s0' });
    expect(plan.deployWaves).toHaveLength(8_000);
    expect(plan.deployWaves[0]).toEqual(['s7999']);
    expect(plan.deployWaves.at(-1)).toEqual(['s0']);
  });

  it('name a cycle through 8,000 services with its ends, at its place in the file', () => {
    const loaded = loadConfig(chain(8_000, true), 'chain.yml');
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0]!.message).toBe(
      'depends-on forms a cycle: s0 -> s1 -> s2 -> s3 -> s4 -> s5 -> s6 -> s7 -> s8 -> s9 -> … (7989 more) -> s7999 -> s0; a provider cannot consume its consumer',
    );
  });

  it('find cycles and levels on small graphs as before', () => {
    const g: Record<string, string[]> = { a: ['b'], b: ['c'], c: [], d: ['a', 'c'] };
    expect(findCycle(Object.keys(g), (n) => g[n]!)).toBeNull();
    expect(topologicalWaves(Object.keys(g), (n) => g[n]!)).toEqual([['c'], ['b'], ['a'], ['d']]);
    const cyclic: Record<string, string[]> = { a: ['b'], b: ['c'], c: ['b'] };
    expect(findCycle(Object.keys(cyclic), (n) => cyclic[n]!)).toEqual(['b', 'c', 'b']);
    expect(() => topologicalWaves(Object.keys(cyclic), (n) => cyclic[n]!)).toThrow('cycle: b -> c -> b');
    expect(describeCycle(['a', 'b', 'a'])).toBe('a -> b -> a');
  });
});
