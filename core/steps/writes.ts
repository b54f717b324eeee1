// `writes:` of a code step: path prefixes the agent may change. Pure.

function normalize(prefix: string): string {
  return prefix
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

/** True when `path` (relative to the repository) lies under one of `prefixes`; no prefixes: all. */
export function isAllowedWrite(path: string, prefixes: readonly string[]): boolean {
  if (prefixes.length === 0) return true;
  const p = normalize(path);
  return prefixes.some((raw) => {
    const prefix = normalize(raw);
    if (prefix === '' || prefix === '.') return true;
    return p === prefix || p.startsWith(`${prefix}/`);
  });
}

/** The paths that lie outside every prefix, sorted. */
export function writesOutside(paths: readonly string[], prefixes: readonly string[]): string[] {
  return paths.filter((p) => !isAllowedWrite(p, prefixes)).sort();
}
