// nock scopes of the app's usual calls, and the runner's part: the real action for a dispatch.
import nock from 'nock';
import { join } from 'node:path';
import { expect } from 'vitest';
import { API, BOT, runActionChild, tokenScope, webhooks, type fakeCheckRuns, type Harness } from './harness.ts';

type FakeGitHub = Awaited<ReturnType<typeof fakeCheckRuns>>;

export const CONFIG = `version: 1
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
      - { id: check, kind: gate, run: test -f feature.txt }
      - { id: ship, kind: merge }
`;
export const BASE_SHA = 'b'.repeat(40);
/** The tree of BASE_SHA, and the draft PR's head: an empty commit on it (its tree, BASE_SHA its parent). */
export const BASE_TREE = 'e'.repeat(40);
export const DRAFT_SHA = 'd'.repeat(40);

/**
 * The run's draft PR in acme/web as the run starts, before its first dispatch: the base's head
 * and tree, the empty commit on it, the work branch at that commit, and the draft PR (#1) on that
 * branch, each request's body checked. `bodies` collects the PR's.
 */
export function draftPrScope(bodies: Array<Record<string, unknown>> = [], branch = 'conveyor/web-7', base = 'main'): nock.Scope {
  return nock(API)
    .get(`/repos/acme/web/branches/${encodeURIComponent(base)}`)
    .reply(200, { name: base, commit: { sha: BASE_SHA, commit: { tree: { sha: BASE_TREE } } } })
    .post('/repos/acme/web/git/commits', (b: { tree: string; parents: string[] }) => b.tree === BASE_TREE && b.parents.join() === BASE_SHA)
    .reply(201, { sha: DRAFT_SHA })
    .post('/repos/acme/web/git/refs', { ref: `refs/heads/${branch}`, sha: DRAFT_SHA })
    .reply(201, { ref: `refs/heads/${branch}`, object: { sha: DRAFT_SHA } })
    .post('/repos/acme/web/pulls', (b: Record<string, unknown>) => b.draft === true && b.head === branch && b.base === base && bodies.push(b) > 0)
    .reply(201, {
      number: 1,
      node_id: 'PR_1',
      html_url: 'https://github.com/acme/web/pull/1',
      title: 'Add a feature file (#7)',
      body: '',
      state: 'open',
      draft: true,
      head: { ref: branch, sha: DRAFT_SHA },
      base: { ref: base },
    });
}

/**
 * What the merge step asks of one PR it judges: `GET` of an open PR that merges cleanly at `head`
 * (`extra` may say otherwise), and, where that read lets it merge (open, not a draft, its
 * mergeability known and not a conflict), the rules of its base branch: `rules` (none by default).
 */
export function openPullScope(repo: string, number: number, head: string, extra: Record<string, unknown> = {}, rules: object[] = []): nock.Scope {
  const body = {
    state: 'open',
    merged: false,
    merge_commit_sha: null,
    mergeable: true,
    mergeable_state: 'clean',
    head: { sha: head },
    base: { ref: 'main' },
    ...extra,
  };
  const scope = nock(API).get(`/repos/${repo}/pulls/${number}`).reply(200, body);
  const mergeable =
    body.state === 'open' && !body.merged && !(body as { draft?: boolean }).draft && body.mergeable === true && body.mergeable_state !== 'dirty';
  return mergeable ? scope.get(`/repos/${repo}/rules/branches/${body.base.ref}`).query(true).reply(200, rules) : scope;
}

/** GitHub's answer to what permission `user` has on `repo` (asked before anyone starts or decides: on the run's primary repository, acme/web). */
export function permissionScope(user: string, permission: string, repo = 'acme/web'): nock.Scope {
  return nock(API).get(`/repos/${repo}/collaborators/${user}/permission`).reply(200, { permission });
}

export function configScope(text = CONFIG): nock.Scope {
  return nock(API)
    .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
    .query({ ref: 'main' })
    .reply(200, { type: 'file', encoding: 'base64', content: Buffer.from(text).toString('base64'), path: '.github/conveyor.yml' });
}

export interface Dispatched {
  checkRunId: number;
  externalId: string;
  inputs: Record<string, string>;
  headSha: string;
  /** The check run's name: `conveyor / <step>`, a repair's `conveyor / <step> (repair N)`, a teardown's `(teardown)`. */
  name: string;
}

/**
 * The reporter looking for the summary check run `conveyor` of a run it did not start, on a head
 * it has no record for (none there): it makes one after.
 */
export function noSummaryOnHead(head: string, runId = 'acme-web-7'): nock.Scope {
  return nock(API)
    .get(`/repos/acme/web/commits/${head}/check-runs`)
    .query({ check_name: 'conveyor', filter: 'all', per_page: '100' })
    .reply(200, {
      total_count: 1,
      check_runs: [
        {
          id: 99,
          name: 'conveyor',
          external_id: `${runId}-other`,
          status: 'completed',
          conclusion: 'success',
          html_url: 'x',
          details_url: null,
          started_at: null,
          output: { summary: null, text: null },
        },
      ],
    });
}

/** nock of one step's dispatch: its check run, then the workflow_dispatch; the captured request bodies. */
export function dispatchScope(step: string, checkRunId: number, into: Dispatched[]): nock.Scope {
  const d: Partial<Dispatched> = { checkRunId };
  return nock(API)
    .post('/repos/acme/web/check-runs', (b: { name: string; status: string; external_id: string; head_sha: string }) => {
      if (b.name !== `conveyor / ${step}` && !b.name.startsWith(`conveyor / ${step} (`)) return false;
      d.name = b.name;
      d.externalId = b.external_id;
      d.headSha = b.head_sha;
      return b.status === 'queued';
    })
    .reply(201, (_u, b) => ({
      id: checkRunId,
      html_url: `https://github.com/acme/web/runs/${checkRunId}`,
      status: 'queued',
      conclusion: null,
      external_id: (b as { external_id: string }).external_id,
      details_url: null,
      started_at: null,
      output: { summary: null, text: null },
    }))
    .post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches', (b: { ref: string; inputs: Record<string, string> }) => {
      if (b.inputs['check-run'] !== String(checkRunId)) return false;
      d.inputs = b.inputs;
      into.push(d as Dispatched);
      return b.ref === 'main';
    })
    .reply(204);
}

/** What GitHub's runner does with a dispatch: the action, from source, against the fake check runs. */
export async function runDispatched(d: Dispatched, f: FakeGitHub, remotesUrl: string, workDir: string, runId = 777) {
  f.checks.set(d.checkRunId, { id: d.checkRunId, name: `conveyor / ${d.externalId.split(':')[1]}`, status: 'queued', external_id: d.externalId });
  const out = await runActionChild({
    INPUT_PAYLOAD: d.inputs.payload!,
    INPUT_TOKEN: 'ghs_action',
    CONVEYOR_CHECK_RUN_ID: String(d.checkRunId),
    GITHUB_REPOSITORY: 'acme/web',
    GITHUB_API_URL: f.url,
    GITHUB_SERVER_URL: remotesUrl,
    GITHUB_RUN_ID: String(runId),
    CONVEYOR_WORKSPACE_ROOT: join(workDir, `ws-${d.checkRunId}`),
  });
  return { out, check: f.checks.get(d.checkRunId)! };
}

/** A run of acme/web's Conveyor workflow as GitHub lists it, naming the check run it works for. */
export interface ListedRun {
  checkRun: number;
  status: string;
  startedAt?: string;
  conclusion?: string;
  /** Who started it (default: the app's bot, as for the app's own dispatches). */
  actor?: string;
  /** When GitHub made it: a run made before the query's `created` bound is not listed, as on GitHub. */
  createdAt?: string;
}

/**
 * GitHub's list of the Conveyor workflow's dispatched runs in acme/web (the sweeper looks there for
 * an attempt whose dispatch did not say which run it started): each run names its check run; run
 * `i` is workflow run `700 + i`. `queries` collects each query's `created` bound.
 */
export function workflowRunsScope(runs: ListedRun[], queries: string[] = []): nock.Scope {
  return nock(API)
    .get('/repos/acme/web/actions/workflows/conveyor.yml/runs')
    .query((q) => q.event === 'workflow_dispatch' && typeof q.created === 'string' && q.created.startsWith('>=') && queries.push(q.created) > 0)
    .reply(200, (uri) => {
      const since = Date.parse(new URL(uri, API).searchParams.get('created')!.slice(2));
      const listed = runs
        .map((r, i) => ({
          id: 700 + i,
          html_url: `https://github.com/acme/web/actions/runs/${700 + i}`,
          display_title: `conveyor / step [check run ${r.checkRun}]`,
          status: r.status,
          conclusion: r.conclusion ?? null,
          run_started_at: r.startedAt ?? null,
          created_at: r.createdAt ?? r.startedAt ?? null,
          actor: { login: r.actor ?? BOT },
        }))
        .filter((r) => r.created_at === null || Date.parse(r.created_at) >= since);
      return { total_count: listed.length, workflow_runs: listed };
    });
}

/** Starts the run of issue 7 (configuration CONFIG) with its first dispatch (check run `firstCheck`), every call asserted. */
export async function startIssue7(h: Harness, dispatched: Dispatched[], firstCheck = 101): Promise<void> {
  const scopes = [
    tokenScope(),
    configScope(),
    permissionScope('alice', 'write'),
    draftPrScope(),
    dispatchScope('implement', firstCheck, dispatched),
    nock(API).post('/repos/acme/web/issues/7/comments').reply(201, { id: 900, html_url: 'c' }),
    nock(API)
      .post('/repos/acme/web/check-runs', (b: { name: string }) => b.name === 'conveyor')
      .reply(201, { id: 500, html_url: 'x', status: 'in_progress', output: {} }),
  ];
  await h.receive('issues', webhooks.labeled(), 'label-1');
  for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
}
