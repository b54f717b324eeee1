// What an agent attempt used: tokens, turns and what it cost. An agent (or its preset, from its
// CLI's JSON output) writes $CONVEYOR_USAGE_FILE in the file shape below; the action sums every
// agent run of an attempt (a reviewer, a gate's author, the coder) into the result's `usage`,
// which the receipt seals like the rest of the result: a cost edited afterwards no longer verifies.
//
// A budget is only as good as the figures it adds up, and every figure comes from an untrusted
// agent or its CLI. So each figure has a ceiling: a count (tokens, turns) at most
// Number.MAX_SAFE_INTEGER, past which arithmetic on it is no longer exact, and a cost at most
// MAX_USD, more than any agent run could spend. A figure past its ceiling is refused where it is
// read, like a negative or fractional one; a sum of figures that passed stops at the ceiling.
import { z } from 'zod';

/** The most one count (tokens, turns) may be: past it, adding one to it is no longer exact. */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;
/** The most one cost may be, in US dollars: a billion, far past any agent run, far below where a sum could overflow. */
export const MAX_USD = 1e9;

/** A count of `unit` as read from an agent or its CLI: whole, not negative, within the ceiling. */
export function countSchema(unit: string) {
  // z.int() itself stops at the safe integers (its own bound is MAX_COUNT), so one message says why.
  return z
    .int({ error: (issue) => (issue.code === 'too_big' ? `must be at most ${MAX_COUNT} (Conveyor counts no more)` : `must be a whole number of ${unit}`) })
    .nonnegative('must not be negative');
}

/** A cost in US dollars as read from an agent or its CLI: finite, not negative, within the ceiling. */
export const usdSchema = z
  .number('must be a number of US dollars')
  .nonnegative('must not be negative')
  .max(MAX_USD, `must be at most $${MAX_USD} (Conveyor counts no more)`);

/** What an agent may write to $CONVEYOR_USAGE_FILE: any of these keys, none other (a typo is reported, not guessed at). */
export const usageFileSchema = z.strictObject({
  input_tokens: countSchema('tokens').optional(),
  output_tokens: countSchema('tokens').optional(),
  cost_usd: usdSchema.optional(),
  turns: countSchema('turns').optional(),
  model: z.string().min(1).max(200).optional(),
});

export type UsageFile = z.infer<typeof usageFileSchema>;

/** Usage as the result carries it (summed over an attempt's agent runs) and as the run sums it. */
export const usageSchema = z.object({
  inputTokens: z.int().nonnegative().optional(),
  outputTokens: z.int().nonnegative().optional(),
  costUsd: z.number().nonnegative().max(MAX_USD).optional(),
  turns: z.int().nonnegative().optional(),
  /** Every model that reported, in the order they first did. */
  models: z.array(z.string().max(200)).max(20).optional(),
});

export type Usage = z.infer<typeof usageSchema>;

/** The figures of a usage, as people call them. */
export const USAGE_FIGURES = {
  costUsd: 'cost',
  inputTokens: 'input tokens',
  outputTokens: 'output tokens',
  turns: 'turns',
} as const satisfies Record<keyof Omit<Usage, 'models'>, string>;

export type UsageFigure = keyof typeof USAGE_FIGURES;

export const FIGURES = Object.keys(USAGE_FIGURES) as UsageFigure[];

/** Dollars or a count (tokens, turns): what a figure is, for its ceiling and how it adds up. */
type Kind = 'usd' | 'count';
const kindOf = (f: UsageFigure): Kind => (f === 'costUsd' ? 'usd' : 'count');
const CEILING: Record<Kind, number> = { usd: MAX_USD, count: MAX_COUNT };

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

/**
 * A figure as a sum may count it. Figures reach a sum parsed (within their ceiling), but a stored
 * run is read back as it was written, and one written before figures had a ceiling may hold a
 * `null` where an Infinity was (JSON has no Infinity). Anything that is not a figure within its
 * ceiling counts as the ceiling: read as nothing, it would let an agent spend without a budget
 * ever seeing it.
 */
function figure(kind: Kind, x: unknown): number | undefined {
  if (x === undefined) return undefined;
  const ok = typeof x === 'number' && x >= 0 && (kind === 'usd' ? Number.isFinite(x) : Number.isSafeInteger(x));
  return ok ? Math.min(x, CEILING[kind]) : CEILING[kind];
}

/**
 * Two figures added. A sum that would pass the ceiling is capped at it, not refused: a refused
 * (absent) sum would read as nothing spent and let the run past its budget, while the ceiling
 * stays a finite, exact number that the result's schema takes, the receipt seals and JSON keeps,
 * and that exhausts any budget. Whoever shows a capped figure says so (cappedFigures).
 */
function add(kind: Kind, a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return Math.min(kind === 'usd' ? roundUsd(a + b) : a + b, CEILING[kind]);
}

/** Adds counts that may each be absent (absent when all are): capped at the ceiling, as in a sum. */
export function addCounts(...xs: Array<number | undefined>): number | undefined {
  return xs.reduce<number | undefined>((total, x) => add('count', total, figure('count', x)), undefined);
}

/** The sum of usages: each figure over those that report it (absent where none does), models joined. */
export function sumUsage(usages: ReadonlyArray<Usage | undefined>): Usage | undefined {
  let total: Usage | undefined;
  for (const u of usages) {
    if (!u || isEmptyUsage(u)) continue;
    const sum: { [K in keyof Usage]: Usage[K] | undefined } = { models: joinModels(total?.models, u.models) };
    for (const f of FIGURES) sum[f] = add(kindOf(f), total?.[f], figure(kindOf(f), u[f]));
    total = compact(sum);
  }
  return total;
}

/** The figures of `u` at their ceiling (a capped sum, or a figure as big as Conveyor counts), as people call them. */
export function cappedFigures(u: Usage | undefined): string[] {
  return u ? FIGURES.filter((f) => u[f] !== undefined && u[f] >= CEILING[kindOf(f)]).map((f) => USAGE_FIGURES[f]) : [];
}

/** Every model either names, in the order they first did (at most 20, as the result carries). */
export function joinModels(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  const all = [...new Set([...(a ?? []), ...(b ?? [])])].slice(0, 20);
  return all.length ? all : undefined;
}

export function isEmptyUsage(u: Usage): boolean {
  return FIGURES.every((f) => u[f] === undefined) && !u.models?.length;
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
  const capped = cappedFigures(u);
  if (capped.length) parts.push(`${capped.join(', ')} at Conveyor's ceiling`);
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
