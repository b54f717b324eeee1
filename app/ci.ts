// The repository's own CI, on the app's side: nothing waits in a process while the `ci` step waits
// for the required checks. GitHub says when a check run, a check suite or a commit status of a
// commit changed (`check_run.completed`, `check_suite.completed`, `status`); each sends the runs
// whose `ci` step waits on a PR at that commit to the engine to judge again (engine/ci.ts). The
// sweeper judges them too, when a run's `wait-minutes` ran out (the step then fails saying what it
// waited for) and now and then in between, for a webhook that went missing.
// These are the busiest webhooks an installation gets (every app's every check, on every
// repository): the runs concerned are found through the store's index of the runs' PRs (never by
// reading every run), and a burst for one run (a workflow's jobs completing together) is judged
// once, a judgement costing four GitHub calls or more.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Run } from '../core/run/types.ts';
import { findRecord } from '../core/run/draft.ts';
import type { Engine } from '../engine/engine.ts';
import type { Probot } from 'probot';
import type { AppDeps } from './deps.ts';
import { webhookPayload } from './webhooks.ts';
import { Writer } from './writer.ts';

/** How often the sweeper judges a waiting `ci` step whose wait has not run out (a missed webhook costs at most this). */
export const CI_SWEEP_MS = 10 * 60_000;

/** The run's `ci` step while it waits for the required checks (a `run` attempt under way). */
function waitingCi(run: Run): { step: string; attempt: number; epoch: number; startedAt: string; minutes: number } | undefined {
  const p = run.plan.steps.find((s) => s.kind === 'ci');
  const s = p ? run.steps[p.id] : undefined;
  if (!p || !s || s.status !== 'queued' || s.mode !== 'run') return undefined;
  const record = findRecord(s, s.attempt, s.epoch);
  return record ? { step: p.id, attempt: s.attempt, epoch: s.epoch, startedAt: record.startedAt, minutes: p.timeoutMinutes } : undefined;
}

/** How long a judgement a webhook asked for waits for the rest of its burst, which joins it. */
export const CI_COALESCE_MS = 2_000;

/**
 * The judgements webhooks ask for, per run: coalesced (those asked for while one waits out its
 * window join it) and one at a time (one asked for while a judgement is under way makes the next),
 * so a burst of N webhooks judges at most twice, not N times.
 */
export class CiJudgements {
  private readonly writer: Writer<boolean>;

  constructor(
    private readonly engine: Pick<Engine, 'checkCi'>,
    coalesceMs = CI_COALESCE_MS,
  ) {
    this.writer = new Writer(() => sleep(coalesceMs));
  }

  /** Resolves once the run's waiting `ci` step was judged after this was asked (true: the judgement settled it). */
  judge(runId: string): Promise<boolean> {
    return this.writer.request(runId, () => this.engine.checkCi(runId));
  }
}

/** A check or status changed on `repo` at `sha`; `prs`: the open PRs GitHub lists for it (a check run's or suite's; a status lists none). */
export interface CommitChecks {
  repo: string;
  sha: string;
  prs?: readonly number[];
  /** What changed, for the log. */
  what: string;
}

/** The runs waiting on a PR at that head judge their checks again. */
export async function onCommitChecks(deps: AppDeps, changed: CommitChecks): Promise<void> {
  const runs = await runsWaitingAt(deps, changed);
  await Promise.all(
    runs.map((run) => {
      deps.log.info(`${changed.what} on ${changed.repo}@${changed.sha.slice(0, 7)}; judging its required checks again`, { run: run.id });
      return deps.judgeCi(run.id);
    }),
  );
}

/**
 * The running runs whose `ci` step waits on a PR of `repo` at `sha`: looked up by the PRs GitHub
 * listed, or (a status, a check GitHub listed none for) by the repository, both through the store's
 * index of the runs' PRs, so a check of a repository without a run reads none.
 */
async function runsWaitingAt(deps: AppDeps, { repo, sha, prs }: CommitChecks): Promise<Run[]> {
  const running = { status: ['running' as const] };
  const found = prs?.length
    ? (await Promise.all(prs.map((number) => deps.store.list({ ...running, pr: { repo, number } })))).flat()
    : await deps.store.list({ ...running, repo });
  const byId = new Map(found.map((run) => [run.id, run]));
  return [...byId.values()].filter((run) => waitingCi(run) && run.prs.some((p) => p.repo === repo && p.head === sha));
}

/**
 * The sweeper's part: every waiting `ci` step whose wait ran out is judged (and fails if its checks
 * are still running), and the others every CI_SWEEP_MS (`next`: when each is next due). Returns the
 * runs judged.
 */
export async function sweepCi(deps: AppDeps, next: Map<string, number>): Promise<string[]> {
  const now = Date.parse(deps.now());
  const judged: string[] = [];
  const waiting = new Set<string>();
  for (const run of await deps.store.list({ status: ['running'] })) {
    const ci = waitingCi(run);
    if (!ci) continue;
    const key = `${run.id}:${ci.step}:${ci.attempt}:${ci.epoch}`;
    waiting.add(key);
    const expired = now - Date.parse(ci.startedAt) >= ci.minutes * 60_000;
    if (!expired && now < (next.get(key) ?? Date.parse(ci.startedAt) + CI_SWEEP_MS)) continue;
    next.set(key, now + CI_SWEEP_MS);
    judged.push(run.id);
    await deps.engine.checkCi(run.id);
  }
  // What no longer waits is forgotten.
  for (const key of [...next.keys()]) if (!waiting.has(key)) next.delete(key);
  return judged;
}

/** The suites and statuses of other apps (a check run's completion is app.ts's, which tells the app's own apart). */
export function registerCiWebhooks(probot: Pick<Probot, 'on'>, deps: AppDeps): void {
  probot.on('check_suite.completed', async (context) => {
    const { check_suite: suite, repository } = webhookPayload('check_suite.completed', context);
    if (suite.app?.id === deps.appId) return;
    const prs = suite.pull_requests?.map((p) => p.number);
    await onCommitChecks(deps, { repo: repository.full_name, sha: suite.head_sha, ...(prs ? { prs } : {}), what: 'a check suite completed' });
  });
  probot.on('status', async (context) => {
    const { sha, context: name, state, repository } = webhookPayload('status', context);
    // A status that is still pending settles nothing.
    if (state === 'pending') return;
    await onCommitChecks(deps, { repo: repository.full_name, sha, what: `status "${name}" is ${state}` });
  });
}
