import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../core/shell.ts';

/** What bash makes of `printf %s <quoted>`: the one argument it received. */
const throughBash = (quoted: string) => execFileSync('bash', ['-c', `printf %s ${quoted}`], { encoding: 'utf8' });

describe('shellQuote', () => {
  it('gives bash exactly one argument, unexpanded, whatever the text holds', () => {
    for (const text of ["it's", '$(touch x) `id` $HOME', 'a b\tc\nd', '"; rm -rf / #', "''", '', 'test/accept.test.js']) {
      expect(throughBash(shellQuote(text))).toBe(text);
    }
  });

  it('round-trips any text without NUL', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }).filter((s) => !s.includes('\0')),
        (text) => {
          expect(throughBash(shellQuote(text))).toBe(text);
        },
      ),
      { numRuns: 50 },
    );
  });
});
