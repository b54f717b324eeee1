// The command line's logger: what its engine says goes to standard error in warn's form, the
// fields after the message.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { terminalLogger } from '../../lib/terminal.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('terminalLogger', () => {
  it('writes `conveyor: message (fields)` on standard error, nothing on standard output', () => {
    const err: string[] = [];
    const out: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string) => void err.push(String(chunk))) as never);
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => void out.push(String(chunk))) as never);
    const log = terminalLogger().child({ run: 'web-7' });
    log.error('could not merge', { effect: 'merge', step: 'ship' });
    log.info('renewed');
    vi.restoreAllMocks();
    expect(err).toEqual(['conveyor: could not merge (run=web-7 effect=merge step=ship)\n', 'conveyor: renewed (run=web-7)\n']);
    expect(out).toEqual([]);
  });
});
