// Reading an agent's usage from what its CLI prints (the presets' `usage: events | file`): only the
// documented events count, the last result wins, anything else (text, other events, JSON of
// another shape) is not usage.
import { describe, expect, it } from 'vitest';
import { MAX_COUNT } from '../../../core/contract/usage.ts';
import { copilotUsageOf, usageReaderFor } from '../../../core/steps/usage-output.ts';

const feed = (preset: Parameters<typeof usageReaderFor>[0], lines: string[]) => {
  const reader = usageReaderFor(preset);
  if (!reader) throw new Error(`no reader for ${preset}`);
  for (const l of lines) reader.line(l);
  return reader.usage();
};

describe('usage from a CLI’s output', () => {
  it('Claude Code: the last result event, its input tokens with the cached ones, its cost, turns and models', () => {
    const result = (cost: number) =>
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        total_cost_usd: cost,
        num_turns: 4,
        usage: { input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 3000, output_tokens: 77 },
        modelUsage: { 'claude-sonnet-4-5': {}, 'claude-haiku-4-5': {} },
      });
    expect(
      feed('claude-code', [
        'plain text',
        '{"type": "assistant", "message": {}}',
        '{not json',
        result(0.1),
        '{"type":"result","total_cost_usd":"lots"}',
        result(0.25),
      ]),
    ).toEqual({ inputTokens: 3210, outputTokens: 77, costUsd: 0.25, turns: 4, models: ['claude-sonnet-4-5', 'claude-haiku-4-5'] });
    expect(feed('claude-code', ['{"type": "assistant"}', 'done'])).toBeUndefined();
  });

  it('Claude Code: tokens from modelUsage too, the larger sum counting (a run stopped by --max-budget-usd has 0 in usage)', () => {
    const stopped = JSON.stringify({
      type: 'result',
      subtype: 'error_max_budget_usd',
      total_cost_usd: 0.31,
      num_turns: 2,
      usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
      modelUsage: {
        'claude-opus-4-8': { inputTokens: 1200, outputTokens: 50, cacheReadInputTokens: 300, cacheCreationInputTokens: 100, costUSD: 0.3 },
        // A side request (a title, a summary) the main model's `usage` does not count.
        'claude-haiku-4-5': { inputTokens: 40, outputTokens: 10, costUSD: 0.01 },
      },
    });
    expect(feed('claude-code', [stopped])).toEqual({
      inputTokens: 1640,
      outputTokens: 60,
      costUsd: 0.31,
      turns: 2,
      models: ['claude-opus-4-8', 'claude-haiku-4-5'],
    });
    // Where `usage` says more (modelUsage without figures, as older versions wrote it), `usage` counts.
    const usageOnly = JSON.stringify({
      type: 'result',
      usage: { input_tokens: 900, output_tokens: 90 },
      modelUsage: { m: { inputTokens: 10, outputTokens: 1 } },
    });
    expect(feed('claude-code', [usageOnly])).toEqual({ inputTokens: 900, outputTokens: 90, models: ['m'] });
    // A figure of modelUsage that is not a count makes the event not usage, as any other such figure does.
    expect(feed('claude-code', [JSON.stringify({ type: 'result', total_cost_usd: 1, modelUsage: { m: { inputTokens: -5 } } })])).toBeUndefined();
  });

  it('Claude Code and Gemini CLI: the model their init event names comes first, and alone when the run ended before its result', () => {
    const init = JSON.stringify({ type: 'system', subtype: 'init', model: 'claude-opus-4-8', tools: [] });
    const result = JSON.stringify({ type: 'result', total_cost_usd: 0.5, modelUsage: { 'claude-haiku-4-5': {}, 'claude-opus-4-8': {} } });
    expect(feed('claude-code', [init, result])).toEqual({ costUsd: 0.5, models: ['claude-opus-4-8', 'claude-haiku-4-5'] });
    expect(feed('claude-code', [init, 'then it crashed'])).toEqual({ models: ['claude-opus-4-8'] });
    const geminiInit = JSON.stringify({ type: 'init', session_id: 's', model: 'gemini-3-pro-preview' });
    const geminiResult = JSON.stringify({ type: 'result', stats: { input_tokens: 5, output_tokens: 1, models: { 'gemini-2.5-flash': {} } } });
    expect(feed('gemini', [geminiInit, geminiResult])).toEqual({ inputTokens: 5, outputTokens: 1, models: ['gemini-3-pro-preview', 'gemini-2.5-flash'] });
    expect(feed('claude-code', [JSON.stringify({ type: 'system', subtype: 'init', model: 'x'.repeat(201) })])).toBeUndefined();
  });

  it('Codex: every turn.completed summed, one turn each', () => {
    const turn = (i: number, o: number) => JSON.stringify({ type: 'turn.completed', usage: { input_tokens: i, cached_input_tokens: 0, output_tokens: o } });
    expect(feed('codex', [turn(100, 10), '{"type": "item.completed"}', turn(50, 5)])).toEqual({ inputTokens: 150, outputTokens: 15, turns: 2 });
    expect(feed('codex', ['{"type": "turn.failed"}'])).toBeUndefined();
  });

  it('Gemini CLI: the stats of its result event', () => {
    expect(feed('gemini', [JSON.stringify({ type: 'result', stats: { input_tokens: 9, output_tokens: 3, models: { 'gemini-2.5-pro': {} } } })])).toEqual({
      inputTokens: 9,
      outputTokens: 3,
      models: ['gemini-2.5-pro'],
    });
  });

  it('Copilot CLI: its usage file by model; anything else is not usage. Aider and Copilot’s events have no reader', () => {
    const file = JSON.stringify({
      modelMetrics: { 'gpt-5': { usage: { inputTokens: 40, outputTokens: 4 } }, 'claude-sonnet-4.5': { usage: { inputTokens: 2 } } },
    });
    expect(copilotUsageOf(file)).toEqual({ inputTokens: 42, outputTokens: 4, models: ['gpt-5', 'claude-sonnet-4.5'] });
    expect(copilotUsageOf('not json')).toBeUndefined();
    expect(copilotUsageOf('{"tokens": 5}')).toBeUndefined();
    expect(usageReaderFor('aider')).toBeUndefined();
    expect(usageReaderFor('copilot')).toBeUndefined();
  });

  it('refuses a figure past the ceiling like any other bad event, and caps what its figures sum to', () => {
    // A result event with a cost no CLI could have run up is not usage; the earlier one stands.
    const claude = (cost: number, input = 10) => JSON.stringify({ type: 'result', total_cost_usd: cost, usage: { input_tokens: input } });
    expect(feed('claude-code', [claude(0.5), claude(1.5e308)])).toEqual({ costUsd: 0.5, inputTokens: 10 });
    // Its three input figures, each safe, sum past the safe integers: capped.
    const cached = JSON.stringify({ type: 'result', usage: { input_tokens: MAX_COUNT, cache_read_input_tokens: MAX_COUNT } });
    expect(feed('claude-code', [cached])).toEqual({ inputTokens: MAX_COUNT });
    const turn = JSON.stringify({ type: 'turn.completed', usage: { input_tokens: MAX_COUNT, output_tokens: 1 } });
    expect(feed('codex', [turn, turn, turn])).toEqual({ inputTokens: MAX_COUNT, outputTokens: 3, turns: 3 });
    const file = JSON.stringify({ modelMetrics: { a: { usage: { inputTokens: MAX_COUNT } }, b: { usage: { inputTokens: MAX_COUNT } } } });
    expect(copilotUsageOf(file)?.inputTokens).toBe(MAX_COUNT);
  });
});
