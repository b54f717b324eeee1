// A step whose check run someone else completes while it runs (the app cancelling the run, or a
// person) stops: the real action (a child process) reads its check run at its interval, kills the
// agent's process group once it is completed, and does not write its own result over it.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECK_RUN_POLL_MS, pollIntervalOf } from '../../action/src/report/check-run.ts';
import { fakeCheckRuns, runActionChild } from '../app/harness.ts';
import { makePayload } from '../helpers/payload.ts';
import { processesWith } from '../helpers/processes.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

let remotes: Remotes;
let work: string;
let fake: Awaited<ReturnType<typeof fakeCheckRuns>>;
beforeEach(async () => {
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
  work = tempDir('conveyor-watch-');
  fake = await fakeCheckRuns();
});
afterEach(async () => {
  remotes.cleanup();
  removeDir(work);
  await fake.close();
});

describe('a running step whose check run is completed by someone else', () => {
  it('stops its agent (no process of it is left) and leaves the check run as they completed it', async () => {
    const mark = randomUUID();
    const payload = makePayload({ repos: [{ repo: 'acme/web' }], runId: 'acme-web-7', agentRun: 'sleep 300', agentEnv: { AGENT_MARK: mark } });
    fake.checks.set(55, { id: 55, name: 'conveyor / implement', status: 'queued', external_id: 'acme-web-7:implement:1:0' });
    const done = runActionChild({
      INPUT_PAYLOAD: JSON.stringify(payload),
      INPUT_TOKEN: 'ghs_action',
      CONVEYOR_CHECK_RUN_ID: '55',
      CONVEYOR_CHECK_RUN_POLL_SECONDS: '1',
      GITHUB_REPOSITORY: 'acme/web',
      GITHUB_API_URL: fake.url,
      GITHUB_SERVER_URL: remotes.url,
      GITHUB_RUN_ID: '777',
      CONVEYOR_WORKSPACE_ROOT: join(work, 'ws'),
    });
    // The agent runs (it would sleep for five minutes)...
    while (processesWith('AGENT_MARK', mark).length === 0) await new Promise((r) => setTimeout(r, 100));
    // ...when the app cancels the run and completes its check run.
    Object.assign(fake.checks.get(55)!, { status: 'completed', conclusion: 'cancelled', output: { title: 'cancelled', summary: 'The run was cancelled.' } });
    const out = await done;
    expect(processesWith('AGENT_MARK', mark)).toEqual([]);
    expect(out.stdout).toContain('check run 55 was completed by someone else (cancelled): stopping the step');
    expect(out.stdout).toContain('its result (failure');
    // Read at its interval; never written: the cancel stays what the check run says.
    expect(fake.requests.filter((r) => r === 'GET /repos/acme/web/check-runs/55').length).toBeGreaterThanOrEqual(1);
    expect(fake.requests.filter((r) => r.startsWith('PATCH'))).toEqual([]);
    expect(fake.checks.get(55)).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
  });
});

describe('the watch interval', () => {
  it('is a minute unless CONVEYOR_CHECK_RUN_POLL_SECONDS says otherwise; a bad value is refused naming it', () => {
    expect(pollIntervalOf({})).toBe(CHECK_RUN_POLL_MS);
    expect(CHECK_RUN_POLL_MS).toBe(60_000);
    expect(pollIntervalOf({ CONVEYOR_CHECK_RUN_POLL_SECONDS: '5' })).toBe(5_000);
    expect(() => pollIntervalOf({ CONVEYOR_CHECK_RUN_POLL_SECONDS: '0.5' })).toThrow(
      'CONVEYOR_CHECK_RUN_POLL_SECONDS must be a whole number of seconds, at least 1, not "0.5"',
    );
  });
});
