// The one path-pattern dialect of `writes` and `protect`.
import { describe, expect, it } from 'vitest';
import { matchesPattern, patternProblem } from '../../core/path-patterns.ts';
import { isAllowedWrite } from '../../core/steps/writes.ts';
import { DEFAULT_PROTECT } from '../../core/config/protect.ts';

describe('path patterns', () => {
  it.each([
    ['.github/workflows/ci.yml', '.github/**', true],
    ['.github', '.github/**', true],
    ['web/.github/workflows/ci.yml', '.github/**', false],
    ['package.json', '**/package.json', true],
    ['services/api/package.json', '**/package.json', true],
    ['package.json.orig', '**/package.json', false],
    ['requirements-dev.txt', '**/requirements*.txt', true],
    ['a/c', 'a/**/c', true],
    ['a/x/y/c', 'a/**/c', true],
    ['a/bc', 'a/**/c', false],
    ['README.md', '*.md', true],
    ['docs/README.md', '*.md', false],
    ['src/deep/x.ts', 'src', true],
    ['srcx/a.ts', 'src', false],
    ['anything/at/all', '**', true],
    ['v1.txt', 'v?.txt', true],
    ['v10.txt', 'v?.txt', false],
    ['a+b(c).txt', 'a+b(c).txt', true],
    // Characters other globs read as groups or alternatives are themselves.
    ['a+bc.txt', 'a+b(c).txt', false],
    ['a|b', 'a|b', true],
    ['a', 'a|b', false],
    ['yy', '*(y)', false],
    ['.env.local', '.env*', true],
    ['sub/.env', '**/.env', true],
  ])('%s against %s: %s', (path, pattern, want) => {
    expect(matchesPattern(path, pattern)).toBe(want);
  });

  it('keeps what `writes` prefixes always meant: a folder or file and everything under it; none or "." allows all', () => {
    expect(isAllowedWrite('src/a.ts', ['./src/'])).toBe(true);
    expect(isAllowedWrite('srcfoo/a.ts', ['src'])).toBe(false);
    expect(isAllowedWrite('x', [])).toBe(true);
    expect(isAllowedWrite('x/y', ['.'])).toBe(true);
    // ...and now globs too.
    expect(isAllowedWrite('docs/a.md', ['**/*.md'])).toBe(true);
    expect(isAllowedWrite('docs/a.ts', ['**/*.md'])).toBe(false);
  });

  it('refuses what would be glob syntax elsewhere and means something else here', () => {
    expect(patternProblem('.github/**')).toBeUndefined();
    expect(patternProblem('')).toBe('must not be empty');
    expect(patternProblem('/etc')).toContain('relative');
    expect(patternProblem('a/../b')).toContain('..');
    expect(patternProblem('!src')).toContain('no negation');
    expect(patternProblem('*.{js,ts}')).toContain('no [...] or {...}');
    expect(patternProblem('src**')).toContain('whole path segment');
  });

  it('the default protects CI, CODEOWNERS in its three places, agent instructions and manifests, and is itself valid', () => {
    for (const p of DEFAULT_PROTECT) expect(patternProblem(p), p).toBeUndefined();
    const covered = (path: string) => DEFAULT_PROTECT.some((p) => matchesPattern(path, p));
    for (const path of [
      '.github/workflows/ci.yml',
      'CODEOWNERS',
      '.github/CODEOWNERS',
      'docs/CODEOWNERS',
      'AGENTS.md',
      'pkg/CLAUDE.md',
      'GEMINI.md',
      '.mcp.json',
      '.claude/settings.json',
      '.cursor/rules/x.mdc',
      'package-lock.json',
      'services/api/go.sum',
      'requirements.txt',
      'Cargo.lock',
      'Gemfile.lock',
      'pyproject.toml',
    ])
      expect(covered(path), path).toBe(true);
    for (const path of ['src/index.ts', 'README.md', 'docs/guide.md', 'value.txt']) expect(covered(path), path).toBe(false);
  });
});
