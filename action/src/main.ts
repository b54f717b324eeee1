// The step process from start to end, in the order it happens. The entry (index.ts) only calls it.
import * as core from '@actions/core';
import { killRunningCommands } from '../../lib/process.ts';
import { runEntry } from './entry.ts';
import { readPayload } from './payload.ts';
import { artifactTranscriptStore } from './artifact-store.ts';
import { pollIntervalOf, prepareCheckRun } from './report/check-run.ts';
import { obtainToken, type StepToken } from './token.ts';
import { actionLogger, coreSink } from './log.ts';
import { Scrubber } from '../../lib/secrets.ts';

/** Runs one step attempt and returns the process's exit code. */
export async function main(): Promise<number> {
  // The lines before the entry's (the token, the check run) scrubbed too: of the runner's
  // secrets, and of the token once there is one. The entry scrubs its own with all it learns.
  const sink = coreSink(process.env);
  const scrubber = Scrubber.fromEnvironment(process.env, undefined);
  const log = actionLogger(sink, (t) => scrubber.scrub(t));
  const inputs = { env: process.env, getInput: (name: string) => core.getInput(name) };

  // 1. Told to stop (a cancelled workflow run, or a recovering `conveyor`): take the user's commands along.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      killRunningCommands();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
    });
  }

  // 2. The payload, read once and validated before anything is asked of the runner: whoever may
  // dispatch the workflow writes it, so one that does not validate gets no OIDC token at all (the
  // entry reports why, where it can: the result file, or the check run with a given token).
  const payload = await readPayload(inputs);

  // 3. The token, once: the input `token`, or traded at the app the workflow names (never one the
  // payload names) for the runner's OIDC token, for this attempt, and renewed while it runs.
  // Without one the attempt fails (the entry says why), or in GitHub mode cannot even report to
  // its check run.
  let token: StepToken | undefined;
  let tokenError: unknown;
  try {
    token = await obtainToken({
      ...inputs,
      payload: payload.ok ? payload.payload : undefined,
      log,
      // The app retired the attempt (another one took its place): its commands stop here.
      stopped: () => killRunningCommands(),
    });
  } catch (e) {
    tokenError = e;
  }
  token?.onToken((t) => scrubber.add(t));
  if (process.env.CONVEYOR_CHECK_RUN_ID && (tokenError || !token)) {
    const why = tokenError
      ? (tokenError as Error).message
      : !payload.ok
        ? `the step payload is not valid (${payload.reason}), so no OIDC token was asked for`
        : 'no token: give the workflow `permissions: id-token: write` (the template does), or the action input `token`';
    log.error(`${why}; cannot report to the check run (${process.env.CONVEYOR_CHECK_RUN_ID})`);
    return 1;
  }

  // 4. GitHub mode: a stale attempt does nothing at all; a check run that cannot be read fails the job.
  const checkRun = await prepareCheckRun({
    env: inputs.env,
    payload,
    token,
    log,
    writeJobSummary: async (md) => void (await core.summary.addRaw(md).write()),
  }).catch((e: unknown) => ({ proceed: false as const, reason: `cannot read the check run: ${(e as Error).message}`, failed: true }));
  if (!checkRun.proceed) {
    log['failed' in checkRun ? 'error' : 'info'](`${checkRun.reason}; doing nothing`);
    token?.close();
    return 'failed' in checkRun ? 1 : 0;
  }

  // 5. While the step runs, its check run is watched: completed by someone else (the run was
  // cancelled, or a person completed it), the step's commands are stopped, agent first, and the
  // result is not written over what they wrote.
  const watch = checkRun.client?.watch?.((by) => {
    log.warn(`check run ${process.env.CONVEYOR_CHECK_RUN_ID} was completed by someone else (${by}): stopping the step's commands`);
    killRunningCommands();
  }, pollIntervalOf(process.env));

  // 6. Run the step under one error boundary and report its result wherever it goes, its agent's
  // transcript kept as a workflow artifact on GitHub's runners.
  const transcriptStore = artifactTranscriptStore(process.env, core.getInput('transcript-retention-days'));
  const result = await runEntry({
    env: inputs.env,
    payload,
    token: () => {
      if (tokenError) throw tokenError;
      return token;
    },
    setSecret: (value) => core.setSecret(value),
    ...(process.env.GITHUB_OUTPUT ? { setOutput: (name: string, value: string) => core.setOutput(name, value) } : {}),
    log: sink,
    ...(checkRun.client ? { checkRunClient: () => checkRun.client } : {}),
    ...(transcriptStore ? { transcriptStore } : {}),
  });
  watch?.stop();
  token?.close();
  return result.conclusion === 'failure' ? 1 : 0;
}
