// Fills the cache of real coding CLIs the tests run (test/helpers/real-clis.ts): each npm preset's
// CLI at its checked version, installed once (the tests install what they need themselves; this
// fills the cache ahead, e.g. before working offline). Exits 1 naming the CLI it could not install.
//
//   npx tsx scripts/install-test-clis.ts      (CONVEYOR_CLI_CACHE picks the folder)
import { CLI_CACHE, NPM_PRESETS, realCli } from '../test/helpers/real-clis.ts';

let failed = false;
for (const preset of NPM_PRESETS) {
  const started = Date.now();
  try {
    const cli = realCli(preset);
    console.log(`✓ ${cli.spec} in ${CLI_CACHE} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed = true;
    console.error(`✗ ${(e as Error).message}`);
  }
}
process.exit(failed ? 1 : 0);
