// Dependency graphs: steps by `needs`, services by `depends-on`. Both are small DAGs that must be
// ordered into waves and whose cycles must be named to the user.

/** Dependencies of each node; only edges to nodes inside `nodes` count. */
export type Dependencies = (node: string) => readonly string[];

/**
 * Finds one cycle and returns it closed, e.g. ['web', 'api', 'web']; null when there is none.
 * Deterministic: nodes are visited in the order given.
 */
export function findCycle(nodes: readonly string[], deps: Dependencies): string[] | null {
  const known = new Set(nodes);
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'visiting');
    stack.push(node);
    for (const dep of deps(node)) {
      if (!known.has(dep)) continue;
      const s = state.get(dep);
      if (s === 'visiting') return [...stack.slice(stack.indexOf(dep)), dep];
      if (s === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of nodes) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

/**
 * Topological levels: wave 0 holds the nodes with no dependencies, wave n the nodes whose
 * dependencies all sit in earlier waves. Inside a wave, nodes keep the order given (callers pass
 * plan order or a sorted list, so the result is deterministic). Throws on a cycle.
 */
export function topologicalWaves(nodes: readonly string[], deps: Dependencies): string[][] {
  const known = new Set(nodes);
  const level = new Map<string, number>();
  const visiting = new Set<string>();
  const levelOf = (node: string): number => {
    const cached = level.get(node);
    if (cached !== undefined) return cached;
    if (visiting.has(node)) {
      throw new Error(`cycle: ${(findCycle(nodes, deps) ?? [node, node]).join(' -> ')}`);
    }
    visiting.add(node);
    let l = 0;
    for (const dep of deps(node)) if (known.has(dep)) l = Math.max(l, levelOf(dep) + 1);
    visiting.delete(node);
    level.set(node, l);
    return l;
  };
  const waves: string[][] = [];
  for (const node of nodes) {
    const l = levelOf(node);
    (waves[l] ??= []).push(node);
  }
  return waves.filter((w) => w !== undefined);
}
