// The summary check run `conveyor` is never left in progress once its run ended or waits (issue
// #27): a burst of 60 labeled issues left 19 summaries in progress when every run had ended. The
// reporter wrote each run's comment before its check runs, one write at a time per run, and GitHub
// paces comments three times slower than other writes (and refuses them first under a burst): the
// summaries waited behind the comments, or were never tried when a comment write failed. Now the
// check runs have a writer of their own. GitHub's API is the stateful fake of fake-github.ts (nock).
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { renderResultText } from '../../core/github/check-run.ts';
import type { StepResult } from '../../core/contract/wire.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { fakeGitHub, type FakeGitHub } from './fake-github.ts';
import { createHarness, webhooks, type Harness } from './harness.ts';

const CONFIG = `version: 1
agents:
  coder:
    run: echo done > feature.txt
services:
  web:
    repo: acme/web
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
`;
const RUNS = 60;
const runOf = (n: number) => `acme-web-${n}`;
const prHead = (n: number) => n.toString(16).padStart(40, 'a');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let h: Harness;
let github: FakeGitHub;
beforeEach(async () => {
  nock.disableNetConnect();
  // A short window: a run's transitions coalesce as on GitHub, without the test waiting 3 s.
  h = await createHarness({ reports: { coalesceMs: 20 } });
  github = fakeGitHub(CONFIG);
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

/** Comment writes as GitHub treats them under a burst: `hold` keeps them waiting, `refuse` answers its secondary rate limit. */
function commentWrites(mode: 'hold' | 'refuse') {
  const original = globalThis.fetch;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  globalThis.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const write = (init?.method ?? 'GET').toUpperCase() !== 'GET' && /\/issues\/(\d+\/comments|comments\/\d+)$/.test(url);
    if (!write) return original(input, init);
    if (mode === 'refuse')
      return new Response(JSON.stringify({ message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }), {
        status: 403,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
      });
    await released;
    return original(input, init);
  };
  onTestFinished(() => void (globalThis.fetch = original));
  return { release };
}

/** The completion of a run's current attempt of `step`, as its action reports it through its check run. */
async function completion(runId: string, step: string, conclusion: StepResult['conclusion'], extra: Partial<StepResult> = {}) {
  const run = (await h.conveyor.deps.store.get(runId))!;
  const s = run.steps[step]!;
  const externalId = `${runId}:${step}:${s.attempt}:${s.epoch}`;
  const check = github.checkRuns.find((c) => c.external_id === externalId)!;
  // As the action leaves it.
  Object.assign(check, { status: 'completed', conclusion });
  const result = sealedFor(run, resultOf(runId, step, s.attempt, s.epoch, conclusion, extra));
  return webhooks.checkRun('completed', {
    id: check.id,
    name: check.name,
    external_id: externalId,
    conclusion,
    output: { summary: 'ok', text: renderResultText(result) },
  });
}

/** Labels RUNS issues at once, then completes every implement attempt at once: every run succeeds. */
async function burst(): Promise<void> {
  const issues = Array.from({ length: RUNS }, (_, i) => i + 1);
  await Promise.all(issues.map((n) => h.probot.receive({ id: `label-${n}`, name: 'issues', payload: webhooks.labeled('conveyor', n) } as never)));
  for (let i = 0; i < 500 && github.dispatches.length < RUNS; i++) await sleep(10);
  expect(github.dispatches).toHaveLength(RUNS);
  const done = await Promise.all(
    issues.map((n) =>
      completion(runOf(n), 'implement', 'success', {
        prs: [{ repo: 'acme/web', number: 1000 + n, url: `https://github.com/acme/web/pull/${1000 + n}`, branch: `conveyor/web-${n}`, head: prHead(n) }],
        commits: { 'acme/web': prHead(n) },
      }),
    ),
  );
  await Promise.all(issues.map((n, i) => h.probot.receive({ id: `done-${n}`, name: 'check_run', payload: done[i] } as never)));
  expect((await h.conveyor.deps.store.list()).filter((r) => r.status !== 'succeeded')).toEqual([]);
}

/** Each run's summary check runs on its PR's last head, as [status, conclusion]. */
const summariesOnHeads = () =>
  Array.from({ length: RUNS }, (_, i) =>
    github.checkRuns.filter((c) => c.name === 'conveyor' && c.head_sha === prHead(i + 1)).map((c) => `${c.status}/${c.conclusion}`),
  );

/** Waits (up to 30 s: the machine may be loaded) until the run has a summary and none is left unfinished on any head. */
async function summariesSettled(): Promise<void> {
  const unsettled = () => {
    const summaries = github.checkRuns.filter((c) => c.name === 'conveyor');
    return summaries.length === 0 || summaries.some((c) => c.status !== 'completed');
  };
  for (let i = 0; i < 3000 && unsettled(); i++) await sleep(10);
}

describe('a burst of runs', () => {
  it('completes every summary check run as its run ends, though GitHub refuses their comments (secondary rate limit); those reports stay pending for the sweeper', async () => {
    commentWrites('refuse');
    await burst();
    await h.conveyor.idle();
    expect(summariesOnHeads()).toEqual(Array.from({ length: RUNS }, () => ['completed/success']));
    // The summaries left on each draft's head moved too, and every step's is completed: none of any run is left running.
    expect(github.checkRuns.filter((c) => c.status !== 'completed').map((c) => `${c.name} ${c.external_id}`)).toEqual([]);
    expect(github.comments).toEqual([]);
    const pending = await h.conveyor.deps.store.pendingEffects();
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((e) => e.type === 'report')).toBe(true);
  }, 60_000);
});

describe("a run's summary check run", () => {
  it("is completed as its run ends while GitHub still holds the run's comment back (its pacing of comments)", async () => {
    const comments = commentWrites('hold');
    await h.probot.receive({ id: 'label-7', name: 'issues', payload: webhooks.labeled('conveyor', 7) } as never);
    for (let i = 0; i < 300 && github.dispatches.length < 1; i++) await sleep(10);
    await h.probot.receive({ id: 'done-7', name: 'check_run', payload: await completion(runOf(7), 'implement', 'success') } as never);
    expect((await h.conveyor.deps.store.get(runOf(7)))?.status).toBe('succeeded');
    await summariesSettled();
    expect(github.checkRuns.filter((c) => c.name === 'conveyor').map((c) => `${c.status}/${c.conclusion}`)).toEqual(['completed/success']);
    expect(github.comments).toEqual([]);
    // The comment follows once GitHub lets it, at the run's end.
    comments.release();
    await h.conveyor.idle();
    expect(github.comments.map((c) => c.issue)).toEqual([7]);
    expect(github.comments[0]?.body).toContain('> ✅ **Succeeded**');
  });

  it('is action_required while the run waits for a retry, then a new one runs when it is retried, and succeeds with it', async () => {
    await h.receive('issues', webhooks.labeled('conveyor', 7), 'label-7');
    await h.receive(
      'check_run',
      await completion(runOf(7), 'implement', 'failure', { error: { code: 'agent-failed', message: 'the agent exited with 1' } }),
      'fail-7',
    );
    const draft = github.pulls[0]!.head;
    const summaries = () => github.checkRuns.filter((c) => c.name === 'conveyor' && c.head_sha === draft).map((c) => `${c.status}/${c.conclusion}`);
    expect((await h.conveyor.deps.store.get(runOf(7)))?.status).toBe('waiting');
    expect(summaries()).toEqual(['completed/action_required']);
    expect(github.comments[0]?.body).toContain('comment `/conveyor retry implement`');

    // GitHub never reopens a completed check run: the retried run gets a new summary, in progress.
    await h.receive('issue_comment', webhooks.comment('/conveyor retry implement', 'alice', 7), 'retry-7');
    expect((await h.conveyor.deps.store.get(runOf(7)))?.steps.implement).toMatchObject({ status: 'queued', attempt: 2 });
    expect(summaries()).toEqual(['completed/action_required', 'in_progress/null']);

    await h.receive('check_run', await completion(runOf(7), 'implement', 'success'), 'done-7');
    expect(summaries()).toEqual(['completed/action_required', 'completed/success']);
    expect(github.comments[0]?.body).toContain('> ✅ **Succeeded**');
  });
});
