import { describe, expect, it } from 'vitest';
import { parseResultText, renderResultText } from '../../../core/github/check-run.ts';
import { fitPayload, sentLength } from '../../../core/contract/payload-fit.ts';
import { WIRE_VERSION, type StepPayload, type StepResult } from '../../../core/contract/wire.ts';
import { makePayload } from '../../helpers/payload.ts';

const result: StepResult = {
  version: WIRE_VERSION,
  runId: 'acme-web-7',
  step: 'test',
  mode: 'run',
  attempt: 2,
  epoch: 1,
  conclusion: 'failure',
  summary: 'a --> b <!-- c',
  prs: [],
  commits: {},
  environments: [],
  findings: 'line -->',
  error: { code: 'gate-failed', message: '<x>' },
};

describe('check run results', () => {
  it('round-trips a result whose text holds comment delimiters', () => {
    const text = `Some markdown\n${renderResultText(result)}\nmore`;
    expect(text.split('-->').length).toBe(2);
    expect(parseResultText(text)).toEqual({ ok: true, result });
  });

  it('shortens a huge result to the limit and restores the summary from output.summary', () => {
    const big = { ...result, summary: 'x'.repeat(80_000), findings: 'y'.repeat(80_000) };
    const text = renderResultText(big);
    expect(text.length).toBeLessThanOrEqual(65_535);
    const parsed = parseResultText(text, 'the summary');
    expect(parsed.ok && parsed.result.summary).toBe('the summary');
    expect(parsed.ok && parsed.result.findings?.endsWith("(cut to fit GitHub's check run limit)")).toBe(true);
  });

  it('leaves findings whole when dropping the summary is enough, and a result without findings its summary only', () => {
    const longSummary = { ...result, summary: 'x'.repeat(80_000) };
    const parsed = parseResultText(renderResultText(longSummary), 'from output.summary');
    expect(parsed).toEqual({ ok: true, result: { ...result, summary: 'from output.summary' } });
    const { findings: _findings, ...noFindings } = longSummary;
    const lean = parseResultText(renderResultText(noFindings));
    expect(lean.ok && lean.result.summary).toBe('(see the check run summary)');
    expect(lean.ok && lean.result.findings).toBeUndefined();
  });

  it('says why a text holds no result', () => {
    expect(parseResultText(null)).toMatchObject({ ok: false, message: 'the check run has no output text' });
    expect(parseResultText('<!-- conveyor:result:v1 {"version":2} -->')).toMatchObject({ ok: false, message: expect.stringMatching(/wire contract: runId/) });
    expect(parseResultText('<!-- conveyor:result:v1 {oops -->')).toMatchObject({ ok: false, message: expect.stringMatching(/not JSON/) });
  });
});

describe('fitting a payload into the workflow inputs', () => {
  const payload = makePayload({ repos: [{ repo: 'acme/web' }] }) as StepPayload;
  it('leaves a small payload alone', () => {
    expect(fitPayload(payload, 65_000).cuts).toEqual([]);
  });
  it('cuts the issue body first, then findings, with notes', () => {
    const big = { ...payload, issue: { ...payload.issue, body: '"quoted"\n'.repeat(5_000) }, findings: 'f'.repeat(5_000) };
    const fitted = fitPayload(big, 8_000);
    // Counted as sent: the payload's JSON travels as a string inside the dispatch's JSON, its quotes escaped again.
    expect(JSON.stringify({ payload: fitted.text }).length - '{"payload":""}'.length).toBeLessThanOrEqual(8_000);
    expect(sentLength(fitted.text)).toBeLessThanOrEqual(8_000);
    expect(fitted.cuts[0]).toBe('issue body');
    expect(fitted.payload.issue.body).toContain('[Conveyor] The issue body was cut');
  });
  it('refuses with a clear message when even the plan does not fit', () => {
    expect(() => fitPayload(payload, 100)).toThrow(/too large to dispatch/);
  });
});
