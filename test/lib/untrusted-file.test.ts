// What Conveyor reads of a file a command wrote (lib/untrusted-file.ts): a regular file of its own
// inside its folder, under its cap, or nothing at all, with a reason that names it.
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readUntrusted, UntrustedFileRefused } from '../../lib/untrusted-file.ts';

let dir: string;
let within: string;
let outside: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'untrusted-'));
  within = join(dir, 'exchange');
  outside = join(dir, 'runner');
  mkdirSync(within);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret'), 'runner-secret');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (name: string, maxBytes = 100) => readUntrusted(join(within, name), { within, maxBytes, what: "the agent's $CONVEYOR_USAGE_FILE" });

async function refusal(name: string, maxBytes = 100): Promise<string> {
  const e = await read(name, maxBytes).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UntrustedFileRefused);
  const message = (e as Error).message;
  expect(message).toContain(`the agent's $CONVEYOR_USAGE_FILE (${join(within, name)})`);
  expect(message).not.toContain('runner-secret');
  return message;
}

describe('a file a command wrote', () => {
  it('is read when it is a regular file of its own inside its folder, within the cap; one that is not there is none', async () => {
    writeFileSync(join(within, 'usage.json'), '{"inputTokens": 5}');
    expect(await read('usage.json')).toBe('{"inputTokens": 5}');
    writeFileSync(join(within, 'exact'), 'x'.repeat(100));
    expect(await read('exact')).toBe('x'.repeat(100));
    expect(await read('missing.json')).toBeUndefined();
  });

  it('is refused, and nothing of it read, when it is a link to a file elsewhere', async () => {
    symlinkSync(join(outside, 'secret'), join(within, 'usage.json'));
    expect(await refusal('usage.json')).toContain('is a symbolic link');
  });

  it('is refused when it is a second name of another file (a hard link)', async () => {
    linkSync(join(outside, 'secret'), join(within, 'usage.json'));
    expect(await refusal('usage.json')).toContain('a hard link');
  });

  it('is refused at once when it is a FIFO with no writer (it does not hang), or a folder', async () => {
    execFileSync('mkfifo', [join(within, 'usage.json')]);
    expect(await refusal('usage.json')).toContain('is not a regular file');
    mkdirSync(join(within, 'folder'));
    expect(await refusal('folder')).toContain('is not a regular file');
  });

  it('is refused when its path passes through a linked folder to one outside', async () => {
    symlinkSync(outside, join(within, 'linked'));
    expect(await refusal('linked/secret')).toContain(`lies outside ${within}`);
  });

  it('is refused when it is bigger than the cap a file of its kind may have', async () => {
    writeFileSync(join(within, 'big'), 'x'.repeat(101));
    expect(await refusal('big')).toContain('is 101 bytes, more than the 100');
  });
});
