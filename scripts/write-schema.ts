// Writes the generated JSON Schemas from their zod schemas: `npx tsx scripts/write-schema.ts`.
//   schema/conveyor.schema.json       the configuration (.github/conveyor.yml)
//   schema/review-verdict.schema.json a reviewer's verdict ($CONVEYOR_RESULT_FILE of a review step)
// With --check, writes nothing and exits 1 when a committed file differs from the generated one.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configJsonSchemaText, SCHEMA_FILE } from '../core/config/json-schema.ts';
import { VERDICT_SCHEMA_FILE, verdictJsonSchemaText } from '../core/contract/verdict-schema.ts';

const generated: [string, string][] = [
  [SCHEMA_FILE, configJsonSchemaText()],
  [VERDICT_SCHEMA_FILE, verdictJsonSchemaText()],
];
let stale = false;
for (const [file, text] of generated) {
  const target = fileURLToPath(new URL(`../${file}`, import.meta.url));
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      // A missing file differs from the generated one.
    }
    if (committed !== text) {
      console.error(`${file} is out of date; run: npm run schema`);
      stale = true;
    } else console.log(`${file} is up to date`);
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${file}`);
  }
}
if (stale) process.exit(1);
