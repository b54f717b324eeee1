// Receipts: every step result is sealed with a SHA-256 digest over the canonical JSON of what the
// attempt was given and what it reported, so a result edited afterwards (by hand, in the store or
// in a result file) no longer verifies and is treated as not run.
//
//   receipt = "sha256:" + SHA-256( canonicalJson({ inputs, outputs }) )
//   inputs  = SHA-256( canonicalJson(payload without secrets) )   (hex)
//   outputs = the result without `receipt` (its `commits` name the commit of each repository)
//
// The inputs enter as their own digest: the engine records that digest when it dispatches an
// attempt (AttemptRecord.inputs), so it can verify a result later without keeping the payload.
// "Without secrets": agents' `env` values may hold credentials, so they are left out; the payload's
// planHash still pins them. A receipt is tamper-evidence, not a signature: whoever can recompute
// SHA-256 can forge one, but nobody edits a verdict by accident or quietly.
import { digest } from '../canonical.ts';
import { stepPayloadSchema, type StepPayload, type StepResult } from './wire.ts';

export const RECEIPT_PREFIX = 'sha256:';

/** The payload as the action sees it (JSON, then the wire schema), without agents' `env` values. */
export function receiptInputs(payload: unknown): unknown {
  let value: unknown = payload;
  // The JSON round trip is what the payload goes through on its way to the action.
  const parsed = stepPayloadSchema.safeParse(payload === undefined ? undefined : JSON.parse(JSON.stringify(payload)));
  if (parsed.success) value = parsed.data;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value ?? null;
  // `currentUntil` says until when its check run needs no reading, not what the step works on: the
  // dispatcher adds it to the payload the engine built (and digested), so it is left out.
  const { currentUntil: _currentUntil, ...o } = value as Record<string, unknown>;
  const agents = o.agents;
  if (!agents || typeof agents !== 'object') return o;
  const stripped: Record<string, unknown> = {};
  for (const [name, agent] of Object.entries(agents as Record<string, unknown>)) {
    if (agent && typeof agent === 'object') {
      const { env: _env, ...rest } = agent as Record<string, unknown>;
      stripped[name] = rest;
    } else stripped[name] = agent;
  }
  return { ...o, agents: stripped };
}

/** Digest of an attempt's inputs: what the engine records at dispatch and the action seals with. */
export function inputsDigest(payload: StepPayload | unknown): string {
  return digest(receiptInputs(payload));
}

/** The receipt of a result for the given inputs digest. */
export function receiptOf(result: StepResult, inputs: string): string {
  const { receipt: _receipt, ...outputs } = result;
  return `${RECEIPT_PREFIX}${digest({ inputs, outputs })}`;
}

export function sealResult(result: StepResult, inputs: string): StepResult {
  return { ...result, receipt: receiptOf(result, inputs) };
}

/** True when the result carries a receipt that matches its content and the inputs it was given. */
export function verifyReceipt(result: StepResult, inputs: string | undefined): boolean {
  if (!inputs || typeof result.receipt !== 'string' || !result.receipt.startsWith(RECEIPT_PREFIX)) return false;
  return receiptOf(result, inputs) === result.receipt;
}

/** `sha256:` and the first 12 hex digits: enough to tell receipts apart in a table. */
export function shortReceipt(receipt: string | undefined): string {
  if (!receipt) return '';
  return `${RECEIPT_PREFIX}${receiptHex(receipt).slice(0, 12)}`;
}

/** The digest part of a receipt (hex), as merge trailers print it after `sha256:`. */
export function receiptHex(receipt: string): string {
  return receipt.startsWith(RECEIPT_PREFIX) ? receipt.slice(RECEIPT_PREFIX.length) : receipt;
}
