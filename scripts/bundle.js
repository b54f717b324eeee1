// Builds the action into action/dist (see scripts/action-build.ts, which says what is there).
// Usage: node scripts/bundle.js [outdir]   (default action/dist; an earlier build's files there go)
import { register } from 'tsx/esm/api';

register();
const { bundleAction } = await import('./action-build.ts');
await bundleAction(process.argv[2]);
