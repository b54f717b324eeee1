import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failingLines, gateFindings, truncateBytes } from '../../core/failing-lines.ts';

describe('failingLines', () => {
  it('keeps failure lines and the last lines, with gaps marked', () => {
    const out = ['PASS a.test.js', ...Array.from({ length: 50 }, (_, i) => `ok ${i}`), 'FAIL b.test.js', '  ● adds', '    Expected: 2', ...Array.from({ length: 50 }, (_, i) => `more ${i}`), 'Tests: 1 failed, 9 passed'].join('\n');
    const got = failingLines(out, { tailLines: 3 });
    expect(got).toContain('FAIL b.test.js');
    expect(got).toContain('    Expected: 2');
    expect(got).toContain('Tests: 1 failed, 9 passed');
    expect(got).toContain('more 48');
    expect(got).not.toContain('ok 10');
    expect(got).not.toContain('PASS a.test.js');
    expect(got.split('\n')[0]).toBe('…');
  });

  it('strips colours and carriage returns', () => {
    expect(failingLines('\u001b[31mError: boom\u001b[0m\r\n', { tailLines: 0 })).toBe('Error: boom');
  });

  it('never exceeds the byte budget, whatever the output', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constant('error: x'), fc.constant('FAILED ✗ ünïcödé'))), fc.integer({ min: 0, max: 600 }), (lines, max) => {
        expect(Buffer.byteLength(failingLines(lines.join('\n'), { maxBytes: max }))).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('truncates without splitting a character', () => {
    expect(truncateBytes('ééé', 3)).toBe('é');
  });
});

describe('gateFindings', () => {
  it('names each failing repository, skips passing ones, and stays within 8 KB', () => {
    const noisy = Array.from({ length: 5000 }, (_, i) => `error ${i}: something is wrong here`).join('\n');
    const text = gateFindings([
      { repo: 'acme/web', command: 'npm test', exitCode: 1, output: noisy },
      { repo: 'acme/api', command: 'npm test', exitCode: 0, output: 'all fine' },
      { repo: 'acme/docs', command: 'make check', exitCode: null, timedOut: true, output: 'hanging' },
    ]);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192);
    expect(text).toContain('### acme/web: `npm test` (exit 1)');
    expect(text).toContain('### acme/docs: `make check` (timed out)');
    expect(text).toContain('error 4999');
    expect(text).not.toContain('acme/api');
    expect(gateFindings([{ repo: 'a/b', command: 'x', exitCode: 0, output: '' }])).toBe('');
  });
});
