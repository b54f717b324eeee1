// Refused writes as a person reads them: what, why, what to do, on one line.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWriteFailure } from '../../lib/fs-errors.ts';

function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: no space left on device, write`), { code, path, syscall: 'write' });
}

describe('describeWriteFailure', () => {
  it('names a full disk, the path and what to do', () => {
    expect(
      describeWriteFailure(
        errno('ENOSPC', '/s/attempts/x/payload.json.tmp'),
        'the attempt folder /s/attempts/x',
        'give `--state` a database in another folder',
      ),
    ).toBe(
      'cannot write the attempt folder /s/attempts/x (/s/attempts/x/payload.json.tmp): the disk is full (ENOSPC); free some space on that disk, or give `--state` a database in another folder, then try again',
    );
  });

  it('names a file where a folder should be, from a real refused mkdir', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conveyor-fs-'));
    writeFileSync(join(dir, 'file'), '');
    let caught: unknown;
    try {
      mkdirSync(join(dir, 'file', 'sub'), { recursive: true });
    } catch (e) {
      caught = e;
    }
    expect(describeWriteFailure(caught)).toBe(
      `cannot write ${join(dir, 'file', 'sub')}: a part of that path is a file, not a folder (ENOTDIR); make that path a folder you can write, then try again`,
    );
  });

  it('says nothing of other errors', () => {
    expect(describeWriteFailure(new Error('boom'))).toBeUndefined();
    expect(describeWriteFailure(errno('ECONNRESET', '/x'))).toBeUndefined();
  });
});
