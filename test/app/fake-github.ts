// GitHub's REST API for many runs at once, mocked with nock at the HTTP boundary and keeping state
// as GitHub does: check runs (listed by commit and name, as the dispatcher and the reporter look
// for them; a completed one keeps its status and conclusion), issue comments, and every
// workflow_dispatch, so that a test can count what was done on GitHub per attempt, whichever app
// replica did it.
import nock from 'nock';
import { API, INSTALLATION } from './harness.ts';
import { BASE_SHA, BASE_TREE } from './scopes.ts';

export interface FakeCheckRun {
  id: number;
  name: string;
  head_sha: string;
  external_id: string;
  status: string;
  conclusion: string | null;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
}

export interface FakeGitHub {
  checkRuns: FakeCheckRun[];
  comments: FakeComment[];
  /** Each workflow_dispatch: the attempt its payload names (`run:step:attempt:epoch`) and its check run. */
  dispatches: Array<{ attempt: string; checkRunId: number }>;
  /** Each run's draft PR as opened: its number (the issue's + 1000), branch, head, and how many check runs and dispatches came before it. */
  pulls: Array<{ number: number; branch: string; head: string; draft: boolean; order: number; body: string; edits: number }>;
  /** How many times each value occurs. */
  counts(values: readonly string[]): Map<string, number>;
}

/** Persisted interceptors for acme/web with `config` as its .github/conveyor.yml; alice may write. */
export function fakeGitHub(config: string): FakeGitHub {
  let next = 1000;
  const checkRuns: FakeCheckRun[] = [];
  const comments: FakeComment[] = [];
  const dispatches: FakeGitHub['dispatches'] = [];
  const pulls: FakeGitHub['pulls'] = [];
  const branches = new Map<string, string>();
  const checkRunJson = (c: FakeCheckRun) => ({
    ...c,
    html_url: `https://github.com/acme/web/runs/${c.id}`,
    details_url: null,
    started_at: null,
    output: { summary: null, text: null },
  });
  const commentJson = (c: FakeComment) => ({ id: c.id, body: c.body, html_url: `https://github.com/acme/web/issues/${c.issue}#issuecomment-${c.id}` });
  const api = nock(API).persist();
  api.post(`/app/installations/${INSTALLATION}/access_tokens`).reply(201, { token: 'ghs_test', expires_at: '2099-01-01T00:00:00Z', permissions: {} });
  api
    .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
    .query({ ref: 'main' })
    .reply(200, { type: 'file', encoding: 'base64', content: Buffer.from(config).toString('base64'), path: '.github/conveyor.yml' });
  api.get('/repos/acme/web/collaborators/alice/permission').reply(200, { permission: 'write' });
  // Each run's draft PR (the empty commit on main's head, its work branch, the PR): one per issue.
  api.get('/repos/acme/web/branches/main').reply(200, { name: 'main', commit: { sha: BASE_SHA, commit: { tree: { sha: BASE_TREE } } } });
  api.post('/repos/acme/web/git/commits').reply(201, () => ({ sha: (next++).toString(16).padStart(40, 'd') }));
  api.post('/repos/acme/web/git/refs').reply(201, (_uri, body) => {
    const b = body as { ref: string; sha: string };
    branches.set(b.ref.replace('refs/heads/', ''), b.sha);
    return { ref: b.ref, object: { sha: b.sha } };
  });
  api.post('/repos/acme/web/pulls').reply(201, (_uri, body) => {
    const b = body as { head: string; base: string; draft?: boolean; body?: string };
    // A PR's number is its issue's plus 1000, so that comments on it are not taken for the issue's.
    const number = 1000 + Number(/-(\d+)$/.exec(b.head)?.[1]);
    const pull = {
      number,
      branch: b.head,
      head: branches.get(b.head) ?? '',
      draft: b.draft === true,
      order: checkRuns.length + dispatches.length,
      body: b.body ?? '',
      edits: 0,
    };
    pulls.push(pull);
    return {
      number,
      node_id: `PR_${number}`,
      html_url: `https://github.com/acme/web/pull/${number}`,
      state: 'open',
      draft: pull.draft,
      head: { ref: b.head, sha: pull.head },
      base: { ref: b.base },
      body: pull.body,
    };
  });
  // A PR's body, read as its issue's (Pulls.body).
  api.get(/^\/repos\/acme\/web\/issues\/\d+$/).reply((uri) => {
    const pull = pulls.find((p) => p.number === Number(uri.split('/').pop()));
    return pull ? [200, { number: pull.number, body: pull.body, pull_request: {} }] : [404, { message: 'Not Found' }];
  });
  // The status section of a PR's body, rewritten as its run moves (app/pr-status.ts).
  api.patch(/^\/repos\/acme\/web\/pulls\/\d+$/).reply((uri, body) => {
    const pull = pulls.find((p) => p.number === Number(uri.split('/').pop()));
    if (!pull) return [404, { message: 'Not Found' }];
    pull.body = (body as { body: string }).body;
    pull.edits++;
    return [
      200,
      {
        number: pull.number,
        html_url: `https://github.com/acme/web/pull/${pull.number}`,
        state: 'open',
        head: { ref: pull.branch, sha: pull.head },
        base: { ref: 'main' },
        body: pull.body,
      },
    ];
  });
  api.post(/^\/repos\/acme\/web\/issues\/comments\/\d+\/reactions$/).reply(201, {});
  api.post(/^\/repos\/acme\/web\/issues\/\d+\/comments$/).reply(201, (uri, body) => {
    const comment = { id: next++, issue: Number(uri.split('/')[5]), body: (body as { body: string }).body };
    comments.push(comment);
    return commentJson(comment);
  });
  api.post('/repos/acme/web/check-runs').reply(201, (_uri, body) => {
    const b = body as { name: string; head_sha: string; external_id?: string; status?: string; conclusion?: string };
    const check = {
      id: next++,
      name: b.name,
      head_sha: b.head_sha,
      external_id: b.external_id ?? '',
      status: b.status ?? 'queued',
      conclusion: b.conclusion ?? null,
    };
    checkRuns.push(check);
    return checkRunJson(check);
  });
  api.patch(/^\/repos\/acme\/web\/check-runs\/\d+$/).reply((uri, body) => {
    const check = checkRuns.find((c) => c.id === Number(uri.split('/').pop()));
    if (!check) return [404, { message: 'Not Found' }];
    const patch = { ...(body as Record<string, unknown>) };
    // As GitHub: a completed check run's status and conclusion never change again (its output may).
    if (check.status === 'completed') for (const k of ['status', 'conclusion', 'completed_at']) delete patch[k];
    Object.assign(check, patch);
    return [200, checkRunJson(check)];
  });
  api.get(/^\/repos\/acme\/web\/check-runs\/\d+$/).reply((uri) => {
    const check = checkRuns.find((c) => c.id === Number(uri.split('/').pop()));
    return check ? [200, checkRunJson(check)] : [404, { message: 'Not Found' }];
  });
  api
    .get(/^\/repos\/acme\/web\/commits\/[0-9a-f]+\/check-runs/)
    .query(true)
    .reply((uri) => {
      const url = new URL(uri, API);
      const sha = url.pathname.split('/')[5];
      const found = checkRuns.filter((c) => c.head_sha === sha && c.name === url.searchParams.get('check_name'));
      return [200, { total_count: found.length, check_runs: found.map(checkRunJson) }];
    });
  api.post('/repos/acme/web/actions/workflows/conveyor.yml/dispatches').reply(204, (_uri, body) => {
    const { inputs } = body as { inputs: Record<string, string> };
    const payload = JSON.parse(inputs.payload!) as { runId: string; step: { id: string }; attempt: number; epoch: number };
    dispatches.push({ attempt: `${payload.runId}:${payload.step.id}:${payload.attempt}:${payload.epoch}`, checkRunId: Number(inputs['check-run']) });
    return '';
  });
  api.get('/repos/acme/web/actions/workflows/conveyor.yml/runs').query(true).reply(200, { total_count: 0, workflow_runs: [] });
  api
    .get(/^\/repos\/acme\/web\/issues\/\d+\/comments/)
    .query(true)
    .reply((uri) => [200, comments.filter((c) => c.issue === Number(new URL(uri, API).pathname.split('/')[5])).map(commentJson)]);
  api.patch(/^\/repos\/acme\/web\/issues\/comments\/\d+$/).reply((uri, body) => {
    const comment = comments.find((c) => c.id === Number(uri.split('/').pop()));
    if (!comment) return [404, { message: 'Not Found' }];
    comment.body = (body as { body: string }).body;
    return [200, commentJson(comment)];
  });
  return {
    checkRuns,
    comments,
    dispatches,
    pulls,
    counts(values) {
      const out = new Map<string, number>();
      for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
      return out;
    },
  };
}
