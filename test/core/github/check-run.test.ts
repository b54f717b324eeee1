import { describe, expect, it } from 'vitest';
import { externalIdOf, parseExternalId, parseResultText, renderResultText } from '../../../core/github/check-run.ts';
import { dispatchInputs, fitPayload, inputsLength, payloadLimitOf, sentLength } from '../../../core/contract/payload-fit.ts';
import { WIRE_VERSION, type StepPayload, type StepResult } from '../../../core/contract/wire.ts';
import { makePayload } from '../../helpers/payload.ts';

const result: StepResult = {
  version: WIRE_VERSION,
  runId: 'acme-web-7',
  stepId: 'test',
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

describe('check run external ids and results', () => {
  it('round-trips an attempt id, teardown included, and rejects malformed ones', () => {
    expect(parseExternalId(externalIdOf({ runId: 'acme-web-7', step: 'test', attempt: 2, epoch: 1 }))).toEqual({
      runId: 'acme-web-7',
      step: 'test',
      attempt: 2,
      epoch: 1,
      teardown: false,
    });
    expect(parseExternalId('r:preview:9:0:teardown')?.teardown).toBe(true);
    for (const bad of ['', 'r:test:2', 'r:Test:1:0', 'r:test:x:0', 'a:b:c:1:0']) expect(parseExternalId(bad)).toBeUndefined();
  });

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
    expect(parseResultText('<!-- conveyor:result:v1 {"version":1} -->')).toMatchObject({ ok: false, message: expect.stringMatching(/wire contract: runId/) });
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
  it("leaves room for what the dispatcher adds: sent with the longest promise and the app's URL, to any check run, it fits the inputs", () => {
    const big = { ...payload, issue: { ...payload.issue, body: '"quoted"\n'.repeat(5_000) } };
    const url = `https://conveyor.example.com/${'p/'.repeat(300)}`;
    const fitted = fitPayload(big, payloadLimitOf(8_000, url));
    const sent = { ...fitted.payload, currentUntil: new Date(8.64e15).toISOString(), app: { url } };
    expect(inputsLength(dispatchInputs(sent, JSON.stringify(sent), Number.MAX_SAFE_INTEGER))).toBeLessThanOrEqual(8_000);
    expect(dispatchInputs(sent, 'x', 12)).toEqual({ payload: 'x', step: 'implement · attempt 1', 'check-run': '12' });
  });
  it('refuses with a clear message when even the plan does not fit', () => {
    expect(() => fitPayload(payload, 100)).toThrow(/too large to dispatch/);
  });
});
