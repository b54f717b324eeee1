// The command line's logger: what its engine says goes to standard error in warn's form, the
// fields after the message.
import { spawn } from 'node:child_process';
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

describe('standard output', () => {
  it('whose reader stops reading (`conveyor pr RUN | head`) takes the rest quietly: the command ends as it would, with no stack trace', async () => {
    const terminal = new URL('../../lib/terminal.ts', import.meta.url).href;
    const script = `const { say } = await import(${JSON.stringify(terminal)}); for (let i = 0; i < 20000; i++) say('line ' + i); console.error('said all');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // Like `head -1`: read the first chunk, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).toContain('said all');
    expect(code).toBe(0);
  });
});
