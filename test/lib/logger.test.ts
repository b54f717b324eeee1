// The logger port: children merge their fields (a line's own win), fields render once after the
// message for logs people read, and every line about an attempt names it the same way.
import { describe, expect, it } from 'vitest';
import { attemptFields, lineLogger, loggerOf, renderFields, type LogLevel, type LogValue } from '../../lib/logger.ts';

describe('loggerOf', () => {
  it("hands the writer a child's fields merged with the line's, each key once", () => {
    const written: [LogLevel, string, Record<string, LogValue>][] = [];
    const log = loggerOf((level, message, fields) => void written.push([level, message, { ...fields }]));
    const child = log.child({ run: 'r1', step: 'a' }).child({ attempt: 1 });
    child.info('one');
    child.warn('two', { step: 'b', ok: false });
    log.error('three');
    expect(written).toEqual([
      ['info', 'one', { run: 'r1', step: 'a', attempt: 1 }],
      ['warn', 'two', { run: 'r1', step: 'b', attempt: 1, ok: false }],
      ['error', 'three', {}],
    ]);
  });
});

describe('attemptFields', () => {
  it('names an attempt by its run, step, attempt, epoch and mode', () => {
    expect(attemptFields({ runId: 'acme-web-7', step: 'test', attempt: 3, epoch: 1, mode: 'repair' })).toEqual({
      run: 'acme-web-7',
      step: 'test',
      attempt: 3,
      epoch: 1,
      mode: 'repair',
    });
  });
});

describe('renderFields and lineLogger', () => {
  it('render fields once after the message, quoting a value that would not split back', () => {
    expect(renderFields({})).toBe('');
    expect(renderFields({ run: 'acme-web-7', attempt: 2, ok: true, why: 'two words', empty: '' })).toBe(
      ' (run=acme-web-7 attempt=2 ok=true why="two words" empty="")',
    );
    const lines: string[] = [];
    lineLogger((level, line) => void lines.push(`${level} ${line}`))
      .child({ run: 'r' })
      .warn('stopped', { run: 'r2' });
    expect(lines).toEqual(['warn stopped (run=r2)']);
  });
});
