// Several processes opening the same new SQLite files at once (two `conveyor run` started
// together): each must open them, none may fail with "database is locked".
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../helpers/repos.ts';

const CHILD = resolve(import.meta.dirname, '../fixtures/store/open-child.ts');
let dir: string;
afterEach(() => removeDir(dir));

interface Opener {
  ready: Promise<void>;
  done: Promise<{ code: number | null; out: string }>;
}

function openInChild(stateDb: string, remotes: string, go: string): Opener {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, stateDb, remotes, go], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) markReady();
  });
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; out: string }>((r) => child.on('close', (code) => r({ code, out })));
  return { ready, done };
}

describe('opening new SQLite files from several processes at once', () => {
  it('every process opens the state database and the local forge', async () => {
    dir = tempDir('conveyor-wal-');
    // The race is a matter of microseconds: several rounds of new files make it likely to happen.
    for (let round = 0; round < 4; round++) {
      const remotes = join(dir, `remotes-${round}`);
      mkdirSync(remotes);
      const go = join(dir, `go-${round}`);
      const openers = Array.from({ length: 8 }, () => openInChild(join(dir, `state-${round}`, 'state.db'), remotes, go));
      await Promise.all(openers.map((o) => o.ready));
      writeFileSync(go, '');
      const results = await Promise.all(openers.map((o) => o.done));
      for (const r of results) expect(r, r.out).toEqual({ code: 0, out: 'ready\nok\n' });
    }
  });
});
