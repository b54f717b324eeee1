// The step process from start to end, in the order it happens. The entry (index.ts) only calls it.
import * as core from '@actions/core';
import { killRunningCommands } from '../../lib/process.ts';
import { payloadText, runEntry } from './entry.ts';
import { artifactTranscriptStore } from './artifact-store.ts';
import { pollIntervalOf, prepareCheckRun } from './report/check-run.ts';
import { obtainToken, type StepToken } from './token.ts';

/** Runs one step attempt and returns the process's exit code. */
export async function main(): Promise<number> {
  const log = (line: string) => core.info(line);
  const inputs = { env: process.env, getInput: (name: string) => core.getInput(name) };

  // 1. Told to stop (a cancelled workflow run, or a recovering `conveyor`): take the user's commands along.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      killRunningCommands();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
    });
  }

  // 2. The token, once: given by the old template (a token file is deleted as soon as it is read),
  // or traded at the app for the runner's OIDC token, for this attempt (the payload says which, and
  // where the app is) and renewed while it runs. Without one the attempt fails (step 4 says why),
  // or in GitHub mode cannot even report to its check run.
  let token: StepToken | undefined;
  let tokenError: unknown;
  try {
    token = await obtainToken({
      ...inputs,
      payload: await payloadText(inputs).then(looseJson, () => undefined),
      log,
      // The app retired the attempt (another one took its place): its commands stop here.
      stopped: () => killRunningCommands(),
    });
  } catch (e) {
    tokenError = e;
  }
  if (process.env.CONVEYOR_CHECK_RUN_ID && (tokenError || !token)) {
    const why = tokenError
      ? (tokenError as Error).message
      : "no token: give the workflow `permissions: id-token: write` (the template does), or the old template's `token-file`";
    log(`conveyor: ${why}; cannot report to the check run`);
    return 1;
  }

  // 3. GitHub mode: a stale attempt does nothing at all; a check run that cannot be read fails the job.
  const checkRun = await prepareCheckRun({
    ...inputs,
    token,
    log,
    writeJobSummary: async (md) => void (await core.summary.addRaw(md).write()),
  }).catch((e: unknown) => ({ proceed: false as const, reason: `cannot read the check run: ${(e as Error).message}`, failed: true }));
  if (!checkRun.proceed) {
    log(`conveyor: ${checkRun.reason}; doing nothing`);
    token?.close();
    return 'failed' in checkRun ? 1 : 0;
  }

  // 4. While the step runs, its check run is watched: completed by someone else (the run was
  // cancelled, or a person completed it), the step's commands are stopped, agent first, and the
  // result is not written over what they wrote.
  const watch = checkRun.client?.watch?.((by) => {
    log(`conveyor: check run ${process.env.CONVEYOR_CHECK_RUN_ID} was completed by someone else (${by}): stopping the step's commands`);
    killRunningCommands();
  }, pollIntervalOf(process.env));

  // 5. Run the step under one error boundary and report its result wherever it goes, its agent's
  // transcript kept as a workflow artifact on GitHub's runners.
  const transcriptStore = artifactTranscriptStore(process.env, core.getInput('transcript-retention-days'));
  const result = await runEntry({
    ...inputs,
    token: () => {
      if (tokenError) throw tokenError;
      return token;
    },
    setSecret: (value) => core.setSecret(value),
    ...(process.env.GITHUB_OUTPUT ? { setOutput: (name: string, value: string) => core.setOutput(name, value) } : {}),
    log,
    ...(checkRun.client ? { checkRunClient: () => checkRun.client } : {}),
    ...(transcriptStore ? { transcriptStore } : {}),
  });
  watch?.stop();
  token?.close();
  return result.conclusion === 'failure' ? 1 : 0;
}

/** The payload as far as it parses: which attempt this is and where the app is (the entry judges the rest). */
function looseJson(text: string): Parameters<typeof obtainToken>[0]['payload'] {
  try {
    const p = JSON.parse(text) as Record<string, unknown>;
    return p && typeof p === 'object' ? (p as unknown as Parameters<typeof obtainToken>[0]['payload']) : undefined;
  } catch {
    return undefined;
  }
}
