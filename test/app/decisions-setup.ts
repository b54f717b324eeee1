// Runs seeded into the app's real store at a chosen point (built with the pure reducer, as the
// engine would have left them), and webhook payloads for PR comments, reviews, buttons and PR
// events, built from the fixtures in test/fixtures/webhooks (copied from @octokit/webhooks-examples).
import nock from 'nock';
import { expect } from 'vitest';
import { createRun, reduce } from '../../core/run/reducer.ts';
import type { Run, RunEvent } from '../../core/run/types.ts';
import type { Plan } from '../../core/plan/types.ts';
import type { Environment, PullRequestRef, StepResult } from '../../core/contract/wire.ts';
import { completionOf, planOf, type StepSpec } from '../helpers/plans.ts';
import { PR_STATUS_END, PR_STATUS_START } from '../../core/github/pr-body.ts';
import { API, APP_ID, fixture, INSTALLATION, repoOf, webhooks, type Harness } from './harness.ts';
import { permissionScope } from './scopes.ts';

export const RUN = 'acme-web-7';
export const AT = '2025-03-01T09:00:00.000Z';
export const WEB_HEAD = 'a'.repeat(40);

export const pr = (repo: string, number: number, head: string): PullRequestRef => ({
  repo,
  number,
  url: `https://github.com/${repo}/pull/${number}`,
  branch: 'conveyor/web-7',
  head,
});

/** A plan over acme/web, or over web -> api -> lib (three repositories, providers first) with `fleet`. */
export function planWith(specs: StepSpec[], fleet = false): Plan {
  const plan = planOf(specs);
  if (!fleet) return plan;
  return {
    ...plan,
    involves: ['api', 'lib'],
    services: {
      web: { name: 'web', repo: 'acme/web', base: 'main', dependsOn: ['api'], deploy: { run: './up.sh', teardown: './down.sh', timeoutMinutes: 10 } },
      api: { name: 'api', repo: 'acme/api', base: 'main', dependsOn: ['lib'], deploy: null },
      lib: { name: 'lib', repo: 'acme/lib', base: 'main', dependsOn: [], deploy: null },
    },
    changeSet: [
      { repo: 'acme/web', base: 'main', role: 'primary', services: ['web'] },
      { repo: 'acme/api', base: 'main', role: 'sibling', services: ['api'] },
      { repo: 'acme/lib', base: 'main', role: 'sibling', services: ['lib'] },
    ],
    deployWaves: [['lib'], ['api'], ['web']],
  };
}

/** Drives a new run through the reducer: every queued step succeeds (with `extra` for its result) until nothing is queued. */
export async function seed(
  h: Harness,
  plan: Plan,
  extra: Record<string, Partial<StepResult>> = {},
  options: { events?: RunEvent[]; leaveQueued?: string; queuedCheckRun?: number; approvalCheck?: boolean; prs?: PullRequestRef[] } = {},
): Promise<Run> {
  let run = createRun({
    id: RUN,
    plan,
    issue: { repo: 'acme/web', number: 7, title: 'Add a feature file', body: 'Please add feature.txt.', url: 'https://github.com/acme/web/issues/7' },
    requester: 'alice',
    origin: { kind: 'github', installationId: INSTALLATION, defaultBranch: 'main' },
    ...(options.prs ? { prs: options.prs } : {}),
    at: AT,
  });
  run = reduce(run, { type: 'started', at: AT }).run;
  for (let i = 0; i < 20; i++) {
    const q = Object.values(run.steps).find(
      (s) => s.status === 'queued' && s.id !== options.leaveQueued && plan.steps.find((p) => p.id === s.id)?.kind !== 'merge',
    );
    if (!q) break;
    run = reduce(run, { ...completionOf(run, q.id, 'success', extra[q.id]), at: AT } as RunEvent).run;
  }
  for (const e of options.events ?? []) run = reduce(run, e).run;
  await h.conveyor.deps.store.create(run, []);
  // What the engine's reports left: the tracking comment and the summary check run on the head.
  await h.conveyor.deps.links.saveComment(RUN, { id: 900, url: 'https://github.com/acme/web/issues/7#issuecomment-900' });
  const head = run.prs.find((p) => p.repo === 'acme/web')?.head;
  if (head) await h.conveyor.deps.links.saveSummary(RUN, head, 500);
  // The check run the app dispatched the step left queued to (`queuedCheckRun`), as its dispatch recorded it.
  const queued = options.leaveQueued ? run.steps[options.leaveQueued] : undefined;
  if (queued && options.queuedCheckRun !== undefined) {
    const externalId = `${RUN}:${queued.id}:${queued.attempt}:${queued.epoch}`;
    await h.conveyor.deps.links.saveAttempt({
      externalId,
      runId: RUN,
      repo: 'acme/web',
      state: 'dispatched',
      head: head ?? WEB_HEAD,
      checkRunId: options.queuedCheckRun,
      at: AT,
    });
  }
  // The approval step's check run (600) on that head, as its first report made it.
  if (head && options.approvalCheck !== false && run.steps.approve?.status === 'waiting') {
    await h.conveyor.deps.links.saveAttempt({
      externalId: `${RUN}:approve:0:0`,
      runId: RUN,
      repo: 'acme/web',
      state: 'dispatched',
      head,
      checkRunId: 600,
      at: AT,
    });
  }
  return await h.conveyor.engine.get(RUN);
}

/**
 * The reports every transition makes (tracking comment, summary check), persisted; their bodies
 * collected. A summary check run completed while the run waited is made anew when it goes on
 * (GitHub never reopens a completed one): those are 510, 511, … on `head` (the seeded PR's).
 * With `prBodies` (the default), the PR bodies' status sections too (app/pr-status.ts): each body
 * read as its issue's, and written (only a write that carries the status markers: a PR's other
 * updates, such as a reopen, are the test's own), not among the scopes asserted.
 */
export function reportScopes(
  head = WEB_HEAD,
  options: { prBodies?: boolean } = {},
): { comments: string[]; approvalChecks: ApprovalPatch[]; summaries: SummaryWrite[]; prBodies: string[]; scopes: nock.Scope[] } {
  const comments: string[] = [];
  const approvalChecks: ApprovalPatch[] = [];
  const summaries: SummaryWrite[] = [];
  const prBodies: string[] = [];
  let next = 510;
  if (options.prBodies !== false) {
    nock(API)
      .persist()
      .get(/^\/repos\/acme\/\w+\/issues\/\d+$/)
      .reply(200, (uri) => ({
        number: Number(uri.split('/').pop()),
        body: `The body the action wrote.\n\n${PR_STATUS_START}\nsee the tracking comment\n${PR_STATUS_END}`,
      }));
    nock(API)
      .persist()
      .patch(
        /^\/repos\/acme\/\w+\/pulls\/\d+$/,
        (b: { body?: string }) => typeof b.body === 'string' && b.body.includes(PR_STATUS_START) && prBodies.push(b.body) > 0,
      )
      .reply(200, (uri) => ({
        number: Number(uri.split('/').pop()),
        html_url: 'x',
        state: 'open',
        head: { ref: 'conveyor/web-7', sha: head },
        base: { ref: 'main' },
      }));
  }
  // Not among the scopes a test asserts done: a run that never waits makes none.
  nock(API)
    .persist()
    .post(
      '/repos/acme/web/check-runs',
      (b: SummaryWrite & { name: string; head_sha: string }) => b.name === 'conveyor' && b.head_sha === head && summaries.push(b) > 0,
    )
    .reply(201, () => ({ id: next++, html_url: `https://github.com/acme/web/runs/${next - 1}`, status: 'in_progress', output: {} }));
  return {
    comments,
    approvalChecks,
    summaries,
    prBodies,
    scopes: [
      nock(API)
        .persist()
        .patch('/repos/acme/web/issues/comments/900', (b: { body: string }) => comments.push(b.body) > 0)
        .reply(200, {}),
      nock(API)
        .persist()
        .patch(/^\/repos\/acme\/web\/check-runs\/(500|51\d)$/, (b: SummaryWrite) => summaries.push(b) > 0)
        .reply(200, {}),
    ],
  };
}

/** A write of the summary check run `conveyor`. */
export interface SummaryWrite {
  status?: string;
  conclusion?: string;
  output?: { title: string; summary: string };
}

export interface ApprovalPatch {
  status?: string;
  conclusion?: string;
  actions?: Array<{ identifier: string; label: string }>;
  output?: { title: string; summary: string };
}

/** Updates of the approval check run 600, collected. */
export function approvalCheckScope(into: ApprovalPatch[]): nock.Scope {
  return nock(API)
    .persist()
    .patch('/repos/acme/web/check-runs/600', (b: ApprovalPatch) => into.push(b) > 0)
    .reply(200, {});
}

/** Replies (new comments) on an issue or PR, collected. */
export function replyScope(repo: string, number: number, into: string[]): nock.Scope {
  return nock(API)
    .post(`/repos/${repo}/issues/${number}/comments`, (b: { body: string }) => into.push(b.body) > 0)
    .reply(201, { id: 1000 + into.length, html_url: 'c' });
}

export { permissionScope };

/** `/conveyor approve` by bob, a writer, on the issue (its +1 reaction asserted done). */
export async function approveByComment(h: Harness): Promise<void> {
  const scopes = [
    permissionScope('bob', 'write'),
    nock(API)
      .post(/\/repos\/acme\/web\/issues\/comments\/\d+\/reactions/)
      .reply(201, {}),
  ];
  await h.receive('issue_comment', webhooks.comment('/conveyor approve', 'bob'));
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
}

const user = (login: string, type = 'User') => ({ login, type, id: login.length });

export const events = {
  /** An issue comment on a PR (GitHub sends PR comments as issue comments with `issue.pull_request`). */
  prComment(body: string, login: string, repo = 'acme/web', number = 1, id = 4242, type = 'User') {
    const p = fixture('issue_comment.created');
    const issue = {
      ...(p.issue as object),
      number,
      title: 'Conveyor: Add a feature file',
      body: '',
      html_url: `https://github.com/${repo}/pull/${number}`,
      pull_request: { url: `${API}/repos/${repo}/pulls/${number}` },
    };
    return {
      ...p,
      issue,
      comment: { ...(p.comment as object), id, html_url: `https://github.com/${repo}/pull/${number}#issuecomment-${id}`, body, user: user(login, type) },
      repository: repoOf(repo),
      sender: user(login, type),
      installation: { id: INSTALLATION },
    };
  },
  review(body: string, login: string, repo = 'acme/web', number = 1, state = 'commented', type = 'User') {
    const p = fixture('pull_request_review.submitted');
    return {
      ...p,
      review: {
        ...(p.review as object),
        id: 3131,
        html_url: `https://github.com/${repo}/pull/${number}#pullrequestreview-3131`,
        body,
        state,
        user: user(login, type),
      },
      pull_request: { ...(p.pull_request as object), number },
      repository: repoOf(repo),
      sender: user(login, type),
      installation: { id: INSTALLATION },
    };
  },
  button(identifier: string, login: string, check: { id: number; external_id: string; name: string }) {
    const p = fixture('check_run.requested_action');
    const c = p.check_run as { app: object };
    return {
      ...p,
      check_run: { ...c, ...check, status: 'in_progress', conclusion: null, app: { ...c.app, id: APP_ID } },
      requested_action: { identifier },
      repository: repoOf('acme/web'),
      sender: user(login),
      installation: { id: INSTALLATION },
    };
  },
  /** `check_run.completed` of one of the app's step check runs, carrying a result in its output. */
  checkCompleted(id: number, externalId: string, name: string, text: string) {
    const p = events.button('x', 'nobody', { id, external_id: externalId, name });
    return {
      ...p,
      action: 'completed',
      check_run: { ...p.check_run, status: 'completed', conclusion: 'success', output: { title: 'ok', summary: 'ok', text } },
    };
  },
  /** A PR event (`edited`: as `synchronize`'s payload, the fixtures having no edit of a PR). */
  pull(action: 'synchronize' | 'closed' | 'edited', repo: string, number: number, head: string, login: string, merged = false, type = 'User') {
    const p = fixture(action === 'closed' ? 'pull_request.closed' : 'pull_request.synchronize');
    const pull = p.pull_request as { head: object };
    return {
      ...p,
      action,
      number,
      pull_request: { ...pull, number, merged, state: action === 'closed' ? 'closed' : 'open', head: { ...pull.head, sha: head } },
      repository: repoOf(repo),
      sender: user(login, type),
      installation: { id: INSTALLATION },
    };
  },
};

export const readyEnv: Environment = {
  service: 'web',
  envId: 'web-7',
  state: 'ready',
  url: 'https://web-7.preview.example',
  deployment: { repo: 'acme/web', id: 31 },
};

export const API_HEAD = '2'.repeat(40);
export const LIB_HEAD = '3'.repeat(40);
/** The PRs of a run over the fleet (planWith(…, true)), one per repository. */
export const FLEET_PRS = [pr('acme/web', 1, WEB_HEAD), pr('acme/api', 2, API_HEAD), pr('acme/lib', 3, LIB_HEAD)];
/** A run over the fleet: its code, its previews, an approval and the merge. */
export const fleetPlan = () =>
  planWith(
    [
      { id: 'implement', kind: 'code' },
      { id: 'preview', kind: 'deploy' },
      { id: 'approve', kind: 'approval' },
      { id: 'ship', kind: 'merge' },
    ],
    true,
  );
/** What its code and preview steps left (seed's results): the three PRs and web's environment. */
export const fleetBuilt = {
  implement: { prs: FLEET_PRS, commits: { 'acme/web': WEB_HEAD, 'acme/api': API_HEAD, 'acme/lib': LIB_HEAD } },
  preview: { environments: [readyEnv] },
};
