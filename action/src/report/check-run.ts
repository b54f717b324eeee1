// The check run reporter (GitHub mode): the step's result completes its check run
// `conveyor / <step-id>` in one call, with the conclusion, when the step started, a link to this
// workflow run, a Markdown summary and the machine-readable result (core/check-run.ts) the app
// parses back. Before the step runs, prepareCheckRun decides whether the attempt is still current:
// an attempt that is not (its check run completed, or another attempt's) does nothing at all. The
// app keeps an attempt current for a while after queueing it whatever else happens (the payload's
// `currentUntil`): a first run of the workflow that starts well within that knows its check run is
// as the app made it, and does not read it back; later, or in a re-run, it reads it first.
import type { StepToken } from '../token.ts';
import type { PayloadRead } from '../payload.ts';
import { attemptOutcome, renderResultText, stepCheckName } from '../../../core/github/check-run.ts';
import { attemptKey, attemptRefSchema, refOf, type AttemptRef } from '../../../core/contract/attempt-ref.ts';
import { CheckRuns } from '../../../adapters/github/forge/checks.ts';
import { createGitHubOctokit, octokitLog } from '../../../adapters/github/octokit.ts';
import type { StepResult } from '../../../core/contract/wire.ts';
import type { Reporter } from './reporter.ts';
import type { Logger } from '../../../lib/logger.ts';

export interface CheckRunOutput {
  name: string;
  conclusion: 'success' | 'failure' | 'neutral';
  title: string;
  /** Markdown; GitHub keeps at most 65,535 characters. */
  summary: string;
  /** Stable key of the attempt, so reporting twice updates one check run. */
  externalId: string;
  /** The machine-readable result (a hidden marker), for the app. */
  text?: string;
}

export interface CheckRunClient {
  /** Creates or completes the check run of `externalId` with this outcome; nothing when someone else completed it first. */
  complete(check: CheckRunOutput): Promise<void>;
  /**
   * Reads the check run every `intervalMs` while the step runs: once someone else completed it (a
   * person, or the app cancelling the run), calls `onCompleted` once and stops reading. `stop()`
   * ends the watch. The timer never keeps the process alive.
   */
  watch?(onCompleted: (by: string) => void, intervalMs: number): { stop(): void };
}

/** How often a running step reads its check run to learn that it was cancelled (CONVEYOR_CHECK_RUN_POLL_SECONDS overrides). */
export const CHECK_RUN_POLL_MS = 60_000;

/** The watch's interval from the environment: whole seconds, at least 1; else the default. */
export function pollIntervalOf(env: NodeJS.ProcessEnv): number {
  const raw = env.CONVEYOR_CHECK_RUN_POLL_SECONDS?.trim();
  if (!raw) return CHECK_RUN_POLL_MS;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`CONVEYOR_CHECK_RUN_POLL_SECONDS must be a whole number of seconds, at least 1, not "${raw}"`);
  return Number(raw) * 1000;
}

export function checkRunOutput(result: StepResult): CheckRunOutput {
  // A repair's check run says what the repair did, not that the step passed (core/github/check-run.ts).
  const { conclusion, title } = attemptOutcome(result);
  return {
    // For the job summary's heading: the check run keeps the name the app gave it (a repair's with its number).
    name: stepCheckName(result.step, { mode: result.mode }),
    conclusion,
    title,
    // Fitted to GitHub's limits once, by the GitHub layer (core/github/limits.ts), on the way out.
    summary: result.summary,
    externalId: attemptKey(refOf(result)),
    text: renderResultText(result),
  };
}

export class CheckRunReporter implements Reporter {
  readonly name = 'check run';
  constructor(private readonly client: CheckRunClient) {}

  async report(result: StepResult): Promise<void> {
    await this.client.complete(checkRunOutput(result));
  }
}

export interface CheckRunIO {
  env: NodeJS.ProcessEnv;
  /** The payload, read once by the step process (readPayload): valid or not, it says which attempt this is. */
  payload: PayloadRead;
  /** The step's token (token.ts): given once, or traded for once and renewed, so never taken here. */
  token: StepToken | undefined;
  log: Logger;
  /** Writes the job summary (GITHUB_STEP_SUMMARY); @actions/core's summary in the entry. */
  writeJobSummary?(markdown: string): Promise<void>;
}

export type CheckRunGate = { proceed: true; client?: CheckRunClient } | { proceed: false; reason: string };

/** Margin for the runner's clock against the app's, when trusting `currentUntil`. */
export const CLOCK_MARGIN_MS = 2 * 60_000;

/** The attempt a payload names, and until when the app keeps it current (`currentUntil`, ms since the epoch). */
interface PayloadAttempt {
  ref: AttemptRef;
  currentUntil?: number;
}

/** The attempt a payload names, read leniently: even one that does not validate says whose check run this is. */
function payloadAttempt(raw: unknown): PayloadAttempt | undefined {
  const p = (raw && typeof raw === 'object' ? raw : {}) as { step?: { id?: unknown }; mode?: unknown; currentUntil?: unknown };
  const ref = attemptRefSchema.safeParse({ ...p, step: p.step?.id, mode: p.mode ?? 'run' });
  if (!ref.success) return undefined;
  const until = typeof p.currentUntil === 'string' ? Date.parse(p.currentUntil) : NaN;
  return { ref: ref.data, ...(Number.isFinite(until) ? { currentUntil: until } : {}) };
}

/**
 * The app's word that the check run is still as it made it: the first run of the workflow (a
 * re-run may come after the attempt ended), starting before `currentUntil` with a margin for the
 * clocks. Anything else reads the check run.
 */
export function promisedCurrent(attempt: PayloadAttempt | undefined, env: NodeJS.ProcessEnv, now: number): boolean {
  const firstRun = !env.GITHUB_RUN_ATTEMPT || env.GITHUB_RUN_ATTEMPT === '1';
  return firstRun && attempt?.currentUntil !== undefined && now < attempt.currentUntil - CLOCK_MARGIN_MS;
}

/**
 * In GitHub mode (CONVEYOR_CHECK_RUN_ID set): decides whether this attempt is still the current
 * one (from the payload's promise, else by reading the check run) and returns the client that
 * completes it. Elsewhere: proceeds without a check run.
 */
export async function prepareCheckRun(io: CheckRunIO): Promise<CheckRunGate> {
  const id = io.env.CONVEYOR_CHECK_RUN_ID?.trim();
  if (!id) return { proceed: true };
  const repo = io.env.GITHUB_REPOSITORY;
  const token = io.token;
  if (!/^\d+$/.test(id)) throw new Error(`CONVEYOR_CHECK_RUN_ID must be a check run id (digits), not "${id}"`);
  if (!repo || !token)
    throw new Error(
      'CONVEYOR_CHECK_RUN_ID is set, so GITHUB_REPOSITORY and a token (traded for the OIDC token, or the input `token`) are needed to report to the check run',
    );
  const attempt = payloadAttempt(io.payload.raw);
  const checks = new CheckRuns(
    createGitHubOctokit({ token: () => token.current(), baseUrl: io.env.GITHUB_API_URL || 'https://api.github.com', log: octokitLog(io.log) }),
  );
  const checkRunId = Number(id);
  const startedAt = new Date();
  const server = (io.env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  const runUrl = io.env.GITHUB_RUN_ID ? `${server}/${repo}/actions/runs/${io.env.GITHUB_RUN_ID}` : undefined;
  if (!promisedCurrent(attempt, io.env, startedAt.getTime())) {
    const current = await checks.get(repo, checkRunId);
    if (current.status === 'completed') return { proceed: false, reason: `check run ${id} is already completed: this attempt is no longer current` };
    if (attempt && current.externalId !== attemptKey(attempt.ref)) {
      return {
        proceed: false,
        reason: `check run ${id} belongs to attempt ${current.externalId ?? '(none)'}, not ${attemptKey(attempt.ref)}: this attempt is no longer current`,
      };
    }
  }
  // Set once the watch saw the check run completed by someone else: the attempt's end is theirs to say.
  let completedElsewhere: string | undefined;
  const client: CheckRunClient = {
    async complete(out) {
      if (completedElsewhere !== undefined) {
        io.log.warn(`check run ${id} was completed (${completedElsewhere}) while the step ran; its result (${out.title}) is not written over it`);
        return;
      }
      // The one write of the attempt's check run: when it started, where it ran, how it ended.
      await checks.update(repo, checkRunId, {
        status: 'completed',
        conclusion: out.conclusion,
        started_at: startedAt.toISOString(),
        completed_at: new Date().toISOString(),
        ...(runUrl ? { details_url: runUrl } : {}),
        output: { title: out.title, summary: out.summary, ...(out.text ? { text: out.text } : {}) },
      });
      if (io.env.GITHUB_STEP_SUMMARY && io.writeJobSummary) await io.writeJobSummary(`## ${out.name}: ${out.title}\n\n${out.summary}\n`);
    },
    watch(onCompleted, intervalMs) {
      let timer: NodeJS.Timeout | undefined;
      let stopped = false;
      const tick = async () => {
        try {
          // Through the GitHub layer's retries and throttling; a read that fails is tried at the next tick.
          const now = await checks.get(repo, checkRunId);
          if (now.status === 'completed' && !stopped) {
            completedElsewhere = now.conclusion ?? 'no conclusion';
            stopped = true;
            onCompleted(completedElsewhere);
            return;
          }
        } catch (e) {
          io.log.warn(`could not read check run ${id} (${(e as Error).message}); trying again in ${Math.round(intervalMs / 1000)} s`);
        }
        if (!stopped) schedule();
      };
      const schedule = () => {
        timer = setTimeout(() => void tick(), intervalMs);
        timer.unref();
      };
      schedule();
      return {
        stop() {
          stopped = true;
          if (timer) clearTimeout(timer);
        },
      };
    },
  };
  return { proceed: true, client };
}
