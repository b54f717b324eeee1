// Issue #15: the app's private key lives with the app alone. The workflow template, the docs and
// the action (its sources and its bundle) neither ask for it nor mint a token with it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

const TERMS = ['CONVEYOR_APP_PRIVATE_KEY', 'create-github-app-token', 'BEGIN RSA PRIVATE KEY', 'PRIVATE_KEY'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Where the text names the key: `file: term` for each hit. */
function hits(file: string, text: string): string[] {
  return TERMS.filter((t) => text.includes(t)).map((t) => `${relative(ROOT, file)}: ${t}`);
}

/**
 * What each file may say for a reason unrelated to the key's use in Actions, removed before the
 * search: the docs' section on running the app itself (`conveyor serve` reads PRIVATE_KEY or
 * PRIVATE_KEY_PATH: that is where the key belongs), and the bundled scrubber's pattern of the
 * environment variable names it hides from commands (`…|PRIVATE_KEY|…`).
 */
function searched(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith(join('docs', 'github-app.md'))) return text.replace(/^## 2\. Run the app\n[\s\S]*?(?=^## )/m, '');
  // The scrubber's pattern lands in whichever file of the build holds lib/secrets.ts.
  if (file.includes(join('action', 'dist', '')) && file.endsWith('.js')) return text.replace('TOKEN|SECRET|PASSWORD|PRIVATE_KEY|CREDENTIAL', '');
  return text;
}

describe("the app's private key", () => {
  const files = [...filesUnder(join(ROOT, 'workflows')), ...filesUnder(join(ROOT, 'docs')), ...filesUnder(join(ROOT, 'action'))];

  it('is nowhere in the workflow template, the docs or the action', () => {
    // The search covers what it should (a search of nothing finds nothing).
    for (const must of [
      'workflows/conveyor.yml',
      'docs/github-app.md',
      'action/dist/index.js',
      'action/dist/main.js',
      'action/src/main.ts',
      'action/src/oidc-token.ts',
    ]) {
      expect(files.map((f) => relative(ROOT, f))).toContain(must);
    }
    expect(files.flatMap((f) => hits(f, searched(f)))).toEqual([]);
  });

  it('would be found: the search sees each term, and the exceptions hide only what they name', () => {
    for (const term of TERMS) expect(hits('x.yml', `uses: ${term}`)).not.toEqual([]);
    const docs = join(ROOT, 'docs', 'github-app.md');
    // The run section is where serve's own key setting is documented, and only it is left out.
    expect(readFileSync(docs, 'utf8')).toContain('PRIVATE_KEY_PATH');
    expect(searched(docs)).toContain('## 3. Add the configuration');
    expect(searched(docs)).not.toContain('## 2. Run the app');
  });
});
