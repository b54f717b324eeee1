// Usage figures at Conveyor's boundaries: the usage file refuses any figure a budget could not
// stand on (too big to be real, not finite, null, negative); a sum never stops being a finite,
// safe number (it stops at Conveyor's ceiling and says so), and a figure that is not one, however
// it got into a stored run, counts as the ceiling rather than as nothing.
import { describe, expect, it } from 'vitest';
import { cappedFigures, describeUsage, MAX_COUNT, MAX_USD, parseUsageFile, sumUsage, usageSchema, type Usage } from '../../../core/contract/usage.ts';

const problemOf = (text: string): string => {
  const r = parseUsageFile(text);
  if (r.ok) throw new Error(`accepted ${text} as ${JSON.stringify(r.usage)}`);
  return r.problem;
};

describe('the usage file', () => {
  it.each([
    ['a cost too big to be real', '{"cost_usd": 1.5e308}', 'cost_usd: must be at most $1000000000 (Conveyor counts no more)'],
    ['a cost that is not finite in JSON', '{"cost_usd": 1e400}', 'cost_usd: must be a number of US dollars'],
    ['a null cost', '{"cost_usd": null}', 'cost_usd: must be a number of US dollars'],
    ['a negative cost', '{"cost_usd": -0.01}', 'cost_usd: must not be negative'],
    ['tokens past the safe integers', '{"input_tokens": 9007199254740993}', 'input_tokens: must be at most 9007199254740991 (Conveyor counts no more)'],
    ['output tokens of 1e300', '{"output_tokens": 1e300}', 'output_tokens: must be at most 9007199254740991 (Conveyor counts no more)'],
    ['turns past the safe integers', '{"turns": 1e20}', 'turns: must be at most 9007199254740991 (Conveyor counts no more)'],
    ['a null count', '{"turns": null}', 'turns: must be a whole number of turns'],
  ])('refuses %s, saying which figure and why', (_what, text, problem) => {
    const said = problemOf(text);
    expect(said).toContain(problem);
    // One reason per figure: not "a whole number" for a number that is whole but too big.
    expect(said.split('; ')).toHaveLength(1);
  });

  it('takes figures up to the ceiling', () => {
    expect(parseUsageFile(`{"cost_usd": ${MAX_USD}, "input_tokens": ${MAX_COUNT}, "turns": 0}`)).toEqual({
      ok: true,
      usage: { costUsd: MAX_USD, inputTokens: MAX_COUNT, turns: 0 },
    });
  });

  it('the result carries no figure past the ceiling either', () => {
    expect(usageSchema.safeParse({ costUsd: 1.5e308 }).success).toBe(false);
    expect(usageSchema.safeParse({ inputTokens: 2 ** 60 }).success).toBe(false);
    expect(usageSchema.safeParse({ costUsd: MAX_USD, inputTokens: MAX_COUNT }).success).toBe(true);
  });
});

describe('a sum of usages', () => {
  it('that would stop being finite stops at the ceiling, stays a number in JSON, and says it is capped', () => {
    const sum = sumUsage([{ costUsd: 1.5e308 }, { costUsd: 1e308 }]);
    expect(sum).toEqual({ costUsd: MAX_USD });
    expect(JSON.parse(JSON.stringify(sum))).toEqual({ costUsd: MAX_USD });
    expect(usageSchema.safeParse(sum).success).toBe(true);
    expect(cappedFigures(sum)).toEqual(['cost']);
    expect(describeUsage(sum)).toBe("$1000000000.00 · cost at Conveyor's ceiling");
  });

  it('that would leave the safe integers stops at the ceiling', () => {
    const sum = sumUsage([
      { inputTokens: MAX_COUNT, outputTokens: 1, turns: MAX_COUNT - 1 },
      { inputTokens: 2, outputTokens: 2, turns: 5 },
    ]);
    expect(sum).toEqual({ inputTokens: MAX_COUNT, outputTokens: 3, turns: MAX_COUNT });
    expect(Number.isSafeInteger(sum?.inputTokens)).toBe(true);
    expect(cappedFigures(sum)).toEqual(['input tokens', 'turns']);
  });

  it.each([
    ['null (an Infinity once stored as JSON)', null],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['negative', -42.5],
  ])('counts a cost that is %s as the ceiling, never as nothing', (_what, bad) => {
    const stored = { costUsd: bad } as unknown as Usage;
    expect(sumUsage([{ costUsd: 3 }, stored])?.costUsd).toBe(MAX_USD);
    expect(sumUsage([stored])?.costUsd).toBe(MAX_USD);
  });

  it('counts a token count that is not a whole, safe, non-negative number as the ceiling', () => {
    expect(sumUsage([{ inputTokens: 10 }, { inputTokens: 1.5 } as Usage])?.inputTokens).toBe(MAX_COUNT);
    expect(sumUsage([{ outputTokens: null } as unknown as Usage])?.outputTokens).toBe(MAX_COUNT);
  });

  it('of ordinary figures is their sum, to the millionth of a dollar', () => {
    expect(sumUsage([{ costUsd: 0.1, inputTokens: 5 }, { costUsd: 0.2, turns: 1 }, undefined])).toEqual({ costUsd: 0.3, inputTokens: 5, turns: 1 });
    expect(cappedFigures({ costUsd: 0.3 })).toEqual([]);
  });
});
