// The way back from a partial merge, end to end in the embedded mode: the provider merges, the
// consumer's merge is refused by the local forge (its base branch's ref is locked, so the push of
// the merge fails), and `conveyor revert` opens the provider's revert PR, which merges once
// approved and leaves its base with its old tree. The real `conveyor` command, the action in
// child processes, the local forge over real bare repositories.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, RIGHT_FIRST_TIME, type Fleet } from '../../helpers/fleet.ts';
import { git } from '../../helpers/repos.ts';

interface StatusJson {
  status: string;
  reason?: string;
  steps: Record<string, { status: string; reason?: string; result?: { error?: { code: string; message: string } } }>;
  prs: Array<{ repo: string; number: number; branch: string }>;
}

async function status(fleet: Fleet, runId: string): Promise<StatusJson> {
  const r = await cli(['status', runId, '--json', '--state', fleet.state]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
}

const tree = (fleet: Fleet, repo: string, rev: string) => git(fleet.remotes.bare(repo), 'rev-parse', `${rev}^{tree}`);
const initial = (fleet: Fleet, repo: string) => git(fleet.remotes.bare(repo), 'rev-list', '--max-parents=0', 'main');

describe('conveyor revert (embedded mode)', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  it('after the consumer failed to merge, reverts the provider through a revert PR that merges once approved', { timeout: 180_000 }, async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    const waiting = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '31'));
    expect(waiting.code, waiting.stdout + waiting.stderr).toBe(3);

    // Nothing merged yet: there is nothing to revert, and nothing changes.
    const early = await cli(['revert', 'web-31', '--state', fleet.state]);
    expect(early.code, early.stdout + early.stderr).toBe(1);
    expect(early.stderr).toContain('has not merged any pull request');
    expect((await status(fleet, 'web-31')).status).toBe('waiting');

    // acme/web's main cannot be updated: its merge is refused after acme/api's went in.
    const lock = join(fleet.remotes.bare('acme/web'), 'refs', 'heads', 'main.lock');
    writeFileSync(lock, '');
    const approved = await cli(['approve', 'web-31', '--state', fleet.state]);
    expect(approved.code, approved.stdout + approved.stderr).toBe(1);
    rmSync(lock);
    const stopped = await status(fleet, 'web-31');
    expect(stopped.steps.ship).toMatchObject({ status: 'failed', result: { error: { code: 'merge-failed' } } });
    // acme/web's PR takes the number after the (the forge gives issues and PRs one sequence).
    expect(stopped.steps.ship!.result!.error!.message).toMatch(/Merged: acme\/api#1\. Not merged: acme\/web#\d+\./);
    expect(approved.stdout).toContain('conveyor revert web-31');
    expect(fleet.remotes.show('acme/api', 'main', 'api-31.txt')).toBe('endpoint');
    const merged = fleet.remotes.head('acme/api', 'main')!;
    expect(tree(fleet, 'acme/api', merged)).not.toBe(tree(fleet, 'acme/api', initial(fleet, 'acme/api')));

    // The revert: a PR of acme/api's revert, the run cancelled, the revert run waiting for its approval.
    const reverting = await cli(['revert', 'web-31', '--state', fleet.state]);
    expect(reverting.code, reverting.stdout + reverting.stderr).toBe(3);
    expect(reverting.stdout).toContain('Opened acme/api#2, reverting what run web-31 merged; run web-31-revert merges them once approved.');
    expect(await status(fleet, 'web-31')).toMatchObject({
      status: 'cancelled',
      reason: 'cancelled by conveyor-cli: reverting what it merged: run web-31-revert',
    });
    const revert = await status(fleet, 'web-31-revert');
    expect(revert.status).toBe('waiting');
    expect(Object.keys(revert.steps)).toEqual(['approve', 'ship']);
    expect(revert.prs).toEqual([expect.objectContaining({ repo: 'acme/api', number: 2, branch: 'revert-1-conveyor/web-31' })]);
    // Not merged before a person approves it.
    expect(fleet.remotes.head('acme/api', 'main')).toBe(merged);

    // Asked again: the revert run exists, nothing more is opened.
    const twice = await cli(['revert', 'web-31', '--state', fleet.state]);
    expect(twice.code, twice.stdout + twice.stderr).toBe(1);
    expect(twice.stderr).toContain('run web-31-revert already reverts run web-31');

    const done = await cli(['approve', 'web-31-revert', '--as', 'alice', '--state', fleet.state]);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect((await status(fleet, 'web-31-revert')).status).toBe('succeeded');
    // acme/api's main is back to its old tree, on top of the merge (history kept); acme/web never changed.
    const after = fleet.remotes.head('acme/api', 'main')!;
    expect(tree(fleet, 'acme/api', after)).toBe(tree(fleet, 'acme/api', initial(fleet, 'acme/api')));
    expect(git(fleet.remotes.bare('acme/api'), 'merge-base', '--is-ancestor', merged, after)).toBe('');
    const message = git(fleet.remotes.bare('acme/api'), 'log', '-1', '--format=%B', 'main');
    // In acme/api, the issue is cited with its repository (GitHub would link a bare #31 to acme/api).
    expect(message).toMatch(/^Revert "Add the endpoint" \(acme\/web#31\)\n/);
    expect(message).toContain('Reverts what Conveyor run web-31 merged for acme/web#31.');
    expect(message).toMatch(/^Conveyor-Run: web-31-revert$/m);
    expect(message).toMatch(/^Conveyor-Reverts: web-31$/m);
    expect(message).toMatch(/^Approved-by: alice$/m);
    expect(fleet.remotes.head('acme/web', 'main')).toBe(initial(fleet, 'acme/web'));
  });
});
