// What an agent attempt used: tokens, turns and what it cost. An agent (or its preset, from its
// CLI's JSON output) writes $CONVEYOR_USAGE_FILE in the file shape below; the action sums every
// agent run of an attempt (a reviewer, a gate's author, the coder) into the result's `usage`,
// which the receipt seals like the rest of the result: a cost edited afterwards no longer verifies.
import { z } from 'zod';

/** What an agent may write to $CONVEYOR_USAGE_FILE: any of these keys, none other (a typo is reported, not guessed at). */
export const usageFileSchema = z.strictObject({
  input_tokens: z.int('must be a whole number of tokens').nonnegative('must not be negative').optional(),
  output_tokens: z.int('must be a whole number of tokens').nonnegative('must not be negative').optional(),
  cost_usd: z.number('must be a number of US dollars').nonnegative('must not be negative').finite().optional(),
  turns: z.int('must be a whole number of turns').nonnegative('must not be negative').optional(),
  model: z.string().min(1).max(200).optional(),
});

export type UsageFile = z.infer<typeof usageFileSchema>;

/** Usage as the result carries it (summed over an attempt's agent runs) and as the run sums it. */
export const usageSchema = z.object({
  inputTokens: z.int().nonnegative().optional(),
  outputTokens: z.int().nonnegative().optional(),
  costUsd: z.number().nonnegative().finite().optional(),
  turns: z.int().nonnegative().optional(),
  /** Every model that reported, in the order they first did. */
  models: z.array(z.string().max(200)).max(20).optional(),
});

export type Usage = z.infer<typeof usageSchema>;

/** The file's keys as the result's. */
export function usageOfFile(file: UsageFile): Usage {
  return compact({
    inputTokens: file.input_tokens,
    outputTokens: file.output_tokens,
    costUsd: file.cost_usd,
    turns: file.turns,
    models: file.model !== undefined ? [file.model] : undefined,
  });
}

export type UsageReading = { ok: true; usage: Usage } | { ok: false; problem: string };

/** Reads what an agent wrote to $CONVEYOR_USAGE_FILE; the problem says what is wrong with it, in words. */
export function parseUsageFile(text: string): UsageReading {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `it is not JSON (${(e as Error).message})` };
  }
  const parsed = usageFileSchema.safeParse(raw);
  if (!parsed.success) {
    const what = parsed.error.issues
      .map((i) =>
        i.code === 'unrecognized_keys'
          ? `unknown key${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}`
          : `${i.path.join('.') || '(the file)'}: ${i.message}`,
      )
      .join('; ');
    return { ok: false, problem: `${what} (expected {"input_tokens", "output_tokens", "cost_usd", "turns", "model"}, any of them)` };
  }
  return { ok: true, usage: usageOfFile(parsed.data) };
}

/** Dollars are summed to the millionth: many small costs add up without binary fractions showing. */
const roundUsd = (x: number): number => Math.round(x * 1e6) / 1e6;

const add = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : a + b);

/** The sum of usages: each figure over those that report it (absent where none does), models joined. */
export function sumUsage(usages: ReadonlyArray<Usage | undefined>): Usage | undefined {
  let total: Usage | undefined;
  for (const u of usages) {
    if (!u || isEmptyUsage(u)) continue;
    if (!total) {
      total = { ...u, ...(u.models ? { models: [...u.models] } : {}) };
      continue;
    }
    const cost = add(total.costUsd, u.costUsd);
    total = compact({
      inputTokens: add(total.inputTokens, u.inputTokens),
      outputTokens: add(total.outputTokens, u.outputTokens),
      costUsd: cost === undefined ? undefined : roundUsd(cost),
      turns: add(total.turns, u.turns),
      models: joinModels(total.models, u.models),
    });
  }
  return total;
}

function joinModels(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  const all = [...new Set([...(a ?? []), ...(b ?? [])])].slice(0, 20);
  return all.length ? all : undefined;
}

export function isEmptyUsage(u: Usage): boolean {
  return u.inputTokens === undefined && u.outputTokens === undefined && u.costUsd === undefined && u.turns === undefined && !u.models?.length;
}

/** The usage without its absent figures (JSON and receipts see no `undefined`). */
export function compact(u: { [K in keyof Usage]: Usage[K] | undefined }): Usage {
  return Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) as Usage;
}

/** `$1.23`; amounts under a cent as `$0.004` (to the tenth of a cent), so a cheap run does not read as free. */
export function formatUsd(x: number): string {
  if (x > 0 && x < 0.01) return `$${x.toFixed(3)}`;
  return `$${x.toFixed(2)}`;
}

/** `12,345`, or `1.2M` past a million. */
export function formatTokens(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n.toLocaleString('en-US');
}

/** One line for people: `$0.42 · 12,345 tokens in, 2,100 out · 7 turns`; what is unknown is left out. */
export function describeUsage(u: Usage | undefined): string {
  if (!u || isEmptyUsage(u)) return 'not reported';
  const parts: string[] = [];
  if (u.costUsd !== undefined) parts.push(formatUsd(u.costUsd));
  const [i, o] = [u.inputTokens, u.outputTokens];
  if (i !== undefined && o !== undefined) parts.push(`${formatTokens(i)} tokens in, ${formatTokens(o)} out`);
  else if (i !== undefined) parts.push(`${formatTokens(i)} tokens in`);
  else if (o !== undefined) parts.push(`${formatTokens(o)} tokens out`);
  if (u.turns !== undefined) parts.push(`${u.turns} turn${u.turns === 1 ? '' : 's'}`);
  if (parts.length === 0 && u.models?.length) parts.push('no figures');
  return parts.join(' · ');
}

/** The compact form for a table cell: `$0.42 · 14.4k tokens`. */
export function shortUsage(u: Usage | undefined): string {
  if (!u || isEmptyUsage(u)) return '';
  const tokens = (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
  const parts = [
    u.costUsd !== undefined ? formatUsd(u.costUsd) : '',
    u.inputTokens !== undefined || u.outputTokens !== undefined ? `${kilo(tokens)} tokens` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

function kilo(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(1)}k`;
  return String(n);
}
