// While a step runs, its time so far stays true on GitHub: the reporter writes the tracking
// comment and the summary check run again each minute (in whole minutes, so a refresh within the
// same minute writes nothing), and stops once no step runs. The PR body's status section, which
// shows no clock, is not written again by a refresh. Real reporter, GitHub at the HTTP
// boundary (nock), a real SQLite store; the refresh interval shrunk to milliseconds.
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, createHarness, tokenScope, type Harness } from './harness.ts';
import { planWith, pr, RUN, seed, WEB_HEAD } from './decisions-setup.ts';
import { refreshInterval, REFRESH_WRITES_PER_HOUR, RUNNING_REFRESH_MS } from '../../app/report.ts';

let h: Harness;

beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness({ reports: { coalesceMs: 0, refreshMs: 30 } });
  tokenScope();
  await seed(
    h,
    planWith([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate' },
      { id: 'ship', kind: 'merge' },
    ]),
    { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
    { leaveQueued: 'test' },
  );
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

const until = async (holds: () => boolean): Promise<void> => {
  while (!holds()) await new Promise((r) => setTimeout(r, 10));
};

describe('a run with a step under way', () => {
  it("rewrites its comment and summary each minute with the step's time so far, and stops once no step runs", async () => {
    const comments: string[] = [];
    const summaries: string[] = [];
    const bodies: string[] = [];
    const scopes = [
      nock(API).get('/repos/acme/web/issues/1').reply(200, { number: 1, body: 'What the action wrote.' }),
      nock(API)
        .persist()
        .patch('/repos/acme/web/pulls/1', (b: { body: string }) => bodies.push(b.body) > 0)
        .reply(200, { number: 1, html_url: 'x', state: 'open', head: { ref: 'conveyor/web-7', sha: WEB_HEAD }, base: { ref: 'main' } }),
      nock(API)
        .persist()
        .patch('/repos/acme/web/issues/comments/900', (b: { body: string }) => comments.push(b.body) > 0)
        .reply(200, {}),
      nock(API)
        .persist()
        .patch('/repos/acme/web/check-runs/500', (b: { output: { summary: string } }) => summaries.push(b.output.summary) > 0)
        .reply(200, {}),
    ];
    const reporter = h.conveyor.deps.reporter;
    // The step started at 09:00; it is 10:00.
    await reporter.report(RUN);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain('| `test` | gate | 🔄 running | 1 | 1h 0m so far, since 09:00 UTC |');
    expect(summaries[0]).toContain('1h 0m so far, since 09:00 UTC');

    // Within the same minute a refresh writes nothing: the text is the same.
    await new Promise((r) => setTimeout(r, 100));
    expect(comments).toHaveLength(1);

    // A minute later the refresh writes both again.
    h.clock.now = '2025-03-01T10:01:10.000Z';
    await until(() => comments.length === 2 && summaries.length === 2);
    expect(comments[1]).toContain('| 1h 1m so far, since 09:00 UTC |');
    expect(summaries[1]).toContain('1h 1m so far, since 09:00 UTC');
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('| `test` | gate | 🔄 running (attempt 1) |');

    // The step ends: no more refreshes.
    const run = (await h.conveyor.deps.store.get(RUN))!;
    await h.conveyor.deps.store.commit({ ...run, status: 'waiting', steps: { ...run.steps, test: { ...run.steps.test!, status: 'failed', reason: 'x' } } }, []);
    await reporter.report(RUN);
    // (A refresh that read the run before it changed may still be under way: it finds no step under way.)
    await until(() => reporter.refreshed().length === 0);
    await h.conveyor.idle();
    const written = comments.length;
    h.clock.now = '2025-03-01T10:05:00.000Z';
    await new Promise((r) => setTimeout(r, 100));
    expect(comments).toHaveLength(written);
    // The PR body: written again once, for the step's end.
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toContain('| `test` | gate | ❌ failed: x |');
    for (const s of scopes) expect(s.isDone()).toBe(true);
  });
});

describe('the refresh budget', () => {
  it('is once a minute per run while few runs are under way, and spreads out so that all of them stay within it', () => {
    expect(refreshInterval(1)).toBe(RUNNING_REFRESH_MS);
    expect(refreshInterval(2)).toBe(RUNNING_REFRESH_MS);
    // Two writes per refresh: ten runs at once get one each every five minutes (240 writes an hour).
    expect(refreshInterval(10)).toBe(300_000);
    expect((10 * 2 * 3_600_000) / refreshInterval(10)).toBe(REFRESH_WRITES_PER_HOUR);
  });
});
