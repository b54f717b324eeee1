// The one error boundary of a step attempt: given the payload as main.ts read it, run the step and
// report the result. Whatever happens (no payload, a bad field, an exception), a result with
// `conclusion: failure` and a typed error is reported.
import { ConveyorError } from '../../core/errors.ts';
import { inputsDigest, sealResult } from '../../core/contract/receipt.ts';
import { describeIssues, stepResultSchema, type StepPayload, type StepResult } from '../../core/contract/wire.ts';
import { byNameOf } from '../../core/contract/attempt.ts';
import { createContext, type StepContext } from './context.ts';
import { requireSandbox, withSandboxReport } from './sandbox.ts';
import { chooseReporters, reportAll, type ReporterOptions } from './report/reporter.ts';
import { attemptOfRaw, baseResult, failureResult } from './result.ts';
import { runStep } from './run-step.ts';
import { Scrubber } from '../../lib/secrets.ts';
import type { StepToken } from './token.ts';
import type { PayloadRead } from './payload.ts';
import { takeMasks } from './masks.ts';
import { withUsageReport } from './usage.ts';
import { keepTranscript, type TranscriptStore } from './transcript.ts';
import { actionLogger, type LogSink } from './log.ts';
import { refOf } from '../../core/contract/attempt-ref.ts';
import { attemptFields } from '../../lib/logger.ts';

export interface EntryIO {
  env: NodeJS.ProcessEnv;
  /** The payload, read once by the step process (readPayload). */
  payload: PayloadRead;
  /** Masks a value in GitHub's logs. */
  setSecret(value: string): void;
  /** Gives the token the step process already has (token.ts: given, or an OIDC exchange made once), or throws why it could not; absent where none is needed (the embedded mode). */
  token?: () => StepToken | undefined;
  setOutput?(name: string, value: string): void;
  /** Where the attempt's log lines go, each scrubbed (@actions/core on GitHub). */
  log: LogSink;
  checkRunClient?: ReporterOptions['checkRunClient'];
  /** Where an agent's transcript outlives the runner (a workflow artifact on GitHub); without one it stays a file. */
  transcriptStore?: TranscriptStore;
  minuteMs?: number;
  killGraceMs?: number;
  /** How the step waits out a backoff (tests: without waiting). */
  sleep?: (ms: number) => Promise<void>;
}

/** What GitHub is told to mask: the value, and each line of a multi-line one (it masks line by line). */
function maskParts(value: string): string[] {
  const lines = value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length >= 4);
  // A workflow command is one line: a multi-line value is masked by its lines alone.
  return [...new Set([...(value.includes('\n') ? [] : [value]), ...lines])];
}

export async function runEntry(io: EntryIO): Promise<StepResult> {
  let token: StepToken | undefined;
  // A token that cannot be had fails the attempt once the payload has said which attempt it is.
  let tokenError: unknown;
  try {
    token = io.token?.();
  } catch (e) {
    tokenError = e;
  }
  const scrubber = Scrubber.fromEnvironment(io.env, undefined);
  token?.onToken((t) => {
    // On GitHub the runner reads this command from stdout and masks the value; elsewhere it would
    // print the token itself, so it is not sent.
    if (io.env.GITHUB_ACTIONS === 'true') io.setSecret(t);
    scrubber.add(t);
  });
  let masksError: unknown;
  try {
    for (const value of takeMasks(io.env)) scrubber.add(value);
  } catch (e) {
    masksError = e;
  }
  // Every line through the scrubber, with the secrets it learns as the attempt goes.
  const log = actionLogger(io.log, (t) => scrubber.scrub(t));
  const read = io.payload;
  // Which attempt a failure belongs to, read leniently even from a bad payload.
  const identity = baseResult(attemptOfRaw(read.raw));
  // What the receipt seals as the inputs: the payload as parsed, else whatever JSON arrived.
  const inputs = read.ok ? read.payload : read.raw;
  const valid: StepPayload | undefined = read.ok ? read.payload : undefined;
  let result: StepResult;
  let ctx: StepContext | undefined;
  try {
    if (!read.ok) throw read.error;
    const payload = read.payload;
    if (tokenError) throw tokenError;
    if (masksError) throw masksError;
    // The step's log is this attempt's alone: its first line names it, fields and all, and the
    // lines after it do not repeat them.
    log.info(
      `run ${payload.runId}, step ${payload.step.id} (${payload.step.kind}, ${payload.mode}), attempt ${payload.attempt}`,
      attemptFields(refOf(payload)),
    );
    // Every variable the payload's agents and services list is masked before anything runs, in
    // GitHub's log (::add-mask::) and by our scrubber, whichever command later prints it.
    const byName = byNameOf(payload);
    for (const name of byName) {
      const value = io.env[name];
      if (!value) continue;
      scrubber.add(value);
      if (io.env.GITHUB_ACTIONS === 'true') for (const part of maskParts(value)) io.setSecret(part);
    }
    ctx = createContext({
      env: io.env,
      ...(token ? { token } : {}),
      scrubber,
      byName,
      log: io.log,
      ...(io.minuteMs !== undefined ? { minuteMs: io.minuteMs } : {}),
      ...(io.killGraceMs !== undefined ? { killGraceMs: io.killGraceMs } : {}),
      ...(io.sleep ? { sleep: io.sleep } : {}),
      ...(payload.sandbox ? { sandbox: payload.sandbox } : {}),
    });
    // A step that will run commands fails before it clones anything; a teardown only once it has one to run.
    if (payload.mode !== 'teardown') requireSandbox(ctx.sandbox);
    const produced = await runStep(ctx, payload);
    const checked = stepResultSchema.safeParse(produced);
    if (!checked.success) throw new ConveyorError('internal', `the step produced an invalid result: ${describeIssues(checked.error)}`);
    result = {
      ...checked.data,
      summary: scrubber.scrub(checked.data.summary),
      ...(checked.data.findings ? { findings: scrubber.scrub(checked.data.findings) } : {}),
    };
  } catch (e) {
    result = failureResult(identity, e, (t) => scrubber.scrub(t));
    if (!(e instanceof ConveyorError)) log.error(`unexpected error: ${(e as Error)?.stack ?? String(e)}`);
  }
  // Its agent's transcript, kept beyond the runner wherever the step ended (a failure too); the
  // summary links it, or says why it is not kept, and the step's outcome stays its own.
  if (valid) {
    const note = await keepTranscript(io.transcriptStore, io.env, valid, log);
    if (note) result = { ...result, summary: `${result.summary}\n\n${scrubber.scrub(note)}` };
  }
  // How its commands were isolated and what was blocked, and what its agents used, whatever the outcome.
  // Only gates, deploys and teardowns run services' commands (their setups with them).
  const runsServices = valid !== undefined && (valid.step.kind === 'gate' || valid.step.kind === 'deploy' || valid.mode === 'teardown');
  const docker = Object.entries(runsServices ? valid.services : {})
    .filter(([, service]) => service.docker === true)
    .map(([name]) => name);
  if (ctx) result = withSandboxReport(result, ctx.sandbox, (t) => scrubber.scrub(t), docker);
  if (ctx) result = withUsageReport(result, ctx.usage, valid);
  // Every result leaves sealed, failures too: the engine verifies it against the payload it sent.
  result = sealResult(result, inputsDigest(inputs));
  const reporters = chooseReporters({
    env: io.env,
    log,
    ...(io.setOutput ? { setOutput: io.setOutput } : {}),
    ...(io.checkRunClient ? { checkRunClient: io.checkRunClient } : {}),
  });
  for (const error of await reportAll(reporters, result)) log.error(`could not report the result: ${error.message}`);
  return result;
}
