// The reviewer's verdict as JSON Schema: what a reviewer may write (schema/review-verdict.schema.json,
// generated from the zod schema the step parses it with), and the stricter shape handed to a CLI
// that enforces a schema on its answer (Claude Code's --json-schema, Codex's --output-schema).
import { z } from 'zod';
import { reviewVerdictSchema } from './wire.ts';

export const VERDICT_SCHEMA_FILE = 'schema/review-verdict.schema.json';

/** Every verdict a reviewer may write to $CONVEYOR_RESULT_FILE. */
export function verdictJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(reviewVerdictSchema, { target: 'draft-7', io: 'input' });
  return {
    ...generated,
    title: 'Conveyor review verdict ($CONVEYOR_RESULT_FILE of a review step)',
    description:
      '`fail` sends the findings to the repair agent; scores are from 0 to 1. A finding is a string, or an object such as {"file", "line", "message"}.',
  };
}

export function verdictJsonSchemaText(): string {
  return `${JSON.stringify(verdictJsonSchema(), null, 2)}\n`;
}

/**
 * The verdict as a schema-enforcing CLI must produce it: every key present and nothing else, as
 * OpenAI's strict structured outputs require. Every value of it is a verdict of the schema above.
 */
export const structuredVerdictSchema = z.strictObject({
  verdict: z.enum(['pass', 'fail']),
  findings: z.array(
    z.strictObject({
      file: z.string().nullable().describe("Path from the reviewer's folder (another repository's through its folder, as ../acme__api/src/a.ts), or null."),
      line: z.number().nullable().describe('Line number, or null.'),
      message: z.string().describe('What must change.'),
    }),
  ),
  scores: z.strictObject({
    complexity: z.number().min(0).max(1),
    risk: z.number().min(0).max(1),
    impact: z.number().min(0).max(1),
  }),
});

export function structuredVerdictJsonSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(structuredVerdictSchema, { target: 'draft-7' }) as Record<string, unknown>;
  return schema;
}
