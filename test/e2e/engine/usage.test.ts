// What a run costs, end to end in the embedded mode (issue #17 items 1-3), through the real
// `conveyor` command, the real action in child processes and the scripted agent writing
// $CONVEYOR_USAGE_FILE: the attempts' usage summed in `conveyor status` (and --json), sealed by the
// receipts (a cost edited in the store no longer verifies) and on the merge commit; a usage file
// of garbage or none at all fails nothing; and a budget that stops the run before its next agent
// attempt, which a raised budget and a retry let finish.
import Database from 'better-sqlite3';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Usage } from '../../../core/contract/usage.ts';
import { cli } from '../../helpers/cli.ts';
import { git } from '../../helpers/repos.ts';
import { createFleet, pipelineConfig, REPAIRED_ON_SECOND, STANDARD_STEPS, type Fleet } from '../../helpers/fleet.ts';

interface StatusJson {
  status: string;
  waitingFor?: string;
  usage: { run?: Usage; budgetUsd?: number; steps: Record<string, Usage> };
  steps: Record<string, { status: string; reason?: string; result?: { usage?: Usage; summary: string }; attempts: Array<{ mode: string; usage?: Usage }> }>;
}

const CODER = { input_tokens: 12000, output_tokens: 3400, cost_usd: 0.42, turns: 7, model: 'scripted-1' };
const REPAIR = { input_tokens: 3000, output_tokens: 600, cost_usd: 0.18, turns: 2 };

describe('usage and budgets (embedded mode)', () => {
  let fleet: Fleet;
  beforeEach(() => {
    fleet = createFleet();
  });
  afterEach(() => fleet.cleanup());

  const status = async (id: string): Promise<StatusJson> => {
    const r = await cli(['status', id, '--json', '--state', fleet.state]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as StatusJson;
  };
  /** The step attempts whose processes ran (the local dispatcher's folder of each), in any order. */
  const attemptsRan = (id: string): string[] => {
    const dir = join(dirname(fleet.state), 'attempts', id);
    return existsSync(dir) ? readdirSync(dir).sort() : [];
  };

  it('sums what the coder and its repair reported into the steps and the run, shown by status, sealed by the receipts, on the merge commit', async () => {
    fleet.setScript({ ...REPAIRED_ON_SECOND, usage: { '1': CODER, '2': REPAIR } });
    const run = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '3', '--approve'));
    expect(run.code, run.stdout + run.stderr).toBe(0);

    const s = await status('web-3');
    expect(s.status).toBe('succeeded');
    expect(s.usage).toEqual({
      run: { inputTokens: 15000, outputTokens: 4000, costUsd: 0.6, turns: 9, models: ['scripted-1'] },
      steps: {
        implement: { inputTokens: 12000, outputTokens: 3400, costUsd: 0.42, turns: 7, models: ['scripted-1'] },
        test: { inputTokens: 3000, outputTokens: 600, costUsd: 0.18, turns: 2 },
      },
    });
    // Each attempt keeps its own; the code step's result carries (and its receipt seals) it.
    expect(s.steps.test?.attempts.map((a) => [a.mode, a.usage?.costUsd])).toEqual([
      ['run', undefined],
      ['repair', 0.18],
      ['run', undefined],
    ]);
    expect(s.steps.implement?.result?.usage).toEqual({ inputTokens: 12000, outputTokens: 3400, costUsd: 0.42, turns: 7, models: ['scripted-1'] });
    expect(s.steps.implement?.result?.summary).toContain(
      '| agent "coder" | `scripted-1` (configured: `test/scripted-coder-1`) | $0.42 · 12,000 tokens in, 3,400 out · 7 turns | the agent |',
    );

    const shown = await cli(['status', 'web-3', '--state', fleet.state]);
    expect(shown.stdout).toMatch(/^step\s+kind\s+status\s+attempts\s+time\s+usage\s+receipt\s+note$/m);
    expect(shown.stdout).toMatch(/^implement\s+code\s+succeeded\s+1\s+\S+\s+\$0\.42 · 15\.4k tokens\s+sha256:[0-9a-f]{12}$/m);
    expect(shown.stdout).toMatch(/^test\s+gate\s+succeeded\s+3\s+\S+\s+\$0\.18 · 3\.6k tokens\s+sha256:[0-9a-f]{12}$/m);
    expect(shown.stdout).toContain('Usage: $0.60 · 15,000 tokens in, 4,000 out · 9 turns');
    // The model the agent said it ran, beside the configured one.
    expect(shown.stdout).toContain('Models (as the agents reported them):\n  implement attempt 1  scripted-1  (configured: test/scripted-coder-1)');
    expect(git(fleet.remotes.bare('acme/web'), 'log', '-1', '--format=%B', 'main')).toContain('Conveyor-Cost: $0.60');

    // Someone lowers the code step's stored cost: its receipt no longer verifies.
    const db = new Database(fleet.state);
    db.prepare("UPDATE runs SET body = json_set(body, '$.steps.implement.result.usage.costUsd', 0.01) WHERE id = ?").run('web-3');
    db.close();
    const tampered = await cli(['status', 'web-3', '--state', fleet.state]);
    expect(tampered.stdout).toMatch(/^implement\s+code\s+succeeded\s+.*sha256:[0-9a-f]{12} \(does not verify\)$/m);
  });

  it('a usage file of garbage is reported and ignored, and one never written leaves no usage: both runs succeed', async () => {
    fleet.setScript({ ...REPAIRED_ON_SECOND, usage: { '1': 'spent about a dollar', '2': '{"cost": 1}' } });
    const garbage = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '4', '--approve'));
    expect(garbage.code, garbage.stdout + garbage.stderr).toBe(0);
    const g = await status('web-4');
    expect(g.status).toBe('succeeded');
    expect(g.usage).toEqual({ steps: {} });
    expect(g.steps.implement?.result?.summary).toMatch(/> Usage ignored: agent "coder" wrote \$CONVEYOR_USAGE_FILE, but it is not JSON/);
    expect(g.steps.implement?.result?.usage).toBeUndefined();

    fleet.setScript(REPAIRED_ON_SECOND);
    const none = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '5', '--approve'));
    expect(none.code, none.stdout + none.stderr).toBe(0);
    const n = await status('web-5');
    expect(n.usage).toEqual({ steps: {} });
    expect(n.steps.implement?.result?.summary).not.toContain('### Usage');
    const shown = await cli(['status', 'web-5', '--state', fleet.state]);
    expect(shown.stdout).toMatch(/^step\s+kind\s+status\s+attempts\s+time\s+receipt\s+note$/m);
    expect(shown.stdout).not.toContain('Usage:');
    expect(git(fleet.remotes.bare('acme/web'), 'log', '-1', '--format=%B', 'main')).not.toContain('Conveyor-Cost');
  });

  it('stops before the next agent attempt once the budget is spent; a retry on the same budget stops again; raised, the retry finishes the run', async () => {
    const withBudget = (usd: number) => pipelineConfig(STANDARD_STEPS).replace('    service: web\n', `    service: web\n    budget-usd: ${usd}\n`);
    fleet.writeConfig(withBudget(0.4));
    fleet.setScript({ ...REPAIRED_ON_SECOND, usage: { '1': CODER, '*': REPAIR } });

    // The coder spends $0.42 of $0.40 and breaks the gate: its repair would run an agent.
    const first = await cli(fleet.runArgs('--title', 'Add the endpoint', '--issue', '6', '--approve'));
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const stopped = 'budget-exhausted: the run has spent $0.42 of its $0.40 budget ("implement" $0.42), so no more agent attempts start';
    let s = await status('web-6');
    expect(s.status).toBe('waiting');
    expect(s.steps.test?.status).toBe('failed');
    expect(s.steps.test?.reason).toContain(stopped);
    expect(s.waitingFor).toContain(stopped);
    expect(s.usage.budgetUsd).toBe(0.4);
    // No repair was dispatched: the coder and the gate are the only processes that ran.
    expect(attemptsRan('web-6')).toEqual(['implement.run.1.0', 'test.run.1.0']);
    expect((await cli(['status', 'web-6', '--state', fleet.state])).stdout).toContain('Usage: $0.42 · 12,000 tokens in, 3,400 out · 7 turns · budget $0.40');

    // Retried on the same budget: the gate runs again (no agent), and the repair is stopped again.
    const same = await cli(['retry', 'web-6', '--state', fleet.state]);
    expect(same.code, same.stdout + same.stderr).toBe(1);
    expect((await status('web-6')).steps.test?.reason).toContain(stopped);
    expect(attemptsRan('web-6')).toEqual(['implement.run.1.0', 'test.run.1.0', 'test.run.2.0']);

    // Raised in the configuration: the retry is not refused as a changed pipeline, and goes on.
    fleet.writeConfig(withBudget(5));
    const raised = await cli(['retry', 'web-6', '--state', fleet.state]);
    expect(raised.code, raised.stdout + raised.stderr).toBe(0);
    s = await status('web-6');
    expect(s.status).toBe('succeeded');
    expect(s.usage.run?.costUsd).toBe(0.6);
    expect(s.usage.budgetUsd).toBe(5);
    expect(attemptsRan('web-6')).toEqual(['implement.run.1.0', 'test.repair.4.0', 'test.run.1.0', 'test.run.2.0', 'test.run.3.0', 'test.run.5.0']);
  });
});
