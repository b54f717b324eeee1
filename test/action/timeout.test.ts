// An agent that never ends is stopped at its timeout, with every process it started, including
// children that ignore SIGTERM: the processes are found from outside by a variable they all
// inherit (inside the sandbox their pids are those of its own PID namespace), and, without a
// sandbox, by pid too.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../lib/process.ts';
import { runEntry } from '../../action/src/entry.ts';
import { readPayload } from '../../action/src/payload.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { pathWithoutBubblewrap, processesWith } from '../helpers/processes.ts';

let remotes: Remotes;
let scratch: string;

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-timeout-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});

describe('agent timeout', () => {
  for (const sandboxed of [true, false]) {
    it(`kills every process the agent started and reports agent-timeout, pushing nothing (${sandboxed ? 'in the sandbox' : 'without a sandbox'})`, async () => {
      const mark = randomUUID();
      const ws = join(scratch, 'ws');
      const agent = [
        'echo $$ >> "$CONVEYOR_WORKSPACE/pids"',
        "trap '' TERM",
        'sleep 300 & echo $! >> "$CONVEYOR_WORKSPACE/pids"',
        '(trap \'\' TERM; echo started > README.md; sleep 300) & echo $! >> "$CONVEYOR_WORKSPACE/pids"',
        'setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! >> "$CONVEYOR_WORKSPACE/pids"',
        'echo ready',
        'wait',
      ].join('\n');
      const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent, agentTimeoutMinutes: 1, agentEnv: { TIMEOUT_MARK: mark } });
      const lines: string[] = [];
      const payloadPath = await write(payload);
      const result = await runEntry({
        env: {
          PATH: sandboxed ? process.env.PATH : pathWithoutBubblewrap(),
          HOME: process.env.HOME,
          GITHUB_SERVER_URL: remotes.url,
          CONVEYOR_PAYLOAD_PATH: payloadPath,
          CONVEYOR_WORKSPACE_ROOT: ws,
        },
        payload: await readPayload({ env: { CONVEYOR_PAYLOAD_PATH: payloadPath }, getInput: () => '' }),
        setSecret: () => undefined,
        log: (l) => lines.push(l),
        minuteMs: 1500,
        killGraceMs: 300,
      });
      expect(result.conclusion).toBe('failure');
      expect(result.error?.code).toBe('agent-timeout');
      expect(result.sandbox?.mode).toBe(sandboxed ? 'bubblewrap' : 'none');
      expect(result.summary).toContain('ready');
      const started = readFileSync(join(ws, 'pids'), 'utf8').trim().split('\n').map(Number);
      expect(started).toHaveLength(4);
      expect(processesWith('TIMEOUT_MARK', mark)).toEqual([]);
      if (!sandboxed) for (const pid of started) expect(processAlive(pid), `process ${pid} survived`).toBe(false);
      expect(remotes.branches('acme/web')).toEqual(['main']);
    });
  }
});

async function write(payload: unknown): Promise<string> {
  const path = join(scratch, 'payload.json');
  await writeFile(path, JSON.stringify(payload));
  return path;
}
