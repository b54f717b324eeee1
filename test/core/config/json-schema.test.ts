import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// ajv 6 (draft-07) comes with eslint; it is here only to check the schema the way editors do.
import Ajv from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, configJsonSchemaText, SCHEMA_FILE } from '../../../core/config/json-schema.ts';

const root = join(import.meta.dirname, '../../..');
const validDir = join(root, 'test/fixtures/configs/valid');
const validate = new Ajv({ allErrors: true }).compile(configJsonSchema());
const fixture = (name: string): Record<string, unknown> => parse(readFileSync(join(validDir, name), 'utf8'), { merge: true }) as Record<string, unknown>;

describe('the JSON Schema', () => {
  it('is committed exactly as generated (run: npx tsx scripts/write-schema.ts)', () => {
    expect(readFileSync(join(root, SCHEMA_FILE), 'utf8')).toBe(configJsonSchemaText());
    expect(configJsonSchemaText().endsWith('}\n')).toBe(true);
  });

  it('is pure: the same object every time', () => {
    expect(configJsonSchema()).toEqual(configJsonSchema());
  });

  it.each(readdirSync(validDir).filter((f) => f.endsWith('.yml')))('accepts the valid file %s', (name) => {
    expect(validate(fixture(name)), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['an unknown key', ['services', 'web', 'depends_on'], ['api']],
    ['an unknown step kind', ['pipelines', 'default', 'steps', 0, 'kind'], 'gat'],
    ['an agent on a merge step', ['pipelines', 'default', 'steps', 5, 'agent'], 'coder'],
    ['max-attempts over 5', ['pipelines', 'default', 'steps', 1, 'repair', 'max-attempts'], 9],
    ['a timeout over 360 minutes', ['agents', 'coder', 'timeout-minutes'], 361],
    ['a repo that is not owner/name', ['services', 'web', 'repo'], 'web'],
    ['an upper-case service name', ['services', 'Web'], {}],
    ['version 2', ['version'], 2],
    ['deploy that is neither none nor a command', ['services', 'docs', 'deploy'], 'nothing'],
  ] as const)('refuses %s', (_, path, value) => {
    const config = fixture('design.yml');
    expect(validate(config)).toBe(true);
    let parent = config as Record<string | number, unknown>;
    for (const seg of path.slice(0, -1)) parent = parent[seg] as Record<string | number, unknown>;
    parent[path[path.length - 1]!] = value;
    expect(validate(config)).toBe(false);
  });

  it('describes keys for editors', () => {
    const text = configJsonSchemaText();
    expect(text).toContain('"description": "Issue label that starts this pipeline."');
    expect(text).toContain('"additionalProperties": false');
  });
});
