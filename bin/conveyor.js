#!/usr/bin/env node
// The command line runs from TypeScript sources through tsx, so a clone needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../app/cli/main.ts');
