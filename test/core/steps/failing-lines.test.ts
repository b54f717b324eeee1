import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { failingLines, gateFindings, truncateBytes } from '../../../core/steps/failing-lines.ts';

describe('failingLines', () => {
  it('keeps failure lines and the last lines, with gaps marked', () => {
    const out = [
      'PASS a.test.js',
      ...Array.from({ length: 50 }, (_, i) => `ok ${i}`),
      'FAIL b.test.js',
      '  ● adds',
      '    Expected: 2',
      ...Array.from({ length: 50 }, (_, i) => `more ${i}`),
      'Tests: 1 failed, 9 passed',
    ].join('\n');
    const got = failingLines(out, { tailLines: 3 });
    expect(got).toContain('FAIL b.test.js');
    expect(got).toContain('    Expected: 2');
    expect(got).toContain('Tests: 1 failed, 9 passed');
    expect(got).toContain('more 48');
    expect(got).not.toContain('ok 10');
    expect(got).not.toContain('PASS a.test.js');
    expect(got.split('\n')[0]).toBe('…');
  });

  it("keeps node --test's failure with its diagnostic block: the actual value, the expected one, the error", () => {
    const out = readFileSync(new URL('../../fixtures/failing-lines/node-test-tap.txt', import.meta.url), 'utf8');
    const got = failingLines(out);
    expect(Buffer.byteLength(got)).toBeLessThanOrEqual(8192);
    expect(got).toContain('not ok 61 - formats price');
    expect(got).toContain("  actual: '$12.5'");
    expect(got).toContain("  expected: '$12.50'");
    expect(got).toContain("    + '$12.5'");
    expect(got).toContain("  operator: 'strictEqual'");
    expect(got).toContain('# fail 1');
    // Passing tests and their noise are left out.
    expect(got).not.toContain('noise line 3');
    expect(got).not.toContain('ok 5 - passes 4');
  });

  it('keeps the first lines of a block that does not fit, and each of several failures', () => {
    const block = (n: number) => [
      `not ok ${n} - case ${n}`,
      '  ---',
      `  actual: 'value ${n}'`,
      ...Array.from({ length: 30 }, (_, i) => `    frame ${n}.${i}`),
      '  ...',
    ];
    const out = [...block(1), 'ok 2 - fine', ...block(3), '1..3'].join('\n');
    const got = failingLines(out, { maxBytes: 600, tailLines: 1 });
    expect(Buffer.byteLength(got)).toBeLessThanOrEqual(600);
    expect(got).toContain("actual: 'value 1'");
    expect(got).toContain('not ok 1 - case 1');
    expect(got).not.toContain('ok 2 - fine');
    const roomy = failingLines(out, { tailLines: 1 });
    expect(roomy).toContain("actual: 'value 3'");
    expect(roomy).toContain('frame 3.29');
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

  it('says in words that a gate printed nothing, and keeps code spans and blocks whole whatever backticks they hold', () => {
    expect(gateFindings([{ repo: 'acme/web', command: 'test -f feature.txt', exitCode: 1, output: '  \n' }])).toBe(
      '### acme/web: `test -f feature.txt` (exit 1)\nIt printed nothing.\n',
    );
    const text = gateFindings([{ repo: 'acme/web', command: 'echo `date` && false', exitCode: 1, output: 'error: a ``` fence\nFAIL' }]);
    expect(text).toBe('### acme/web: ``echo `date` && false`` (exit 1)\n````text\nerror: a ``` fence\nFAIL\n````\n');
    // A block that its backticks make longer still fits the share.
    const ticks = Array.from({ length: 400 }, () => `error ${'`'.repeat(60)}`).join('\n');
    expect(Buffer.byteLength(gateFindings([{ repo: 'a/b', command: 'x', exitCode: 1, output: ticks }], 2048))).toBeLessThanOrEqual(2048);
    expect(
      gateFindings([{ repo: 'a/b', command: 'x', exitCode: 1, output: ticks }], 2048)
        .trimEnd()
        .endsWith('`'.repeat(61)),
    ).toBe(true);
  });
});
