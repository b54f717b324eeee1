// An agent attempt's full transcript: every line it printed (stdout and stderr, as they came,
// scrubbed of every secret), kept beyond the log's tail. In the embedded mode it is the attempt
// folder's transcript.log (CONVEYOR_TRANSCRIPT_PATH, set by the local dispatcher); on GitHub a file
// under $RUNNER_TEMP (both hidden from the step's commands by the sandbox).
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { StepPayload } from '../../core/contract/wire.ts';

export interface Transcript {
  path: string;
  write(line: string): void;
}

export function transcriptPath(env: NodeJS.ProcessEnv, payload: StepPayload): string | undefined {
  if (env.CONVEYOR_TRANSCRIPT_PATH) return env.CONVEYOR_TRANSCRIPT_PATH;
  if (!env.RUNNER_TEMP) return undefined;
  return join(env.RUNNER_TEMP, 'conveyor', `transcript-${payload.runId}-${payload.step.id}.${payload.mode}.${payload.attempt}.${payload.epoch}.log`);
}

/** Opens (appends to) the transcript, starting with `header`; undefined where there is nowhere to keep it. */
export function openTranscript(env: NodeJS.ProcessEnv, payload: StepPayload, header: string): Transcript | undefined {
  const path = transcriptPath(env, payload);
  if (!path) return undefined;
  mkdirSync(dirname(path), { recursive: true });
  // Appended a line at a time, synchronously: what an agent printed before the step process was
  // killed is there, in order.
  const write = (line: string) => appendFileSync(path, `${line}\n`);
  write(header);
  return { path, write };
}
