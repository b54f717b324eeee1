// Drives the Conveyor app the way GitHub does: a real Probot instance receiving webhook payloads
// shaped like GitHub's (test/fixtures/webhooks, copied from @octokit/webhooks-examples), GitHub's
// REST API mocked with nock at the HTTP boundary, a real SQLite store, and the real action entry
// (from source, through tsx) in a child process against a local HTTP server that plays GitHub's
// check-runs endpoints (nock cannot reach into a child process).
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import nock from 'nock';
import { afterEach, beforeEach } from 'vitest';
import { Probot, ProbotOctokit } from 'probot';
import { withGitHubPolicy } from '../../adapters/github/octokit.ts';
import { ConveyorApp, type ConveyorAppOptions } from '../../app/app.ts';
import { openSqliteStore } from '../../adapters/store/sqlite.ts';
import { tempDir, removeDir } from '../helpers/repos.ts';
import { fixture } from '../helpers/webhook-fixtures.ts';
import { runActionChild } from '../helpers/action.ts';
import { capturePino, type LogRecord } from '../helpers/pino-capture.ts';

export const API = 'https://api.github.com';
export const APP_ID = 1;
export const INSTALLATION = 2;
/** The app's bot login: the author of its pushes and comments, and the actor of every workflow run it dispatches. */
export const BOT = 'conveyor-app[bot]';
export const ROOT = resolve(import.meta.dirname, '../..');
/** The app's private key in every test (made once: an RSA key takes a while). */
export const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

export interface Call {
  method: string;
  path: string;
}

export interface Harness {
  probot: Probot;
  conveyor: ConveyorApp;
  dir: string;
  /** REST calls the app made (access tokens excluded: cached per installation). */
  calls: Call[];
  /** The messages the app logged (its failures to reach GitHub among them: a call no scope answered). */
  logged: string[];
  /** Each line the app's pino logger wrote, parsed (Probot's own lines among them). */
  records(): LogRecord[];
  /** Each line as pino wrote it (JSON). */
  lines: string[];
  clock: { now: string };
  receive(name: string, payload: unknown, id?: string): Promise<void>;
  close(): Promise<void>;
}

let delivery = 0;

export async function createHarness(options: Partial<ConveyorAppOptions> = {}): Promise<Harness> {
  const dir = tempDir('conveyor-app-');
  const db = join(dir, 'app.db');
  const store = await openSqliteStore(db);
  const clock = { now: '2025-03-01T10:00:00.000Z' };
  const calls: Call[] = [];
  // Probot's logger, kept: the app logs through it (app/logger.ts), as `conveyor serve` does.
  const pino = capturePino({ echo: !!process.env.CONVEYOR_TEST_LOG });
  const original = globalThis.fetch;
  globalThis.fetch = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (!url.pathname.endsWith('/access_tokens')) calls.push({ method: (init?.method ?? 'GET').toUpperCase(), path: decodeURIComponent(url.pathname) });
    return original(input, init);
  };
  const probot = new Probot({
    appId: APP_ID,
    log: pino.logger,
    privateKey,
    // The app's own Octokit policy (retries, rate limits), its waits a thousand times shorter and
    // writes not paced (a second or three between writes, real time).
    Octokit: withGitHubPolicy(ProbotOctokit, { msPerSecond: 1, paceWrites: false }),
  });
  const conveyor = new ConveyorApp(probot, {
    store,
    links: store.links,
    appId: APP_ID,
    now: () => clock.now,
    sweepEveryMs: false,
    botLogin: BOT,
    // Reports write as soon as the work of a delivery is done (test/app/report.test.ts holds the window).
    reports: { coalesceMs: 0 },
    // And so does a `ci` judgement (test/app/ci.test.ts holds the window for a burst).
    ciCoalesceMs: 0,
    ...options,
  });
  return {
    probot,
    conveyor,
    dir,
    calls,
    get logged() {
      return pino.records().map((r) => r.msg);
    },
    records: pino.records,
    lines: pino.lines,
    clock,
    async receive(name, payload, id = `delivery-${++delivery}`) {
      await probot.receive({ id, name, payload } as never);
      await conveyor.idle();
    },
    async close() {
      globalThis.fetch = original;
      conveyor.close();
      await store.close();
      removeDir(dir);
    },
  };
}

/** nock of the installation token, once per test (Probot caches it). */
export function tokenScope(): nock.Scope {
  return nock(API)
    .post(`/app/installations/${INSTALLATION}/access_tokens`)
    .reply(201, { token: 'ghs_test', expires_at: '2099-01-01T00:00:00Z', permissions: {} });
}

export { fixture };

/** A webhook's `repository` of acme's repository `full` (default branch main). */
export const repoOf = (full: string) => ({
  ...(fixture('issues.labeled').repository as object),
  full_name: full,
  name: full.split('/')[1],
  owner: { login: 'acme', type: 'Organization' },
  default_branch: 'main',
});

const repository = repoOf('acme/web');

export const webhooks = {
  labeled(label = 'conveyor', number = 7, sender = 'alice') {
    const p = fixture('issues.labeled');
    return {
      ...p,
      issue: {
        ...(p.issue as object),
        number,
        title: 'Add a feature file',
        body: 'Please add feature.txt.',
        html_url: `https://github.com/acme/web/issues/${number}`,
      },
      label: { ...(p.label as object), name: label },
      repository,
      sender: { ...(p.sender as object), login: sender, type: 'User' },
      installation: { id: INSTALLATION },
    };
  },
  comment(body: string, login = 'alice', number = 7) {
    const p = fixture('issue_comment.created');
    const issue: Record<string, unknown> = {
      ...(p.issue as Record<string, unknown>),
      number,
      title: 'Add a feature file',
      body: 'Please add feature.txt.',
      html_url: `https://github.com/acme/web/issues/${number}`,
    };
    delete issue.pull_request;
    return {
      ...p,
      issue,
      comment: { ...(p.comment as object), body, user: { login, type: 'User' } },
      repository,
      sender: { login, type: 'User' },
      installation: { id: INSTALLATION },
    };
  },
  checkRun(
    action: 'completed' | 'rerequested',
    check: {
      id: number;
      name: string;
      external_id: string;
      status?: string;
      conclusion?: string | null;
      details_url?: string | null;
      output?: { title?: string; summary?: string; text?: string | null };
    },
    sender = 'alice',
  ) {
    const p = fixture(`check_run.${action}`);
    return {
      ...p,
      check_run: {
        ...(p.check_run as object),
        status: 'completed',
        conclusion: 'success',
        ...check,
        app: { ...(p.check_run as { app: object }).app, id: APP_ID },
      },
      repository,
      sender: { login: sender, type: 'User' },
      installation: { id: INSTALLATION },
    };
  },
  /** A completed run of acme/web's Conveyor workflow (`path`, `event` and `repo` may say otherwise). */
  /** A completed run of a repository's conveyor.yml, started (by default) by the app's bot as its dispatches are. */
  workflowRun(
    run: { id: number; display_title: string; conclusion: string; path?: string; event?: string; actor?: { login: string; type: string } },
    repo = 'acme/web',
  ) {
    const p = fixture('workflow_run.completed');
    return {
      ...p,
      workflow_run: {
        ...(p.workflow_run as object),
        path: '.github/workflows/conveyor.yml',
        event: 'workflow_dispatch',
        actor: { login: BOT, type: 'Bot' },
        ...run,
        html_url: `https://github.com/${repo}/actions/runs/${run.id}`,
        run_number: 12,
      },
      repository: repoOf(repo),
      installation: { id: INSTALLATION },
    };
  },
};

/** A check run as the fake GitHub keeps it. */
export interface FakeCheckRun {
  id: number;
  name: string;
  status: string;
  external_id: string;
  conclusion?: string | null;
  details_url?: string | null;
  started_at?: string;
  output?: { title?: string; summary?: string; text?: string };
}

/** GitHub's check-runs endpoints for the action's child process, on 127.0.0.1. */
export async function fakeCheckRuns(): Promise<{ url: string; checks: Map<number, FakeCheckRun>; requests: string[]; close(): Promise<void> }> {
  const checks = new Map<number, FakeCheckRun>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const m = /^\/repos\/acme\/web\/check-runs\/(\d+)$/.exec(req.url ?? '');
      requests.push(`${req.method} ${req.url}`);
      const check = m ? checks.get(Number(m[1])) : undefined;
      // As Octokit sends an installation token.
      if (!check || req.headers.authorization !== 'token ghs_action') {
        res.writeHead(check ? 401 : 404).end('{}');
        return;
      }
      if (req.method === 'PATCH') Object.assign(check, JSON.parse(body) as object);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(check));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, checks, requests, close: () => new Promise((r) => server.close(() => r())) };
}

export { runActionChild };

/**
 * The hooks of a test file on the harness: GitHub unreachable but through nock (the loopback too,
 * unless `loopback` lets the file's own servers answer), a harness made fresh by `make` before each
 * test (with an installation token scope when `token`), and `current()` closed after it.
 */
export function harnessPerTest(hooks: { make: () => Promise<Harness>; current: () => Harness; loopback?: boolean; token?: boolean }): void {
  beforeEach(async () => {
    nock.disableNetConnect();
    if (hooks.loopback) nock.enableNetConnect('127.0.0.1');
    await hooks.make();
    if (hooks.token) tokenScope();
  });
  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await hooks.current().close();
  });
}
