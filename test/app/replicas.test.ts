// Several app replicas on one PostgreSQL database (issue #18): two ConveyorApp instances in this
// process, each with its own Probot and its own store handle (its own connection pool), as two
// `conveyor serve` processes behind a load balancer would be; GitHub mocked with nock (shared, so
// that what either replica does on GitHub is counted in one place). A burst of webhooks for many
// runs, alternating between them and racing on purpose, must dispatch every attempt exactly once;
// a replica that dies after committing and before carrying out must lose nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import nock from 'nock';
import { Probot, ProbotOctokit } from 'probot';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { openPostgresStore } from '../../adapters/store/postgres.ts';
import type { SqlStore } from '../../adapters/store/sql.ts';
import { withGitHubPolicy } from '../../adapters/github/octokit.ts';
import { ConveyorApp } from '../../app/app.ts';
import { renderResultText } from '../../core/github/check-run.ts';
import type { StepResult } from '../../core/contract/wire.ts';
import { resultOf, sealedFor } from '../helpers/plans.ts';
import { startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { fakeGitHub, type FakeGitHub } from './fake-github.ts';
import { APP_ID, privateKey, webhooks } from './harness.ts';
import { lineLogger } from '../../lib/logger.ts';

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
      - { id: check, kind: gate, run: test -f feature.txt }
`;
const NOW = '2025-03-01T10:00:00.000Z';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Replica {
  name: string;
  store: SqlStore;
  conveyor: ConveyorApp;
  receive(name: string, payload: unknown, id: string): Promise<void>;
}

/** A replica as `conveyor serve` makes one, on its own connection pool. */
async function replica(url: string, name: string, options: { claimTtlMs?: number } = {}): Promise<Replica> {
  const store = await openPostgresStore(url);
  const probot = new Probot({ appId: APP_ID, privateKey, Octokit: withGitHubPolicy(ProbotOctokit, { msPerSecond: 1, paceWrites: false }) });
  const conveyor = new ConveyorApp(probot, {
    store,
    links: store.links,
    appId: APP_ID,
    now: () => NOW,
    sweepEveryMs: false,
    botLogin: 'conveyor-app[bot]',
    replica: name,
    ...(options.claimTtlMs !== undefined ? { claimTtlMs: options.claimTtlMs } : {}),
    log: lineLogger((_level, line) => process.env.CONVEYOR_TEST_LOG && process.stderr.write(`[${name}] ${line}\n`)),
  });
  return {
    name,
    store,
    conveyor,
    async receive(event, payload, id) {
      await probot.receive({ id, name: event, payload } as never);
    },
  };
}

/** The completion of a step's current attempt, as the action reports it through its check run. */
async function completion(github: FakeGitHub, store: SqlStore, runId: string, step: string, extra: Partial<StepResult> = {}) {
  const run = (await store.get(runId))!;
  const s = run.steps[step]!;
  const externalId = `${runId}:${step}:${s.attempt}:${s.epoch}`;
  const check = github.checkRuns.find((c) => c.external_id === externalId)!;
  const result = sealedFor(run, resultOf(runId, step, s.attempt, s.epoch, 'success', extra));
  return webhooks.checkRun('completed', {
    id: check.id,
    name: check.name,
    external_id: externalId,
    conclusion: 'success',
    output: { summary: 'ok', text: renderResultText(result) },
  });
}

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

let replicas: Replica[] = [];
let databases = 0;
let url = '';
beforeEach(async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  url = await server.createDatabase(`replicas_${++databases}`);
});
afterEach(async () => {
  for (const r of replicas) {
    r.conveyor.close();
    await r.store.close();
  }
  replicas = [];
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('two replicas on one PostgreSQL database', () => {
  it('a burst of webhooks for 20 runs, alternating and racing between them: every attempt dispatched exactly once, every run finished', async () => {
    const github = fakeGitHub(CONFIG);
    const [a, b] = (replicas = [await replica(url, 'replica A'), await replica(url, 'replica B')]);
    const both = [a!, b!];
    const idle = () => Promise.all(both.map((r) => r.conveyor.idle()));
    const issues = Array.from({ length: 20 }, (_, i) => i + 1);
    const runOf = (issue: number) => `acme-web-${issue}`;

    // 1. Twenty issues labeled at once, alternating; each delivery then redelivered to the other replica.
    await Promise.all(issues.map((n) => both[n % 2]!.receive('issues', webhooks.labeled('conveyor', n), `label-${n}`)));
    await Promise.all(issues.map((n) => both[(n + 1) % 2]!.receive('issues', webhooks.labeled('conveyor', n), `label-${n}`)));
    await idle();
    expect((await a!.store.list()).map((r) => r.id).sort()).toEqual(issues.map(runOf).sort());

    // 2. Each implement attempt completes with its PR; the same delivery reaches both replicas at once.
    const prHead = (n: number) => n.toString(16).padStart(40, 'a');
    const implemented = await Promise.all(
      issues.map((n) =>
        completion(github, a!.store, runOf(n), 'implement', {
          // The run's draft PR as the fake opened it (the issue's number plus 1000): its body's status is written there.
          prs: [{ repo: 'acme/web', number: 1000 + n, url: `https://github.com/acme/web/pull/${1000 + n}`, branch: `conveyor/web-${n}`, head: prHead(n) }],
          commits: { 'acme/web': prHead(n) },
        }),
      ),
    );
    // Meanwhile a third replica starts: its recovery must leave alone what the others are carrying out.
    const third = replica(url, 'replica C').then(async (c) => {
      replicas.push(c);
      await c.conveyor.recover();
      return c;
    });
    await Promise.all(issues.flatMap((n, i) => both.map((r) => r.receive('check_run', implemented[i], `implement-done-${n}`))));
    const c = await third;
    await idle();
    await c.conveyor.idle();

    // 3. Each check attempt completes, alternating.
    const checked = await Promise.all(issues.map((n) => completion(github, a!.store, runOf(n), 'check')));
    await Promise.all(issues.map((n, i) => both[i % 2]!.receive('check_run', checked[i], `check-done-${n}`)));
    await idle();

    // Exactly one dispatch (and one check run) per attempt, two attempts per run, each on its head.
    const expected = issues.flatMap((n) => [`${runOf(n)}:implement:1:0`, `${runOf(n)}:check:1:0`]).sort();
    expect([...github.counts(github.dispatches.map((d) => d.attempt))].filter(([, count]) => count !== 1)).toEqual([]);
    expect(github.dispatches.map((d) => d.attempt).sort()).toEqual(expected);
    const stepChecks = github.checkRuns.filter((c) => c.name.startsWith('conveyor / '));
    expect(stepChecks.map((c) => c.external_id).sort()).toEqual(expected);
    for (const n of issues) expect(stepChecks.find((c) => c.external_id === `${runOf(n)}:check:1:0`)?.head_sha).toBe(prHead(n));
    // One tracking comment per issue, edited in place by whichever replica reported.
    expect([...github.counts(github.comments.map((c) => String(c.issue)))].filter(([, count]) => count !== 1)).toEqual([]);
    expect(github.comments).toHaveLength(issues.length);
    // Each run's PR body says it finished, whichever replica wrote it last.
    for (const n of issues) expect(github.pulls.find((p) => p.number === 1000 + n)?.body).toContain(`### Run \`${runOf(n)}\`: succeeded`);
    // Every run finished, both replicas agree, and no effect is left for anyone.
    for (const r of both) expect((await r.store.list()).map((run) => run.status)).toEqual(issues.map(() => 'succeeded'));
    expect(await a!.store.pendingEffects()).toEqual([]);
  });

  it('one replica sweeps at a time: the other is told who holds the sweeper lease', async () => {
    fakeGitHub(CONFIG);
    const [a, b] = (replicas = [await replica(url, 'replica A'), await replica(url, 'replica B')]);
    expect(await a!.conveyor.sweep()).toEqual({ judged: 0, lost: [], completed: [] });
    expect(await b!.conveyor.sweep()).toEqual({ judged: 0, lost: [], completed: [], heldBy: 'replica A' });
    expect(await a!.conveyor.sweep()).toEqual({ judged: 0, lost: [], completed: [] });
    expect(await a!.store.lease('sweeper')).toMatchObject({ holder: 'replica A' });
  });

  it('a replica that dies after committing and before carrying out loses nothing: the other carries its effects out, once, after their claims run out', async () => {
    const github = fakeGitHub(CONFIG);
    // Replica A's writes to GitHub never come back (its network went, then it died): whatever
    // runs in A's handling of the label (the effects it starts included) is cut off.
    const hung: Array<(e: Error) => void> = [];
    let gone = false;
    const inA = new AsyncLocalStorage<true>();
    const original = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const target = String(input instanceof Request ? input.url : input);
      // The run's draft PR is opened before the run is committed: those calls come back.
      const starting = /\/git\/(commits|refs)$|\/pulls$/.test(target);
      const write = (init?.method ?? 'GET').toUpperCase() === 'POST' && !target.endsWith('/access_tokens') && !starting;
      if (!inA.getStore() || !write) return original(input, init);
      return gone ? Promise.reject(new Error('replica A is gone')) : new Promise<Response>((_resolve, reject) => hung.push(reject));
    };
    onTestFinished(() => void (globalThis.fetch = original));
    const ttl = 1000;
    const a = await replica(url, 'replica A', { claimTtlMs: ttl });
    const b = await replica(url, 'replica B', { claimTtlMs: ttl });
    replicas = [a, b];

    // A starts the run: it commits the run with its dispatch and report, claimed in its name, then hangs carrying them out.
    await inA.run(true, () => a.receive('issues', webhooks.labeled('conveyor', 7), 'label-7'));
    while (hung.length < 2) await sleep(20);
    expect((await b.store.pendingEffects('acme-web-7')).map((e) => `${e.type}:${e.claim?.holder}`)).toEqual(['dispatch:replica A', 'report:replica A']);
    expect(github.dispatches).toEqual([]);
    // While A lives it renews its claims: past their time, B's sweep takes nothing.
    await sleep(2 * ttl);
    expect((await b.conveyor.sweep()).taken).toBeUndefined();
    expect(github.dispatches).toEqual([]);

    // A dies. Once its claims run out, B's sweep takes the effects and carries them out.
    a.conveyor.close();
    await a.store.close();
    let taken: string[] | undefined;
    for (let tries = 0; tries < 100 && !taken; tries++) {
      await sleep(100);
      taken = (await b.conveyor.sweep()).taken;
    }
    expect(taken).toEqual(['acme-web-7/acme-web-7:implement:1:0:dispatch', 'acme-web-7/acme-web-7:report:1']);
    await b.conveyor.idle();
    expect(github.dispatches.map((d) => d.attempt)).toEqual(['acme-web-7:implement:1:0']);
    expect(github.comments.map((c) => c.issue)).toEqual([7]);
    expect(await b.store.pendingEffects()).toEqual([]);

    // What A still had under way fails now, on a store it closed: nothing is written, nothing done twice.
    gone = true;
    for (const reject of hung) reject(new Error('replica A is gone'));
    await a.conveyor.idle();
    expect(github.dispatches).toHaveLength(1);

    // B drives the run to its end.
    const head = 'c'.repeat(40);
    await b.receive(
      'check_run',
      await completion(github, b.store, 'acme-web-7', 'implement', {
        prs: [{ repo: 'acme/web', number: 1007, url: 'https://github.com/acme/web/pull/1007', branch: 'conveyor/web-7', head }],
        commits: { 'acme/web': head },
      }),
      'implement-done',
    );
    await b.conveyor.idle();
    await b.receive('check_run', await completion(github, b.store, 'acme-web-7', 'check'), 'check-done');
    await b.conveyor.idle();
    expect(github.dispatches.map((d) => d.attempt)).toEqual(['acme-web-7:implement:1:0', 'acme-web-7:check:1:0']);
    expect((await b.store.get('acme-web-7'))?.status).toBe('succeeded');
    expect(github.comments).toHaveLength(1);
  });
});
