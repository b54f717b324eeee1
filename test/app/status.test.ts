// `/conveyor status` is for the run's writers, like every command (write on its primary
// repository): its answer carries the steps' states, their reasons (a gate's failing lines among
// them) and the cost, and a sibling repository's PR may be public where the primary repository is
// not. Anyone else gets a reply that says who may ask and where the tracking comment is, and
// nothing of the run: one permission read more than an answer would cost, and nothing else.
import { describe, expect, it } from 'vitest';
import { createHarness, type Harness, harnessPerTest } from './harness.ts';
import { events, fleetBuilt, fleetPlan, permissionScope, replyScope, RUN, seed } from './decisions-setup.ts';

let h: Harness;
harnessPerTest({ make: async () => (h = await createHarness()), current: () => h, token: true });

describe('`/conveyor status`', () => {
  it("a reader of the primary repository, asking on a sibling's PR, is told who may ask and where to look, and nothing of the run", async () => {
    const before = await seed(h, fleetPlan(), fleetBuilt);
    const replies: string[] = [];
    const scopes = [permissionScope('mallory', 'read'), replyScope('acme/api', 2, replies)];
    h.calls.length = 0;
    await h.receive('issue_comment', events.prComment('/conveyor status', 'mallory', 'acme/api', 2));
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(replies).toEqual([
      `@mallory only people with write permission on acme/web can ask for the status of Conveyor run \`${RUN}\` (you have read there): acme/web is the run's primary repository, wherever the command is given. The run's tracking comment on acme/web#7 shows where it stands.`,
    ]);
    // One permission read and the reply: nothing else is read or written.
    expect(h.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /repos/acme/web/collaborators/mallory/permission',
      'POST /repos/acme/api/issues/2/comments',
    ]);
    expect((await h.conveyor.engine.get(RUN)).version).toBe(before.version);
  });

  it('a writer of the primary repository gets each step, asking on any PR of the run', async () => {
    await seed(h, fleetPlan(), fleetBuilt);
    const replies: string[] = [];
    const scopes = [permissionScope('bob', 'write'), replyScope('acme/lib', 3, replies)];
    await h.receive('issue_comment', events.prComment('/conveyor status', 'bob', 'acme/lib', 3));
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatch(new RegExp(`^@bob Conveyor run \`${RUN}\` \\(pipeline \`default\`, started Mar 1, 09:00 UTC\\) is \\*\\*waiting\\*\\*`));
    // What it waits for and the command that continues it, as the tracking comment says it.
    expect(replies[0]).toContain(
      "> To approve what the pull requests hold now, comment `/conveyor approve` on this issue or on one of the run's pull requests",
    );
    expect(replies[0]).toContain('- `approve` (approval): waiting');
    expect(replies[0]).toContain('PRs: acme/web#1, acme/api#2, acme/lib#3');
    expect(replies[0]).toContain('Details: https://github.com/acme/web/issues/7#issuecomment-900');
  });
});
