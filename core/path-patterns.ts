// The path patterns of `writes` and `protect`, one dialect for both. Pure.
//
// A pattern names paths relative to a repository, `/`-separated. `*` stands for any characters
// but `/`, `?` for one, and a whole segment `**` for any number of segments (none included);
// everything else is literal. A pattern matches a path that it spells out whole or that lies under
// one it spells out, so `src` (the prefix rule `writes` always had) is `src/**`, and `.github` is
// `.github/**`. `**/package.json` is a `package.json` anywhere, the root's included.
import { LRUCache } from 'lru-cache';
import picomatch from 'picomatch';

export function normalizePath(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

// picomatch with its other syntax off: the dialect is `*`, `?` and `**` only (patternProblem
// refuses brackets, braces and `!`). Parentheses and `|` are groups to picomatch whatever its
// options, so they (and `+`, `@`) are escaped: here each is the character it is. A normalized
// pattern holds no backslash, so the escapes are the only ones.
const DIALECT: picomatch.PicomatchOptions = { dot: true, nobrace: true, nobracket: true, noextglob: true, nonegate: true, literalBrackets: true };

/** Compiled once per pattern: `writes` and `protect` test every changed path against the same few. */
const compiled = new LRUCache<string, (path: string) => boolean>({ max: 1000 });

function compile(pattern: string): (path: string) => boolean {
  const known = compiled.get(pattern);
  if (known) return known;
  // What the pattern spells out, or anything under it.
  const literal = pattern.replace(/[()|+@]/g, '\\$&');
  const matcher = picomatch(literal === '**' ? literal : [literal, `${literal}/**`], DIALECT);
  compiled.set(pattern, matcher);
  return matcher;
}

/** True when `path` is what `pattern` spells out or lies under it. `''` and `.` match every path. */
export function matchesPattern(path: string, pattern: string): boolean {
  const p = normalizePath(pattern);
  if (p === '' || p === '.') return true;
  return compile(p)(normalizePath(path));
}

/** The patterns of `patterns` that match `path`. */
export function matchingPatterns(path: string, patterns: readonly string[]): string[] {
  return patterns.filter((pattern) => matchesPattern(path, pattern));
}

/**
 * What is wrong with a pattern, in words a person can act on; undefined when it is one of the
 * dialect. Brackets, braces and a leading `!` would be glob syntax elsewhere and are literal here,
 * so they are refused rather than quietly matching nothing.
 */
export function patternProblem(pattern: string): string | undefined {
  const p = pattern.trim();
  if (p === '') return 'must not be empty';
  if (p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p)) return 'must be relative to the repository (no leading "/")';
  if (normalizePath(p).split('/').includes('..')) return 'must not contain ".." (patterns name paths inside the repository)';
  if (p.startsWith('!')) return 'must not start with "!": there is no negation; list only what to include';
  if (/[[\]{}]/.test(p)) return 'must use only "*", "?" and "**" as wildcards (no [...] or {...}); list each alternative as its own pattern';
  const bad = normalizePath(p)
    .split('/')
    .find((s) => s.includes('**') && s !== '**');
  if (bad !== undefined) return `"**" must be a whole path segment (such as "docs/**" or "**/*.md"), not part of "${bad}"`;
  return undefined;
}
