// An agent attempt's full transcript: every line it printed (stdout and stderr, as they came,
// scrubbed of every secret), kept beyond the log's tail. In the embedded mode it is the attempt
// folder's transcript.log (CONVEYOR_TRANSCRIPT_PATH, set by the local dispatcher); on GitHub a file
// under $RUNNER_TEMP (both hidden from the step's commands by the sandbox), which the runner loses
// with the job: there a TranscriptStore (a workflow artifact, artifact-store.ts) keeps it, and the
// step's summary links it.
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { StepPayload } from '../../core/contract/wire.ts';
import { attemptName, refOf } from '../../core/contract/attempt-ref.ts';
import type { Logger } from '../../lib/logger.ts';

export interface Transcript {
  path: string;
  write(line: string): void;
}

/** Where a finished transcript outlives the runner. */
export interface TranscriptStore {
  /** What it is kept as, for the summary, e.g. "workflow artifact". */
  readonly kind: string;
  /** Keeps the file at `path` under `name` and gives a link to it; throws why it could not. */
  keep(name: string, path: string): Promise<{ url: string }>;
}

/** Where the attempt's transcript is written: the attempt folder's file in the embedded mode, else one under the runner's temp folder. */
function pathOf(env: NodeJS.ProcessEnv, payload: StepPayload): string | undefined {
  if (env.CONVEYOR_TRANSCRIPT_PATH) return env.CONVEYOR_TRANSCRIPT_PATH;
  if (!env.RUNNER_TEMP) return undefined;
  return join(env.RUNNER_TEMP, 'conveyor', `${attemptName(refOf(payload), 'transcript')}.log`);
}

/** Opens (appends to) the transcript, starting with `header`; undefined where there is nowhere to keep it. */
export function openTranscript(env: NodeJS.ProcessEnv, payload: StepPayload, header: string): Transcript | undefined {
  const path = pathOf(env, payload);
  if (!path) return undefined;
  mkdirSync(dirname(path), { recursive: true });
  // Appended a line at a time, synchronously: what an agent printed before the step process was
  // killed is there, in order.
  const write = (line: string) => appendFileSync(path, `${line}\n`);
  write(header);
  return { path, write };
}

/**
 * Keeps the attempt's transcript in `store`, when an agent of the attempt wrote one, and returns
 * the line for the step's summary: its link, or why it is not kept. Never throws: a transcript that
 * could not be kept must not fail a step whose work is done.
 */
export async function keepTranscript(
  store: TranscriptStore | undefined,
  env: NodeJS.ProcessEnv,
  payload: StepPayload,
  log: Logger,
): Promise<string | undefined> {
  const path = pathOf(env, payload);
  if (!store || !path || !existsSync(path)) return undefined;
  // One artifact per attempt: a workflow run's artifact names must differ (core/contract/attempt-ref.ts).
  const name = attemptName(refOf(payload), 'conveyor-transcript');
  try {
    const { url } = await store.keep(name, path);
    log.info(`transcript uploaded as ${store.kind} ${name}: ${url}`);
    return `Full transcript of the agent: [${name}](${url}) (${store.kind})`;
  } catch (e) {
    // One line: the library's messages run over several, with advice for its own users.
    const why =
      String((e as Error)?.message ?? e)
        .split('\n')[0]!
        .trim() || String(e);
    log.warn(`transcript not uploaded: ${why}`);
    return `transcript not uploaded: ${why}`;
  }
}
