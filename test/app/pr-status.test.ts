// The status section of a run's PR bodies on GitHub, kept current by the app's reporter as the run
// moves (app/pr-status.ts): each PR gets the section for the run as it stands, written only when
// its text changed, between the status markers only, so what the action and people wrote stays.
// GitHub is nock (every PR call asserted, none more allowed); the store is the real SQLite one.
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pullRequestBody, PR_STATUS_END, PR_STATUS_START } from '../../core/github/pr-body.ts';
import { reduce } from '../../core/run/reducer.ts';
import type { RunEvent } from '../../core/run/types.ts';
import { completionOf } from '../helpers/plans.ts';
import { API, BOT, createHarness, tokenScope, type Harness } from './harness.ts';
import { API_HEAD, events, planWith, pr, reportScopes, RUN, seed, WEB_HEAD } from './decisions-setup.ts';

let h: Harness;

const PRS = [pr('acme/web', 1, WEB_HEAD), pr('acme/api', 2, API_HEAD)];
const LINKS = PRS.map(({ repo, number, url }) => ({ repo, number, url }));

/** Each PR's body as the code step's action left it: what changed, the links, the placeholder status. */
const actionBody = (repo: string) =>
  pullRequestBody({
    issue: { repo: 'acme/web', number: 7, title: 'Add a feature file' },
    runId: RUN,
    repo,
    prs: LINKS,
    change: { summary: 'Added the feature file.', files: [{ path: 'feature.txt', added: 1, removed: 0 }] },
  });

/** The status section a body holds, without its markers. */
const sectionOf = (body: string) => body.slice(body.indexOf(PR_STATUS_START) + PR_STATUS_START.length + 1, body.indexOf(PR_STATUS_END) - 1);
/** A body without its status section: what must stay. */
const outside = (body: string) => body.slice(0, body.indexOf(PR_STATUS_START)) + body.slice(body.indexOf(PR_STATUS_END));

const table = (test: string, approve: string, ship: string) =>
  [
    '| step | kind | state |',
    '| --- | --- | --- |',
    '| `implement` | code | ✅ changed |',
    `| \`test\` | gate | ${test} |`,
    `| \`approve\` | approval | ${approve} |`,
    `| \`ship\` | merge | ${ship} |`,
  ].join('\n');

const RUNNING = [
  '### Run `acme-web-7`: running',
  '',
  table('🔄 running (attempt 1)', '⏳ pending', '⏳ pending'),
  '',
  'Approval comes at step `approve`: once it waits, comment `/conveyor approve` on this pull request or the issue.',
].join('\n');
const WAITING = [
  '### Run `acme-web-7`: waiting',
  '',
  table('✅ passed', '✋ waiting for approval (0 of 1)', '⏳ pending'),
  '',
  '**To approve** what this change holds now, comment `/conveyor approve` on this pull request or the issue; to reject it, `/conveyor reject`.',
].join('\n');
const APPROVED = ['### Run `acme-web-7`: running', '', table('✅ passed', '✅ approved by carol', '🔄 running (attempt 1)')].join('\n');

/** The PR body reads (as each PR's issue) and writes, each once; the bodies written, per PR. */
function bodyScopes(reads: Record<string, string>, writes: readonly string[]) {
  const written: Record<string, string> = {};
  const scopes = [
    ...Object.entries(reads).map(([at, body]) =>
      nock(API)
        .get(`/repos/${at.replace('#', '/issues/')}`)
        .reply(200, { number: Number(at.split('#')[1]), body }),
    ),
    ...writes.map((at) => {
      const [repo, number] = at.split('#') as [string, string];
      return nock(API)
        .patch(`/repos/${repo}/pulls/${number}`, (b: { body: string }) => ((written[at] = b.body), true))
        .reply(200, {
          number: Number(number),
          html_url: `https://github.com/${repo}/pull/${number}`,
          state: 'open',
          head: { ref: 'conveyor/web-7', sha: 'x' },
          base: { ref: 'main' },
        });
    }),
  ];
  return { written, scopes };
}

/** Moves the stored run by reducer events (as the engine would), then has the reporter publish it. */
async function move(...make: Array<(run: Awaited<ReturnType<typeof h.conveyor.engine.get>>) => RunEvent>): Promise<void> {
  let run = await h.conveyor.engine.get(RUN);
  for (const m of make) run = reduce(run, m(run)).run;
  expect(await h.conveyor.deps.store.commit(run, [])).toBeTruthy();
  await h.conveyor.deps.reporter.report(RUN);
}

const gatePasses = (run: Parameters<typeof completionOf>[0]) => completionOf(run, 'test', 'success');
const carolApproves = (): RunEvent => ({ type: 'decision', at: '2025-03-01T09:30:00.000Z', decision: 'approve', by: 'carol' });

beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness();
  tokenScope();
  // The comment, the summary and the approval's check run: written as ever, not what this file checks.
  reportScopes(WEB_HEAD, { prBodies: false });
  nock(API)
    .persist()
    .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor / approve')
    .reply(201, { id: 600, html_url: 'https://github.com/acme/web/runs/600', status: 'completed', output: {} });
  nock(API).persist().patch('/repos/acme/web/check-runs/600').reply(200, {});
  await seed(
    h,
    planWith([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate' },
      { id: 'approve', kind: 'approval' },
      { id: 'ship', kind: 'merge' },
    ]),
    { implement: { prs: PRS } },
    { leaveQueued: 'test' },
  );
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

describe("the status section of a run's PR bodies on GitHub", () => {
  it('is rewritten in each PR as the gate passes, the approval waits and is given: the exact text, the rest of the body kept, each body read once', async () => {
    const first = bodyScopes({ 'acme/web#1': actionBody('acme/web'), 'acme/api#2': actionBody('acme/api') }, ['acme/web#1', 'acme/api#2']);
    await h.conveyor.deps.reporter.report(RUN);
    for (const s of first.scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    for (const repo of ['acme/web', 'acme/api']) {
      const body = first.written[`${repo}#${repo === 'acme/web' ? 1 : 2}`]!;
      expect(sectionOf(body)).toBe(RUNNING);
      // What the action wrote stays as it was: what changed, the links, the footer.
      expect(outside(body)).toBe(outside(actionBody(repo)));
    }

    // The gate passes, the approval waits: both written again, from the bodies this process wrote (no read).
    const waiting = bodyScopes({}, ['acme/web#1', 'acme/api#2']);
    await move(gatePasses);
    for (const s of waiting.scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    for (const [at, body] of Object.entries(waiting.written)) {
      expect(sectionOf(body), at).toBe(WAITING);
      expect(outside(body)).toBe(outside(first.written[at]!));
    }

    const approved = bodyScopes({}, ['acme/web#1', 'acme/api#2']);
    await move(carolApproves);
    for (const s of approved.scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    for (const [at, body] of Object.entries(approved.written)) {
      expect(sectionOf(body), at).toBe(APPROVED);
      expect(outside(body)).toBe(outside(first.written[at]!));
    }
  });

  it('writes nothing for a report that changes nothing they say', async () => {
    const first = bodyScopes({ 'acme/web#1': actionBody('acme/web'), 'acme/api#2': actionBody('acme/api') }, ['acme/web#1', 'acme/api#2']);
    await h.conveyor.deps.reporter.report(RUN);
    for (const s of first.scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    // Reported again, unchanged, and after a change the section does not show (the run's updatedAt): no read, no write.
    const pulls = nock(API)
      .persist()
      .get(/\/issues\/[12]$/)
      .reply(200, {})
      .patch(/\/pulls\/[12]$/)
      .reply(200, {});
    await h.conveyor.deps.reporter.report(RUN);
    const run = await h.conveyor.engine.get(RUN);
    expect(await h.conveyor.deps.store.commit({ ...run, updatedAt: '2025-03-01T09:45:00.000Z' }, [])).toBeTruthy();
    await h.conveyor.deps.reporter.report(RUN);
    expect(pulls.isDone()).toBe(false);
    expect(h.calls.filter((c) => /\/(pulls|issues)\/[12]$/.test(c.path))).toHaveLength(4);
  });

  it("keeps what a person wrote outside the markers: the PR they edited is read again before the next write, the other is not; the app's own edit reads nothing", async () => {
    const first = bodyScopes({ 'acme/web#1': actionBody('acme/web'), 'acme/api#2': actionBody('acme/api') }, ['acme/web#1', 'acme/api#2']);
    await h.conveyor.deps.reporter.report(RUN);
    for (const s of first.scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);

    // Dave adds a note to web's body; the app's bot edits api's (its own write, known already).
    const edited = first.written['acme/web#1']!.replace(
      '### What changed in acme/web',
      'Note from Dave: check the copy with design.\n\n### What changed in acme/web',
    );
    await h.receive('pull_request', events.pull('edited', 'acme/web', 1, WEB_HEAD, 'dave'));
    await h.receive('pull_request', events.pull('edited', 'acme/api', 2, API_HEAD, BOT, false, 'Bot'));

    const next = bodyScopes({ 'acme/web#1': edited }, ['acme/web#1', 'acme/api#2']);
    await move(gatePasses);
    for (const s of next.scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(sectionOf(next.written['acme/web#1']!)).toBe(WAITING);
    expect(outside(next.written['acme/web#1']!)).toBe(outside(edited));
    expect(next.written['acme/web#1']).toContain('Note from Dave: check the copy with design.');
    expect(sectionOf(next.written['acme/api#2']!)).toBe(WAITING);
  });
});
