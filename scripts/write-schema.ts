// Writes schema/conveyor.schema.json from the zod schema: `npx tsx scripts/write-schema.ts`.
// With --check, writes nothing and exits 1 when the committed file differs from the generated one.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configJsonSchemaText, SCHEMA_FILE } from '../core/config/json-schema.ts';

const target = fileURLToPath(new URL(`../${SCHEMA_FILE}`, import.meta.url));
const text = configJsonSchemaText();
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // A missing file differs from the generated one.
  }
  if (committed !== text) {
    console.error(`${SCHEMA_FILE} is out of date; run: npx tsx scripts/write-schema.ts`);
    process.exit(1);
  }
  console.log(`${SCHEMA_FILE} is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${SCHEMA_FILE}`);
}
