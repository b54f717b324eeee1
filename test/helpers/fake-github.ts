// A fake GitHub on a loopback port, for what a whole pipeline does on GitHub: the REST API the app
// and the action call (under /api/v3, as GitHub Enterprise Server serves it), with state (check
// runs, comments, pull requests, workflow dispatches), and the repositories over git's smart HTTP
// (`git http-backend`), as GITHUB_SERVER_URL serves them. Every REST call is counted by its route
// template (`POST /repos/{owner}/{repo}/check-runs`) and by who made it (the app's installation
// token or the action's); the webhooks GitHub would send for what happened are queued for the
// caller to deliver. Answers carry GitHub's rate-limit headers, counted per token.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitDataOnBare } from './git-data.ts';
import { gitHttpHandler } from './git-http.ts';
import type { Remotes } from './repos.ts';
import { fixture } from './webhook-fixtures.ts';

export const APP_TOKEN = 'ghs_app';
export const ACTION_TOKEN = 'ghs_action';
export const RATE_LIMIT = 5000;

export interface ApiCall {
  /** `app`, `action`, or `jwt` (the app's own credentials: installation tokens, GET /app). */
  who: 'app' | 'action' | 'jwt';
  method: string;
  /** The route template, e.g. `/repos/{owner}/{repo}/check-runs/{check_run_id}`. */
  route: string;
  status: number;
}

export interface FakeCheckRun {
  id: number;
  repo: string;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  external_id: string | null;
  details_url: string | null;
  html_url: string;
  started_at: string | null;
  completed_at: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  actions?: unknown[];
}

export interface FakeComment {
  id: number;
  repo: string;
  issue: number;
  body: string;
  user: string;
  html_url: string;
  reactions: string[];
}

export interface FakePull {
  repo: string;
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  /** The head commit GitHub last saw (a push moves it: `synchronize`). */
  sha: string;
  state: 'open' | 'closed';
  merged: boolean;
  merge_commit_sha: string | null;
  /** Opened as a draft, until marked ready for review (GraphQL). */
  draft?: boolean;
}

export interface FakeDispatch {
  repo: string;
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
  runId: number;
}

export interface Webhook {
  name: string;
  payload: Record<string, unknown>;
}

export interface FakeGitHubOptions {
  remotes: Remotes;
  appId: number;
  installation: number;
  /** Repository permission per login (collaborator permission API); others: `read`. */
  people: Record<string, string>;
  /** The app's bot login: the sender of what the app's and the action's tokens do. */
  botLogin: string;
  /** Issues by `owner/name#number`. */
  issues: Record<string, { title: string; body: string }>;
}

type Handler = (m: { params: Record<string, string>; query: URLSearchParams; body: Record<string, unknown>; who: ApiCall['who'] }) => [number, unknown];

const ROUTES: Array<[method: string, route: string]> = [
  ['POST', '/app/installations/{installation_id}/access_tokens'],
  ['GET', '/app'],
  ['GET', '/repos/{owner}/{repo}'],
  ['GET', '/repos/{owner}/{repo}/branches/{branch}'],
  ['POST', '/repos/{owner}/{repo}/git/commits'],
  ['POST', '/repos/{owner}/{repo}/git/refs'],
  ['POST', '/repos/{owner}/{repo}/git/blobs'],
  ['POST', '/repos/{owner}/{repo}/git/trees'],
  ['PATCH', '/repos/{owner}/{repo}/git/refs/{ref}'],
  ['POST', '/graphql'],
  ['GET', '/repos/{owner}/{repo}/contents/{path}'],
  ['GET', '/repos/{owner}/{repo}/git/ref/{ref}'],
  ['GET', '/repos/{owner}/{repo}/collaborators/{username}/permission'],
  ['POST', '/repos/{owner}/{repo}/check-runs'],
  ['GET', '/repos/{owner}/{repo}/check-runs/{check_run_id}'],
  ['PATCH', '/repos/{owner}/{repo}/check-runs/{check_run_id}'],
  ['GET', '/repos/{owner}/{repo}/commits/{ref}/check-runs'],
  ['POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
  ['GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments'],
  ['GET', '/repos/{owner}/{repo}/issues/{issue_number}'],
  ['PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}'],
  ['POST', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions'],
  ['GET', '/repos/{owner}/{repo}/pulls'],
  ['POST', '/repos/{owner}/{repo}/pulls'],
  ['GET', '/repos/{owner}/{repo}/pulls/{pull_number}'],
  ['PATCH', '/repos/{owner}/{repo}/pulls/{pull_number}'],
  ['PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge'],
  ['GET', '/repos/{owner}/{repo}/rules/branches/{branch}'],
  ['POST', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches'],
  ['GET', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs'],
];

const matchers = ROUTES.map(([method, route]) => {
  const names: string[] = [];
  const pattern = route.replace(/\{(\w+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'));
  return { method, route, names, regex: new RegExp(`^${pattern}$`) };
});

export class FakeGitHub {
  readonly calls: ApiCall[] = [];
  readonly checkRuns = new Map<number, FakeCheckRun>();
  readonly comments = new Map<number, FakeComment>();
  readonly pulls: FakePull[] = [];
  /** Workflow dispatches not yet run by a runner. */
  readonly dispatches: FakeDispatch[] = [];
  /** Webhooks GitHub would have sent, in order, not yet delivered. */
  readonly webhooks: Webhook[] = [];
  url = '';
  private nextId = 100;
  private readonly used = new Map<string, number>();
  private server: Server | undefined;

  constructor(private readonly options: FakeGitHubOptions) {}

  /** A branch's head in the fake's repositories (undefined when there is no such branch). */
  remotesHead(repo: string, branch: string): string | undefined {
    return this.options.remotes.head(repo, branch);
  }

  /** The subjects of a branch's commits, newest first. */
  branchSubjects(repo: string, branch: string): string[] {
    return this.branchLog(repo, branch, '%s');
  }

  /** A branch's commits as `git log --format` writes them, one line each, newest first. */
  branchLog(repo: string, branch: string, format: string): string[] {
    return execFileSync('git', ['log', `--format=${format}`, branch], { cwd: this.options.remotes.bare(repo) })
      .toString()
      .trim()
      .split('\n');
  }

  /** Where the REST API is: GITHUB_API_URL, Probot's baseUrl. */
  get apiUrl(): string {
    return `${this.url}/api/v3`;
  }

  async start(): Promise<void> {
    const git = gitHttpHandler(this.options.remotes.dir, { onDone: (req) => req.url?.includes('git-receive-pack') && req.method === 'POST' && this.pushed() });
    this.server = createServer((req, res) => {
      if (/^\/[^/]+\/[^/]+\.git\//.test(req.url ?? '')) return git(req, res);
      // Decoded whole: a chunk may end inside a character of the inline content of a tree.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.rest(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** The REST calls made against the installation's rate limit (the app's and the action's). */
  installationCalls(): ApiCall[] {
    return this.calls.filter((c) => c.who !== 'jwt');
  }

  /** A person's comment (not a call of the app's): its webhook is queued. */
  personComments(repo: string, issue: number, login: string, body: string): FakeComment {
    return this.addComment(repo, issue, body, login);
  }

  /** A workflow run of a dispatch ended: its webhook is queued. */
  workflowRunEnded(d: FakeDispatch, conclusion: 'success' | 'failure'): void {
    const p = fixture('workflow_run.completed');
    const checkRun = d.inputs['check-run'];
    this.queue('workflow_run', {
      ...p,
      action: 'completed',
      workflow_run: {
        ...(p.workflow_run as object),
        id: d.runId,
        name: 'conveyor',
        display_title: `conveyor / ${d.inputs.step} [check run ${checkRun}]`,
        // The app dispatched it with its installation token: its bot started it.
        actor: { login: this.options.botLogin, type: 'Bot' },
        path: `.github/workflows/${d.workflow}`,
        event: 'workflow_dispatch',
        status: 'completed',
        conclusion,
        html_url: this.runUrl(d.repo, d.runId),
        run_number: d.runId,
      },
      repository: this.repository(d.repo),
    });
  }

  runUrl(repo: string, runId: number): string {
    return `${this.url}/${repo}/actions/runs/${runId}`;
  }

  private rest(req: IncomingMessage, res: ServerResponse, text: string): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // GitHub Enterprise's REST is under /api/v3, its GraphQL at /api/graphql.
    const path = url.pathname.replace(/^\/api\/v3/, '').replace(/^\/api\/graphql$/, '/graphql');
    const method = req.method ?? 'GET';
    const auth = req.headers.authorization ?? '';
    const who: ApiCall['who'] = /^bearer /i.test(auth) ? 'jwt' : auth.includes(ACTION_TOKEN) ? 'action' : 'app';
    const found = matchers.map((m) => ({ m, hit: m.method === method ? m.regex.exec(path) : null })).find((x) => x.hit);
    let status: number;
    let body: unknown;
    if (!found) {
      [status, body] = [404, { message: `the fake GitHub has no route ${method} ${path}` }];
    } else {
      const params = Object.fromEntries(found.m.names.map((n, i) => [n, decodeURIComponent(found.hit![i + 1]!)]));
      try {
        [status, body] = this.handlers[`${method} ${found.m.route}`]!({
          params,
          query: url.searchParams,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          who,
        });
      } catch (e) {
        [status, body] = [500, { message: (e as Error).message }];
      }
    }
    this.calls.push({ who, method, route: found?.m.route ?? path, status });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (who !== 'jwt') {
      const token = who;
      const used = (this.used.get(token) ?? 0) + 1;
      this.used.set(token, used);
      Object.assign(headers, {
        'x-ratelimit-limit': String(RATE_LIMIT),
        'x-ratelimit-remaining': String(RATE_LIMIT - used),
        'x-ratelimit-used': String(used),
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
        'x-ratelimit-resource': 'core',
      });
    }
    res.writeHead(status, headers).end(status === 204 ? undefined : JSON.stringify(body));
  }

  private readonly handlers: Record<string, Handler> = {
    'POST /app/installations/{installation_id}/access_tokens': () => [201, { token: APP_TOKEN, expires_at: '2099-01-01T00:00:00Z', permissions: {} }],
    'GET /app': () => [200, { id: this.options.appId, slug: this.options.botLogin.replace(/\[bot\]$/, '') }],
    'GET /repos/{owner}/{repo}': ({ params }) => {
      const full = `${params.owner}/${params.repo}`;
      try {
        // The bare remote's HEAD is the branch it was created with: the repository's default branch.
        const head = execFileSync('git', ['symbolic-ref', '--short', 'HEAD'], { cwd: this.options.remotes.bare(full) })
          .toString()
          .trim();
        return [200, { full_name: full, default_branch: head }];
      } catch {
        return [404, { message: 'Not Found' }];
      }
    },
    'GET /repos/{owner}/{repo}/branches/{branch}': ({ params }) => {
      const full = `${params.owner}/${params.repo}`;
      const sha = this.options.remotes.head(full, params.branch!);
      if (!sha) return [404, { message: 'Branch not found' }];
      const tree = execFileSync('git', ['rev-parse', `${sha}^{tree}`], { cwd: this.options.remotes.bare(full) })
        .toString()
        .trim();
      return [200, { name: params.branch, commit: { sha, commit: { tree: { sha: tree } } } }];
    },
    // The app's draft commit and the action's, made by GitHub (its bot's, signed) on the bare repositories.
    'POST /repos/{owner}/{repo}/git/commits': ({ params, body }) => this.gitData(params).commit(body),
    'POST /repos/{owner}/{repo}/git/refs': ({ params, body }) => this.gitData(params).createRef(body),
    // The commits the action makes through the Git data API (`commits: verified`), on the bare repositories.
    'POST /repos/{owner}/{repo}/git/blobs': ({ params, body }) => this.gitData(params).blob(body),
    'POST /repos/{owner}/{repo}/git/trees': ({ params, body }) => this.gitData(params).tree(body),
    'PATCH /repos/{owner}/{repo}/git/refs/{ref}': ({ params, body }) => {
      const answer = this.gitData(params).updateRef(params.ref!, body);
      // A branch moved by the API is a push to GitHub: its open PR is synchronized.
      if (answer[0] === 200) this.pushed();
      return answer;
    },
    'POST /graphql': ({ body }) => {
      const id = (body.variables as { id?: string } | undefined)?.id;
      const pr = this.pulls.find((p) => this.nodeIdOf(p) === id);
      if (!String(body.query).includes('markPullRequestReadyForReview') || !pr)
        return [200, { errors: [{ message: `the fake GitHub cannot answer this query for ${id}` }] }];
      pr.draft = false;
      return [200, { data: { markPullRequestReadyForReview: { pullRequest: { isDraft: false } } } }];
    },
    'GET /repos/{owner}/{repo}/contents/{path}': ({ params, query }) => {
      const bare = this.options.remotes.bare(`${params.owner}/${params.repo}`);
      try {
        const content = execFileSync('git', ['show', `${query.get('ref') ?? 'HEAD'}:${params.path}`], { cwd: bare });
        return [200, { type: 'file', encoding: 'base64', content: content.toString('base64'), path: params.path }];
      } catch {
        return [404, { message: 'Not Found' }];
      }
    },
    'GET /repos/{owner}/{repo}/git/ref/{ref}': ({ params }) => {
      const sha = this.options.remotes.head(`${params.owner}/${params.repo}`, params.ref!.replace(/^heads\//, ''));
      return sha ? [200, { ref: `refs/${params.ref}`, object: { sha, type: 'commit' } }] : [404, { message: 'Not Found' }];
    },
    'GET /repos/{owner}/{repo}/collaborators/{username}/permission': ({ params }) => [200, { permission: this.options.people[params.username!] ?? 'read' }],
    'POST /repos/{owner}/{repo}/check-runs': ({ params, body }) => {
      const id = ++this.nextId;
      const check: FakeCheckRun = {
        id,
        repo: `${params.owner}/${params.repo}`,
        name: String(body.name),
        head_sha: String(body.head_sha),
        status: 'queued',
        conclusion: null,
        external_id: null,
        details_url: null,
        html_url: `${this.url}/${params.owner}/${params.repo}/runs/${id}`,
        started_at: null,
        completed_at: null,
        output: { title: null, summary: null, text: null },
      };
      this.checkRuns.set(id, check);
      this.writeCheck(check, body);
      return [201, this.checkJson(check)];
    },
    'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': ({ params }) => {
      const check = this.checkRuns.get(Number(params.check_run_id));
      return check ? [200, this.checkJson(check)] : [404, { message: 'Not Found' }];
    },
    'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': ({ params, body }) => {
      const check = this.checkRuns.get(Number(params.check_run_id));
      if (!check) return [404, { message: 'Not Found' }];
      this.writeCheck(check, body);
      return [200, this.checkJson(check)];
    },
    'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': ({ params, query }) => {
      const runs = [...this.checkRuns.values()].filter(
        (c) => c.repo === `${params.owner}/${params.repo}` && c.head_sha === params.ref && (!query.get('check_name') || c.name === query.get('check_name')),
      );
      return [200, { total_count: runs.length, check_runs: runs.map((c) => this.checkJson(c)) }];
    },
    'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': ({ params, body }) => {
      const c = this.addComment(`${params.owner}/${params.repo}`, Number(params.issue_number), String(body.body), this.options.botLogin);
      return [201, this.commentJson(c)];
    },
    'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': ({ params }) => [
      200,
      [...this.comments.values()]
        .filter((c) => c.repo === `${params.owner}/${params.repo}` && c.issue === Number(params.issue_number))
        .map((c) => this.commentJson(c)),
    ],
    // An issue, or a PR read as its issue (its body: what the app's PR status writer reads).
    'GET /repos/{owner}/{repo}/issues/{issue_number}': ({ params }) => {
      const repo = `${params.owner}/${params.repo}`;
      const number = Number(params.issue_number);
      const pr = this.pulls.find((x) => x.repo === repo && x.number === number);
      const known = this.options.issues[`${repo}#${number}`];
      if (!pr && !known) return [404, { message: 'Not Found' }];
      return [
        200,
        {
          number,
          title: pr?.title ?? known?.title,
          body: pr?.body ?? known?.body,
          ...(pr ? { pull_request: { url: `${this.apiUrl}/repos/${repo}/pulls/${number}` } } : {}),
        },
      ];
    },
    'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': ({ params, body }) => {
      const c = this.comments.get(Number(params.comment_id));
      if (!c) return [404, { message: 'Not Found' }];
      c.body = String(body.body);
      return [200, this.commentJson(c)];
    },
    'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': ({ params, body }) => {
      this.comments.get(Number(params.comment_id))?.reactions.push(String(body.content));
      return [201, { id: ++this.nextId, content: body.content }];
    },
    'GET /repos/{owner}/{repo}/pulls': ({ params, query }) => {
      const repo = `${params.owner}/${params.repo}`;
      const head = query.get('head')?.split(':')[1];
      const state = query.get('state') ?? 'open';
      return [
        200,
        this.pulls.filter((p) => p.repo === repo && (!head || p.head === head) && (state === 'all' || p.state === state)).map((p) => this.pullJson(p)),
      ];
    },
    'POST /repos/{owner}/{repo}/pulls': ({ params, body }) => {
      const repo = `${params.owner}/${params.repo}`;
      const sha = this.options.remotes.head(repo, String(body.head));
      if (!sha) return [422, { message: `Validation Failed: no branch ${String(body.head)}` }];
      const pr: FakePull = {
        repo,
        number: this.pulls.filter((p) => p.repo === repo).length + 1,
        title: String(body.title),
        body: String(body.body ?? ''),
        head: String(body.head),
        base: String(body.base),
        sha,
        state: 'open',
        merged: false,
        merge_commit_sha: null,
        ...(body.draft === true ? { draft: true } : {}),
      };
      this.pulls.push(pr);
      this.queuePull('opened', pr);
      return [201, this.pullJson(pr)];
    },
    'GET /repos/{owner}/{repo}/pulls/{pull_number}': ({ params }) => {
      const pr = this.pull(params);
      return pr
        ? [200, { ...this.pullJson(pr), mergeable: pr.state === 'open' ? true : null, mergeable_state: pr.state === 'open' ? 'clean' : 'unknown' }]
        : [404, { message: 'Not Found' }];
    },
    'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': ({ params, body }) => {
      const pr = this.pull(params);
      if (!pr) return [404, { message: 'Not Found' }];
      if (typeof body.body === 'string') pr.body = body.body;
      if (typeof body.title === 'string') pr.title = body.title;
      return [200, this.pullJson(pr)];
    },
    // No ruleset: the merge step merges directly.
    'GET /repos/{owner}/{repo}/rules/branches/{branch}': () => [200, []],
    'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge': ({ params, body }) => {
      const pr = this.pull(params);
      if (!pr || pr.state !== 'open') return [405, { message: 'Pull Request is not mergeable' }];
      if (pr.draft) return [405, { message: 'Pull Request is still a draft' }];
      if (body.sha && body.sha !== pr.sha) return [409, { message: 'Head branch was modified' }];
      pr.state = 'closed';
      pr.merged = true;
      pr.merge_commit_sha = 'c'.repeat(40);
      this.queuePull('closed', pr, 'alice');
      return [200, { merged: true, sha: pr.merge_commit_sha, message: 'Pull Request successfully merged' }];
    },
    'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches': ({ params, body }) => {
      const d: FakeDispatch = {
        repo: `${params.owner}/${params.repo}`,
        workflow: params.workflow_id!,
        ref: String(body.ref),
        inputs: body.inputs as Record<string, string>,
        runId: ++this.nextId,
      };
      this.dispatches.push(d);
      return body.return_run_details
        ? [200, { workflow_run_id: d.runId, run_url: `${this.apiUrl}/repos/${d.repo}/actions/runs/${d.runId}`, html_url: this.runUrl(d.repo, d.runId) }]
        : [204, null];
    },
    'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': () => [200, { total_count: 0, workflow_runs: [] }],
  };

  private writeCheck(check: FakeCheckRun, body: Record<string, unknown>): void {
    const was = check.status;
    const { output, ...rest } = body as { output?: Partial<FakeCheckRun['output']>; status?: unknown; conclusion?: unknown; completed_at?: unknown };
    // As GitHub: a completed check run's status and conclusion never change again (its output may).
    if (was === 'completed') {
      delete rest.status;
      delete rest.conclusion;
      delete rest.completed_at;
    }
    Object.assign(check, rest);
    if (output) check.output = { title: output.title ?? null, summary: output.summary ?? null, text: output.text ?? null };
    if (check.status === 'completed' && was !== 'completed') {
      const p = fixture('check_run.completed');
      this.queue('check_run', {
        ...p,
        action: 'completed',
        check_run: { ...(p.check_run as object), ...this.checkJson(check) },
        repository: this.repository(check.repo),
        sender: { login: this.options.botLogin, type: 'Bot' },
      });
    }
  }

  private checkJson(c: FakeCheckRun): Record<string, unknown> {
    const { repo: _repo, ...json } = c;
    return { ...json, app: { id: this.options.appId, slug: this.options.botLogin.replace(/\[bot\]$/, '') } };
  }

  private addComment(repo: string, issue: number, body: string, user: string): FakeComment {
    const id = ++this.nextId;
    const c: FakeComment = { id, repo, issue, body, user, html_url: `${this.url}/${repo}/issues/${issue}#issuecomment-${id}`, reactions: [] };
    this.comments.set(id, c);
    const p = fixture('issue_comment.created');
    const pr = this.pulls.find((x) => x.repo === repo && x.number === issue);
    const known = this.options.issues[`${repo}#${issue}`];
    const type = user === this.options.botLogin ? 'Bot' : 'User';
    const thread: Record<string, unknown> = {
      ...(p.issue as Record<string, unknown>),
      number: issue,
      title: pr?.title ?? known?.title ?? '',
      body: pr?.body ?? known?.body ?? '',
      html_url: `${this.url}/${repo}/issues/${issue}`,
    };
    if (pr) thread.pull_request = { url: `${this.apiUrl}/repos/${repo}/pulls/${issue}` };
    else delete thread.pull_request;
    this.queue('issue_comment', {
      ...p,
      action: 'created',
      issue: thread,
      comment: { ...(p.comment as object), ...this.commentJson(c) },
      repository: this.repository(repo),
      sender: { login: user, type },
    });
    return c;
  }

  private commentJson(c: FakeComment): Record<string, unknown> {
    return { id: c.id, body: c.body, html_url: c.html_url, user: { login: c.user, type: c.user === this.options.botLogin ? 'Bot' : 'User' } };
  }

  private pull(params: Record<string, string>): FakePull | undefined {
    return this.pulls.find((p) => p.repo === `${params.owner}/${params.repo}` && p.number === Number(params.pull_number));
  }

  private nodeIdOf(p: FakePull): string {
    return `PR_${p.repo}#${p.number}`;
  }

  private pullJson(p: FakePull): Record<string, unknown> {
    return {
      number: p.number,
      html_url: `${this.url}/${p.repo}/pull/${p.number}`,
      title: p.title,
      body: p.body,
      state: p.state,
      draft: p.draft === true,
      node_id: this.nodeIdOf(p),
      merged: p.merged,
      merged_at: p.merged ? '2025-03-01T12:00:00Z' : null,
      merge_commit_sha: p.merge_commit_sha,
      head: { ref: p.head, sha: p.sha },
      base: { ref: p.base },
    };
  }

  private gitData(params: Record<string, string>): GitDataOnBare {
    return new GitDataOnBare(this.options.remotes.bare(`${params.owner}/${params.repo}`));
  }

  /** After a push: each open PR whose branch moved is synchronized (pushed with an installation token: the bot). */
  private pushed(): void {
    for (const pr of this.pulls) {
      const sha = this.options.remotes.head(pr.repo, pr.head);
      if (pr.state !== 'open' || !sha || sha === pr.sha) continue;
      pr.sha = sha;
      this.queuePull('synchronize', pr);
    }
  }

  private queuePull(action: 'opened' | 'synchronize' | 'closed', pr: FakePull, sender = this.options.botLogin): void {
    const p = fixture(action === 'closed' ? 'pull_request.closed' : 'pull_request.synchronize');
    this.queue('pull_request', {
      ...p,
      action,
      number: pr.number,
      pull_request: { ...(p.pull_request as object), ...this.pullJson(pr) },
      repository: this.repository(pr.repo),
      sender: { login: sender, type: sender === this.options.botLogin ? 'Bot' : 'User' },
    });
  }

  private repository(full: string): Record<string, unknown> {
    const [owner, name] = full.split('/');
    return {
      ...(fixture('issues.labeled').repository as object),
      full_name: full,
      name,
      owner: { login: owner, type: 'Organization' },
      default_branch: 'main',
    };
  }

  private queue(name: string, payload: Record<string, unknown>): void {
    this.webhooks.push({ name, payload: { ...payload, installation: { id: this.options.installation } } });
  }
}

export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const fake = new FakeGitHub(options);
  await fake.start();
  return fake;
}
