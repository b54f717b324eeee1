// The app's logger over pino: fields become pino's fields, each key once per JSON line, a child's
// fields on every line it writes.
import { describe, expect, it } from 'vitest';
import { pinoLogger } from '../../app/logger.ts';
import { attemptFields } from '../../lib/logger.ts';
import { capturePino, duplicateKeys } from '../helpers/pino-capture.ts';

const REF = { runId: 'acme-web-7', step: 'test', attempt: 2, epoch: 1, mode: 'repair' } as const;

describe('pinoLogger', () => {
  it("writes a child's fields and the line's own as pino fields, a key both give once (the line's value)", () => {
    const out = capturePino();
    const log = pinoLogger(out.logger).child({ ...attemptFields(REF), repo: 'acme/web' });
    log.warn('gate failed', { repo: 'acme/api', exitCode: 1 });
    log.child({ step: 'review' }).error('review failed', { step: 'review2' });
    expect(out.lines.map(duplicateKeys)).toEqual([[], []]);
    expect(out.records()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'gate failed',
        run: 'acme-web-7',
        step: 'test',
        attempt: 2,
        epoch: 1,
        mode: 'repair',
        repo: 'acme/api',
        exitCode: 1,
      }),
      expect.objectContaining({ level: 50, msg: 'review failed', run: 'acme-web-7', step: 'review2', repo: 'acme/web' }),
    ]);
  });

  it("renames a field pino writes itself (its own keys, the bindings of Probot's logger) instead of writing the key twice", () => {
    const out = capturePino();
    // As Probot's app.log: a child of the root named `probot`; a delivery's log binds `id` too.
    const probot = out.logger.child({ name: 'probot', id: 'delivery-1' });
    pinoLogger(probot).info('started', { name: 'web', id: 'x', time: 'now', msg: 'm', run: 'acme-web-7' });
    expect(duplicateKeys(out.lines[0]!)).toEqual([]);
    expect(out.records()[0]).toEqual(
      expect.objectContaining({
        msg: 'started',
        name: 'probot',
        id: 'delivery-1',
        'conveyor.name': 'web',
        'conveyor.id': 'x',
        'conveyor.time': 'now',
        'conveyor.msg': 'm',
        run: 'acme-web-7',
      }),
    );
  });

  it('leaves out a field given as undefined', () => {
    const out = capturePino();
    pinoLogger(out.logger).info('x', { run: 'r', step: undefined });
    expect(Object.keys(out.records()[0]!)).not.toContain('step');
  });
});

describe('duplicateKeys', () => {
  it('finds a key twice in one object, nested ones included, and not a key of two objects or text in a string', () => {
    expect(duplicateKeys('{"a":1,"a":2}')).toEqual(['a']);
    expect(duplicateKeys('{"a":{"b":1,"b":[1,{"c":2}]},"d":"{\\"a\\":1}"}')).toEqual(['b']);
    expect(duplicateKeys('{"a":{"x":1},"b":{"x":1},"s":"\\"a\\":"}')).toEqual([]);
  });
});
