// Run identity in the embedded mode: the remotes' forge gives out issue numbers, so two state
// databases driving runs on one remotes folder never share a run id, a work branch or an attempt
// folder; and a work branch whose PR ended is started over, not resumed.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, RIGHT_FIRST_TIME, type Fleet } from '../../helpers/fleet.ts';
import { git } from '../../helpers/repos.ts';

interface StatusJson {
  id: string;
  status: string;
  steps: Record<string, { status: string }>;
  prs: Array<{ repo: string; number: number; branch: string }>;
}

async function status(state: string, runId: string): Promise<StatusJson> {
  const r = await cli(['status', runId, '--json', '--state', state]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
}

function runIdOf(stdout: string): string {
  const m = /Run (\S+): /.exec(stdout);
  if (!m) throw new Error(`no run id in:\n${stdout}`);
  return m[1]!;
}

describe('run identity over one remotes folder', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  const runWith = (state: string, ...extra: string[]) => cli(['run', '--config', fleet.config, '--remotes', fleet.remotes.dir, '--state', state, ...extra]);

  it('two state databases in one folder start runs with distinct ids, branches and attempt folders', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    const a = join(fleet.dir, 'state', 'a.db');
    const b = join(fleet.dir, 'state', 'b.db');
    const first = await runWith(a, '--title', 'First', '--approve');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const second = await runWith(b, '--title', 'Second', '--approve');
    expect(second.code, second.stdout + second.stderr).toBe(0);

    const [idA, idB] = [runIdOf(first.stdout), runIdOf(second.stdout)];
    expect(idA).not.toBe(idB);
    const [runA, runB] = [await status(a, idA), await status(b, idB)];
    expect(runB.status).toBe('succeeded');
    const branches = (s: StatusJson) => [...new Set(s.prs.map((p) => p.branch))];
    expect(branches(runA)).toHaveLength(1);
    expect(branches(runB)).toHaveLength(1);
    expect(branches(runA)[0]).not.toBe(branches(runB)[0]);
    // Issues and PRs share one sequence per repository, as on GitHub: no number names two things.
    const webA = runA.prs.find((p) => p.repo === 'acme/web')!.number;
    const webB = runB.prs.find((p) => p.repo === 'acme/web')!.number;
    const numbers = [idA, idB].map((id) => Number(/-(\d+)$/.exec(id)![1]));
    expect(new Set([...numbers, webA, webB]).size).toBe(4);

    // Each database has attempt folders of its own, beside it.
    expect(readdirSync(join(fleet.dir, 'state', 'a.db-attempts'))).toEqual([idA]);
    expect(readdirSync(join(fleet.dir, 'state', 'b.db-attempts'))).toEqual([idB]);
    expect(existsSync(join(fleet.dir, 'state', 'attempts'))).toBe(false);
  });

  it('starts a work branch whose PR was merged over from the base instead of resuming it', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    const a = join(fleet.dir, 'a.db');
    const b = join(fleet.dir, 'b.db');
    const first = await runWith(a, '--title', 'First', '--issue', '1', '--approve');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const merged = fleet.remotes.head('acme/web', 'conveyor/web-1')!;

    // The same issue, from another database: the merged run's branch is there, and must not come into this PR.
    fleet.setScript({ attempts: { '1': { 'acme/web': { 'second.txt': 'second\n' } } } });
    const second = await runWith(b, '--title', 'Second', '--issue', '1');
    expect(second.code, second.stdout + second.stderr).toBe(3);
    const head = fleet.remotes.head('acme/web', 'conveyor/web-1')!;
    const bare = fleet.remotes.bare('acme/web');
    expect(git(bare, 'rev-list', `main..${head}`).split('\n')).toHaveLength(1);
    expect(git(bare, 'rev-list', head).split('\n')).not.toContain(merged);
    expect(git(bare, 'rev-parse', `${head}^`)).toBe(fleet.remotes.head('acme/web', 'main'));
    const pr = (await status(b, runIdOf(second.stdout))).prs.find((p) => p.repo === 'acme/web')!;
    const shown = await cli(['pr', runIdOf(second.stdout), '--state', b]);
    expect(shown.stdout).toContain(`acme/web#${pr.number} (open) conveyor/web-1`);
  });
});

describe('a state folder that cannot be written', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  it('ends `conveyor run` with exit 1 and one line naming the attempt folder and what to do, not a stack trace', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    const state = join(fleet.dir, 'state', 'full.db');
    // A file where the attempts folder should be: every write under it fails, as on a full disk.
    mkdirSync(dirname(state), { recursive: true });
    writeFileSync(`${state}-attempts`, '');
    const r = await cli(['run', '--config', fleet.config, '--remotes', fleet.remotes.dir, '--state', state, '--title', 'No room', '--approve']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).not.toMatch(/^\s+at /m);
    expect(out).toContain(
      `cannot write the attempt folder ${state}-attempts/web-1/implement.run.1.2: a part of that path is a file, not a folder (ENOTDIR); make that path a folder you can write, or give \`--state\` a database in another folder, then try again`,
    );
    // The state is whole: the run waits for a retry, its step failed with that reason.
    const s = await status(state, 'web-1');
    expect(s.status).toBe('waiting');
    expect(s.steps.implement!.status).toBe('failed');
  });
});
