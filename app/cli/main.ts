// Entry point of the `conveyor` command: registers the commands and runs them; no logic here.
import { readFileSync } from 'node:fs';
import { createProgram, runProgram } from './program.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const program = createProgram(version);
for (const register of [] as Array<(p: typeof program) => void>) register(program);
await runProgram(program, process.argv);
