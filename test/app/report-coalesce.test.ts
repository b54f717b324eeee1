// What people see of a run is written at most once per window, always ending with the newest
// state: reports asked for while one waits out its window join it, one asked for while a write is
// under way makes the next, and ConveyorApp.idle() waits for that last write. The comment and the
// check runs are written by writers of their own (each with its window), so neither waits for the
// other. The window is held by the test (a sleep it releases), so nothing here depends on how fast
// the machine is.
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, createHarness, tokenScope, type Harness } from './harness.ts';
import { planWith, pr, RUN, seed, WEB_HEAD } from './decisions-setup.ts';

/** A sleep the test releases by hand: each call waits for the next release(). */
function heldSleep() {
  const waiting: Array<{ ms: number; release: () => void }> = [];
  return {
    waiting,
    sleep: (ms: number) => new Promise<void>((release) => void waiting.push({ ms, release })),
    releaseAll: () => waiting.splice(0).forEach((w) => w.release()),
  };
}

/** Persisted scopes of the tracking comment (900), the summary check run (500) and the PR's body (read once), their bodies kept. */
function writes() {
  const comments: string[] = [];
  const summaries: Array<{ output?: { title: string } }> = [];
  const bodies: string[] = [];
  const scopes = [
    nock(API).get('/repos/acme/web/issues/1').reply(200, { number: 1, body: 'What the action wrote.' }),
    nock(API)
      .persist()
      .patch('/repos/acme/web/pulls/1', (b: { body: string }) => bodies.push(b.body) > 0)
      .reply(200, {
        number: 1,
        html_url: 'https://github.com/acme/web/pull/1',
        state: 'open',
        head: { ref: 'conveyor/web-7', sha: WEB_HEAD },
        base: { ref: 'main' },
      }),
    nock(API)
      .persist()
      .patch('/repos/acme/web/issues/comments/900', (b: { body: string }) => comments.push(b.body) > 0)
      .reply(200, {}),
    nock(API)
      .persist()
      .patch('/repos/acme/web/check-runs/500', (b: { output?: { title: string } }) => summaries.push(b) > 0)
      .reply(200, {}),
  ];
  return { comments, summaries, bodies, scopes };
}

/** What a tracking comment says the run waits for. */
const waitingFor = (body: string) => /> ✋ \*\*Waiting\*\*: (.*)\./.exec(body)?.[1];

let h: Harness;
let held: ReturnType<typeof heldSleep>;

/** The stored run with a new `waitingFor` (shown in the comment and the summary's title). */
async function waitFor(text: string): Promise<void> {
  const run = (await h.conveyor.deps.store.get(RUN))!;
  expect(await h.conveyor.deps.store.commit({ ...run, status: 'waiting', waitingFor: text }, [])).toBeTruthy();
}

beforeEach(async () => {
  nock.disableNetConnect();
  held = heldSleep();
  h = await createHarness({ reports: { coalesceMs: 3000, sleep: held.sleep } });
  tokenScope();
  await seed(
    h,
    planWith([
      { id: 'implement', kind: 'code' },
      { id: 'ship', kind: 'merge' },
    ]),
    { implement: { prs: [pr('acme/web', 1, WEB_HEAD)] } },
  );
});
afterEach(async () => {
  held.releaseAll();
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

describe('coalesced reports', () => {
  it('writes a burst of changes once, with the newest state, after the window', async () => {
    const { comments, summaries, bodies } = writes();
    const reporter = h.conveyor.deps.reporter;
    await waitFor('first');
    const first = reporter.report(RUN);
    await waitFor('second');
    const second = reporter.report(RUN);
    await waitFor('third');
    const third = reporter.report(RUN);
    // One window per writer (the check runs', the comment's, the PR bodies') is being waited out, for the configured time; nothing was written yet.
    expect(held.waiting.map((w) => w.ms)).toEqual([3000, 3000, 3000]);
    expect(comments).toEqual([]);
    held.releaseAll();
    await Promise.all([first, second, third]);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain('> ✋ **Waiting**: third.');
    expect(summaries.map((s) => s.output?.title)).toEqual(['waiting: third']);
    expect(bodies).toHaveLength(1);
  });

  it('makes the next write for a change asked for while one is being written: the last state is always written', async () => {
    const { comments } = writes();
    const reporter = h.conveyor.deps.reporter;
    await waitFor('before the write');
    const first = reporter.report(RUN);
    held.releaseAll();
    // The first write has started (its window is over): a change now needs a write of its own.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await waitFor('during the write');
    const second = reporter.report(RUN);
    await first;
    expect(comments.map(waitingFor)).toEqual(['before the write']);
    // The second waits out a window of its own (for each writer) before writing.
    expect(held.waiting).toHaveLength(3);
    held.releaseAll();
    await second;
    expect(comments.map(waitingFor)).toEqual(['before the write', 'during the write']);
  });

  it("is waited for by ConveyorApp.idle(): a delivery's trailing write is done when idle resolves", async () => {
    const { comments, scopes } = writes();
    await waitFor('a person');
    // The engine's report effect, as a transition asks for it.
    void h.conveyor.deps.reporter.report(RUN);
    let idle = false;
    const done = h.conveyor.idle().then(() => (idle = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    held.releaseAll();
    await done;
    expect(comments).toHaveLength(1);
    expect(scopes.every((s) => s.isDone())).toBe(true);
  });
});
