import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Every command Conveyor runs has a /tmp of its own (the sandbox), as on a runner: the tests'
// repositories, scripted agents and recorders live outside /tmp, where a command sees them (read
// only) as it sees a user's files. Conveyor's own temporary folders follow TMPDIR too.
// One folder per user: another user's run on the same machine (root's CI, a developer) owns its own.
const testTemp = join(existsSync('/var/tmp') ? '/var/tmp' : join(homedir(), '.cache'), `conveyor-tests-${process.getuid?.() ?? 'user'}`);
mkdirSync(testTemp, { recursive: true });

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    env: { TMPDIR: testTemp },
    // End-to-end tests spawn git and node processes; give them room on a shared 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
