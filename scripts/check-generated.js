// Fails when a committed generated file differs from what its sources give: the action bundle
// (GitHub's runners execute the committed file, not the sources) and the JSON Schemas of the
// configuration and of a reviewer's verdict (editors and tools read the committed files).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let failed = false;

const scratch = mkdtempSync(join(tmpdir(), 'conveyor-bundle-'));
try {
  const fresh = join(scratch, 'index.js');
  execFileSync(process.execPath, ['scripts/bundle.js', fresh], { cwd: root, stdio: 'inherit' });
  let committed = '';
  try {
    committed = readFileSync(join(root, 'action/dist/index.js'), 'utf8');
  } catch {
    // Missing counts as different.
  }
  if (committed !== readFileSync(fresh, 'utf8')) {
    console.error('action/dist/index.js does not match action/src: run `npm run bundle` and commit it.');
    failed = true;
  } else {
    console.log('action/dist/index.js is up to date');
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

try {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/write-schema.ts', '--check'], { cwd: root, stdio: 'inherit' });
} catch {
  failed = true;
}
process.exit(failed ? 1 : 0);
