// The store contract (engine/ports/store.ts, adapters/github/links.ts), run against every store:
// each driver's test file calls `storeContract` with a way to open a fresh store, and a second
// handle on the same database (another process or replica).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRun } from '../../../core/run/reducer.ts';
import { buildPayload } from '../../../core/run/payload.ts';
import type { Run, RunEffect } from '../../../core/run/types.ts';
import type { LinkStore } from '../../../adapters/github/links.ts';
import { StoreError, type RunStore, type StoredEffect } from '../../../engine/ports/store.ts';
import { planOf, TEST_ORIGIN } from '../../helpers/plans.ts';
import { sql, type Kysely } from 'kysely';
import type { SqlStore } from '../../../adapters/store/sql.ts';

/** The store's own database, for a row damaged as only a hand edit would (both stores are the one SQL store). */
const dbOf = (store: RunStore): Kysely<unknown> => (store as unknown as { db: Kysely<unknown> }).db;

export interface StoreDriver {
  /** A new, empty database; returns its first handle. */
  open(): Promise<RunStore & { links: LinkStore }>;
  /** Another handle on the database `open` made last. */
  another(): Promise<RunStore & { links: LinkStore }>;
  /** Drops the database. */
  cleanup(): Promise<void>;
}

const AT = '2025-01-01T00:00:00.000Z';
const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'ship', kind: 'merge' },
]);
export const runOf = (id: string, issue = 7, pipeline = 'default'): Run =>
  createRun({
    id,
    plan: { ...plan, pipeline },
    issue: { repo: 'acme/web', number: issue, title: 't', body: 'b' },
    origin: TEST_ORIGIN,
    settings: { keepEnvs: true },
    at: AT,
  });
export const report = (key: string): RunEffect => ({ type: 'report', key });

export function storeContract(name: string, driver: StoreDriver): void {
  describe(`${name}: the store contract`, () => {
    let store: RunStore & { links: LinkStore };
    const handles: RunStore[] = [];
    const another = async () => {
      const h = await driver.another();
      handles.push(h);
      return h;
    };
    beforeEach(async () => {
      store = await driver.open();
    });
    afterEach(async () => {
      for (const h of handles.splice(0)) await h.close();
      await store.close();
      await driver.cleanup();
    });

    it('stores a new run as version 1 and reads it back, plan included', async () => {
      const run = runOf('r1');
      await store.create(run, [report('r1:report:1')]);
      expect(await store.get('r1')).toEqual({ ...run, version: 1 });
      expect(await store.get('nope')).toBeUndefined();
      expect(await store.pendingEffects()).toEqual([{ type: 'report', key: 'r1:report:1', runId: 'r1' }]);
    });

    it('refuses a second run with the same id, and a second active run of one issue and pipeline, whoever writes them', async () => {
      await store.create(runOf('r1'), []);
      await expect(store.create(runOf('r1'), [])).rejects.toMatchObject({
        code: 'duplicate-run',
        message: expect.stringContaining('A run "r1" already exists'),
      });
      const other = await another();
      await expect(other.create(runOf('r2'), [])).rejects.toMatchObject({
        code: 'active-run',
        message: expect.stringContaining('Run "r1" of pipeline default is already active for acme/web#7'),
      });
      // Another pipeline, or another issue, is fine; and once r1 ends, a new run of the issue is too.
      await other.create(runOf('r3', 7, 'hotfix'), []);
      await other.create(runOf('r4', 8), []);
      expect(await store.commit({ ...(await store.get('r1'))!, status: 'cancelled' }, [])).toEqual({ claimed: [] });
      await store.create(runOf('r2'), []);
      expect((await store.list()).map((r) => r.id)).toEqual(['r1', 'r3', 'r4', 'r2']);
      const error = await store.create(runOf('r1'), []).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
    });

    it('refuses to make a run active again (a retry) while its issue has another active run of the pipeline, writing nothing', async () => {
      await store.create(runOf('r1'), []);
      const ended = await store.commit({ ...(await store.get('r1'))!, status: 'cancelled' }, []);
      expect(ended).toEqual({ claimed: [] });
      await store.create(runOf('r2'), []);
      const r1 = (await store.get('r1'))!;
      const error = await store.commit({ ...r1, status: 'running' }, [report('r1:again')]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect(error).toMatchObject({ code: 'active-run', message: 'Run "r2" of pipeline default is already active for acme/web#7.' });
      expect(await store.get('r1')).toMatchObject({ version: r1.version, status: 'cancelled' });
      expect(await store.pendingEffects('r1')).toEqual([]);
    });

    it('commit is compare-and-swap: a stale version writes nothing, not even its effects', async () => {
      await store.create(runOf('r1'), []);
      const v1 = (await store.get('r1'))!;
      expect(await store.commit({ ...v1, status: 'waiting' }, [report('a')])).toEqual({ claimed: [] });
      expect(await store.get('r1')).toMatchObject({ version: 2, status: 'waiting' });
      expect(await store.commit({ ...v1, status: 'cancelled' }, [report('b')])).toBe(false);
      expect(await store.get('r1')).toMatchObject({ version: 2, status: 'waiting' });
      expect((await store.pendingEffects('r1')).map((e) => e.key)).toEqual(['a']);
      expect(await store.commit({ ...v1, id: 'ghost' }, [])).toBe(false);
    });

    it('stores an effect key once, keeps commit order, and marks effects done from any handle', async () => {
      await store.create(runOf('r1'), []);
      await store.create(runOf('r2', 8), [report('x')]);
      const ref = { runId: 'r1', step: 'implement', attempt: 1, epoch: 0, mode: 'run' } as const;
      const effect: RunEffect = { type: 'dispatch', key: 'r1:implement:1:0:dispatch', ref, payload: buildPayload(runOf('r1'), ref) };
      expect(await store.commit((await store.get('r1'))!, [effect, report('r1:report:2')])).toEqual({ claimed: [] });
      expect(await store.commit((await store.get('r1'))!, [effect, report('r1:report:3')])).toEqual({ claimed: [] });
      expect(await store.pendingEffects('r1')).toEqual([
        { ...effect, runId: 'r1' },
        { ...report('r1:report:2'), runId: 'r1' },
        { ...report('r1:report:3'), runId: 'r1' },
      ]);
      expect((await store.pendingEffects()).map((e) => `${e.runId}/${e.key}`)).toEqual([
        'r2/x',
        'r1/r1:implement:1:0:dispatch',
        'r1/r1:report:2',
        'r1/r1:report:3',
      ]);
      const other = await another();
      await other.markEffectDone('r1', effect.key);
      await store.markEffectDone('r1', effect.key);
      await store.markEffectDone('r2', 'r1:report:2'); // another run's key: nothing
      expect((await store.pendingEffects('r1')).map((e) => e.key)).toEqual(['r1:report:2', 'r1:report:3']);
      // A done effect committed again stays done.
      expect(await store.commit((await store.get('r1'))!, [effect])).toEqual({ claimed: [] });
      expect((await store.pendingEffects('r1')).map((e) => e.key)).toEqual(['r1:report:2', 'r1:report:3']);
    });

    it("claims: the effects a write stores are its holder's; no one else takes them until the claim runs out", async () => {
      const A = { holder: 'replica A', ttlMs: 60_000 };
      const B = { holder: 'replica B', ttlMs: 60_000 };
      const keysOf = (effects: StoredEffect[]) => effects.map((e) => `${e.runId}/${e.key}`);
      expect(await store.create(runOf('r1'), [report('a')], A)).toEqual({ claimed: ['a'] });
      const [a] = await store.pendingEffects('r1');
      expect(a).toMatchObject({ key: 'a', runId: 'r1', claim: { holder: 'replica A' } });
      expect(a!.claim!.until).toBeGreaterThan(Date.now() + 50_000);
      // A key stored before keeps its claim; a conflict stores and claims nothing.
      const v1 = (await store.get('r1'))!;
      expect(await store.commit(v1, [report('a'), report('b')], A)).toEqual({ claimed: ['b'] });
      expect(await store.commit(v1, [report('x')], A)).toBe(false);
      // Written without a claim (another command's write): anyone may take it at once.
      expect(await store.commit((await store.get('r1'))!, [report('c')])).toEqual({ claimed: [] });
      await store.create(runOf('r2', 8), [report('d')]);
      const other = await another();
      expect(keysOf(await other.claimEffects(B, { runId: 'r1' }))).toEqual(['r1/c']);
      // What a holder holds is not claimed again, by anyone: only r2's unclaimed effect is free.
      expect(keysOf(await store.claimEffects(A))).toEqual(['r2/d']);
      expect(keysOf(await other.claimEffects(B))).toEqual([]);
      expect((await store.pendingEffects()).map((e) => `${e.runId}/${e.key}:${e.claim?.holder}`)).toEqual([
        'r1/a:replica A',
        'r1/b:replica A',
        'r1/c:replica B',
        'r2/d:replica A',
      ]);
      // A stops renewing (it died): once its claims run out, B takes them, in commit order; A's late renewal changes nothing.
      await store.renewClaims({ ...A, ttlMs: -1 }, [
        { runId: 'r1', key: 'a' },
        { runId: 'r1', key: 'b' },
        { runId: 'r2', key: 'd' },
      ]);
      expect(keysOf(await other.claimEffects(B, { runId: 'r1' }))).toEqual(['r1/a', 'r1/b']);
      await store.renewClaims(A, [{ runId: 'r1', key: 'a' }]);
      expect((await store.pendingEffects('r1')).map((e) => e.claim?.holder)).toEqual(['replica B', 'replica B', 'replica B']);
      // The holder's renewal extends its claim.
      const before = (await store.pendingEffects('r1'))[0]!.claim!.until;
      await other.renewClaims({ ...B, ttlMs: 120_000 }, [{ runId: 'r1', key: 'a' }]);
      expect((await store.pendingEffects('r1'))[0]!.claim!.until).toBeGreaterThan(before);
      // A taker-over (it knows B is gone) takes them whoever holds them; done effects are never claimed.
      await other.markEffectDone('r1', 'b');
      expect(keysOf(await store.claimEffects(A, { runId: 'r1', takeOver: true }))).toEqual(['r1/a', 'r1/c']);
      // r2's effect, whose claim A let run out too, is free for B.
      expect(keysOf(await other.claimEffects(B))).toEqual(['r2/d']);
      expect(keysOf(await other.claimEffects(B))).toEqual([]);
    });

    it('claims: two holders taking the same free effects at once get each effect once between them', async () => {
      const all: string[] = [];
      for (let r = 0; r < 3; r++) {
        const effects = Array.from({ length: 10 }, (_, i) => report(`e${r}-${i}`));
        await store.create(runOf(`r${r}`, r), effects);
        all.push(...effects.map((e) => `r${r}/${e.key}`));
      }
      const other = await another();
      const [mine, theirs] = await Promise.all([store.claimEffects({ holder: 'A', ttlMs: 60_000 }), other.claimEffects({ holder: 'B', ttlMs: 60_000 })]);
      const keys = [...mine, ...theirs].map((e) => `${e.runId}/${e.key}`);
      expect(keys.sort()).toEqual([...all].sort());
      expect(new Set(keys).size).toBe(all.length);
    });

    it('lists runs in creation order, filtered by status, issue, pipeline, pull request and pull request repository', async () => {
      await store.create(runOf('b', 1), []);
      await store.create(runOf('a', 2, 'hotfix'), []);
      await store.create({ ...runOf('c', 1), status: 'succeeded' }, []);
      const b = (await store.get('b'))!;
      await store.commit({ ...b, prs: [{ repo: 'acme/api', number: 4, url: 'u', branch: 'conveyor/api-1' }] }, []);
      expect((await store.list()).map((r) => r.id)).toEqual(['b', 'a', 'c']);
      expect((await store.list({ status: ['succeeded', 'cancelled'] })).map((r) => r.id)).toEqual(['c']);
      expect(await store.list({ status: [] })).toEqual([]);
      expect((await store.list({ issue: { repo: 'acme/web', number: 1 } })).map((r) => r.id)).toEqual(['b', 'c']);
      expect(await store.list({ issue: { repo: 'acme/api', number: 1 } })).toEqual([]);
      expect((await store.list({ pipeline: 'hotfix' })).map((r) => r.id)).toEqual(['a']);
      expect((await store.list({ status: ['running'], issue: { repo: 'acme/web', number: 1 } })).map((r) => `${r.id}@${r.version}`)).toEqual(['b@2']);
      expect((await store.list({ pr: { repo: 'acme/api', number: 4 } })).map((r) => r.id)).toEqual(['b']);
      // By the repository of one of its PRs (a commit status names a repository and a commit, no PR).
      expect((await store.list({ repo: 'acme/api', status: ['running'] })).map((r) => r.id)).toEqual(['b']);
      expect(await store.list({ repo: 'acme/web' })).toEqual([]);
      // A PR the run no longer has no longer finds it.
      await store.commit({ ...(await store.get('b'))!, prs: [] }, []);
      expect(await store.list({ pr: { repo: 'acme/api', number: 4 } })).toEqual([]);
      expect(await store.list({ repo: 'acme/api' })).toEqual([]);
    });

    it('hands out runs that are its callers own: changing one changes nothing stored', async () => {
      await store.create(runOf('r1'), []);
      const mine = (await store.get('r1'))!;
      mine.steps.implement!.status = 'failed';
      expect((await store.get('r1'))!.steps.implement!.status).toBe('pending');
      const other = await another();
      expect(await other.commit({ ...(await other.get('r1'))!, status: 'waiting' }, [])).toEqual({ claimed: [] });
      expect(await store.get('r1')).toMatchObject({ version: 2, status: 'waiting' });
      expect(await store.commit({ ...mine, version: 1 }, [])).toBe(false);
    });

    it("reads back each mode's origin and settings, and names a stored run without them as corrupt, with its id and what is wrong, instead of handing it out", async () => {
      const github: Run = {
        ...runOf('g1', 9),
        origin: { kind: 'github', installationId: 42, defaultBranch: 'trunk' },
        settings: { payloadLimit: 60_000 },
      };
      await store.create(github, []);
      await store.create(runOf('r1'), []);
      expect(await store.get('g1')).toMatchObject({ origin: github.origin, settings: github.settings });
      // Rows as a hand edit, or an earlier Conveyor's untyped `options`, would leave them.
      const stored = JSON.parse(JSON.stringify({ ...runOf('r1'), version: 1 })) as Record<string, unknown>;
      const { origin: _origin, settings: _settings, ...untyped } = stored;
      const damaged: Array<[Record<string, unknown>, string]> = [
        [{ ...untyped, options: { keepEnvs: true } }, 'origin: '],
        [{ ...stored, origin: { kind: 'github', installationId: '42', defaultBranch: 'main' } }, 'origin.installationId: '],
        [{ ...stored, origin: { kind: 'gitlab' } }, 'origin.kind: '],
        [{ ...stored, settings: { payloadLimit: 'big' } }, 'settings.payloadLimit: '],
      ];
      for (const [body, says] of damaged) {
        await sql`UPDATE runs SET body = ${JSON.stringify(body)} WHERE id = 'r1'`.execute(dbOf(store));
        for (const read of [() => store.get('r1'), () => store.list()]) {
          const error = await read().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StoreError);
          expect(error).toMatchObject({ code: 'corrupt', message: expect.stringContaining(`Run "r1" in ${(store as SqlStore).where} does not hold a run`) });
          expect((error as Error).message).toContain(says);
        }
      }
      // The other run of the same database still reads.
      expect((await store.get('g1'))?.origin).toEqual(github.origin);
    });

    it('remembers the delivery ids recorded as handled, across handles', async () => {
      expect(await store.deliveryHandled('d-1')).toBe(false);
      // Asking records nothing: a delivery counts as handled only once it is recorded.
      expect(await store.deliveryHandled('d-1')).toBe(false);
      await store.recordDelivery('d-1');
      expect(await store.deliveryHandled('d-1')).toBe(true);
      await store.recordDelivery('d-1');
      const other = await another();
      expect(await other.deliveryHandled('d-1')).toBe(true);
      expect(await other.deliveryHandled('d-2')).toBe(false);
    });

    it('leases: one holder at a time; renewed by its holder; taken over once expired; released only by its holder', async () => {
      const other = await another();
      const first = await store.acquireLease('run:r1', 'pid 1', 60_000);
      expect(first).toMatchObject({ name: 'run:r1', holder: 'pid 1' });
      expect(first.expiresAt).toBeGreaterThan(Date.now() + 50_000);
      // Refused: the lease as it stands says who holds it.
      expect(await other.acquireLease('run:r1', 'pid 2', 60_000)).toMatchObject({ holder: 'pid 1' });
      expect((await store.acquireLease('run:r1', 'pid 1', 120_000)).expiresAt).toBeGreaterThan(first.expiresAt);
      await other.releaseLease('run:r1', 'pid 2'); // not the holder: nothing
      expect(await store.lease('run:r1')).toMatchObject({ holder: 'pid 1' });
      // Expired (a holder that died without releasing): the next one takes it.
      await store.acquireLease('run:r1', 'pid 1', -1);
      expect(await other.acquireLease('run:r1', 'pid 2', 60_000)).toMatchObject({ holder: 'pid 2' });
      await other.releaseLease('run:r1', 'pid 2');
      expect(await store.lease('run:r1')).toBeUndefined();
      expect(await store.acquireLease('run:r1', 'pid 3', 60_000)).toMatchObject({ holder: 'pid 3' });
    });

    it("keeps the app's GitHub records: attempts by run, check run and workflow run (in their repository), comments and summaries", async () => {
      const link = (runId: string, step: string, extra = {}) => ({
        externalId: `${runId}:${step}:1:0`,
        runId,
        repo: 'acme/web',
        state: 'creating-check' as const,
        head: 'a'.repeat(40),
        at: AT,
        ...extra,
      });
      for (const [runId, step] of [
        ['acme-web-1', 'implement'],
        ['acme-web-1', 'test'],
        ['acme-web-10', 'implement'],
        ['acme-web-1-2', 'implement'],
      ] as const)
        await store.links.saveAttempt(link(runId, step));
      expect((await store.links.attemptsOfRun('acme-web-1')).map((l) => l.externalId)).toEqual(['acme-web-1:implement:1:0', 'acme-web-1:test:1:0']);
      await store.links.saveAttempt(link('acme-web-1', 'test', { checkRunId: 5, state: 'dispatched', workflowRunId: 9 }));
      const other = await another();
      expect(await other.links.attempt('acme-web-1:test:1:0')).toMatchObject({ checkRunId: 5, workflowRunId: 9, state: 'dispatched' });
      expect(await other.links.attemptByCheckRun('acme/web', 5)).toMatchObject({ externalId: 'acme-web-1:test:1:0' });
      expect(await other.links.attemptByWorkflowRun('acme/web', 9)).toMatchObject({ externalId: 'acme-web-1:test:1:0' });
      // The same ids in another repository are another repository's runs.
      expect(await other.links.attemptByCheckRun('evil/web', 5)).toBeUndefined();
      expect(await other.links.attemptByWorkflowRun('evil/web', 9)).toBeUndefined();
      expect(await store.links.comment('acme-web-1')).toBeUndefined();
      await store.links.saveComment('acme-web-1', { id: 3, url: 'https://c' });
      await other.links.saveComment('acme-web-1', { id: 4, url: 'https://d' });
      expect(await store.links.comment('acme-web-1')).toEqual({ id: 4, url: 'https://d' });
      await store.links.saveSummary('acme-web-1', 'h1', 11);
      expect(await other.links.summary('acme-web-1', 'h1')).toBe(11);
      expect(await other.links.summary('acme-web-1', 'h2')).toBeUndefined();
      // GitHub's ids outgrow 32 bits: they come back as the same numbers.
      const big = 2 ** 40 + 7;
      await store.links.saveAttempt(link('acme-web-1', 'big', { checkRunId: big, workflowRunId: big + 1 }));
      expect(await other.links.attemptByCheckRun('acme/web', big)).toMatchObject({ checkRunId: big, workflowRunId: big + 1 });
      expect(await other.links.attemptByWorkflowRun('acme/web', big + 1)).toMatchObject({ externalId: 'acme-web-1:big:1:0' });
      await store.links.saveComment('acme-web-1', { id: big, url: 'https://e' });
      await store.links.saveSummary('acme-web-1', 'h3', big);
      expect(await other.links.comment('acme-web-1')).toEqual({ id: big, url: 'https://e' });
      expect(await other.links.summary('acme-web-1', 'h3')).toBe(big);
    });
  });
}
