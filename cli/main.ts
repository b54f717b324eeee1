// Entry point of the `conveyor` command: registers the commands and runs them; no logic here.
import { readFileSync } from 'node:fs';
import { createProgram, runProgram } from './program.ts';
import { register as registerValidate } from './commands/validate.ts';
import { register as registerPlan } from './commands/plan.ts';
import { register as registerInit } from './commands/init.ts';
import { register as registerRun } from './commands/run.ts';
import { register as registerDemo } from './commands/demo.ts';
import { register as registerTeardown } from './commands/teardown.ts';
import { register as registerServe } from './commands/serve.ts';
import { register as registerRestart } from './commands/restart.ts';
import { register as registerFix } from './commands/fix.ts';
import { register as registerPr } from './commands/pr.ts';
import { register as registerRevert } from './commands/revert.ts';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
const program = createProgram(version);
for (const register of [
  registerValidate,
  registerPlan,
  registerInit,
  registerRun,
  registerDemo,
  registerServe,
  registerTeardown,
  registerRestart,
  registerFix,
  registerPr,
  registerRevert,
] as Array<(p: typeof program) => void>)
  register(program);
await runProgram(program, process.argv);
