// Which lines of a unified diff a review comment may target: the new side's lines inside hunks
// (added and context), per file as the head names it; never a removed line, a deleted or binary file.
import { describe, expect, it } from 'vitest';
import { diffLines, unquoteGitPath } from '../../../core/steps/diff-lines.ts';

const lines = (diff: string) => Object.fromEntries([...diffLines(diff)].map(([path, set]) => [path, [...set].sort((a, b) => a - b)]));

describe('diffLines', () => {
  it('takes added and context lines of every hunk, numbered on the new side, and no removed line', () => {
    const diff = [
      'diff --git a/lib.js b/lib.js',
      'index 1111111..2222222 100644',
      '--- a/lib.js',
      '+++ b/lib.js',
      '@@ -1,4 +1,5 @@',
      ' export function greet() {',
      "-  return 'hi';",
      "+  return 'hello';",
      '+  // polite',
      ' }',
      ' ',
      '@@ -20,3 +21,2 @@ export const x = 1;',
      ' a',
      '-b',
      ' c',
      '',
    ].join('\n');
    expect(lines(diff)).toEqual({ 'lib.js': [1, 2, 3, 4, 5, 21, 22] });
  });

  it('reads a new file, skips a deleted one and a binary one, and keeps files apart', () => {
    const diff = [
      'diff --git a/new.txt b/new.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1,2 @@',
      '+one',
      '+two',
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100644',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-gone',
      'diff --git a/logo.png b/logo.png',
      'Binary files a/logo.png and b/logo.png differ',
      'diff --git a/src/one.ts b/src/one.ts',
      '--- a/src/one.ts',
      '+++ b/src/one.ts',
      '@@ -3 +3 @@',
      '-a',
      '+b',
      '\\ No newline at end of file',
    ].join('\n');
    expect(lines(diff)).toEqual({ 'new.txt': [1, 2], 'src/one.ts': [3] });
  });

  it('names a renamed file by its new path, and a line of content that looks like a header stays content', () => {
    const diff = [
      'diff --git a/a.md b/docs/a.md',
      'similarity index 90%',
      'rename from a.md',
      'rename to docs/a.md',
      '--- a/a.md',
      '+++ b/docs/a.md',
      '@@ -1,2 +1,3 @@',
      ' title',
      '+++ b/not-a-header',
      '+--- also content',
      ' end',
    ].join('\n');
    expect(lines(diff)).toEqual({ 'docs/a.md': [1, 2, 3, 4] });
  });

  it('unquotes the paths git quotes (special and non-ASCII characters)', () => {
    expect(unquoteGitPath('"b/caf\\303\\251 \\"x\\".txt"')).toBe('b/café "x".txt');
    expect(unquoteGitPath('b/plain.txt')).toBe('b/plain.txt');
    const diff = [
      'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"',
      '--- "a/caf\\303\\251.txt"',
      '+++ "b/caf\\303\\251.txt"',
      '@@ -1 +1 @@',
      '-a',
      '+b',
    ].join('\n');
    expect(lines(diff)).toEqual({ 'café.txt': [1] });
  });

  it('is empty for an empty diff', () => {
    expect(diffLines('').size).toBe(0);
  });
});
