// What `conveyor status` and `conveyor run` print of a run: times as people read them (core/time.ts),
// `2 min ago` for the start (printed the moment it is read) and `1m 12s` for each step's time.
import { describe, expect, it } from 'vitest';
import { commandFor, nextCommand, renderRun, runningSteps } from '../../cli/render.ts';
import type { RunEvent } from '../../core/run/types.ts';
import { planOf } from '../helpers/plans.ts';
import { AT, current, start, step } from '../core/run/drive.ts';

const later = (seconds: number): string => new Date(Date.parse(AT) + seconds * 1000).toISOString();
const at = (event: RunEvent, seconds: number): RunEvent => ({ ...event, at: later(seconds) });
const SEL = { statePath: 'runs.db' };

describe('the command line status of a run', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate' },
  ]);

  it('says when a running run started, and each finished step its time', () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success'), 72)).run;
    const text = renderRun(run, SEL, later(150));
    expect(text.split('\n')[0]).toBe('Run r1: running  (default on acme/web#7: Add a thing; started 2 min ago)');
    expect(text).toMatch(/^implement +code +succeeded +1 +1m 12s/m);
    expect(text).not.toMatch(/\d+ms\b/);
  });

  it('shows the models each attempt reported, beside the configured one where that is not among them', () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success', { usage: { inputTokens: 5, models: ['claude-opus-4-8'] } }), 72)).run;
    const text = renderRun(run, SEL, later(150));
    expect(text).toContain('Models (as the agents reported them):\n  implement attempt 1  claude-opus-4-8  (configured: anthropic/claude)');
    expect(renderRun(start(plan).run, SEL, later(1))).not.toContain('Models');
  });

  it('lists each attempt an agent was stopped in for what is not its work: a refused host, an unavailable vendor', () => {
    const refused =
      "The agent was stopped: the sandbox refused api.anthropic.com:443 (1 time), which is not in its network.allow, and it is the agent's model API.";
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'failure', { error: { code: 'agent-network-refused', message: refused } }), 20)).run;
    const text = renderRun(run, SEL, later(30));
    expect(text).toContain(`Agents stopped (not their work):\n  implement attempt 1  agent-network-refused: ${refused}`);
    let other = start(plan).run;
    other = step(other, at(current(other, 'implement', 'failure', { error: { code: 'agent-failed', message: 'The agent exited with 1' } }), 20)).run;
    expect(renderRun(other, SEL, later(30))).not.toContain('Agents stopped');
  });

  it("lists a local forge's PRs with the command that shows them (their file:// URL opens nothing), and GitHub's with their links", () => {
    const run = start(plan).run;
    const local = { ...run, prs: [{ repo: 'acme/web', number: 2, branch: 'conveyor/r1', url: 'file:///tmp/remotes/acme/web/pull/2' }] };
    const text = renderRun(local, SEL, later(5));
    expect(text).toContain("Pull requests:\n  acme/web#2  branch conveyor/r1\n  (conveyor pr r1 --state runs.db shows each one's body, reviews and diff)");
    expect(text).not.toContain('file://');
    const github = { ...run, prs: [{ repo: 'acme/web', number: 2, branch: 'conveyor/r1', url: 'https://github.com/acme/web/pull/2' }] };
    expect(renderRun(github, SEL, later(5))).toContain('Pull requests:\n  acme/web#2  branch conveyor/r1  https://github.com/acme/web/pull/2');
    expect(renderRun(github, SEL, later(5))).not.toContain('conveyor pr');
  });

  it('says how long a finished run took', () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success'), 72)).run;
    run = step(run, at(current(run, 'test', 'success'), 3600 + 180)).run;
    expect(renderRun(run, SEL, later(4000)).split('\n')[0]).toBe('Run r1: succeeded  (default on acme/web#7: Add a thing; started 1 hour ago, took 1h 3m)');
  });

  it('says a step under way is running, with its time so far (never `queued … 0ms`)', () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success'), 72)).run;
    const text = renderRun(run, SEL, later(72 + 81));
    expect(text).toMatch(/^test +gate +running +1 +1m 21s/m);
    expect(text).not.toContain('queued');
    expect(runningSteps(run, later(72 + 81))).toBe('test running 1m 21s');
  });
});

describe('the commands the command line prints', () => {
  const plan = planOf([{ id: 'implement', kind: 'code' }]);
  const run = {
    ...start(plan).run,
    status: 'waiting' as const,
    origin: { kind: 'embedded' as const, remotes: '/org/remotes', configPath: '/org/conveyor.yml', approve: false, json: false },
  };

  it('carry --state unless it is the default, so that pasted they act on this run', () => {
    expect(commandFor('retry', 'web-1', { statePath: '.conveyor/state.db' }, run)).toBe('conveyor retry web-1');
    expect(commandFor('retry', 'web-1', { statePath: 'fail.db' }, run)).toBe('conveyor retry web-1 --state fail.db');
    expect(commandFor('cancel', 'web-1', { statePath: 'my runs/state.db' })).toBe("conveyor cancel web-1 --state 'my runs/state.db'");
    expect(nextCommand(run, { statePath: 'fail.db' })).toBe('conveyor retry r1 --state fail.db   (or: conveyor cancel r1 --state fail.db)');
  });

  it("carry --remotes and --config where this command's differ from the run's own, on the commands that take them", () => {
    const selection = { statePath: 'fail.db', remotes: '/elsewhere', configPath: '/org/conveyor.yml' };
    expect(commandFor('retry', 'web-1', selection, run)).toBe('conveyor retry web-1 --state fail.db --remotes /elsewhere');
    expect(commandFor('restart', 'web-1', { ...selection, configPath: '/org/new.yml' }, run)).toBe(
      'conveyor restart web-1 --state fail.db --remotes /elsewhere --config /org/new.yml',
    );
    expect(commandFor('approve', 'web-1', selection, run)).toBe('conveyor approve web-1 --state fail.db');
    // revert and pr take --remotes too (cli/commands).
    expect(commandFor('revert', 'web-1', selection, run)).toBe('conveyor revert web-1 --state fail.db --remotes /elsewhere');
    expect(commandFor('pr', 'web-1', selection, run)).toBe('conveyor pr web-1 --state fail.db --remotes /elsewhere');
  });
});
