import { describe, expect, it } from 'vitest';
import { updatable, attemptOutcome, parseResultText, renderResultText, repairNumber, stepCheckName } from '../../../core/github/check-run.ts';
import { dispatchInputs, fitPayload, inputsLength, payloadLimitOf, sentLength } from '../../../core/contract/payload-fit.ts';
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
  it('leaves room for what the dispatcher adds: sent with the longest promise, to any check run, it fits the inputs', () => {
    const big = { ...payload, issue: { ...payload.issue, body: '"quoted"\n'.repeat(5_000) } };
    const fitted = fitPayload(big, payloadLimitOf(8_000));
    const sent = { ...fitted.payload, currentUntil: new Date(8.64e15).toISOString() };
    expect(inputsLength(dispatchInputs(sent, JSON.stringify(sent), Number.MAX_SAFE_INTEGER))).toBeLessThanOrEqual(8_000);
    expect(dispatchInputs(sent, 'x', 12)).toEqual({ payload: 'x', step: 'implement · attempt 1', 'check-run': '12' });
  });
  it('refuses with a clear message when even the plan does not fit', () => {
    expect(() => fitPayload(payload, 100)).toThrow(/too large to dispatch/);
  });
});

describe('check run names and outcomes of attempts', () => {
  it('names a repair as one, numbered among the repairs of its step, and a teardown as one', () => {
    expect(stepCheckName('test')).toBe('conveyor / test');
    expect(stepCheckName('test', { mode: 'run' })).toBe('conveyor / test');
    expect(stepCheckName('test', { mode: 'repair', repair: 1 })).toBe('conveyor / test (repair 1)');
    expect(stepCheckName('test', { mode: 'repair' })).toBe('conveyor / test (repair)');
    expect(stepCheckName('preview', { mode: 'teardown' })).toBe('conveyor / preview (teardown)');
    const record = (attempt: number, mode: 'run' | 'repair', epoch = 0) => ({ attempt, epoch, mode, startedAt: '2025-01-01T00:00:00Z' });
    // run 1 fails, repair 2 (lost once, dispatched again), run 3 fails, repair 4.
    const step = { attempts: [record(1, 'run'), record(2, 'repair'), record(2, 'repair', 1), record(3, 'run'), record(4, 'repair')] };
    expect(repairNumber(step, 2)).toBe(1);
    expect(repairNumber(step, 4)).toBe(2);
    expect(repairNumber(step, 3)).toBeUndefined();
    expect(repairNumber(undefined, 2)).toBeUndefined();
  });

  it('ends a repair that pushed a fix neutral, saying the step runs again: never a green tick that reads as passing', () => {
    const repair = { ...result, mode: 'repair' as const, conclusion: 'success' as const, error: undefined };
    expect(attemptOutcome(repair)).toEqual({ conclusion: 'neutral', title: 'repair pushed a fix: test runs again on it (no verdict yet)' });
    expect(attemptOutcome({ ...repair, conclusion: 'neutral' })).toEqual({ conclusion: 'neutral', title: 'repair changed nothing' });
    expect(attemptOutcome({ ...repair, conclusion: 'failure', error: { code: 'agent-failed', message: 'x' } })).toEqual({
      conclusion: 'failure',
      title: 'repair failed: agent-failed',
    });
    // A run attempt says how the step went.
    expect(attemptOutcome(result)).toEqual({ conclusion: 'failure', title: 'failure: gate-failed' });
    expect(attemptOutcome({ ...result, conclusion: 'success', error: undefined })).toEqual({ conclusion: 'success', title: 'success' });
  });
});

describe('which check run states GitHub lets an update reach', () => {
  it('any from queued or in progress; from completed only the same conclusion (its output may change)', () => {
    expect(updatable({ status: 'queued' }, { status: 'in_progress' })).toBe(true);
    expect(updatable({ status: 'in_progress' }, { status: 'completed', conclusion: 'action_required' })).toBe(true);
    expect(updatable({ status: 'completed', conclusion: 'action_required' }, { status: 'completed', conclusion: 'action_required' })).toBe(true);
    expect(updatable({ status: 'completed', conclusion: 'action_required' }, { status: 'in_progress' })).toBe(false);
    expect(updatable({ status: 'completed', conclusion: 'action_required' }, { status: 'completed', conclusion: 'success' })).toBe(false);
  });
});
