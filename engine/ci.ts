// The `ci` step, carried out by the engine through the forge: the checks each PR's base branch
// requires are judged on the PR's head (core/steps/ci-checks.ts). While any is still running the
// step stays queued and nothing is held: the app judges again when GitHub says a check run, suite
// or status completed, and the sweeper when the step's `wait-minutes` ran out. A failed check's
// findings (its name, conclusion, summary, the failing lines of its Actions job's log) go to the
// repair agent through the reducer, as a gate's do. A forge without CI (the embedded mode's local
// one) has nothing to wait for, and the step says so.
import { attemptFields, type Logger } from '../lib/logger.ts';
import type { AttemptRef } from '../core/contract/attempt-ref.ts';
import { resultBase, type PullRequestRef, type StepResult } from '../core/contract/wire.ts';
import { findRecord } from '../core/run/draft.ts';
import type { Run } from '../core/run/types.ts';
import { ciFindings, describeJudgement, judgeRequiredChecks, type CiJudgement, type PullChecks, type RequiredCheck } from '../core/steps/ci-checks.ts';
import type { CiReader, Forge } from './ports/forge.ts';
import { DEFAULT_BASE, DEFAULT_CI_WAIT_MINUTES } from '../core/config/defaults.ts';

export interface CiOptions {
  /** The app's own id: its check runs never count. */
  ownAppId?: number;
  now: string;
  log?: Logger;
}

/** The step's result where the forge runs no CI (the embedded mode's): it passes, saying there was nothing to wait for. */
export function withoutCi(run: Run, ref: AttemptRef): StepResult {
  return { ...resultBase({ ...ref, mode: 'run' }), conclusion: 'success', summary: NO_CI, prs: run.prs };
}

/** How many failed Actions jobs' logs are read for one repair prompt (each a call, and each up to megabytes). */
const MAX_JOB_LOGS = 5;

const NO_CI = 'The local forge runs no CI, so there are no required checks to wait for: nothing to wait for here (on GitHub this step waits for them).';

/**
 * The step's result once the required checks have settled (or the wait ran out), undefined while
 * it waits. Every PR of the run is judged.
 */
export async function judgeCi(forge: Forge, run: Run, ref: AttemptRef, options: CiOptions): Promise<StepResult | undefined> {
  const prs = run.prs;
  const base = withoutCi(run, ref);
  if (!forge.ci) return base;
  if (prs.length === 0) return { ...base, summary: 'The run has no pull requests: there are no required checks to wait for.' };
  const judgement = judgeRequiredChecks(await observe(forge.ci, run, prs), options.ownAppId);
  const summary = describeJudgement(judgement);
  const log = (line: string) => options.log?.info(line, attemptFields(ref));
  const step = run.plan.steps.find((s) => s.id === ref.step);
  const s = run.steps[ref.step];
  const record = s ? findRecord(s, ref.attempt, ref.epoch) : undefined;
  const minutes = step?.timeoutMinutes ?? DEFAULT_CI_WAIT_MINUTES;
  const expired = record !== undefined && Date.parse(options.now) - Date.parse(record.startedAt) >= minutes * 60_000;
  const failed = judgement.checks.filter((c) => c.state === 'failure');
  if (judgement.state === 'pending' && !expired) {
    log(summary);
    return undefined;
  }
  if (failed.length === 0 && judgement.state === 'pending') {
    const message = `the required checks did not all complete within ${minutes} minutes (wait-minutes). ${summary}`;
    log(message);
    return { ...base, conclusion: 'failure', summary: message, error: { code: 'ci-timeout', message } };
  }
  if (failed.length === 0) {
    log(summary);
    return { ...base, summary };
  }
  const logs = await jobLogs(forge.ci, failed, log);
  log(summary);
  return { ...base, conclusion: 'failure', summary, findings: ciFindings(failed, logs), error: { code: 'ci-failed', message: summary } };
}

/**
 * Why the required checks block a PR, naming them (the merge step's word when GitHub says only
 * `blocked`); undefined where the forge has no CI or they do not explain it (a review is missing).
 */
export async function blockingChecks(forge: Forge, run: Run, pr: PullRequestRef, ownAppId?: number): Promise<string | undefined> {
  if (!forge.ci || !pr.head) return undefined;
  const judgement = judgeRequiredChecks(await observe(forge.ci, run, [pr]), ownAppId);
  const blocking = judgement.checks.filter((c) => c.state !== 'success');
  if (blocking.length === 0) return undefined;
  return describeJudgement({ ...judgement, checks: blocking } satisfies CiJudgement).replace(/\.$/, '');
}

async function observe(ci: CiReader, run: Run, prs: readonly PullRequestRef[]): Promise<PullChecks[]> {
  const required = new Map<string, Promise<RequiredCheck[]>>();
  const out: PullChecks[] = [];
  for (const pr of prs) {
    if (!pr.head) continue;
    const branch = run.plan.changeSet.find((r) => r.repo === pr.repo)?.base ?? DEFAULT_BASE;
    const key = `${pr.repo}\u0000${branch}`;
    if (!required.has(key)) required.set(key, ci.requiredChecks(pr.repo, branch));
    const [checks, seen] = [await required.get(key)!, await ci.commitChecks(pr.repo, pr.head)];
    out.push({ repo: pr.repo, number: pr.number, head: pr.head, required: checks, ...seen });
  }
  return out;
}

/** The logs of the failed checks that are GitHub Actions jobs, by job id; one that cannot be read is left out, saying so. */
async function jobLogs(ci: CiReader, failed: readonly { repo: string; jobId?: number }[], log: (line: string) => void): Promise<Map<number, string>> {
  const logs = new Map<number, string>();
  for (const c of failed.filter((f) => f.jobId !== undefined).slice(0, MAX_JOB_LOGS)) {
    try {
      const text = await ci.jobLog(c.repo, c.jobId!);
      if (text !== undefined) logs.set(c.jobId!, text);
    } catch (e) {
      log(`could not read the log of job ${c.jobId} in ${c.repo}: ${(e as Error).message}`);
    }
  }
  return logs;
}
