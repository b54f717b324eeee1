// A repository still on the old workflow template (the workflow hands the action a token; the
// action never trades the runner's OIDC token at the app) keeps working, and the run's tracking
// comment says, once, that the template should be updated (issue #15 item 4). What tells: a
// finished attempt whose record says it never exchanged its token (app/attempt-authority.ts).
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { OLD_TEMPLATE_NOTE } from '../../core/github/tracking.ts';
import { renderResultText } from '../../core/github/check-run.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { API, createHarness, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { startIssue7, type Dispatched } from './scopes.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true });

/** Starts issue 7's run, lets `beforeResult` act, then delivers the code step's failing result; the tracking comment's new body. */
async function commentAfterResult(beforeResult: () => Promise<void>): Promise<string> {
  await startIssue7(h, [] as Dispatched[]);
  await beforeResult();
  const bodies: string[] = [];
  const scopes = [
    nock(API)
      .patch('/repos/acme/web/issues/comments/900', (b: { body: string }) => bodies.push(b.body) > 0)
      .reply(200, {}),
    nock(API).patch('/repos/acme/web/check-runs/500').reply(200, {}),
  ];
  const failed = sealedFor(
    await h.conveyor.engine.get('acme-web-7'),
    resultOf('acme-web-7', 'implement', 1, 0, 'failure', { summary: 'agent failed', error: { code: 'agent-failed', message: 'exit 1' } }),
  );
  await h.receive(
    'check_run',
    webhooks.checkRun('completed', {
      id: 101,
      name: 'conveyor / implement',
      external_id: 'acme-web-7:implement:1:0',
      conclusion: 'failure',
      output: { summary: 'agent failed', text: renderResultText(failed) },
    }),
  );
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
  expect((await h.conveyor.engine.get('acme-web-7')).steps.implement).toMatchObject({ status: 'failed' });
  return bodies.at(-1)!;
}

describe('the tracking comment of a run on the old workflow template', () => {
  it('says once that the workflow should be updated, when a finished attempt never traded its OIDC token', async () => {
    const body = await commentAfterResult(async () => undefined);
    expect(body.split(OLD_TEMPLATE_NOTE)).toHaveLength(2);
    expect(body).toContain('conveyor init --force');
  });

  it('says nothing of it when the attempt traded its OIDC token at the app (the current template)', async () => {
    const body = await commentAfterResult(async () => {
      // What the token broker records when it hands the attempt its token.
      const link = (await h.conveyor.deps.links.attempt('acme-web-7:implement:1:0'))!;
      await h.conveyor.deps.links.saveAttempt({ ...link, exchanged: true });
    });
    expect(body).toContain('acme-web-7');
    expect(body).not.toContain(OLD_TEMPLATE_NOTE);
  });
});
