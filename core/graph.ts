// Dependency graphs: steps by `needs`, services by `depends-on`. Small DAGs as people write them,
// but a generated configuration can chain thousands of nodes: every walk here is iterative, so
// depth costs memory, never the call stack.

/** Dependencies of each node; only edges to nodes inside `nodes` count. */
export type Dependencies = (node: string) => readonly string[];

/**
 * Finds one cycle and returns it closed, e.g. ['web', 'api', 'web']; null when there is none.
 * Deterministic: nodes are visited in the order given, dependencies in the order listed.
 */
export function findCycle(nodes: readonly string[], deps: Dependencies): string[] | null {
  const known = new Set(nodes);
  const state = new Map<string, 'visiting' | 'done'>();
  for (const root of nodes) {
    if (state.has(root)) continue;
    // The path from the root, each node with the index of the next dependency to look at.
    const path: Array<{ node: string; next: number; deps: readonly string[] }> = [{ node: root, next: 0, deps: deps(root) }];
    state.set(root, 'visiting');
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      if (top.next >= top.deps.length) {
        state.set(top.node, 'done');
        path.pop();
        continue;
      }
      const dep = top.deps[top.next++]!;
      if (!known.has(dep)) continue;
      const s = state.get(dep);
      if (s === 'visiting') {
        const from = path.findIndex((p) => p.node === dep);
        return [...path.slice(from).map((p) => p.node), dep];
      }
      if (s === undefined) {
        state.set(dep, 'visiting');
        path.push({ node: dep, next: 0, deps: deps(dep) });
      }
    }
  }
  return null;
}

/** A cycle for a message: `a -> b -> a`, its middle left out when it is long. */
export function describeCycle(cycle: readonly string[], keep = 12): string {
  if (cycle.length <= keep) return cycle.join(' -> ');
  const head = cycle.slice(0, keep - 2);
  return `${head.join(' -> ')} -> … (${cycle.length - keep} more) -> ${cycle.slice(-2).join(' -> ')}`;
}

/**
 * Topological levels: wave 0 holds the nodes with no dependencies, wave n the nodes whose
 * dependencies all sit in earlier waves. Inside a wave, nodes keep the order given (callers pass
 * plan order or a sorted list, so the result is deterministic). Throws on a cycle.
 */
export function topologicalWaves(nodes: readonly string[], deps: Dependencies): string[][] {
  const cycle = findCycle(nodes, deps);
  if (cycle) throw new Error(`cycle: ${describeCycle(cycle)}`);
  const known = new Set(nodes);
  const level = new Map<string, number>();
  for (const root of nodes) {
    if (level.has(root)) continue;
    // Post-order without recursion: a node's level is known once all its dependencies' are.
    const stack = [root];
    while (stack.length > 0) {
      const node = stack[stack.length - 1]!;
      if (level.has(node)) {
        stack.pop();
        continue;
      }
      const missing = deps(node).filter((d) => known.has(d) && !level.has(d));
      if (missing.length > 0) {
        stack.push(...missing);
        continue;
      }
      let l = 0;
      for (const d of deps(node)) if (known.has(d)) l = Math.max(l, level.get(d)! + 1);
      level.set(node, l);
      stack.pop();
    }
  }
  const waves: string[][] = [];
  for (const node of nodes) (waves[level.get(node)!] ??= []).push(node);
  return waves.filter((w) => w !== undefined);
}
