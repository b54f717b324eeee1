// The step process from start to end, in the order it happens. The entry (index.ts) only calls it.
import * as core from '@actions/core';
import { killRunningCommands } from '../../lib/process.ts';
import { runEntry } from './entry.ts';
import { prepareCheckRun } from './report/check-run.ts';
import { takeToken } from './token.ts';

/** Runs one step attempt and returns the process's exit code. */
export async function main(): Promise<number> {
  const log = (line: string) => process.stdout.write(`${line}\n`);

  // 1. Told to stop (a cancelled workflow run, or a recovering `conveyor`): take the user's commands along.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      killRunningCommands();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
    });
  }

  // 2. The token, once: a token file is deleted as soon as it is read (token.ts). Without it the
  // attempt fails (step 4 says why), or in GitHub mode cannot even report to its check run.
  let token: string | undefined;
  let tokenError: unknown;
  try {
    token = takeToken({ env: process.env, getInput: (name) => core.getInput(name) });
  } catch (e) {
    tokenError = e;
  }
  if (tokenError && process.env.CONVEYOR_CHECK_RUN_ID) {
    log(`conveyor: ${(tokenError as Error).message}; cannot report to the check run`);
    return 1;
  }

  // 3. GitHub mode: a stale attempt does nothing at all; a check run that cannot be read fails the job.
  const checkRun = await prepareCheckRun({
    env: process.env,
    getInput: (name) => core.getInput(name),
    token,
    log,
    writeJobSummary: async (md) => void (await core.summary.addRaw(md).write()),
  }).catch((e: unknown) => ({ proceed: false as const, reason: `cannot read the check run: ${(e as Error).message}`, failed: true }));
  if (!checkRun.proceed) {
    log(`conveyor: ${checkRun.reason}; doing nothing`);
    return 'failed' in checkRun ? 1 : 0;
  }

  // 4. Run the step under one error boundary and report its result wherever it goes.
  const result = await runEntry({
    env: process.env,
    getInput: (name) => core.getInput(name),
    token: () => {
      if (tokenError) throw tokenError;
      return token;
    },
    setSecret: (value) => core.setSecret(value),
    ...(process.env.GITHUB_OUTPUT ? { setOutput: (name: string, value: string) => core.setOutput(name, value) } : {}),
    log,
    ...(checkRun.client ? { checkRunClient: () => checkRun.client } : {}),
  });
  return result.conclusion === 'failure' ? 1 : 0;
}
