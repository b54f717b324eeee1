// Fails when a committed generated file differs from what its sources give: every file of the
// action's build in action/dist (GitHub's runners execute the committed files, not the sources),
// which must also keep what every step loads within its budget (scripts/action-build.ts), and the
// JSON Schemas of the configuration and of a reviewer's verdict (editors and tools read the
// committed files).
import { execFileSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
let failed = false;
for (const script of ['scripts/action-build.ts', 'scripts/write-schema.ts']) {
  try {
    execFileSync(process.execPath, ['--import', 'tsx', script, '--check'], { cwd: root, stdio: 'inherit' });
  } catch {
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
