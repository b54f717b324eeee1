// User commands as real child processes: output, exit codes, timeouts and leftovers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAlive, runCommand } from '../../lib/process.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

let dir: string;
beforeEach(() => {
  dir = tempDir('conveyor-cmd-');
});
afterEach(() => removeDir(dir));

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('runCommand', () => {
  it('streams lines, keeps the output and the exit code, and runs with -eo pipefail', async () => {
    const lines: string[] = [];
    const r = await runCommand({ command: 'echo one; echo two >&2; false | true; echo never', cwd: dir, env, timeoutMs: 60_000, onLine: (l) => lines.push(l) });
    expect(r.exitCode).toBe(1);
    expect(r.timedOut).toBe(false);
    expect(lines.sort()).toEqual(['one', 'two']);
    expect(r.output).not.toContain('never');
  });

  it('scrubs before anything is logged or kept, even across output chunks', async () => {
    const secret = 'supersecretvalue123';
    const lines: string[] = [];
    const r = await runCommand({
      command: `printf 'a supers'; sleep 0.2; printf 'ecretvalue123 b\\n'`,
      cwd: dir,
      env,
      timeoutMs: 60_000,
      scrub: (t) => t.split(secret).join('***'),
      onLine: (l) => lines.push(l),
    });
    expect(r.exitCode).toBe(0);
    expect(lines).toEqual(['a *** b']);
    expect(r.output).not.toContain(secret);
  });

  it('keeps only the tail of a long output', async () => {
    const r = await runCommand({ command: 'seq 1 20000', cwd: dir, env, timeoutMs: 60_000, tailChars: 1000 });
    expect(r.output.length).toBeLessThanOrEqual(1000);
    expect(r.output.trim().endsWith('20000')).toBe(true);
  });

  it('ends what a finished command left running in its group', async () => {
    const pidFile = join(dir, 'pid');
    const r = await runCommand({ command: `sleep 300 & echo $! > ${pidFile}; echo done`, cwd: dir, env, timeoutMs: 60_000 });
    expect(r.exitCode).toBe(0);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    // SIGKILL was sent to the group as the command ended; the kernel finishes it a moment later.
    await waitUntil(() => !processAlive(pid));
    expect(processAlive(pid)).toBe(false);
  });

  it('times out: SIGTERM, then SIGKILL for whoever ignores it', async () => {
    const pidFile = join(dir, 'pid');
    const r = await runCommand({ command: `trap '' TERM; sleep 300 & echo $! > ${pidFile}; echo up; wait`, cwd: dir, env, timeoutMs: 800, killGraceMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).not.toBe(0);
    expect(r.output).toContain('up');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitUntil(() => !processAlive(pid));
    expect(processAlive(pid)).toBe(false);
  });
});

/** Polls for a condition for up to 5 s; the assertion after it says what failed. */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
}
