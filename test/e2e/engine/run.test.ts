// The embedded mode end to end: the real `conveyor` command drives the engine, the SQLite store,
// the local dispatcher (the action in child processes: its sources, this being a clone) and the
// local forge over real bare repositories.
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, startCli, waitForOutput } from '../../helpers/cli.ts';
import { createFleet, NEVER_REPAIRED, pipelineConfig, REPAIRED_ON_SECOND, RIGHT_FIRST_TIME, STANDARD_STEPS, type Fleet } from '../../helpers/fleet.ts';
import { git } from '../../helpers/repos.ts';
import { processesWith } from '../../helpers/processes.ts';

interface StatusJson {
  id: string;
  status: string;
  steps: Record<string, { status: string; attempt: number; epoch: number; attempts: Array<{ mode: string; epoch: number; conclusion?: string }> }>;
  prs: Array<{ repo: string; number: number; branch: string }>;
  approvals: Array<{ step: string; by: string }>;
}

async function status(fleet: Fleet, runId: string): Promise<StatusJson> {
  const r = await cli(['status', runId, '--json', '--state', fleet.state]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
}

function runIdOf(stdout: string): string {
  const m = /Run (\S+): /.exec(stdout);
  if (!m) throw new Error(`no run id in:\n${stdout}`);
  return m[1]!;
}

describe('conveyor run (embedded mode)', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  it('runs a pipeline from code to merge: one PR per repository, merged provider first with a Conveyor-Run trailer', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    // Paths relative to the folder the command runs in, as a person types them (issue #16).
    const r = await cli(
      ['run', '--config', 'conveyor.yml', '--remotes', 'remotes', '--state', 'state/state.db', '--title', 'Add the endpoint', '--issue', '7', '--approve'],
      { cwd: fleet.dir },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Run web-7: succeeded');

    const s = await status(fleet, 'web-7');
    expect(Object.fromEntries(Object.entries(s.steps).map(([k, v]) => [k, v.status]))).toEqual({
      implement: 'succeeded',
      test: 'succeeded',
      approve: 'succeeded',
      ship: 'succeeded',
    });
    expect(s.prs.map((p) => p.repo).sort()).toEqual(['acme/api', 'acme/web']);
    expect(fleet.remotes.show('acme/api', 'main', 'api-7.txt')).toBe('endpoint');
    expect(fleet.remotes.show('acme/web', 'main', 'web-7.txt')).toBe('call site');
    for (const repo of ['acme/api', 'acme/web']) {
      const message = git(fleet.remotes.bare(repo), 'log', '-1', '--format=%B', 'main');
      expect(message).toMatch(/^Conveyor-Run: web-7$/m);
    }
    // Providers first: api's merge commit is older than (or as old as) web's.
    const time = (repo: string) => Number(git(fleet.remotes.bare(repo), 'log', '-1', '--format=%ct', 'main'));
    expect(time('acme/api')).toBeLessThanOrEqual(time('acme/web'));
  });

  it('repairs a failing gate and passes on the second run of the gate', async () => {
    fleet.setScript(REPAIRED_ON_SECOND);
    const r = await cli(fleet.runArgs('--title', 'Change the value', '--issue', '3', '--approve'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = await status(fleet, 'web-3');
    expect(s.steps.test!.attempts.map((a) => [a.mode, a.conclusion])).toEqual([
      ['run', 'failure'],
      ['repair', 'success'],
      ['run', 'success'],
    ]);
    expect(fleet.remotes.show('acme/web', 'main', 'value.txt')).toBe('good');
  });

  it('waits for a person when repairs run out, and `retry` picks the run up where it stopped', async () => {
    fleet.setScript(NEVER_REPAIRED);
    const first = await cli(fleet.runArgs('--title', 'Change the value', '--issue', '4', '--approve'));
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(first.stdout).toContain('conveyor retry web-4');
    let s = await status(fleet, 'web-4');
    expect(s.status).toBe('waiting');
    expect(s.steps.test!.status).toBe('failed');
    expect(s.steps.test!.attempts.filter((a) => a.mode === 'repair')).toHaveLength(2);
    expect(s.steps.approve!.status).toBe('pending');

    fleet.setScript(REPAIRED_ON_SECOND);
    const retried = await cli(['retry', 'web-4', '--state', fleet.state]);
    expect(retried.code, retried.stdout + retried.stderr).toBe(0);
    s = await status(fleet, 'web-4');
    expect(s.status).toBe('succeeded');
    // The code step that had succeeded was kept, not run again.
    expect(s.steps.implement!.attempts).toHaveLength(1);
  });

  it('exits 3 while an approval waits, and `approve` finishes the run', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    const waiting = await cli(fleet.runArgs('--title', 'Needs a decision', '--issue', '5'));
    expect(waiting.code, waiting.stdout + waiting.stderr).toBe(3);
    expect(waiting.stdout).toContain('conveyor approve web-5');
    expect(fleet.remotes.head('acme/web', 'main')).toBe(git(fleet.remotes.bare('acme/web'), 'rev-list', '--max-parents=0', 'main'));

    const approved = await cli(['approve', 'web-5', '--as', 'alice', '--state', fleet.state]);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(git(fleet.remotes.bare('acme/web'), 'log', '-1', '--format=%B', 'main')).toMatch(/^Approved-by: alice$/m);
  });

  it('cancels a waiting run; a decision on the ended run is refused and says why', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    expect((await cli(fleet.runArgs('--title', 'To be cancelled', '--issue', '6'))).code).toBe(3);
    const cancelled = await cli(['cancel', 'web-6', '--state', fleet.state]);
    expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(0);
    expect((await status(fleet, 'web-6')).status).toBe('cancelled');

    const late = await cli(['approve', 'web-6', '--state', fleet.state]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('run web-6 has ended (cancelled)');
    expect(fleet.remotes.show('acme/web', 'main', 'value.txt')).toBe('good');
    expect(fleet.remotes.branches('acme/web')).toContain('conveyor/web-6');
  });

  /**
   * Starts a run whose agent sleeps, kills `conveyor run` with SIGKILL while the agent runs; returns
   * what finds the agent's processes (by a variable they inherit: in the sandbox their pids are its
   * PID namespace's), which are running then.
   */
  async function killMidStep(title: string, issue: string, approve = true): Promise<() => number[]> {
    // In the workspace of the first attempt: the only place the sandboxed agent may write.
    const name = `agent-started-${issue}`;
    const started = join(dirname(fleet.state), 'attempts', `web-${issue}`, 'implement.run.1.0', 'workspace', name);
    fleet.setScript({ ...RIGHT_FIRST_TIME, sleep: 60 });
    fleet.writeConfig(pipelineConfig(STANDARD_STEPS, { agentEnv: { AGENT_STARTED: name } }));
    const running = startCli(fleet.runArgs('--title', title, '--issue', issue, ...(approve ? ['--approve'] : [])));
    await waitForOutput(
      () => (existsSync(started) ? 'started' : ''),
      (t) => t === 'started',
    );
    running.child.kill('SIGKILL');
    const killed = await running.done;
    expect(killed.signal).toBe('SIGKILL');
    const agents = () => processesWith('AGENT_STARTED', name);
    expect(agents().length).toBeGreaterThan(0);
    // The attempt that takes over does not sleep.
    fleet.setScript(RIGHT_FIRST_TIME);
    return agents;
  }

  /** The killed run's lost attempt was not run again, and no later step of it started. */
  function expectNotDrivenOn(s: StatusJson): void {
    expect(s.steps.implement!.attempts).toHaveLength(1);
    expect(
      Object.entries(s.steps)
        .filter(([, x]) => x.attempts.length > 0)
        .map(([id]) => id),
    ).toEqual(['implement']);
  }

  it('finishes a run killed with SIGKILL mid-step: the lost attempt runs again with the next epoch, nothing duplicated', async () => {
    const orphan = await killMidStep('Interrupted', '8');
    const resumed = await cli(['retry', 'web-8', '--state', fleet.state]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    // The agent of the lost attempt did not outlive it: taking the run over stopped it (a zombie
    // left for an init that does not reap counts as ended).
    expect(orphan()).toEqual([]);
    const s = await status(fleet, 'web-8');
    expect(s.status).toBe('succeeded');
    const implement = s.steps.implement!;
    expect(implement.attempts.map((a) => [a.epoch, a.conclusion])).toEqual([
      [0, 'lost'],
      [1, 'success'],
    ]);
    expect(s.prs).toHaveLength(2);
    for (const repo of ['acme/api', 'acme/web']) {
      // One squash-merged commit on top of the initial one: no duplicate commit or PR.
      expect(git(fleet.remotes.bare(repo), 'rev-list', '--count', 'main')).toBe('2');
    }
  });

  it('refuses `approve` and `reject` while the code step runs (its driver killed): the run is not taken over, and the approval that comes up later waits', async () => {
    const orphan = await killMidStep('Approved too early', '15', false);
    for (const args of [
      ['approve', 'web-15', '--as', 'bob'],
      ['reject', 'web-15', '--as', 'bob'],
    ]) {
      const refused = await cli([...args, '--state', fleet.state]);
      expect(refused.code, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`).toBe(1);
      expect(refused.stderr).toContain('conveyor: run web-15 is running `implement`; nothing waits for an approval. Nothing changed.');
    }
    // Nothing was driven on, and nothing was kept: the orphaned agent still runs its only attempt.
    expect(orphan().length).toBeGreaterThan(0);
    expectNotDrivenOn(await status(fleet, 'web-15'));

    const resumed = await cli(['retry', 'web-15', '--state', fleet.state]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(3);
    const s = await status(fleet, 'web-15');
    expect(s.steps.approve!.status).toBe('waiting');
    expect(s.approvals).toEqual([]);
    for (const repo of ['acme/api', 'acme/web']) expect(git(fleet.remotes.bare(repo), 'rev-list', '--count', 'main')).toBe('1');
  });

  it('cancels a run killed with SIGKILL mid-step without driving it on first: its agent is stopped, nothing is merged', async () => {
    const orphan = await killMidStep('Interrupted then cancelled', '9');

    const cancelled = await cli(['cancel', 'web-9', '--state', fleet.state]);
    expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(0);
    expect(orphan()).toEqual([]);
    const s = await status(fleet, 'web-9');
    expect(s.status).toBe('cancelled');
    expectNotDrivenOn(s);
    for (const repo of ['acme/api', 'acme/web']) expect(git(fleet.remotes.bare(repo), 'rev-list', '--count', 'main')).toBe('1');
  });

  it('restarts a run killed with SIGKILL mid-step without driving the old run on first: it is cancelled, its agent stopped, the new run finishes', async () => {
    const orphan = await killMidStep('Interrupted then restarted', '10');
    fleet.setScript(RIGHT_FIRST_TIME);

    const restarted = await cli(['restart', 'web-10', '--state', fleet.state]);
    expect(restarted.code, restarted.stdout + restarted.stderr).toBe(0);
    expect(orphan()).toEqual([]);
    const old = await status(fleet, 'web-10');
    expect(old.status).toBe('cancelled');
    expectNotDrivenOn(old);
    expect((await status(fleet, 'web-10-2')).status).toBe('succeeded');
    for (const repo of ['acme/api', 'acme/web']) expect(git(fleet.remotes.bare(repo), 'rev-list', '--count', 'main')).toBe('2');
  });

  it('a run has one driver: a second command on a run a live `conveyor run` drives is refused naming it; cancel asks that driver to stop, and it stops the agent and exits', async () => {
    const name = 'agent-started-13';
    const started = join(dirname(fleet.state), 'attempts', 'web-13', 'implement.run.1.0', 'workspace', name);
    fleet.setScript({ ...RIGHT_FIRST_TIME, sleep: 60 });
    fleet.writeConfig(pipelineConfig(STANDARD_STEPS, { agentEnv: { AGENT_STARTED: name } }));
    const running = startCli(fleet.runArgs('--title', 'Driven', '--issue', '13', '--approve'));
    await waitForOutput(
      () => (existsSync(started) ? 'started' : ''),
      (t) => t === 'started',
    );
    const agents = () => processesWith('AGENT_STARTED', name);
    expect(agents().length).toBeGreaterThan(0);

    const retried = await cli(['retry', 'web-13', '--state', fleet.state]);
    expect(retried.code, retried.stderr).toBe(1);
    expect(retried.stderr).toMatch(
      new RegExp(`run web-13 is being driven by conveyor \\(pid ${running.child.pid} on .+, since .+\\); .*conveyor cancel web-13.*Nothing changed`),
    );
    // A decision where none is due is refused for that, whoever drives the run.
    for (const decision of ['approve', 'reject']) {
      const refused = await cli([decision, 'web-13', '--state', fleet.state]);
      expect(refused.code, `${decision}: ${refused.stderr}`).toBe(1);
      expect(refused.stderr).toContain('run web-13 is running `implement`; nothing waits for an approval. Nothing changed.');
    }
    // The live step was left alone: its agent still runs, attempted once.
    expect(agents().length).toBeGreaterThan(0);

    const cancelled = await cli(['cancel', 'web-13', '--state', fleet.state]);
    expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(0);
    const driver = await running.done;
    expect(driver.code).toBe(1); // its run ended cancelled
    expect(agents()).toEqual([]);
    const s = await status(fleet, 'web-13');
    expect(s.status).toBe('cancelled');
    expect(s.steps.implement!.attempts).toHaveLength(1);
    for (const repo of ['acme/api', 'acme/web']) expect(git(fleet.remotes.bare(repo), 'rev-list', '--count', 'main')).toBe('1');
  });

  it("merges a change whose provider's base moved in conflict after the approval: the conflict repair runs, the gate runs again, the approval is asked for again, and the merge completes", async () => {
    // The coder adds api-14.txt; the repair (attempt 2 of `ship`) merges the base and keeps both lines.
    fleet.setScript({
      attempts: {
        '1': { 'acme/api': { 'api-{issue}.txt': 'endpoint\n' }, 'acme/web': { 'web-{issue}.txt': 'call site\n' } },
        '2': { 'acme/api': { 'api-{issue}.txt': 'endpoint\nfrom main too\n' } },
      },
      mergeBase: { '2': ['acme/api'] },
    });
    const waiting = await cli(fleet.runArgs('--title', 'Conflicting', '--issue', '14'));
    expect(waiting.code, waiting.stdout + waiting.stderr).toBe(3);
    // After the approval was asked for, someone lands a conflicting file on the provider's base.
    fleet.remotes.commit('acme/api', 'main', { 'api-14.txt': 'from main too\n' }, 'a conflicting change');

    const approved = await cli(['approve', 'web-14', '--as', 'bob', '--state', fleet.state]);
    // The conflict is repaired and the gate passes again on the new head; the approval, given on the old head, is asked for again.
    expect(approved.code, approved.stdout + approved.stderr).toBe(3);
    let s = await status(fleet, 'web-14');
    expect(s.steps.ship!.attempts.map((a) => [a.mode, a.conclusion])).toEqual([
      ['run', 'failure'],
      ['repair', 'success'],
    ]);
    expect(s.steps.test!.attempts.length).toBe(2);
    expect(s.steps.test!.status).toBe('succeeded');
    expect(s.steps.approve!.status).toBe('waiting');
    expect(JSON.stringify(s.steps.approve)).toContain('approvals are stale: the agent of step \\"ship\\" wrote');
    expect(fleet.remotes.show('acme/api', 'main', 'api-14.txt')).toBe('from main too');
    // Conveyor started the merge and left the conflict marked for the agent, which ran no git; the merge is Conveyor's commit.
    expect(readFileSync(join(dirname(fleet.state), 'attempts', 'web-14', 'ship.repair.2.0', 'output.log'), 'utf8')).toContain(
      'resolving the conflicts Conveyor left marked in api-14.txt',
    );
    expect(git(fleet.remotes.bare('acme/api'), 'rev-list', '--parents', '-n', '1', 'conveyor/web-14').split(' ')).toHaveLength(3);

    const merged = await cli(['approve', 'web-14', '--as', 'bob', '--state', fleet.state]);
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    s = await status(fleet, 'web-14');
    expect(s.status).toBe('succeeded');
    expect(fleet.remotes.show('acme/api', 'main', 'api-14.txt')).toBe('endpoint\nfrom main too');
    expect(fleet.remotes.show('acme/web', 'main', 'web-14.txt')).toBe('call site');
  });

  it('runs two issues at once on the same repositories', async () => {
    fleet.setScript(RIGHT_FIRST_TIME);
    const [a, b] = await Promise.all([
      cli(fleet.runArgs('--title', 'First', '--issue', '11', '--approve')),
      cli(fleet.runArgs('--title', 'Second', '--issue', '12', '--approve')),
    ]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(b.code, b.stdout + b.stderr).toBe(0);
    expect(runIdOf(a.stdout)).toBe('web-11');
    expect(runIdOf(b.stdout)).toBe('web-12');
    for (const issue of ['11', '12']) {
      expect(fleet.remotes.show('acme/api', 'main', `api-${issue}.txt`)).toBe('endpoint');
      expect(fleet.remotes.show('acme/web', 'main', `web-${issue}.txt`)).toBe('call site');
    }
  });

  it('refuses bad usage with exit 2 and a message naming the input', async () => {
    const missing = await cli(['run', '--config', join(fleet.dir, 'nope.yml'), '--remotes', fleet.remotes.dir, '--title', 'x', '--state', fleet.state]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.yml');

    const noRepo = await cli(['run', '--config', fleet.config, '--remotes', fleet.dir, '--title', 'x', '--state', fleet.state]);
    expect(noRepo.code).toBe(2);
    expect(noRepo.stderr).toMatch(/acme\/(web|api).*not in --remotes/);

    const noTitle = await cli(['run', '--config', fleet.config, '--remotes', fleet.remotes.dir]);
    expect(noTitle.code).toBe(2);
    expect(noTitle.stderr).toContain('--title');

    const unknownRun = await cli(['approve', 'web-99', '--state', fleet.state]);
    expect(unknownRun.code).toBe(2);
    expect(unknownRun.stderr).toContain('no run web-99');

    for (const issue of ['0', '99999999999999999999', '1.5', '12abc']) {
      const badIssue = await cli(fleet.runArgs('--title', 'x', '--issue', issue));
      expect(badIssue.code, issue).toBe(2);
      expect(badIssue.stderr).toMatch(/--issue.*must be a whole number from 1 to 2147483647/);
    }
    // None of them made a run (the one that used to fail bad-payload and stay active included).
    expect((await cli(['status', '--state', fleet.state, '--json'])).stdout.trim()).toMatch(/^\[\s*\]$|No runs/);

    // A state database that cannot be one is named with what would be right: never a stack trace.
    writeFileSync(join(fleet.dir, 'notes.txt'), 'not a database\n'.repeat(100));
    // An older Conveyor's state database is not read: the user is told to delete it or keep that Conveyor.
    const older = new Database(join(fleet.dir, 'older.db'));
    older.exec('CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (4); CREATE TABLE runs (id TEXT PRIMARY KEY)');
    older.close();
    for (const [state, said] of [
      [
        join(fleet.dir, 'older.db'),
        `The state database ${join(fleet.dir, 'older.db')} is an older Conveyor's (schema version 4), which this Conveyor does not read. Delete`,
      ],
      [fleet.dir, `The state database ${fleet.dir} is a folder; pass a file path`],
      [join(fleet.dir, 'notes.txt'), `The state database ${join(fleet.dir, 'notes.txt')} is not a SQLite database`],
      [join(fleet.dir, 'notes.txt', 'state.db'), 'a part of that path is a file, not a folder'],
    ] as const) {
      for (const args of [fleet.runArgs('--title', 'x', '--state', state), ['status', '--state', state]]) {
        const bad = await cli(args);
        expect(bad.code, `${args.join(' ')}: ${bad.stderr}`).toBe(2);
        expect(bad.stderr).toContain(said);
        expect(bad.stderr).not.toMatch(/\n\s+at /);
      }
    }

    const noBody = await cli(fleet.runArgs('--title', 'x', '--body-file', join(fleet.dir, 'no-body.md')));
    expect(noBody.code).toBe(2);
    expect(noBody.stderr).toContain(`--body-file ${join(fleet.dir, 'no-body.md')}: no such file`);

    // --repo names a folder under --remotes: nothing but owner/name, in every command that takes it.
    const badRepo = await cli(fleet.runArgs('--title', 'x', '--repo', 'not a repo'));
    expect(badRepo.code).toBe(2);
    expect(badRepo.stderr).toContain('--repo must be "owner/name", got "not a repo"');

    const unknownStatus = await cli(['status', 'web-99', '--state', fleet.state]);
    expect(unknownStatus.code).toBe(2);
    expect(unknownStatus.stderr).toContain('no run web-99');
  }, 300_000); // some 30 commands, each a Node start: a busy machine takes its time
});
