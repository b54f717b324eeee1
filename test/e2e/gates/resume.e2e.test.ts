// Receipts and resume end to end: a stored result edited by hand counts as not run; a retry on a
// changed pipeline is refused with the steps that differ; restart starts over on the same branches.
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../helpers/repos.ts';
import { configOf, createOrg, HELLO_CODER, statusOf, type Org } from './setup.ts';

describe('receipts and resume', () => {
  let org: Org;
  beforeEach(() => {
    org = createOrg();
    org.script('coder', HELLO_CODER);
  });
  afterEach(() => org.cleanup());

  it('a stored result edited by hand fails its receipt: the step runs again; the merge trailers name the new receipt', async () => {
    org.writeConfig(
      configOf(org, {
        agents: { coder: {} },
        steps:
          '      - { id: implement, kind: code, agent: coder }\n      - { id: test, kind: gate, run: node test/unit.js }\n      - { id: approve, kind: approval }\n      - { id: ship, kind: merge }',
      }),
    );
    const first = await org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', '5');
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const before = await statusOf(org, 'web-5');
    const oldReceipt = before.steps.test?.result?.receipt;
    expect(first.stdout).toContain(`sha256:${oldReceipt?.slice(7, 19)}`);

    // Someone rewrites the gate's stored verdict in the state database.
    const db = new Database(org.state);
    db.prepare("UPDATE runs SET body = json_set(body, '$.steps.test.result.summary', 'Gate passed (trust me).') WHERE id = ?").run('web-5');
    db.close();
    const shown = await org.conveyor('status', 'web-5');
    expect(shown.stdout).toMatch(/test\s+gate\s+succeeded\s+1\s+\S+\s+sha256:[0-9a-f]{12} \(does not verify\)/);

    const retried = await org.conveyor('retry', 'web-5');
    expect(retried.code, retried.stdout + retried.stderr).toBe(3);
    expect(retried.stderr).toContain(
      'the stored result of step "test" does not verify against its receipt: it counts as not run, and the run resumes from step "test"',
    );
    const after = await statusOf(org, 'web-5');
    expect(after.steps.implement?.attempts).toHaveLength(1); // kept: its receipt verifies
    expect(after.steps.test?.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    const newReceipt = after.steps.test?.result?.receipt;
    expect(newReceipt).not.toBe(oldReceipt);

    const approved = await org.conveyor('approve', 'web-5');
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(org.trailers()).toEqual(['Conveyor-Run: web-5', `Tested-by: conveyor gate test (${newReceipt})`, 'Approved-by: conveyor-cli']);
  });

  it('a result file edited by hand is not trusted when a crashed run is taken over: the attempt runs again', async () => {
    org.writeConfig(
      configOf(org, {
        agents: { coder: {} },
        steps:
          '      - { id: implement, kind: code, agent: coder }\n      - { id: test, kind: gate, run: node test/unit.js }\n      - { id: approve, kind: approval }',
      }),
    );
    expect((await org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', '6')).code).toBe(3);
    // As if the driving process died after the attempt wrote its result and before it was applied,
    // and someone edited the result file in the meantime.
    const db = new Database(org.state);
    db.prepare(
      "UPDATE runs SET status = 'running', body = json_set(body, '$.status', 'running', '$.steps.test.status', 'queued', '$.steps.approve.status', 'pending') WHERE id = ?",
    ).run('web-6');
    db.close();
    const resultFile = join(org.dir, 'attempts', 'web-6', 'test.run.1.0', 'result.json');
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as { summary: string };
    writeFileSync(resultFile, JSON.stringify({ ...result, summary: 'edited' }));

    const r = await org.conveyor('retry', 'web-6');
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const s = await statusOf(org, 'web-6');
    const attempts = s.steps.test?.attempts ?? [];
    expect(attempts.map((a) => `${a.epoch}:${a.conclusion}`)).toEqual(['0:lost', '1:success']);
    expect(JSON.stringify(s.steps.test)).toContain('its receipt does not verify against the payload that was sent');
  });

  it('retry refuses a changed pipeline and shows the steps that differ; restart starts over on the same branch and PR', async () => {
    const config = (gate: string) =>
      configOf(org, {
        agents: { coder: {} },
        steps: `      - { id: implement, kind: code, agent: coder }\n      - { id: test, kind: gate, run: "${gate}" }\n      - { id: ship, kind: merge }`,
      });
    org.writeConfig(config('exit 1'));
    const first = await org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', '7', '--approve');
    expect(first.code).toBe(1);
    const branchHead = org.remotes.head('acme/web', 'conveyor/web-7');
    expect(branchHead).toBeDefined();

    org.writeConfig(config('node test/unit.js'));
    const refused = await org.conveyor('retry', 'web-7');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('changed since run web-7 started');
    expect(refused.stderr).toContain('  ~ step "test": step.run: "exit 1" -> "node test/unit.js"');
    expect(refused.stderr).toContain('conveyor restart web-7');
    expect((await statusOf(org, 'web-7')).steps.test?.attempts).toHaveLength(1); // nothing ran

    const restarted = await org.conveyor('restart', 'web-7');
    expect(restarted.code, restarted.stdout + restarted.stderr).toBe(0);
    expect(restarted.stdout).toContain('Run web-7 is cancelled; starting acme/web#7 over on');
    expect(restarted.stdout).toContain('Run web-7-2: succeeded');
    expect((await statusOf(org, 'web-7')).status).toBe('cancelled');
    // The same branch was resumed (its old head is in the new history) and the same PR merged.
    expect(org.remotes.show('acme/web', 'main', 'work.txt')).toBe('web-7-2 attempt 1');
    const resumed = org.remotes.head('acme/web', 'conveyor/web-7')!;
    expect(resumed).not.toBe(branchHead);
    expect(() => git(org.remotes.bare('acme/web'), 'merge-base', '--is-ancestor', branchHead!, resumed)).not.toThrow();
    const listed = await org.conveyor('status');
    expect(listed.stdout).toMatch(/web-7\s+cancelled/);
    expect(listed.stdout).toMatch(/web-7-2\s+succeeded/);
  });
});
