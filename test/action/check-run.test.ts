// The action's part of its check run on GitHub (mocked with nock at the HTTP boundary): one write,
// when the step completes it, carrying when it started and which workflow run ran it; and a read
// first only where the app's promise (the payload's `currentUntil`) does not say the attempt is
// still current: no promise, a promise about to run out, or a re-run of the workflow.
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOCK_MARGIN_MS, prepareCheckRun, type CheckRunIO } from '../../action/src/report/check-run.ts';
import { readPayload } from '../../action/src/payload.ts';
import { fixedToken } from '../../action/src/token.ts';
import { silentLogger } from '../../lib/logger.ts';

const API = 'https://api.github.com';
const EXTERNAL_ID = 'acme-web-7:test:2:0';

/** The check run's part of the step process, given the payload as the input `payload` (read leniently: only the attempt matters here). */
async function io(payload: Record<string, unknown>, env: Record<string, string> = {}): Promise<CheckRunIO> {
  const text = JSON.stringify({ runId: 'acme-web-7', step: { id: 'test' }, attempt: 2, epoch: 0, ...payload });
  return {
    env: { CONVEYOR_CHECK_RUN_ID: '55', GITHUB_REPOSITORY: 'acme/web', GITHUB_RUN_ID: '9001', GITHUB_SERVER_URL: 'https://github.com', ...env },
    payload: await readPayload({ env: {}, getInput: (name) => (name === 'payload' ? text : '') }),
    token: fixedToken('ghs_action'),
    log: silentLogger,
  };
}

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();
const output = {
  name: 'conveyor / test',
  conclusion: 'success' as const,
  title: 'success',
  summary: 'all good',
  externalId: EXTERNAL_ID,
  text: '<!-- result -->',
};

beforeEach(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("the action's check run", () => {
  it('is not read back while the app promises the attempt is current, and is completed in one call', async () => {
    const patches: Array<Record<string, unknown>> = [];
    const patch = nock(API)
      .patch('/repos/acme/web/check-runs/55', (b: Record<string, unknown>) => patches.push(b) > 0)
      .reply(200, { id: 55, status: 'completed' });
    const before = Date.now();
    const gate = await prepareCheckRun(await io({ currentUntil: inMinutes(9) }));
    expect(gate.proceed).toBe(true);
    // Nothing was asked of GitHub before the step (nock would refuse a read: it has none).
    expect(patches).toEqual([]);
    if (!gate.proceed) return;
    await gate.client!.complete(output);
    expect(patch.isDone()).toBe(true);
    expect(patches).toHaveLength(1);
    const [written] = patches as [Record<string, string>];
    expect(written).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      details_url: 'https://github.com/acme/web/actions/runs/9001',
      output: { title: 'success', summary: 'all good', text: '<!-- result -->' },
    });
    // When the step started (before it ran), and when it ended.
    expect(Date.parse(written.started_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(written.started_at!)).toBeLessThanOrEqual(Date.parse(written.completed_at!));
  });

  it.each([
    ['no promise', {}, {}],
    ['a promise running out within the clock margin', { currentUntil: inMinutes(CLOCK_MARGIN_MS / 60_000 - 0.5) }, {}],
    ['a re-run of the workflow', { currentUntil: inMinutes(9) }, { GITHUB_RUN_ATTEMPT: '2' }],
  ])('is read first with %s: a completed one means the attempt is over, and nothing is written', async (_what, payload, env) => {
    const read = nock(API)
      .get('/repos/acme/web/check-runs/55')
      .reply(200, { id: 55, status: 'completed', conclusion: 'cancelled', external_id: EXTERNAL_ID, output: {} });
    const gate = await prepareCheckRun(await io(payload, env));
    expect(read.isDone()).toBe(true);
    expect(gate).toEqual({ proceed: false, reason: 'check run 55 is already completed: this attempt is no longer current' });
  });

  it("is read first without a promise, and refuses one that is another attempt's", async () => {
    nock(API).get('/repos/acme/web/check-runs/55').reply(200, { id: 55, status: 'queued', conclusion: null, external_id: 'acme-web-7:test:3:0', output: {} });
    expect(await prepareCheckRun(await io({}))).toEqual({
      proceed: false,
      reason: 'check run 55 belongs to attempt acme-web-7:test:3:0, not acme-web-7:test:2:0: this attempt is no longer current',
    });
  });
});
