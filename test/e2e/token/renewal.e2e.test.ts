// An attempt that outlives its first installation token (issue #15): the real action, with no
// token given, trades the runner's OIDC token at the app's broker, renews it before it expires,
// and pushes, opens its pull request and completes its check run with a token that is still
// valid. The tokens' lifetimes are shortened: GitHub's stand-ins (a git smart-HTTP server and a
// small REST server) accept each token for ~2.5 s only, and the broker hands out tokens the action
// must renew after ~2 s; the agent works for 4 s.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptAuthority } from '../../../app/token-broker.ts';
import { API, INSTALLATION, runActionChild } from '../../app/harness.ts';
import { startBroker, type Broker } from '../../helpers/broker.ts';
import { serveGit, type GitHttp } from '../../helpers/git-http.ts';
import { startIssuer, type TestIssuer } from '../../helpers/oidc.ts';
import { makePayload } from '../../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../../helpers/repos.ts';

/** How long GitHub's stand-ins accept a token after it was minted (the action renews 300 s before expires_at). */
const LIFETIME_MS = 2_500;

interface Minted {
  token: string;
  at: number;
}

let issuer: TestIssuer;
let broker: Broker;
let git: GitHttp;
let api: { url: string; requests: Array<{ what: string; token: string | undefined; ok: boolean }>; close(): Promise<void> };
let remotes: Remotes;
let work: string;
const minted: Minted[] = [];

/** Whether `token` was minted by the broker and is still within its (shortened) lifetime. */
const valid = (token: string | undefined): boolean => {
  const m = minted.find((x) => x.token === token);
  return !!m && Date.now() - m.at < LIFETIME_MS;
};

/** GitHub's REST API as one code step of acme/web uses it: its check run, and its pull request. */
async function fakeApi(): Promise<typeof api> {
  const requests: typeof api.requests = [];
  const check = {
    id: 77,
    name: 'conveyor / implement',
    status: 'queued',
    conclusion: null as string | null,
    external_id: 'run-1:implement:1:0',
    details_url: null,
    started_at: null,
    output: { summary: null, text: null } as Record<string, unknown>,
  };
  const pulls: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const token = /^token (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const what = `${req.method} ${(req.url ?? '').split('?')[0]}`;
      const ok = valid(token);
      requests.push({ what, token, ok });
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (!ok) return json(401, { message: 'Bad credentials' });
      if (what === 'GET /repos/acme/web/check-runs/77') return json(200, check);
      if (what === 'PATCH /repos/acme/web/check-runs/77') return json(200, Object.assign(check, JSON.parse(body) as object));
      if (what === 'GET /repos/acme/web/pulls')
        return json(
          200,
          pulls.filter((p) => p.state === 'open'),
        );
      if (what === 'POST /repos/acme/web/pulls') {
        const b = JSON.parse(body) as { head: string; base: string; title: string; body: string };
        const pr = {
          number: pulls.length + 1,
          html_url: `https://github.com/acme/web/pull/${pulls.length + 1}`,
          title: b.title,
          body: b.body,
          state: 'open',
          head: { ref: b.head, sha: 'x' },
          base: { ref: b.base },
        };
        pulls.push(pr);
        return json(201, pr);
      }
      if (/^PATCH \/repos\/acme\/web\/pulls\/\d+$/.test(what)) return json(200, pulls[0]);
      json(404, { message: `not faked: ${what}` });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

const attempts: AttemptAuthority = {
  async lookup() {
    return {
      current: true,
      repo: 'acme/web',
      defaultBranch: 'main',
      dispatch: 'dispatched',
      workflowRunId: 9001,
      installationId: INSTALLATION,
      repositories: ['acme/web'],
      stepKind: 'code',
    };
  },
};

beforeEach(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  minted.length = 0;
  // GitHub mints a token per exchange; each says it lives 300 s past the renewal point, 2 s away.
  nock(API)
    .persist()
    .post(`/app/installations/${INSTALLATION}/access_tokens`)
    .reply(201, () => {
      const token = `ghs_attempt_token_${minted.length + 1}`;
      minted.push({ token, at: Date.now() });
      return { token, expires_at: new Date(Date.now() + 302_000).toISOString(), permissions: {}, repository_selection: 'selected' };
    });
  issuer = await startIssuer();
  broker = await startBroker(issuer, attempts);
  remotes = createRemotes();
  remotes.create('acme/web', { 'README.md': 'web\n' });
  git = await serveGit(remotes.dir, { accepts: valid });
  api = await fakeApi();
  work = tempDir('conveyor-renewal-');
});
afterEach(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await Promise.all([broker.close(), issuer.close(), git.close(), api.close()]);
  remotes.cleanup();
  removeDir(work);
});

describe('a step that outlives its first token', () => {
  it('renews it from the app and still pushes, opens its pull request and completes its check run', async () => {
    // Pushed with git (`commits: git`): the renewed token must reach git's credential helper too.
    const payload = { ...makePayload({ repos: [{ repo: 'acme/web' }], agentRun: 'sleep 4 && echo renewed > renewed.txt' }), commits: 'git' as const };
    const out = await runActionChild({
      INPUT_PAYLOAD: JSON.stringify(payload),
      // The template's `vars.CONVEYOR_PUBLIC_URL`: where the runner's OIDC token may go.
      CONVEYOR_PUBLIC_URL: broker.base,
      CONVEYOR_CHECK_RUN_ID: '77',
      GITHUB_REPOSITORY: 'acme/web',
      GITHUB_API_URL: api.url,
      GITHUB_SERVER_URL: git.url,
      GITHUB_RUN_ID: '9001',
      ACTIONS_ID_TOKEN_REQUEST_URL: issuer.idTokenUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.idTokenBearer,
      CONVEYOR_WORKSPACE_ROOT: work,
    });
    expect(out.code, out.stdout + out.stderr).toBe(0);
    // The runner was asked for the app's audience, and the app minted more than one token.
    expect(issuer.idTokenAudiences[0]).toBe('conveyor');
    expect(minted.length).toBeGreaterThanOrEqual(2);
    expect(out.stdout).toContain('renewed the installation token');
    // Every call GitHub's stand-ins answered carried a token valid at the time; the last ones were not the first token.
    expect(api.requests.filter((r) => !r.ok)).toEqual([]);
    const completed = api.requests.filter((r) => r.what === 'PATCH /repos/acme/web/check-runs/77').at(-1)!;
    expect(completed.token).not.toBe(minted[0]!.token);
    expect(api.requests.some((r) => r.what === 'POST /repos/acme/web/pulls' && r.token !== minted[0]!.token)).toBe(true);
    // The push went through with a renewed token, and the work is on the branch.
    expect(remotes.show('acme/web', 'conveyor/web-7', 'renewed.txt')).toBe('renewed');
    const pushTokens = git.authorizations.map((a) => Buffer.from(a.replace(/^Basic /, ''), 'base64').toString('utf8'));
    expect(pushTokens.at(-1)).not.toBe(`x-access-token:${minted[0]!.token}`);
    // And no token was ever printed.
    for (const m of minted) expect(out.stdout + out.stderr).not.toContain(m.token);
  }, 60_000);
});
