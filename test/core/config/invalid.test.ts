// Every bad file under test/fixtures/configs/invalid/ states, in `# expect:` lines at its top,
// exactly the errors it must produce: `LINE:COL key.path: message`, in file order.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatConfigError, loadConfig } from '../../../core/config/load.ts';

const dir = join(import.meta.dirname, '../../fixtures/configs/invalid');
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.yml'))
  .sort();

const expectations = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('# expect: '))
    .map((l) => l.slice('# expect: '.length));

describe('invalid configurations', () => {
  it('has at least 25 distinct bad files, each with expectations', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(25);
    const texts = new Set(fixtures.map((f) => readFileSync(join(dir, f), 'utf8')));
    expect(texts.size).toBe(fixtures.length);
    for (const f of fixtures) expect(expectations(readFileSync(join(dir, f), 'utf8')), f).not.toEqual([]);
  });

  it.each(fixtures)('%s reports its errors with line, column, key path and message', (name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    const result = loadConfig(text, `configs/${name}`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    for (const e of result.errors) {
      expect(e.file).toBe(`configs/${name}`);
      expect(e.line).toBeGreaterThanOrEqual(1);
      expect(e.column).toBeGreaterThanOrEqual(1);
    }
    const got = result.errors.map((e) => formatConfigError(e).slice(`configs/${name}:`.length));
    expect(got).toEqual(expectations(text));
  });
});
