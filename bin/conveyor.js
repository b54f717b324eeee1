#!/usr/bin/env node
// The `conveyor` command. It runs from TypeScript sources through tsx, so a clone needs no build
// step. `serve` starts the GitHub App (app/main.ts); every other command is the command line's.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2] === 'serve' ? '../app/main.ts' : '../cli/main.ts');
