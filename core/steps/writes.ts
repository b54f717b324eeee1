// `writes:` of a code step: path patterns (core/path-patterns.ts) the agent may change. Pure.
import { matchesPattern } from '../path-patterns.ts';

/** True when `path` (relative to the repository) is one `patterns` name, or lies under one; no patterns: all. */
export function isAllowedWrite(path: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((pattern) => matchesPattern(path, pattern));
}

/** The paths that lie outside every pattern, sorted. */
export function writesOutside(paths: readonly string[], patterns: readonly string[]): string[] {
  return paths.filter((p) => !isAllowedWrite(p, patterns)).sort();
}
