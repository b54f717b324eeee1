// The action's entry: no logic here, only the wiring of the process to runEntry.
import * as core from '@actions/core';
import { runEntry } from './entry.ts';

const result = await runEntry({
  env: process.env,
  getInput: (name) => core.getInput(name),
  setSecret: (value) => core.setSecret(value),
  ...(process.env.GITHUB_OUTPUT ? { setOutput: (name: string, value: string) => core.setOutput(name, value) } : {}),
  log: (line) => process.stdout.write(`${line}\n`),
});
process.exitCode = result.conclusion === 'failure' ? 1 : 0;
