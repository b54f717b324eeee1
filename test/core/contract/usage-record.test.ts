// Which usage Conveyor records for one agent run, from what its CLI said and what the agent wrote
// to $CONVEYOR_USAGE_FILE: the CLI's figures are a floor the agent's file cannot lower, the file may
// add figures the CLI did not give, and every figure both gave differently is said, with the one
// that counted. With no CLI figures (a plain `run`), the agent's file is the record.
import { describe, expect, it } from 'vitest';
import { describeDisputes, recordedUsage } from '../../../core/contract/usage-record.ts';

const CLI = { costUsd: 42.5, inputTokens: 120_000, outputTokens: 9_000, turns: 31, models: ['claude-sonnet-4-5'] };

describe('recordedUsage', () => {
  it('an agent that claims less than its CLI said: the CLI counts, and each difference is said', () => {
    const rec = recordedUsage(CLI, { costUsd: 0, inputTokens: 0, outputTokens: 0, turns: 0 });
    expect(rec?.usage).toEqual(CLI);
    expect(rec?.from).toBe('its CLI');
    expect(rec?.disputes).toEqual([
      { figure: 'costUsd', cli: 42.5, agent: 0, counted: 'cli' },
      { figure: 'inputTokens', cli: 120_000, agent: 0, counted: 'cli' },
      { figure: 'outputTokens', cli: 9_000, agent: 0, counted: 'cli' },
      { figure: 'turns', cli: 31, agent: 0, counted: 'cli' },
    ]);
    expect(describeDisputes(rec!)).toEqual([
      "cost: its CLI said $42.50, the agent's $CONVEYOR_USAGE_FILE claimed $0.00; the CLI's $42.50 counted",
      "input tokens: its CLI said 120,000, the agent's $CONVEYOR_USAGE_FILE claimed 0; the CLI's 120,000 counted",
      "output tokens: its CLI said 9,000, the agent's $CONVEYOR_USAGE_FILE claimed 0; the CLI's 9,000 counted",
      "turns: its CLI said 31, the agent's $CONVEYOR_USAGE_FILE claimed 0; the CLI's 31 counted",
    ]);
  });

  it('an agent that leaves a figure out lowers nothing', () => {
    const rec = recordedUsage(CLI, { turns: 31 });
    expect(rec?.usage).toEqual(CLI);
    expect(rec?.disputes).toEqual([]);
    expect(rec?.from).toBe('its CLI');
  });

  it('an agent may add what its CLI did not give (Codex and Gemini CLI report no cost) and a model', () => {
    const rec = recordedUsage({ inputTokens: 300, outputTokens: 50, turns: 2 }, { costUsd: 0.31, inputTokens: 300, models: ['gpt-5'] });
    expect(rec?.usage).toEqual({ inputTokens: 300, outputTokens: 50, turns: 2, costUsd: 0.31, models: ['gpt-5'] });
    expect(rec?.added).toEqual(['costUsd']);
    expect(rec?.disputes).toEqual([]);
    expect(rec?.from).toBe('its CLI and the agent');
  });

  it('an agent that says it used more than its CLI saw (a wrapper that ran more) is taken at its word: the higher counts', () => {
    const rec = recordedUsage({ costUsd: 1, inputTokens: 100 }, { costUsd: 2.5, inputTokens: 40 });
    expect(rec?.usage).toEqual({ costUsd: 2.5, inputTokens: 100 });
    expect(rec?.disputes).toEqual([
      { figure: 'costUsd', cli: 1, agent: 2.5, counted: 'agent' },
      { figure: 'inputTokens', cli: 100, agent: 40, counted: 'cli' },
    ]);
    expect(rec?.from).toBe('its CLI and the agent');
    expect(describeDisputes(rec!)[0]).toBe("cost: its CLI said $1.00, the agent's $CONVEYOR_USAGE_FILE claimed $2.50; the agent's $2.50 counted");
  });

  it('with no CLI figures (a plain `run`, or a CLI that printed none) the agent’s file is the record; with neither, none', () => {
    expect(recordedUsage(undefined, { costUsd: 0 })).toEqual({ usage: { costUsd: 0 }, from: 'the agent', disputes: [], added: [] });
    expect(recordedUsage(CLI, undefined)).toEqual({ usage: CLI, from: 'its CLI', disputes: [], added: [] });
    expect(recordedUsage(undefined, undefined)).toBeUndefined();
    expect(recordedUsage({}, {})).toBeUndefined();
  });
});
