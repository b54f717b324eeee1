// Builds the action into one ESM file for GitHub's runners, which have no node_modules.
// Usage: node scripts/bundle.js [outfile]   (default action/dist/index.js)
import { build } from 'esbuild';

const outfile = process.argv[2] ?? 'action/dist/index.js';
await build({
  entryPoints: ['action/src/index.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // CommonJS dependencies call require(); an ESM bundle has none unless we make one.
  banner: { js: "import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);" },
  // The native SQLite module is only loaded (by dynamic import) in the embedded mode, where
  // node_modules exists; on GitHub's runners it is never touched.
  external: ['better-sqlite3'],
  legalComments: 'none',
  logLevel: 'warning',
});
