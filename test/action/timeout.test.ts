// An agent that never ends is stopped at its timeout, with every process it started: checked by
// pid and by process group, including children that ignore SIGTERM.
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../lib/process.ts';
import { runEntry } from '../../action/src/entry.ts';
import { makePayload } from '../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

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

/** Live (non-zombie) processes whose process group is `pgid`. */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(name));
    } catch {
      // gone while we looked
    }
  }
  return out;
}

describe('agent timeout', () => {
  it('kills the whole process group and reports agent-timeout, pushing nothing', async () => {
    const pids = join(scratch, 'pids');
    const agent = [
      'echo $$ >> "$PIDS"',
      "trap '' TERM",
      'sleep 300 & echo $! >> "$PIDS"',
      "(trap '' TERM; echo started > README.md; sleep 300) & echo $! >> \"$PIDS\"",
      'echo ready',
      'wait',
    ].join('\n');
    const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent, agentTimeoutMinutes: 1, agentEnv: { PIDS: pids } });
    const lines: string[] = [];
    const result = await runEntry({
      env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_SERVER_URL: remotes.url, CONVEYOR_PAYLOAD_PATH: await write(payload) },
      getInput: () => '',
      setSecret: () => undefined,
      log: (l) => lines.push(l),
      minuteMs: 1500,
      killGraceMs: 300,
    });
    expect(result.conclusion).toBe('failure');
    expect(result.error?.code).toBe('agent-timeout');
    expect(result.summary).toContain('ready');
    const started = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(started).toHaveLength(3);
    for (const pid of started) expect(processAlive(pid), `process ${pid} survived`).toBe(false);
    expect(groupMembers(started[0]!)).toEqual([]);
    expect(remotes.branches('acme/web')).toEqual(['main']);
  });
});

async function write(payload: unknown): Promise<string> {
  const path = join(scratch, 'payload.json');
  await writeFile(path, JSON.stringify(payload));
  return path;
}
