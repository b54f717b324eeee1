import { describe, expect, it } from 'vitest';
import { inputsDigest, receiptOf, sealResult, shortReceipt, verifyReceipt } from '../../../core/contract/receipt.ts';
import { stepVerifies, unverifiedSteps } from '../../../core/run/receipts.ts';
import { parseStepPayload, stepPayloadSchema } from '../../../core/contract/wire.ts';
import type { Run } from '../../../core/run/types.ts';
import { makePayload } from '../../helpers/payload.ts';
import { planOf, resultOf } from '../../helpers/plans.ts';
import { AT, current, start, step } from '../run/drive.ts';

describe('receipts', () => {
  const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentEnv: { API_KEY: 'sk-very-secret-value' } });
  const inputs = inputsDigest(payload);
  const result = resultOf('run-1', 'implement', 1, 0, 'success', { commits: { 'acme/web': 'a'.repeat(40) } });

  it('seal then verify; any edit of the outputs, the commits or the inputs fails', () => {
    const sealed = sealResult(result, inputs);
    expect(sealed.receipt).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(verifyReceipt(sealed, inputs)).toBe(true);
    expect(verifyReceipt({ ...sealed, summary: 'edited' }, inputs)).toBe(false);
    expect(verifyReceipt({ ...sealed, conclusion: 'failure' }, inputs)).toBe(false);
    expect(verifyReceipt({ ...sealed, commits: { 'acme/web': 'b'.repeat(40) } }, inputs)).toBe(false);
    expect(verifyReceipt(sealed, inputsDigest({ ...payload, attempt: 2 }))).toBe(false);
    expect(verifyReceipt(result, inputs)).toBe(false); // no receipt at all
    expect(verifyReceipt(sealed, undefined)).toBe(false); // nothing recorded to verify against
    expect(verifyReceipt({ ...sealed, receipt: 'md5:abc' }, inputs)).toBe(false);
  });

  it('leaves agents\u2019 env values out of the inputs, and normalizes the payload as the action parses it', () => {
    const other = { ...payload, agents: { coder: { ...payload.agents.coder!, env: { API_KEY: 'another' } } } };
    expect(inputsDigest(other)).toBe(inputs);
    // The action sees the payload after JSON and the wire schema: an undefined member changes nothing.
    expect(inputsDigest({ ...payload, requester: undefined })).toBe(inputs);
    expect(inputsDigest({ ...payload, issue: { ...payload.issue, body: 'other' } })).not.toBe(inputs);
  });

  it('reads no app URL from a payload (the workflow names the app): one added by whoever dispatched it is no input of the step', () => {
    const sent = { ...payload, app: { url: 'javascript:alert(1)' } };
    expect(inputsDigest(sent)).toBe(inputs);
    // As the action parses it from the JSON it received: not refused, and not kept.
    const parsed = parseStepPayload(JSON.stringify(sent));
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && 'app' in parsed.payload).toBe(false);
    expect(inputsDigest(stepPayloadSchema.parse(JSON.parse(JSON.stringify(sent))))).toBe(inputs);
  });

  it('leaves out until when the attempt stays current: the dispatcher adds it too, and a bad one is refused by name', () => {
    const sent = { ...payload, currentUntil: '2025-03-01T10:10:00.000Z' };
    expect(inputsDigest(sent)).toBe(inputs);
    expect(inputsDigest(stepPayloadSchema.parse(JSON.parse(JSON.stringify(sent))))).toBe(inputs);
    const bad = parseStepPayload(JSON.stringify({ ...payload, currentUntil: 'soon' }));
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/^currentUntil: /);
  });

  it('is stable for the same content whatever the key order', () => {
    const reordered = Object.fromEntries(Object.entries(result).reverse()) as typeof result;
    expect(receiptOf(reordered, inputs)).toBe(receiptOf(result, inputs));
    expect(shortReceipt(receiptOf(result, inputs))).toMatch(/^sha256:[0-9a-f]{12}$/);
  });
});

describe('stored results of a run', () => {
  const plan = planOf([
    { id: 'implement', kind: 'code' },
    { id: 'test', kind: 'gate' },
    { id: 'approve', kind: 'approval' },
  ]);
  it('verify against the inputs recorded with the attempt; an edited or unsealed result does not', () => {
    let run = start(plan).run;
    // The digest of what the dispatch sends is recorded as the attempt starts.
    const dispatched = run.steps.implement?.attempts[0]?.inputs;
    expect(dispatched).toMatch(/^[0-9a-f]{64}$/);
    run = step(run, current(run, 'implement', 'success')).run;
    run = step(run, current(run, 'test', 'success')).run;
    expect(run.status).toBe('waiting');
    expect(run.steps.implement?.attempts[0]?.inputs).toBe(dispatched);
    expect(unverifiedSteps(run)).toEqual([]);
    const edited: Run = {
      ...run,
      steps: { ...run.steps, test: { ...run.steps.test!, result: { ...run.steps.test!.result!, summary: 'all green, honest' } } },
    };
    expect(stepVerifies(edited.steps.test)).toBe(false);
    expect(unverifiedSteps(edited)).toEqual(['test']);
    // A result that was never sealed does not count: its attempt is lost and dispatched again.
    const started = start(plan).run;
    const unsealed = step(started, { type: 'step-completed', at: AT, result: resultOf('r1', 'implement', 1, 0, 'success') }).run;
    expect(unsealed.steps.implement).toMatchObject({ status: 'queued', attempt: 1, epoch: 1 });
    expect(unsealed.steps.implement?.attempts[0]).toMatchObject({
      conclusion: 'lost',
      summary: 'the result of attempt 1 was not trusted: it carries no receipt',
    });
    expect(stepVerifies(undefined)).toBe(false);
    expect(resultOf('r1', 'x', 1, 0, 'success').receipt).toBeUndefined();
  });
});
