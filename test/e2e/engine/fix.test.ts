// `conveyor fix` end to end in the embedded mode (issue #17 item 4): the real command sends the
// coder back with a person's words; the gate runs again on what it wrote, the approval given
// before is stale, and the run goes on to merge once people approve again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, GATE, pipelineConfig, type Fleet } from '../../helpers/fleet.ts';

interface StatusJson {
  status: string;
  steps: Record<string, { status: string; attempts: Array<{ attempt: number; mode: string; conclusion?: string }> }>;
  approvals: Array<{ by: string; stale?: { kind: string; by?: string } }>;
  feedback?: Array<{ by: string; source: string; text: string; taken?: { step: string; attempt: number } }>;
}

const STEPS = `      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: '${GATE}' }
      - { id: approve, kind: approval, min-approvals: 2 }
      - { id: ship, kind: merge, method: squash }`;

describe('conveyor fix (embedded mode)', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
    fleet.writeConfig(pipelineConfig(STEPS));
    fleet.setScript({
      attempts: {
        '1': { 'acme/api': { 'api-{issue}.txt': 'endpoint\n' }, 'acme/web': { 'web-{issue}.txt': 'call site\n' } },
        // The repair keeps what it was told, so the test can read it from the pushed branch.
        '2': { 'acme/web': { 'web-{issue}.txt': 'fetchThing\n', 'told.txt': '{prompt}' } },
      },
    });
  });
  afterEach(() => fleet.cleanup());

  const status = async (id: string): Promise<StatusJson> => {
    const r = await cli(['status', id, '--json', '--state', fleet.state]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as StatusJson;
  };

  it('repairs the code step with the text, runs the gate again, makes the approval stale, and the run merges after new approvals', async () => {
    expect((await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '11'))).code).toBe(3);
    const approved = await cli(['approve', 'web-11', '--as', 'alice', '--state', fleet.state]);
    expect(approved.code, approved.stderr).toBe(3);
    // One person is one approval: the second is refused, saying so.
    const again = await cli(['approve', 'web-11', '--as', 'alice', '--state', fleet.state]);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain('conveyor: the approval of alice is already recorded (`min-approvals` counts distinct people). Nothing changed.');

    const message = join(fleet.dir, 'feedback.md');
    writeFileSync(message, 'Rename `getThing` to `fetchThing`.\n\n```ts\nfetchThing(id)\n```\n');
    const fixed = await cli(['fix', 'web-11', '--message-file', message, '--as', 'bob', '--state', fleet.state]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(3);

    const s = await status('web-11');
    expect(s.steps.implement?.attempts.map((a) => [a.attempt, a.mode, a.conclusion])).toEqual([
      [1, 'run', 'success'],
      [2, 'repair', 'success'],
    ]);
    expect(s.steps.test?.attempts.map((a) => a.conclusion)).toEqual(['success', 'success']);
    expect(s.steps.approve?.status).toBe('waiting');
    expect(s.approvals).toEqual([expect.objectContaining({ by: 'alice', stale: { kind: 'feedback', by: 'bob' } })]);
    expect(s.feedback).toEqual([expect.objectContaining({ by: 'bob', source: 'command-line', taken: { step: 'implement', attempt: 2 } })]);
    // What the coder was told: the person's words, quoted as theirs.
    const told = fleet.remotes.show('acme/web', 'conveyor/web-11', 'told.txt');
    expect(told).toContain('### From @bob, in `conveyor fix`');
    expect(told).toContain('````text\nRename `getThing` to `fetchThing`.\n\n```ts\nfetchThing(id)\n```\n````');

    for (const who of ['alice', 'carol']) await cli(['approve', 'web-11', '--as', who, '--state', fleet.state]);
    expect((await status('web-11')).status).toBe('succeeded');
    expect(fleet.remotes.show('acme/web', 'main', 'web-11.txt')).toBe('fetchThing');
  });

  it('refuses a fix without words, an unreadable file, and one on an ended run, saying why', async () => {
    expect((await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '12'))).code).toBe(3);
    const none = await cli(['fix', 'web-12', '--state', fleet.state]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give what to change with either --message TEXT or --message-file FILE');
    const both = await cli(['fix', 'web-12', '--message', 'a', '--message-file', 'b', '--state', fleet.state]);
    expect(both.code).toBe(2);
    const blank = await cli(['fix', 'web-12', '--message', '  ', '--state', fleet.state]);
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain('--message is empty: say what the coder should change');
    const missing = await cli(['fix', 'web-12', '--message-file', join(fleet.dir, 'nope.md'), '--state', fleet.state]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--message-file ${join(fleet.dir, 'nope.md')}: no such file`);
    expect((await status('web-12')).feedback).toBeUndefined();

    expect((await cli(['cancel', 'web-12', '--state', fleet.state])).code).toBe(0);
    const late = await cli(['fix', 'web-12', '--message', 'too late', '--state', fleet.state]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('run web-12 has ended (cancelled)');
  });
});
