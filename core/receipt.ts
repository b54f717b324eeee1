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
import { createHash, type Hash } from 'node:crypto';
import { digest } from './canonical.ts';
import type { Run, RunEvent, StepState } from './run/types.ts';
import { stepPayloadSchema, type StepPayload, type StepResult } from './wire.ts';

export const RECEIPT_PREFIX = 'sha256:';

/** Strings at least this long are hashed in place rather than copied into a chunk. */
const BIG_STRING = 8 * 1024;
const CHUNK = 64 * 1024;
/** Characters JSON.stringify escapes: quotes, backslash, controls, and (lone) surrogates. */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** Keys JavaScript enumerates first, in numeric order (array indices), whatever the insertion order. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

/**
 * SHA-256 (hex) of canonicalJson(value), computed without building the JSON text: the same bytes
 * are fed to the hash piece by piece, and long strings that need no escaping go in as they are.
 * Equal to sha256(canonicalJson(value)) for every JSON value (checked by a property test).
 */
export function canonicalDigest(value: unknown): string {
  const w = new Writer(createHash('sha256'));
  // Nothing to write (undefined) hashes the empty text, as no JSON text can.
  w.value(value);
  return w.end();
}

class Writer {
  private buf = '';
  constructor(private readonly hash: Hash) {}

  push(text: string): void {
    this.buf += text;
    if (this.buf.length >= CHUNK) this.flush();
  }

  flush(): void {
    if (this.buf) this.hash.update(this.buf, 'utf8');
    this.buf = '';
  }

  end(): string {
    this.flush();
    return this.hash.digest('hex');
  }

  string(s: string): void {
    if (s.length >= BIG_STRING && !NEEDS_ESCAPE.test(s)) {
      // Whole strings only, so no surrogate pair is ever split between two updates.
      this.push('"');
      this.flush();
      this.hash.update(s, 'utf8');
      this.buf = '"';
    } else {
      this.push(JSON.stringify(s));
    }
  }

  /** Writes a value as JSON.stringify would; false when it writes nothing (undefined, a function). */
  value(v: unknown): boolean {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON(key: string): unknown }).toJSON('');
    }
    switch (typeof v) {
      case 'string':
        this.string(v);
        return true;
      case 'number':
        this.push(Number.isFinite(v) ? String(v) : 'null');
        return true;
      case 'boolean':
        this.push(v ? 'true' : 'false');
        return true;
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
      case 'undefined':
      case 'function':
      case 'symbol':
        return false;
      default:
        break;
    }
    if (v === null) {
      this.push('null');
      return true;
    }
    if (Array.isArray(v)) {
      this.push('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.push(',');
        if (!this.value(v[i])) this.push('null');
      }
      this.push(']');
      return true;
    }
    const o = v as Record<string, unknown>;
    let text = '{';
    for (const k of canonicalKeys(o)) {
      const member = o[k];
      const t = typeof member;
      if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
      text += text.length === 1 ? keyText(k) : `,${keyText(k)}`;
      // Primitive members are written inline: most of a result's objects are small leaves.
      if (t === 'string' && (member as string).length < BIG_STRING) text += JSON.stringify(member);
      else if (t === 'number') text += Number.isFinite(member) ? String(member) : 'null';
      else if (t === 'boolean') text += member ? 'true' : 'false';
      else if (member === null) text += 'null';
      else {
        this.push(text);
        text = '';
        this.value(member);
      }
    }
    this.push(`${text}}`);
    return true;
  }
}

/** `"key":` texts, kept: the same few keys come back in every object of a result. */
const keyTexts = new Map<string, string>();
function keyText(k: string): string {
  let t = keyTexts.get(k);
  if (t === undefined) {
    t = `${JSON.stringify(k)}:`;
    if (keyTexts.size < 10_000) keyTexts.set(k, t);
  }
  return t;
}

/** The order canonicalJson's sorted copy enumerates: index-like keys numerically, then the rest sorted. */
function canonicalKeys(o: Record<string, unknown>): string[] {
  const keys = Object.keys(o);
  let sorted = true;
  let index = false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const c = k.charCodeAt(0);
    if ((c >= 48 && c <= 57) || k === '__proto__') index = true;
    if (i > 0 && keys[i - 1]! > k) sorted = false;
  }
  if (!index) return sorted ? keys : keys.sort();
  const indices: string[] = [];
  const names: string[] = [];
  for (const k of keys) {
    // canonicalJson copies into a plain object, where `__proto__` sets the prototype instead: it is dropped.
    if (k === '__proto__') continue;
    (INDEX_KEY.test(k) && Number(k) < 4294967295 ? indices : names).push(k);
  }
  names.sort();
  indices.sort((a, b) => Number(a) - Number(b));
  return [...indices, ...names];
}

/** The payload as the action sees it (JSON, then the wire schema), without agents' `env` values. */
export function receiptInputs(payload: unknown): unknown {
  let value: unknown = payload;
  // Plain JSON data comes back from a JSON round trip as it was, less its undefined members, which
  // the schema reads as absent and the digest leaves out: parsing it as it is gives the same inputs,
  // without the round trip. Anything else (a Date, NaN, a hole...) takes the action's own path.
  const direct = isPlainJson(payload) ? stepPayloadSchema.safeParse(payload) : undefined;
  const parsed = direct?.success ? direct : stepPayloadSchema.safeParse(payload === undefined ? undefined : JSON.parse(JSON.stringify(payload)));
  if (parsed.success) value = parsed.data;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value ?? null;
  const o = value as Record<string, unknown>;
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

/**
 * True for a value JSON.stringify then JSON.parse give back unchanged (but for undefined object
 * members, dropped): plain objects and arrays of strings, finite numbers, booleans and null.
 */
function isPlainJson(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && !Object.is(v, -0);
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!isPlainJson(v[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v) {
    if (k === '__proto__') return false;
    const member = (v as Record<string, unknown>)[k];
    if (member !== undefined && !isPlainJson(member)) return false;
  }
  // Symbol keys and non-enumerable properties, which JSON leaves out, but a schema might read.
  return Object.getOwnPropertySymbols(v).length === 0 && Object.getOwnPropertyNames(v).length === Object.keys(v).length;
}

/** Digest of an attempt's inputs: what the engine records at dispatch and the action seals with. */
export function inputsDigest(payload: StepPayload | unknown): string {
  return canonicalDigest(receiptInputs(payload));
}

/** The receipt of a result for the given inputs digest. */
export function receiptOf(result: StepResult, inputs: string): string {
  const { receipt: _receipt, ...outputs } = result;
  return `${RECEIPT_PREFIX}${canonicalDigest({ inputs, outputs })}`;
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

/** The inputs digest the engine recorded for the attempt that produced the step's result. */
export function recordedInputs(step: StepState): string | undefined {
  const r = step.result;
  if (!r) return undefined;
  for (let i = step.attempts.length - 1; i >= 0; i--) {
    const a = step.attempts[i];
    if (a && a.attempt === r.attempt && a.epoch === r.epoch && a.mode === r.mode) return a.inputs;
  }
  return undefined;
}

/** True when the step has a stored result whose receipt verifies against what was dispatched. */
export function stepVerifies(step: StepState | undefined): boolean {
  if (!step?.result) return false;
  return verifyReceipt(step.result, recordedInputs(step));
}

/** Inputs of a merge the app carries out itself: which attempt merged which PR heads. */
export function mergeInputsDigest(run: Run, attempt: { step: string; attempt: number; epoch: number }): string {
  return digest({ runId: run.id, merge: { step: attempt.step, attempt: attempt.attempt, epoch: attempt.epoch }, prs: run.prs });
}

/**
 * Steps that succeeded, in plan order before the first step that did not, whose stored result does
 * not verify: they count as not run. Approvals carry no result (their approvals are the record).
 */
export function unverifiedSteps(run: Run): string[] {
  const out: string[] = [];
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    if (s?.status !== 'succeeded') break;
    if (p.kind === 'approval') continue;
    if (!stepVerifies(s)) out.push(p.id);
  }
  return out;
}

/**
 * A plain retry resumes from the first step that did not succeed; a step before it whose stored
 * result does not verify counts as not run, so the retry starts there instead.
 */
export function verifiedRetry(run: Run, event: RunEvent): RunEvent {
  if (event.type !== 'retry' || event.step !== undefined) return event;
  const first = unverifiedSteps(run)[0];
  return first === undefined ? event : { ...event, step: first };
}
