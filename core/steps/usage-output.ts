// Reading an agent's usage from what its CLI prints, for the presets whose agent wrote no
// $CONVEYOR_USAGE_FILE itself (core/config/presets.ts, `usage`). Each reader takes the CLI's JSON
// lines as they come and keeps only what its documented events say; anything else is not usage.
//
// - Claude Code (`--output-format stream-json`): its first event, `{"type": "system", "subtype":
//   "init"}`, names the model it runs (which may not be the one configured); its last, `{"type":
//   "result"}`, carries `total_cost_usd`, `num_turns`, `usage` (the main model's: input tokens
//   split into uncached, cache writes and cache reads, all three counted as input here) and
//   `modelUsage` keyed by model (every model, side requests included, in the same split). The
//   tokens counted are the larger of the two sums: a run stopped by --max-budget-usd has 0 in
//   `usage` and its figures in `modelUsage`, and side requests appear only there.
// - Codex (`exec --json`): each `{"type": "turn.completed"}` carries that turn's `usage`
//   (`input_tokens`, cached ones included, and `output_tokens`); no cost, no model.
// - Gemini CLI (`--output-format stream-json`): its first event, `{"type": "init"}`, names the
//   model; its last, `{"type": "result"}`, carries `stats` with `input_tokens`, `output_tokens`
//   and `models` keyed by model; no cost.
//
// The models a CLI names are recorded with the attempt (the main one first) and judge a review's
// independence beside the configured `model` (core/steps/independence.ts).
// - Copilot CLI: its JSON events carry no tokens; `--usage-output-file` writes `modelMetrics`
//   keyed by model, each with `usage.inputTokens` and `usage.outputTokens`. It bills in premium
//   requests and AI credits, not dollars: no cost.
//
// The figures have the usage file's ceilings (core/contract/usage.ts): an event with a figure past
// one is not usage, and figures added up here stop at the ceiling, as every sum of usage does.
import { z } from 'zod';
import type { PresetName } from '../config/presets.ts';
import { addCounts, compact, isEmptyUsage, joinModels, sumUsage, usdSchema, type Usage } from '../contract/usage.ts';

// z.int() stops at Number.MAX_SAFE_INTEGER, the ceiling of a count.
const count = z.int().nonnegative();

const claudeResult = z.object({
  type: z.literal('result'),
  total_cost_usd: usdSchema.optional(),
  num_turns: count.optional(),
  usage: z
    .object({
      input_tokens: count.optional(),
      cache_creation_input_tokens: count.optional(),
      cache_read_input_tokens: count.optional(),
      output_tokens: count.optional(),
    })
    .optional(),
  modelUsage: z
    .record(
      z.string(),
      z.looseObject({
        inputTokens: count.optional(),
        outputTokens: count.optional(),
        cacheReadInputTokens: count.optional(),
        cacheCreationInputTokens: count.optional(),
      }),
    )
    .optional(),
});

/** A model's name as a CLI gives it (the result carries at most 200 characters of one). */
const modelName = z.string().trim().min(1).max(200);
const claudeInit = z.object({ type: z.literal('system'), subtype: z.literal('init'), model: modelName });
const geminiInit = z.object({ type: z.literal('init'), model: modelName });

const codexTurn = z.object({
  type: z.literal('turn.completed'),
  usage: z.object({ input_tokens: count.optional(), output_tokens: count.optional() }),
});

const geminiResult = z.object({
  type: z.literal('result'),
  stats: z.object({ input_tokens: count.optional(), output_tokens: count.optional(), models: z.record(z.string(), z.unknown()).optional() }),
});

const copilotUsageFile = z.object({
  modelMetrics: z.record(z.string(), z.object({ usage: z.object({ inputTokens: count.optional(), outputTokens: count.optional() }).optional() })),
});

export interface UsageReader {
  /** One line the CLI printed. */
  line(text: string): void;
  /** What the lines so far said, or undefined when they said nothing. */
  usage(): Usage | undefined;
}

function jsonLine(text: string): unknown {
  const t = text.trim();
  if (!t.startsWith('{') || !t.includes('"type"')) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

const present = (u: Usage): Usage | undefined => (isEmptyUsage(u) ? undefined : u);

/**
 * The last event of a kind wins (each run ends with one); the model its `init` event named comes
 * first among the models, and stands alone when the run ended before its result.
 */
function lastOf<T>(schema: z.ZodType<T>, toUsage: (event: T) => Usage, init?: z.ZodType<{ model: string }>): UsageReader {
  let found: Usage | undefined;
  let model: string | undefined;
  return {
    line(text) {
      const event = jsonLine(text);
      const started = init?.safeParse(event);
      if (started?.success) model = started.data.model;
      const parsed = schema.safeParse(event);
      if (parsed.success) found = present(toUsage(parsed.data));
    },
    usage: () => {
      const models = joinModels(model !== undefined ? [model] : undefined, found?.models);
      return found || models ? compact({ ...found, models }) : undefined;
    },
  };
}

function claudeReader(): UsageReader {
  return lastOf(
    claudeResult,
    (e) => {
      const byModel = Object.values(e.modelUsage ?? {});
      const larger = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
      return compact({
        inputTokens: larger(
          addCounts(e.usage?.input_tokens, e.usage?.cache_creation_input_tokens, e.usage?.cache_read_input_tokens),
          addCounts(...byModel.flatMap((m) => [m.inputTokens, m.cacheCreationInputTokens, m.cacheReadInputTokens])),
        ),
        outputTokens: larger(e.usage?.output_tokens, addCounts(...byModel.map((m) => m.outputTokens))),
        costUsd: e.total_cost_usd,
        turns: e.num_turns,
        models: modelsOf(e.modelUsage),
      });
    },
    claudeInit,
  );
}

function codexReader(): UsageReader {
  const turns: Usage[] = [];
  return {
    line(text) {
      const parsed = codexTurn.safeParse(jsonLine(text));
      if (parsed.success)
        turns.push(compact({ inputTokens: parsed.data.usage.input_tokens ?? 0, outputTokens: parsed.data.usage.output_tokens ?? 0, turns: 1 }));
    },
    usage: () => sumUsage(turns),
  };
}

function geminiReader(): UsageReader {
  return lastOf(
    geminiResult,
    (e) => compact({ inputTokens: e.stats.input_tokens, outputTokens: e.stats.output_tokens, models: modelsOf(e.stats.models) }),
    geminiInit,
  );
}

function modelsOf(byModel: Record<string, unknown> | undefined): string[] | undefined {
  const names = Object.keys(byModel ?? {})
    .filter((n) => n.length <= 200)
    .slice(0, 20);
  return names.length ? names : undefined;
}

/** The reader of a preset's JSON events, or undefined for a CLI whose events carry no usage. */
export function usageReaderFor(preset: PresetName): UsageReader | undefined {
  switch (preset) {
    case 'claude-code':
      return claudeReader();
    case 'codex':
      return codexReader();
    case 'gemini':
      return geminiReader();
    case 'copilot':
    case 'aider':
      return undefined;
  }
}

/** The usage in the file Copilot CLI writes with `--usage-output-file`, or undefined when it is not one. */
export function copilotUsageOf(text: string): Usage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = copilotUsageFile.safeParse(raw);
  if (!parsed.success) return undefined;
  const metrics = Object.entries(parsed.data.modelMetrics);
  return sumUsage(metrics.map(([model, m]) => compact({ inputTokens: m.usage?.inputTokens, outputTokens: m.usage?.outputTokens, models: [model] })));
}
