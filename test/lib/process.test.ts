// User commands as real child processes: output, exit codes, timeouts and leftovers.
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAlive, runCommand } from '../../lib/process.ts';
import { latestChange } from '../../lib/activity.ts';
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

describe('the stall guard', () => {
  it('stops a command silent for its stall period, unless its activity reports a newer change', async () => {
    const silent = await runCommand({
      command: 'echo once; sleep 300',
      cwd: dir,
      env,
      timeoutMs: 60_000,
      killGraceMs: 100,
      stall: { ms: 300, activity: async () => 0 },
    });
    expect(silent).toMatchObject({ stalled: true, timedOut: false });
    expect(silent.output).toContain('once');
    // Its activity says it changed something just now, every time it is asked: it finishes.
    const busy = await runCommand({
      command: 'sleep 1; echo finished',
      cwd: dir,
      env,
      timeoutMs: 60_000,
      stall: { ms: 300, activity: async () => Date.now() },
    });
    expect(busy).toMatchObject({ stalled: false, exitCode: 0 });
  });
});

describe('a stop from the caller', () => {
  it('ends the command group as a timeout would, and says it was stopped, not timed out', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const started = Date.now();
    const r = await runCommand({ command: 'echo started; sleep 300', cwd: dir, env, timeoutMs: 60_000, killGraceMs: 100, stop: stop.signal, drainMs: 50 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ aborted: true, timedOut: false, stalled: false, exitCode: null });
    expect(r.output).toContain('started');
    const done = await runCommand({ command: 'true', cwd: dir, env, timeoutMs: 60_000, stop: new AbortController().signal });
    expect(done).not.toHaveProperty('aborted');
  });
});

describe('latestChange', () => {
  it('sees a file changed deep in a folder, and not in node_modules or git objects', async () => {
    mkdirSync(join(dir, 'a/b/node_modules/x'), { recursive: true });
    mkdirSync(join(dir, 'repo/.git/objects/aa'), { recursive: true });
    writeFileSync(join(dir, 'a/b/file.txt'), '1');
    const old = new Date(Date.now() - 3_600_000);
    for (const p of [
      'a/b/file.txt',
      'a/b/node_modules/x',
      'a/b/node_modules',
      'a/b',
      'a',
      'repo/.git/objects/aa',
      'repo/.git/objects',
      'repo/.git',
      'repo',
      '.',
    ])
      utimesSync(join(dir, p), old, old);
    const before = await latestChange(dir);
    expect(before).toBeLessThan(Date.now() - 3_000_000 + 1);
    // A change inside what is skipped is not seen (a new file there changes only that folder's time, put back here).
    writeFileSync(join(dir, 'a/b/node_modules/x/y.js'), '1');
    utimesSync(join(dir, 'a/b/node_modules/x'), old, old);
    expect(await latestChange(dir)).toBeLessThan(Date.now() - 60_000);
    writeFileSync(join(dir, 'a/b/file.txt'), '2');
    expect(await latestChange(dir)).toBeGreaterThan(Date.now() - 60_000);
  });
});

/** Polls for a condition for up to 5 s; the assertion after it says what failed. */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
}
