// Ctrl-C on `conveyor run`: the real command in a child process, on a slow scripted agent over
// real bare repositories. The agent (in a process group of its own, out of the terminal's reach)
// is stopped, the attempt is recorded as interrupted, and the resume command it prints works.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, startCli, waitForOutput } from '../helpers/cli.ts';
import { createFleet, pipelineConfig, RIGHT_FIRST_TIME, STANDARD_STEPS, type Fleet } from '../helpers/fleet.ts';
import { processesWith } from '../helpers/processes.ts';
import { planOf } from '../helpers/plans.ts';
import { start } from '../core/run/drive.ts';
import { EXIT_INTERRUPTED, onInterrupt } from '../../cli/interrupt.ts';

describe('Ctrl-C on conveyor run', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  it('stops the agent, records the attempt as interrupted, and prints the command that resumes the run', async () => {
    const name = 'agent-started-21';
    const started = join(dirname(fleet.state), 'attempts', 'web-21', 'implement.run.1.0', 'workspace', name);
    fleet.setScript({ attempts: { '*': RIGHT_FIRST_TIME.attempts['1']! }, sleep: 120 });
    fleet.writeConfig(pipelineConfig(STANDARD_STEPS, { agentEnv: { AGENT_STARTED: name } }));
    const running = startCli(fleet.runArgs('--title', 'Interrupted', '--issue', '21', '--approve'));
    await waitForOutput(
      () => (existsSync(started) ? 'started' : ''),
      (t) => t === 'started',
    );
    const agents = () => processesWith('AGENT_STARTED', name);
    expect(agents().length).toBeGreaterThan(0);
    // While it runs, the step says where its log is.
    expect(running.output()).toContain(
      `▸ implement    running   attempt 1  (log: ${join(dirname(fleet.state), 'attempts', 'web-21', 'implement.run.1.0', 'output.log')})`,
    );

    running.child.kill('SIGINT');
    const r = await running.done;
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect(agents()).toEqual([]);
    expect(r.stderr).toContain('interrupted: stopping the steps of run web-21 under way');
    expect(r.stdout).toMatch(
      /web-21 {2}✗ implement +attempt 1 interrupted after (?:\d+|<1)s: Ctrl-C on conveyor \(pid \d+\); conveyor retry web-21 --state \S+ resumes the run\n/,
    );
    // A quick machine stops it within the second: `<1s`.
    expect(r.stdout).toMatch(/web-21 {2}✗ implement +failed +attempt 1 {2}(?:\d+|<1)s\n/);

    const status = await cli(['status', 'web-21', '--json', '--state', fleet.state]);
    const run = JSON.parse(status.stdout) as { status: string; steps: Record<string, { status: string; attempts: Array<{ conclusion?: string }> }> };
    expect(run.status).toBe('waiting');
    expect(run.steps.implement!.status).toBe('failed');
    expect(run.steps.implement!.attempts.map((a) => a.conclusion)).toEqual(['interrupted']);

    // The command it printed, pasted: the run resumes on the same state database and finishes.
    const printed = /To continue: (conveyor retry \S+ --state \S+)/.exec(r.stdout)?.[1];
    expect(printed).toBe(`conveyor retry web-21 --state ${fleet.state}`);
    // The retry is attempt 2 of the code step: the agent writes the same change then.
    fleet.setScript({ attempts: { '*': RIGHT_FIRST_TIME.attempts['1']! } });
    const resumed = await cli(printed!.split(' ').slice(1));
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Run web-21: succeeded');
  });
});

describe('a second Ctrl-C', () => {
  it('exits at once, naming the step processes it leaves running', async () => {
    const run = start(planOf([{ id: 'implement', kind: 'code' }])).run;
    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((text: string) => said.push(String(text)) > 0) as typeof process.stderr.write;
    const exits: number[] = [];
    // The first Ctrl-C's stop never ends here: the second must not wait for it.
    const session = {
      engine: { get: () => Promise.resolve(run), apply: () => new Promise<never>(() => undefined) },
      dispatcher: { pid: () => 4242 },
    } as unknown as Parameters<typeof onInterrupt>[0];
    const interruption = onInterrupt(session, run.id, 'conveyor retry r1 --state s.db', (code) => exits.push(code));
    try {
      process.emit('SIGINT');
      await new Promise((r) => setTimeout(r, 10));
      expect(exits).toEqual([]);
      process.emit('SIGINT');
    } finally {
      interruption.dispose();
      process.stderr.write = write;
    }
    expect(exits).toEqual([EXIT_INTERRUPTED]);
    expect(said.join('')).toContain('interrupted again: left running pid 4242 (implement attempt 1)');
    expect(said.join('')).toContain('`conveyor retry r1 --state s.db` stops them before it resumes the run');
  });
});
