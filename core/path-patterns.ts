// The path patterns of `writes` and `protect`, one dialect for both. Pure.
//
// A pattern names paths relative to a repository, `/`-separated. `*` stands for any characters
// but `/`, `?` for one, and a whole segment `**` for any number of segments (none included);
// everything else is literal. A pattern matches a path that it spells out whole or that lies under
// one it spells out, so `src` (the prefix rule `writes` always had) is `src/**`, and `.github` is
// `.github/**`. `**/package.json` is a `package.json` anywhere, the root's included.

export function normalizePath(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

const cache = new Map<string, RegExp>();

function segmentSource(segment: string): string {
  let out = '';
  for (const ch of segment) {
    if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else out += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}

function compile(pattern: string): RegExp {
  const known = cache.get(pattern);
  if (known) return known;
  const segments = normalizePath(pattern).split('/').filter(Boolean);
  let source = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') {
      // Any number of whole segments: `a/**/b` is `a/b`, `a/x/b`, ...; a trailing `**` is the prefix rule's "under".
      source += last ? (i === 0 ? '.*' : '(?:/.*)?') : i === 0 ? '(?:[^/]+/)*' : '(?:/[^/]+)*';
      return;
    }
    // A leading `**` brings its own separator; every other segment follows a `/`.
    const sep = i === 0 || (i === 1 && segments[0] === '**') ? '' : '/';
    source += sep + segmentSource(segment);
  });
  // What the pattern spells out, or anything under it.
  const re = new RegExp(`^${source}(?:/.*)?$`, 's');
  if (cache.size > 1000) cache.clear();
  cache.set(pattern, re);
  return re;
}

/** True when `path` is what `pattern` spells out or lies under it. `''` and `.` match every path. */
export function matchesPattern(path: string, pattern: string): boolean {
  const p = normalizePath(pattern);
  if (p === '' || p === '.') return true;
  return compile(p).test(normalizePath(path));
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
