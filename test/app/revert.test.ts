// `/conveyor revert` on GitHub: after a merge that stopped part-way (acme/lib and acme/api merged,
// acme/web refused), a writer's command opens the revert PRs through GraphQL's revertPullRequest,
// consumers first, links them to each other, cancels the run and starts the revert run, which
// waits for its approval and then merges them consumers first. Refused: a run that merged nothing,
// someone without write permission. Driven through probot.receive, nock at the HTTP boundary.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreError } from '../../engine/ports/store.ts';
import nock from 'nock';
import { API, createHarness, tokenScope, webhooks, type Harness } from './harness.ts';
import { dispatchScope, openPullScope } from './scopes.ts';
import {
  API_HEAD,
  approvalCheckScope,
  fleetBuilt as built,
  fleetPlan as plan,
  LIB_HEAD,
  permissionScope,
  replyScope,
  reportScopes,
  RUN,
  seed,
  WEB_HEAD,
} from './decisions-setup.ts';

let h: Harness;
beforeEach(async () => {
  nock.disableNetConnect();
  h = await createHarness({ merge: { polls: 1, baseMs: 1, sleep: async () => undefined } });
  tokenScope();
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await h.close();
});

const allDone = (scopes: nock.Scope[]) => {
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
};

const REVERT = `${RUN}-revert`;
const API_REVERT_HEAD = '5'.repeat(40);
const LIB_REVERT_HEAD = '6'.repeat(40);

function mergeScope(
  repo: string,
  number: number,
  order: string[],
  messages: Record<string, string>,
  reply: [number, object] = [200, { merged: true, sha: `m-${repo}` }],
) {
  return nock(API)
    .put(`/repos/${repo}/pulls/${number}/merge`, (b: { commit_message: string; commit_title: string }) => {
      order.push(`${repo}#${number}`);
      messages[repo] = `${b.commit_title}\n\n${b.commit_message}`;
      return true;
    })
    .reply(...reply);
}

/** A comment on the issue by `login`, taken (a reaction on it) or answered (`replies`). */
async function comment(body: string, login: string): Promise<void> {
  await h.receive('issue_comment', webhooks.comment(body, login));
}

/** Seeds the fleet's run at its approval and approves it: acme/lib#3 and acme/api#2 merge, acme/web#1 is refused. */
async function mergePartWay(): Promise<ReturnType<typeof reportScopes>> {
  await seed(h, plan(), built);
  const report = reportScopes();
  approvalCheckScope([]);
  const order: string[] = [];
  const scopes = [
    permissionScope('bob', 'write'),
    nock(API)
      .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
      .reply(201, {}),
    openPullScope('acme/lib', 3, LIB_HEAD),
    openPullScope('acme/api', 2, API_HEAD),
    openPullScope('acme/web', 1, WEB_HEAD),
    mergeScope('acme/lib', 3, order, {}),
    mergeScope('acme/api', 2, order, {}),
    mergeScope('acme/web', 1, order, {}, [405, { message: 'Required status check "ci" is failing.' }]),
  ];
  await comment('/conveyor approve', 'bob');
  allDone(scopes);
  expect(order).toEqual(['acme/lib#3', 'acme/api#2', 'acme/web#1']);
  return report;
}

/** GitHub's answer to GET of a merged PR (the revert reads its GraphQL id). */
function mergedPullScope(repo: string, number: number, nodeId: string): nock.Scope {
  return nock(API)
    .get(`/repos/${repo}/pulls/${number}`)
    .reply(200, {
      number,
      node_id: nodeId,
      html_url: `https://github.com/${repo}/pull/${number}`,
      state: 'closed',
      merged: true,
      merge_commit_sha: `m-${repo}`,
      title: 'Add a feature file (#7)',
      body: '',
      head: { ref: 'conveyor/web-7', sha: 'f'.repeat(40) },
      base: { ref: 'main' },
    });
}

/** GitHub's branch of the revert of `repo`#`reverted` (the fleet's PRs are all on conveyor/web-7). */
const revertBranch = (reverted: number) => `revert-${reverted}-conveyor/web-7`;

/** GitHub's answer to the open PRs of a revert branch: none yet, or the revert PR `open` opened before. */
function revertBranchScope(repo: string, reverted: number, open?: { number: number; head: string }): nock.Scope {
  return nock(API)
    .get(`/repos/${repo}/pulls`)
    .query({ head: `acme:${revertBranch(reverted)}`, state: 'open', per_page: '10' })
    .reply(
      200,
      open
        ? [
            {
              number: open.number,
              node_id: `PR_revert_${open.number}`,
              html_url: `https://github.com/${repo}/pull/${open.number}`,
              state: 'open',
              title: 'Revert "Add a feature file (#7)"',
              body: '',
              draft: false,
              head: { ref: revertBranch(reverted), sha: open.head },
              base: { ref: 'main' },
            },
          ]
        : [],
    );
}

/** GraphQL's revertPullRequest of `nodeId` (`repo`#`reverted`), answered with the revert PR `number` (its input collected). */
function revertMutationScope(nodeId: string, repo: string, reverted: number, number: number, head: string, inputs: Array<Record<string, unknown>>): nock.Scope {
  return nock(API)
    .post('/graphql', (b: { query: string; variables: { input: Record<string, unknown> } }) => {
      if (!b.query.includes('revertPullRequest(input: $input)') || b.variables.input.pullRequestId !== nodeId) return false;
      inputs.push(b.variables.input);
      return true;
    })
    .reply(200, {
      data: {
        revertPullRequest: {
          revertPullRequest: {
            id: `PR_revert_${number}`,
            number,
            url: `https://github.com/${repo}/pull/${number}`,
            headRefName: revertBranch(reverted),
            headRefOid: head,
            baseRefName: 'main',
            title: 'Revert "Add a feature file (#7)"',
            body: String(inputs.at(-1)?.body ?? ''),
            state: 'OPEN',
            merged: false,
            isDraft: false,
          },
        },
      },
    });
}

/**
 * Opening the reverts of acme/api#2 and acme/lib#3 (consumers first): each merged PR read, its revert
 * branch found without an open PR, GitHub's revert (acme/api#12, acme/lib#13), then the bodies
 * linking them (`bodies`).
 */
function openingScopes(inputs: Array<Record<string, unknown>>, bodies: Record<string, string>): nock.Scope[] {
  return [
    mergedPullScope('acme/api', 2, 'PR_api'),
    revertBranchScope('acme/api', 2),
    revertMutationScope('PR_api', 'acme/api', 2, 12, API_REVERT_HEAD, inputs),
    mergedPullScope('acme/lib', 3, 'PR_lib'),
    revertBranchScope('acme/lib', 3),
    revertMutationScope('PR_lib', 'acme/lib', 3, 13, LIB_REVERT_HEAD, inputs),
    ...linkingScopes(bodies),
  ];
}

/** The revert PRs' bodies, each naming the other. */
function linkingScopes(bodies: Record<string, string>): nock.Scope[] {
  return [
    ['acme/api', 12],
    ['acme/lib', 13],
  ].map(([repo, n]) =>
    nock(API)
      .patch(`/repos/${repo}/pulls/${n}`, (b: { body: string }) => ((bodies[repo as string] = b.body), true))
      .reply(200, { number: n, html_url: 'x', state: 'open', title: 't', body: '', head: { ref: 'r', sha: 's' }, base: { ref: 'main' } }),
  );
}

/**
 * The revert run starting: its tracking comment (`comments`), its check runs on its first PR's
 * head (acme/api's revert PR: the primary repository has none), the command's rocket, and its
 * summary check run on the same head (`summaries`, each write).
 */
function revertRunScopes(comments: string[]): { scopes: nock.Scope[]; summaries: Array<Record<string, unknown>> } {
  const summaries: Array<Record<string, unknown>> = [];
  nock(API)
    .persist()
    .patch('/repos/acme/api/check-runs/701', (b: Record<string, unknown>) => summaries.push(b) > 0)
    .reply(200, {});
  return {
    summaries,
    scopes: [
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => comments.push(b.body) > 0)
        .reply(201, { id: 901, html_url: 'https://github.com/acme/web/issues/7#issuecomment-901' }),
      nock(API)
        .post(
          '/repos/acme/api/check-runs',
          (b: { name: string; external_id: string; head_sha: string }) =>
            b.name === 'conveyor / approve' && b.external_id === `${REVERT}:approve:0:0` && b.head_sha === API_REVERT_HEAD,
        )
        .reply(201, { id: 700, html_url: 'https://github.com/acme/web/runs/700', status: 'in_progress', output: {} }),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/, { content: 'rocket' })
        .reply(201, {}),
      nock(API)
        .post(
          '/repos/acme/api/check-runs',
          (b: { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === API_REVERT_HEAD && summaries.push(b) > 0,
        )
        .reply(201, { id: 701, html_url: 'https://github.com/acme/api/runs/701', status: 'in_progress', output: {} }),
    ],
  };
}

describe('/conveyor revert on GitHub', () => {
  it('opens revert PRs of what merged, consumers first, linked to each other; the revert run merges them once approved', async () => {
    await mergePartWay();
    let run = await h.conveyor.engine.get(RUN);
    expect(run.steps.ship).toMatchObject({ status: 'failed', result: { commits: { 'acme/lib': 'm-acme/lib', 'acme/api': 'm-acme/api' } } });
    const inputs: Array<Record<string, unknown>> = [];
    const bodies: Record<string, string> = {};
    const comments: string[] = [];
    const scopes = [
      permissionScope('carol', 'write'),
      // Consumers first: acme/api (which uses acme/lib) is reverted before acme/lib.
      ...openingScopes(inputs, bodies),
      // The run is cancelled: its environment is torn down (the deploy step's teardown, dispatched).
      dispatchScope('preview', 901, []),
    ];
    const started = revertRunScopes(comments);
    await comment('/conveyor revert', 'carol');
    allDone(scopes);
    allDone(started.scopes);
    expect(h.logged.filter((l) => /failed|could not/.test(l))).toEqual([]);

    // Each revert PR says what it reverts, and names the other.
    expect(inputs.map((i) => i.title)).toEqual(['Revert "Add a feature file (#7)"', 'Revert "Add a feature file (#7)"']);
    expect(inputs.every((i) => i.draft === false)).toBe(true);
    expect(bodies['acme/api']).toContain('Reverts acme/api#2, merged by Conveyor run `acme-web-7`');
    expect(bodies['acme/api']).toContain('(not merged: acme/web#1)');
    expect(bodies['acme/api']).toContain('- acme/api#12 (this one)\n- acme/lib#13');
    expect(bodies['acme/lib']).toContain('- acme/api#12\n- acme/lib#13 (this one)');

    run = await h.conveyor.engine.get(RUN);
    expect(run).toMatchObject({ status: 'cancelled', reason: `cancelled by carol: reverting what it merged: run \`${REVERT}\`` });
    let revert = await h.conveyor.engine.get(REVERT);
    expect(revert).toMatchObject({ status: 'waiting', revertOf: RUN, requester: 'carol' });
    expect(revert.plan.steps.map((s) => s.id)).toEqual(['approve', 'ship']);
    expect(revert.prs.map((p) => `${p.repo}#${p.number}`)).toEqual(['acme/api#12', 'acme/lib#13']);
    expect(comments[0]).toContain(`Conveyor run \`${REVERT}\``);
    expect(comments[0]).toContain('Waiting for approval');
    // Its summary check run, on its first PR's head: the command that continues it.
    expect(started.summaries[0]).toMatchObject({ external_id: REVERT });
    expect(started.summaries.at(-1)).toMatchObject({ conclusion: 'action_required' });

    // carol asked for it, so she does not count; bob approves, and the reverts merge consumers first.
    const order: string[] = [];
    const messages: Record<string, string> = {};
    nock(API)
      .persist()
      .patch(/\/repos\/acme\/web\/(issues\/comments\/901|check-runs\/70\d)/)
      .reply(200, {});
    const merging = [
      permissionScope('bob', 'write'),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/, { content: '+1' })
        .reply(201, {}),
      openPullScope('acme/api', 12, API_REVERT_HEAD),
      openPullScope('acme/lib', 13, LIB_REVERT_HEAD),
      mergeScope('acme/api', 12, order, messages),
      mergeScope('acme/lib', 13, order, messages),
    ];
    await comment('/conveyor approve', 'bob');
    allDone(merging);
    expect(order).toEqual(['acme/api#12', 'acme/lib#13']);
    expect(messages['acme/lib']).toContain('Revert "Add a feature file" (acme/web#7)\n\nReverts what Conveyor run acme-web-7 merged for acme/web#7.');
    expect(messages['acme/lib']).toMatch(/^Conveyor-Run: acme-web-7-revert$/m);
    expect(messages['acme/lib']).toMatch(/^Conveyor-Reverts: acme-web-7$/m);
    expect(messages['acme/lib']).toMatch(/^Approved-by: bob$/m);
    revert = await h.conveyor.engine.get(REVERT);
    expect(revert.status).toBe('succeeded');
  });

  it('a redelivered /conveyor revert, after the revert PRs opened and the revert run failed to start, takes the open revert PRs and opens no second set', async () => {
    await mergePartWay();
    const inputs: Array<Record<string, unknown>> = [];
    const bodies: Record<string, string> = {};
    const first = [permissionScope('carol', 'write'), ...openingScopes(inputs, bodies), dispatchScope('preview', 901, [])];
    // The store is busy for a moment as the revert run is stored: the delivery fails, and GitHub delivers it again.
    const store = h.conveyor.deps.store;
    const create = vi.spyOn(store, 'create').mockRejectedValueOnce(new StoreError('unavailable', 'The state database is busy.'));
    const delivery = 'revert-delivery';
    await expect(h.receive('issue_comment', webhooks.comment('/conveyor revert', 'carol'), delivery)).rejects.toThrow(/busy/);
    await h.conveyor.idle();
    expect(inputs).toHaveLength(2);
    expect(await store.get(REVERT)).toBeUndefined();
    create.mockRestore();

    // Asked again: GitHub still reverts each PR's merge on its own branch, where the revert PR opened before is open.
    const comments: string[] = [];
    const again = [
      permissionScope('carol', 'write'),
      mergedPullScope('acme/api', 2, 'PR_api'),
      revertBranchScope('acme/api', 2, { number: 12, head: API_REVERT_HEAD }),
      mergedPullScope('acme/lib', 3, 'PR_lib'),
      revertBranchScope('acme/lib', 3, { number: 13, head: LIB_REVERT_HEAD }),
      ...linkingScopes(bodies),
    ];
    // What a second revert would take (GitHub would open another pair): asked for, it shows in `inputs`.
    nock(API)
      .persist()
      .post('/graphql', (b: { query: string; variables: { input: Record<string, unknown> } }) => inputs.push(b.variables.input) > 0)
      .reply(200, { data: null, errors: [{ type: 'UNPROCESSABLE', message: 'a second revert' }] });
    const started = revertRunScopes(comments);
    await h.receive('issue_comment', webhooks.comment('/conveyor revert', 'carol'), delivery);
    expect(inputs).toHaveLength(2);
    allDone(first);
    allDone(again);
    allDone(started.scopes);
    const revert = await h.conveyor.engine.get(REVERT);
    expect(revert).toMatchObject({ status: 'waiting', revertOf: RUN, requester: 'carol' });
    expect(revert.prs.map((p) => `${p.repo}#${p.number}@${p.head}`)).toEqual([`acme/api#12@${API_REVERT_HEAD}`, `acme/lib#13@${LIB_REVERT_HEAD}`]);
    expect(bodies['acme/api']).toContain('- acme/api#12 (this one)\n- acme/lib#13');
    expect((await h.conveyor.engine.get(RUN)).status).toBe('cancelled');
  });

  it('the tracking comment offers /conveyor revert once the merge stopped part-way', async () => {
    await seed(h, plan(), built);
    const report = reportScopes();
    approvalCheckScope([]);
    const scopes = [
      permissionScope('bob', 'write'),
      nock(API)
        .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
        .reply(201, {}),
      openPullScope('acme/lib', 3, LIB_HEAD),
      openPullScope('acme/api', 2, API_HEAD),
      openPullScope('acme/web', 1, WEB_HEAD),
      mergeScope('acme/lib', 3, [], {}),
      mergeScope('acme/api', 2, [], {}, [405, { message: 'Base branch was modified.' }]),
    ];
    await comment('/conveyor approve', 'bob');
    allDone(scopes);
    expect(report.comments.at(-1)).toContain(
      '> To undo what merged (acme/lib#3) instead, comment `/conveyor revert`: it opens revert pull requests (consumers first) that merge once approved, and cancels this run.',
    );
  });

  it('says why when GitHub refuses a revert, and leaves the run as it was', async () => {
    await mergePartWay();
    const replies: string[] = [];
    const scopes = [
      permissionScope('carol', 'write'),
      mergedPullScope('acme/api', 2, 'PR_api'),
      revertBranchScope('acme/api', 2),
      nock(API)
        .post('/graphql')
        .reply(200, {
          data: { revertPullRequest: null },
          errors: [{ type: 'UNPROCESSABLE', message: 'This pull request could not be reverted automatically.' }],
        }),
      replyScope('acme/web', 7, replies),
    ];
    await comment('/conveyor revert', 'carol');
    allDone(scopes);
    expect(replies).toEqual([
      '@carol Conveyor could not revert what run `acme-web-7` merged: could not open the revert of acme/api#2: GitHub did not revert acme/api#2: This pull request could not be reverted automatically. Run `acme-web-7` goes on as it was.',
    ]);
    expect((await h.conveyor.engine.get(RUN)).status).toBe('waiting');
    expect(await h.conveyor.deps.store.get(REVERT)).toBeUndefined();
  });

  it('refuses a run whose merge has not merged anything, saying why; nothing is opened or cancelled', async () => {
    await seed(h, plan(), built);
    const replies: string[] = [];
    const scopes = [permissionScope('carol', 'write'), replyScope('acme/web', 7, replies)];
    await comment('/conveyor revert', 'carol');
    allDone(scopes);
    expect(replies).toEqual([
      "@carol run `acme-web-7`'s merge step (`ship`) has not merged any pull request (it is pending), so there is nothing to revert. Nothing changed.",
    ]);
    expect((await h.conveyor.engine.get(RUN)).status).toBe('waiting');
    expect(await h.conveyor.deps.store.get(REVERT)).toBeUndefined();
  });

  it('refuses someone without write permission on the primary repository, and a bot', async () => {
    await mergePartWay();
    const replies: string[] = [];
    const scopes = [permissionScope('dave', 'read'), replyScope('acme/web', 7, replies), replyScope('acme/web', 7, replies)];
    await comment('/conveyor revert', 'dave');
    const bot = webhooks.comment('/conveyor revert', 'helper[bot]');
    await h.receive('issue_comment', {
      ...bot,
      comment: { ...bot.comment, user: { login: 'helper[bot]', type: 'Bot' } },
      sender: { login: 'helper[bot]', type: 'Bot' },
    });
    allDone(scopes);
    expect(replies[0]).toBe(
      "@dave only people with write permission on acme/web can `revert` Conveyor run `acme-web-7` (you have read there): acme/web is the run's primary repository, wherever the command is given. Nothing changed.",
    );
    expect(replies[1]).toBe('@helper[bot] bots cannot give Conveyor commands (`/conveyor revert`). Nothing changed.');
    expect((await h.conveyor.engine.get(RUN)).status).toBe('waiting');
    expect(await h.conveyor.deps.store.get(REVERT)).toBeUndefined();
  });
});
