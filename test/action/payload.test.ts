// The step payload, read once by the step process (action/src/payload.ts) and handed to the token,
// the check run and the entry: what a payload that cannot be had says, and that it is read once
// (through a pipe, which gives its text to one reader only, a step still runs), so the attempt the
// token is asked for is the attempt that runs.
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPayload } from '../../action/src/payload.ts';
import { ConveyorError } from '../../core/errors.ts';
import { removeActionBundle, runActionAsync } from '../helpers/action.ts';
import { gateStep, makePayload } from '../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

let scratch: string;
let remotes: Remotes;
beforeEach(() => {
  scratch = tempDir('conveyor-payload-');
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
});
afterEach(() => {
  removeDir(scratch);
  remotes.cleanup();
});
afterAll(() => removeActionBundle());

const fromInput = (text: string) => readPayload({ env: {}, getInput: (name) => (name === 'payload' ? text : '') });

describe('the payload as read', () => {
  it('is the validated payload, and its JSON as it came', async () => {
    const payload = makePayload({ repos: [{ repo: 'acme/web' }] });
    const read = await fromInput(JSON.stringify({ ...payload, extra: 1 }));
    expect(read).toMatchObject({ ok: true, payload: { runId: 'run-1', step: { id: 'implement' } }, raw: { runId: 'run-1', extra: 1 } });
  });

  it('says why it cannot be had, as a bad-payload error, keeping whatever JSON came for the attempt it names', async () => {
    const invalid = await fromInput(JSON.stringify({ ...makePayload({ repos: [{ repo: 'acme/web' }] }), version: 1 }));
    expect(invalid).toMatchObject({ ok: false, reason: expect.stringMatching(/^version: /), raw: { runId: 'run-1', version: 1 } });
    if (invalid.ok) return;
    expect(invalid.error).toBeInstanceOf(ConveyorError);
    expect(invalid.error).toMatchObject({ code: 'bad-payload', message: `the step payload is not valid: ${invalid.reason}` });

    expect(await fromInput('{oops')).toMatchObject({ ok: false, reason: expect.stringMatching(/^payload is not JSON: /), raw: undefined });
    expect(await fromInput('  ')).toMatchObject({
      ok: false,
      reason: 'no payload: give the action input `payload` (JSON) or set CONVEYOR_PAYLOAD_PATH to a payload file',
      error: { code: 'bad-payload' },
    });
    const missing = join(scratch, 'nowhere.json');
    const unreadable = await readPayload({ env: { CONVEYOR_PAYLOAD_PATH: missing }, getInput: () => '' });
    expect(unreadable).toMatchObject({ ok: false, reason: expect.stringContaining(`CONVEYOR_PAYLOAD_PATH ${missing} cannot be read: `), raw: undefined });
  });

  it('is read once by the step process: given through a pipe, which hands its text to one reader only, the step runs', async () => {
    const pipe = join(scratch, 'payload.pipe');
    execFileSync('mkfifo', [pipe]);
    const payload = makePayload({ repos: [{ repo: 'acme/web' }], step: gateStep({ run: 'test -f README.md' }) });
    // The writer waits for the step process to open the pipe, writes the payload once, and is gone.
    const writer = createWriteStream(pipe);
    writer.end(JSON.stringify(payload));
    const run = await runActionAsync({ payload: '', dir: scratch, env: { GITHUB_SERVER_URL: remotes.url, CONVEYOR_PAYLOAD_PATH: pipe }, timeoutMs: 30_000 });
    expect(run).not.toBe('hung');
    if (run === 'hung') return;
    expect(run.result, run.stdout + run.stderr).toMatchObject({ conclusion: 'success', runId: 'run-1', step: 'test' });
  }, 90_000);
});
