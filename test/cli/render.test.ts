// What `conveyor status` and `conveyor run` print of a run: times as people read them (core/time.ts),
// `2 min ago` for the start (printed the moment it is read) and `1m 12s` for each step's time.
import { describe, expect, it } from 'vitest';
import { renderRun } from '../../cli/render.ts';
import type { RunEvent } from '../../core/run/types.ts';
import { planOf } from '../helpers/plans.ts';
import { AT, current, start, step } from '../core/run/drive.ts';

const later = (seconds: number): string => new Date(Date.parse(AT) + seconds * 1000).toISOString();
const at = (event: RunEvent, seconds: number): RunEvent => ({ ...event, at: later(seconds) });

describe('the command line status of a run', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate' },
  ]);

  it('says when a running run started, and each finished step its time', () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success'), 72)).run;
    const text = renderRun(run, later(150));
    expect(text.split('\n')[0]).toBe('Run r1: running  (default on acme/web#7: Add a thing; started 2 min ago)');
    expect(text).toMatch(/^implement +code +succeeded +1 +1m 12s/m);
    expect(text).not.toMatch(/\d+ms\b/);
  });

  it('shows the models each attempt reported, beside the configured one where that is not among them', () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success', { usage: { inputTokens: 5, models: ['claude-opus-4-8'] } }), 72)).run;
    const text = renderRun(run, later(150));
    expect(text).toContain('Models (as the agents reported them):\n  implement attempt 1  claude-opus-4-8  (configured: anthropic/claude)');
    expect(renderRun(start(plan).run, later(1))).not.toContain('Models');
  });

  it('lists each attempt an agent was stopped in for what is not its work: a refused host, an unavailable vendor', () => {
    const refused =
      "The agent was stopped: the sandbox refused api.anthropic.com:443 (1 time), which is not in its network.allow, and it is the agent's model API.";
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'failure', { error: { code: 'agent-network-refused', message: refused } }), 20)).run;
    const text = renderRun(run, later(30));
    expect(text).toContain(`Agents stopped (not their work):\n  implement attempt 1  agent-network-refused: ${refused}`);
    let other = start(plan).run;
    other = step(other, at(current(other, 'implement', 'failure', { error: { code: 'agent-failed', message: 'The agent exited with 1' } }), 20)).run;
    expect(renderRun(other, later(30))).not.toContain('Agents stopped');
  });

  it('says how long a finished run took', () => {
    let run = start(plan).run;
    run = step(run, at(current(run, 'implement', 'success'), 72)).run;
    run = step(run, at(current(run, 'test', 'success'), 3600 + 180)).run;
    expect(renderRun(run, later(4000)).split('\n')[0]).toBe('Run r1: succeeded  (default on acme/web#7: Add a thing; started 1 hour ago, took 1h 3m)');
  });
});
