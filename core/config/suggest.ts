// "Did you mean …?" for names a user mistyped: keys, step kinds, agents, services, step ids.

/**
 * Optimal string alignment distance (Damerau–Levenshtein restricted to adjacent transpositions):
 * `need`→`needs` is 1, `gaet`→`gate` is 1.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // Three rolling rows: the transposition needs the row before the previous one.
  let prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[b.length]!;
}

// `depends_on`, `dependsOn` and `DependsOn` all mean `depends-on`.
const loose = (s: string): string => s.toLowerCase().replace(/[-_\s]/g, '');

/**
 * The known name closest to `name`, or undefined when none is close enough to be a likely typo.
 * Ties go to the earlier candidate, so the answer is deterministic.
 */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates].filter((c) => c !== name);
  const wanted = loose(name);
  const same = list.find((c) => loose(c) === wanted);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of list) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // One edit in four characters is a typo; more is a different word (`api` is not `web`).
  // Changing every letter of a short name is not a typo either (`b` is not `a`).
  if (
    best !== undefined &&
    bestDistance <= Math.max(1, Math.floor(Math.max(name.length, best.length) / 4)) &&
    bestDistance < Math.min(name.length, best.length)
  ) {
    return best;
  }
  // A cut-short key such as `timeout` for `timeout-minutes`.
  if (name.length >= 4) return list.find((c) => c.startsWith(name) || (wanted.length >= 4 && loose(c).startsWith(wanted)));
  return undefined;
}

/** `; did you mean "x"?` or the empty string: ready to append to a message. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const s = suggest(name, candidates);
  return s === undefined ? '' : `; did you mean "${s}"?`;
}
