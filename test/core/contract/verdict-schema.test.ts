// The verdict's JSON Schema: committed as generated, read by editors and tools like the zod schema
// the review step parses with, and its strict form (handed to schema-enforcing CLIs) a subset of it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { reviewVerdictSchema } from '../../../core/contract/wire.ts';
import {
  structuredVerdictJsonSchema,
  structuredVerdictSchema,
  VERDICT_SCHEMA_FILE,
  verdictJsonSchema,
  verdictJsonSchemaText,
} from '../../../core/contract/verdict-schema.ts';

const root = join(import.meta.dirname, '../../..');

describe('the verdict schema', () => {
  it('is committed exactly as generated (npm run schema)', () => {
    expect(readFileSync(join(root, VERDICT_SCHEMA_FILE), 'utf8')).toBe(verdictJsonSchemaText());
  });

  const lenient = new Ajv({ allErrors: true }).compile(verdictJsonSchema());
  const strict = new Ajv({ allErrors: true }).compile(structuredVerdictJsonSchema());
  const good = { verdict: 'fail', findings: ['name it', { file: 'a.ts', line: 3, message: 'null' }], scores: { complexity: 0.1, risk: 0.5, impact: 1 } };

  it('accepts what the step accepts and refuses what it refuses', () => {
    for (const v of [good, { verdict: 'pass', scores: { complexity: 0, risk: 0, impact: 0 } }]) {
      expect(lenient(v), JSON.stringify(lenient.errors)).toBe(true);
      expect(reviewVerdictSchema.safeParse(v).success).toBe(true);
    }
    for (const v of [
      { verdict: 'ok', scores: { complexity: 0, risk: 0, impact: 0 } },
      { verdict: 'pass', scores: { complexity: 2, risk: 0, impact: 0 } },
      { verdict: 'pass' },
    ]) {
      expect(lenient(v)).toBe(false);
      expect(reviewVerdictSchema.safeParse(v).success).toBe(false);
    }
  });

  it('in its strict form, every key is required and nothing else allowed, and what it allows the step accepts', () => {
    const answer = { verdict: 'fail', findings: [{ file: null, line: null, message: 'name it' }], scores: { complexity: 0.1, risk: 0.5, impact: 1 } };
    expect(strict(answer), JSON.stringify(strict.errors)).toBe(true);
    expect(structuredVerdictSchema.safeParse(answer).success).toBe(true);
    expect(reviewVerdictSchema.safeParse(answer).success).toBe(true);
    expect(strict(good)).toBe(false);
    expect(strict({ ...answer, extra: 1 })).toBe(false);
    expect(JSON.stringify(structuredVerdictJsonSchema())).not.toContain('$schema');
  });
});
