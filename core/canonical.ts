// Canonical JSON: object keys sorted, no whitespace, undefined members dropped. Two values that
// mean the same thing give the same bytes, so their digests can be compared and trusted.
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function digest(value: unknown): string {
  return sha256(canonicalJson(value));
}
