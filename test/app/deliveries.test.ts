// A webhook delivery counts as handled only once its handler succeeded (issue #25, item 7): one
// that failed (GitHub down for a moment, a bug) is handled again when GitHub redelivers it with the
// same id, while a delivery that was handled changes nothing the second time (test/app/cases.test.ts).
import { describe, expect, it } from 'vitest';
import nock from 'nock';
import { API, INSTALLATION, createHarness, webhooks, type Harness, harnessPerTest } from './harness.ts';
import { startIssue7, type Dispatched } from './scopes.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, loopback: true });

describe('a delivery whose handler failed', () => {
  it('is handled again when GitHub redelivers it (same delivery id): the run starts the second time', async () => {
    // The first time, GitHub refuses the installation token: the handler throws before anything is done.
    const refused = nock(API).post(`/app/installations/${INSTALLATION}/access_tokens`).reply(403, { message: 'Resource not accessible by integration' });
    await expect(h.receive('issues', webhooks.labeled(), 'label-1')).rejects.toThrow();
    expect(refused.isDone()).toBe(true);
    expect(await h.conveyor.deps.store.list()).toEqual([]);

    // The redelivery of the same id runs the handler again, every call of a start asserted.
    const dispatched: Dispatched[] = [];
    await startIssue7(h, dispatched);
    expect((await h.conveyor.deps.store.list()).map((r) => r.id)).toEqual(['acme-web-7']);
    expect(dispatched.map((d) => d.externalId)).toEqual(['acme-web-7:implement:1:0']);

    // Handled now: a third delivery of the id changes nothing and calls nothing.
    h.calls.length = 0;
    await h.receive('issues', webhooks.labeled(), 'label-1');
    expect(h.calls).toEqual([]);
    expect(nock.pendingMocks()).toEqual([]);
  });
});
