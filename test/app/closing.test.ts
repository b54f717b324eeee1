// Closing a run on GitHub: a PR of the run closed without merging by a writer of its primary
// repository (or `/conveyor cancel`) cancels it, tears its environments down and leaves the other
// PRs open with a comment; closed by anyone else (a sibling's triage member, a bot), the PR is
// reopened, or a reply says why it cannot be, and the run goes on. Driven through probot.receive, nock.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { renderResultText } from '../../core/github/check-run.ts';
import { parseStepPayload } from '../../core/contract/wire.ts';
import { resultOf } from '../helpers/plans.ts';
import { API, createHarness, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { dispatchScope, type Dispatched } from './scopes.ts';
import {
  API_HEAD,
  approvalCheckScope,
  events,
  fleetBuilt as built,
  fleetPlan as plan,
  permissionScope,
  readyEnv,
  replyScope,
  reportScopes,
  RUN,
  seed,
  type ApprovalPatch,
} from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, token: true });

const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

/** The PATCH that reopens acme/api#2, answered `status` with `body`. */
const reopenScope = (status: number, body: object) =>
  nock(API)
    .patch('/repos/acme/api/pulls/2', { state: 'open' })
    .reply(status, { number: 2, state: 'open', head: { ref: 'conveyor/web-7', sha: API_HEAD }, base: { ref: 'main' }, html_url: 'x', ...body });

describe('a PR closed by someone who may not cancel the run', () => {
  it("a sibling's triage member, or a bot, closing a PR of the run: the PR is reopened, a reply names who may close it, and the run goes on", async () => {
    const before = await seed(h, plan(), built);
    for (const [closer, scopes, type] of [
      ['tracy', [permissionScope('tracy', 'triage')], 'User'],
      ['stale[bot]', [], 'Bot'],
    ] as const) {
      const replies: string[] = [];
      const all = [...scopes, reopenScope(200, {}), replyScope('acme/api', 2, replies)];
      await h.receive('pull_request', events.pull('closed', 'acme/api', 2, API_HEAD, closer, false, type));
      allDone(all);
      expect(replies).toHaveLength(1);
      expect(replies[0]).toContain(
        `@${closer} closed this pull request, but that does not stop Conveyor run \`acme-web-7\`: only a person with write permission on acme/web (the run's primary repository) can stop it by closing one of its pull requests, and ${type === 'Bot' ? 'bots never decide' : 'you have triage there'}.`,
      );
      expect(replies[0]).toContain('Conveyor reopened it, and run `acme-web-7` goes on.');
      expect(replies[0]).toContain(
        'To stop the run, a person with write permission on acme/web comments `/conveyor cancel` on acme/web#7 (or closes a PR of the run).',
      );
    }
    const after = await h.conveyor.engine.get(RUN);
    expect(after.status).toBe(before.status);
    expect(after.version).toBe(before.version);
    expect(after.environments).toEqual([readyEnv]);
    // Its permission was asked where the run belongs, never where the PR was closed.
    expect(h.calls.filter((c) => c.path.includes('/collaborators/')).map((c) => c.path)).toEqual(['/repos/acme/web/collaborators/tracy/permission']);
  });

  it('says why the PR cannot be reopened (its branch was deleted); the run goes on', async () => {
    const before = await seed(h, plan(), built);
    const replies: string[] = [];
    const scopes = [
      permissionScope('tracy', 'read'),
      nock(API)
        .patch('/repos/acme/api/pulls/2', { state: 'open' })
        .reply(422, {
          message: 'Validation Failed',
          errors: [
            { resource: 'PullRequest', code: 'custom', field: 'state', message: 'state cannot be changed. The conveyor/web-7 branch has been deleted.' },
          ],
        }),
      replyScope('acme/api', 2, replies),
    ];
    await h.receive('pull_request', events.pull('closed', 'acme/api', 2, API_HEAD, 'tracy'));
    allDone(scopes);
    expect(replies[0]).toContain(
      "@tracy closed this pull request, but that does not stop Conveyor run `acme-web-7`: only a person with write permission on acme/web (the run's primary repository) can stop it by closing one of its pull requests, and you have read there.",
    );
    expect(replies[0]).toContain(
      'Conveyor could not reopen it: GitHub PATCH /repos/{owner}/{repo}/pulls/{pull_number} failed (HTTP 422): Validation Failed: state cannot be changed. The conveyor/web-7 branch has been deleted.',
    );
    expect(replies[0]).toContain('Run `acme-web-7` goes on, but cannot merge this PR until it is open again (restore its branch and reopen it)');
    expect((await h.conveyor.engine.get(RUN)).version).toBe(before.version);
  });
});

describe('closing', () => {
  it('a PR closed without merging by a writer of the primary repository (a sibling PR too) cancels the run, tears the environments down and leaves the other PRs open with a comment', async () => {
    await seed(h, plan(), built);
    reportScopes();
    const checks: ApprovalPatch[] = [];
    const dispatched: Dispatched[] = [];
    const web: string[] = [];
    const lib: string[] = [];
    const scopes = [
      permissionScope('carol', 'write'),
      approvalCheckScope(checks),
      dispatchScope('preview', 901, dispatched),
      replyScope('acme/web', 1, web),
      replyScope('acme/lib', 3, lib),
    ];
    await h.receive('pull_request', events.pull('closed', 'acme/api', 2, API_HEAD, 'carol'));
    allDone(scopes);
    let run = await h.conveyor.engine.get(RUN);
    expect(run.status).toBe('cancelled');
    expect(run.reason).toBe('PR acme/api#2 was closed without merging');
    expect(checks.at(-1)).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    expect(web[0]).toContain('@carol closed acme/api#2 without merging it');
    expect(web[0]).toContain('This pull request is left open');
    expect(lib).toHaveLength(1);
    // The teardown is the deploy step's teardown mode, which marks the GitHub Deployments inactive.
    const payload = parseStepPayload(dispatched[0]!.inputs.payload!);
    expect(payload.ok && payload.payload.mode).toBe('teardown');
    expect(dispatched[0]?.name).toBe('conveyor / preview (teardown)');
    expect(payload.ok && payload.payload.environments).toEqual([readyEnv]);
    expect(dispatched[0]!.externalId).toMatch(/:preview:\d+:0:teardown$/);

    const removed = { ...resultOf(RUN, 'preview', 1, 0, 'success', { mode: 'teardown', environments: [readyEnv] }) };
    const { externalId, checkRunId } = dispatched[0]!;
    removed.attempt = Number(externalId.split(':')[2]);
    const completed = events.checkCompleted(checkRunId, externalId, 'conveyor / preview', renderResultText(removed));
    await h.receive('check_run', completed, 'teardown-done');
    run = await h.conveyor.engine.get(RUN);
    expect(run.environments).toEqual([]);
    expect(run.removedEnvironments).toEqual([readyEnv]);
    // Redelivered: nothing happens. A teardown retires no attempt: its delivery id is what says so.
    const file = new Database(join(h.dir, 'app.db'), { readonly: true });
    try {
      expect(file.prepare("SELECT count(*) FROM deliveries WHERE id = 'teardown-done'").pluck().get()).toBe(1);
    } finally {
      file.close();
    }
    h.calls.length = 0;
    await h.receive('check_run', completed, 'teardown-done');
    expect(h.calls).toEqual([]);
    expect((await h.conveyor.engine.get(RUN)).version).toBe(run.version);
  });

  it('`/conveyor cancel` from a writer cancels, tears down, and comments on every PR', async () => {
    await seed(h, plan(), built);
    reportScopes();
    approvalCheckScope([]);
    const comments: string[][] = [[], [], []];
    const scopes = [
      permissionScope('bob', 'write'),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/, { content: '+1' })
        .reply(201, {}),
      dispatchScope('preview', 901, []),
      replyScope('acme/web', 1, comments[0]!),
      replyScope('acme/api', 2, comments[1]!),
      replyScope('acme/lib', 3, comments[2]!),
    ];
    await h.receive('issue_comment', webhooks.comment('/conveyor cancel wrong approach', 'bob'));
    allDone(scopes);
    const run = await h.conveyor.engine.get(RUN);
    expect(run).toMatchObject({ status: 'cancelled', reason: 'cancelled by bob: wrong approach' });
    for (const c of comments) expect(c[0]).toContain('was cancelled by @bob: wrong approach');
  });
});
