// The JSON Schema of `.github/conveyor.yml`, generated from the zod schema so that editors
// (yaml-language-server) complete and check the same rules Conveyor enforces.
import { z } from 'zod';
import { configSchema } from './schema.ts';

export const SCHEMA_FILE = 'schema/conveyor.schema.json';

export function configJsonSchema(): Record<string, unknown> {
  // draft-07: the draft that editors' YAML language servers support best. `input`: what a user
  // may write (optional keys stay optional).
  const generated = z.toJSONSchema(configSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' });
  return {
    ...generated,
    title: 'Conveyor configuration (.github/conveyor.yml)',
    description: 'Pipelines, services and agents of Conveyor. Cross-reference rules (known names, no cycles) are checked by `conveyor validate`.',
  };
}

/** The committed file's exact text: pretty-printed, with a trailing newline. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
