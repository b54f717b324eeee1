// A merge step whose PRs' base branches require a merge queue does not block anything while the
// queue works: its attempt enqueues the next PR in merge order (providers first), records what it
// enqueued (`merge-enqueued`) and ends; the attempt stays queued. Each PR the queue merges
// (`pull_request.closed` merged, or `dequeued` because it merged) makes the engine carry out the
// merge again for the same attempt, which enqueues the next one or, all merged, succeeds. A PR the
// queue removed for any other reason (its checks failed in the queue, a conflict) fails the step
// with the queue's reason; `/conveyor retry` starts a new attempt, which enqueues it again. The
// sweeper's `look` has the merge look again, for webhooks that never came. A cancelled run's merge
// attempt is stopped by the engine, which takes what it enqueued out of the queue again
// (`merge-dequeued` says what it removed and what it could not).
import type { PullRequestRef } from '../contract/wire.ts';
import { attemptKeyFor } from '../contract/attempt-ref.ts';
import { capped, Draft, findRecord, planStep, REASON_MAX } from './draft.ts';
import type { AttemptRecord, DraftTransition, QueueEntry, Run, RunEvent, StepState } from './types.ts';

/** The run's PRs in merge order: the repositories of providers before their consumers' (a revert run's reversed). */
export function mergeOrder(run: Run): PullRequestRef[] {
  const order = dependencyOrder(run);
  // A revert run's (core/run/revert.ts) the other way round, so no provider loses what a consumer still uses.
  return run.revertOf !== undefined ? order.reverse() : order;
}

function dependencyOrder(run: Run): PullRequestRef[] {
  const repoOf = new Map(Object.values(run.plan.services).map((s) => [s.name, s.repo]));
  const order: string[] = [];
  for (const wave of run.plan.deployWaves) {
    for (const service of wave) {
      const repo = repoOf.get(service);
      if (repo && !order.includes(repo)) order.push(repo);
    }
  }
  for (const r of run.plan.changeSet) if (!order.includes(r.repo)) order.push(r.repo);
  return order.flatMap((repo) => run.prs.filter((p) => p.repo === repo));
}

export const prName = (pr: { repo: string; number: number }) => `${pr.repo}#${pr.number}`;

/** `Merged: a#1, b#2. Not merged: c#3.`: exactly where a merge that stopped part-way left the PRs. */
export function mergedAndNot(merged: readonly PullRequestRef[], rest: readonly PullRequestRef[]): string {
  const list = (xs: readonly PullRequestRef[]) => (xs.length ? xs.map(prName).join(', ') : 'none');
  return `Merged: ${list(merged)}. Not merged: ${list(rest)}.`;
}

/** GitHub's `pull_request.dequeued` reasons, in words. */
const REMOVED: Record<string, string> = {
  CI_FAILURE: 'its required checks failed in the merge queue',
  CI_TIMEOUT: 'its required checks did not report in time in the merge queue',
  MERGE_CONFLICT: 'it conflicts with its base branch (or with a pull request ahead of it in the queue)',
  MANUAL: 'someone removed it from the queue',
  QUEUE_CLEARED: 'the queue was cleared',
  ROLL_BACK: 'the queue rolled it back',
  BRANCH_PROTECTIONS: "it no longer meets its base branch's protections",
  GIT_TREE_INVALID: 'the queue could not build its merge commit',
  INVALID_MERGE_COMMIT: 'the queue could not build its merge commit',
};
/** Removed because it merged: that is progress, not a failure. */
const MERGED_REASONS = new Set(['MERGE', 'ALREADY_MERGED']);

function removalText(reason: string | undefined): string {
  if (!reason) return 'the forge did not say why (see its timeline)';
  return `${REMOVED[reason] ?? 'the forge gave no reason it explains'} (${reason})`;
}

/** The merge step's attempt that waits for a merge queue, with its record. */
function waiting(run: Run): { s: StepState; record: AttemptRecord & { queue: NonNullable<AttemptRecord['queue']> } } | undefined {
  for (const p of run.plan.steps) {
    if (p.kind !== 'merge') continue;
    const s = run.steps[p.id];
    if (s?.status !== 'queued' || s.mode !== 'run') continue;
    const record = findRecord(s, s.attempt, s.epoch);
    if (record?.queue) return { s, record: record as AttemptRecord & { queue: NonNullable<AttemptRecord['queue']> } };
  }
  return undefined;
}

function setRecord(d: Draft, s: StepState, record: AttemptRecord): void {
  const w = d.step(s.id);
  w.attempts = w.attempts.map((r) => (r.attempt === s.attempt && r.epoch === s.epoch ? record : r));
}

const sameEntry = (a: Pick<QueueEntry, 'repo' | 'number' | 'head'>, b: Pick<QueueEntry, 'repo' | 'number' | 'head'>) =>
  a.repo === b.repo && a.number === b.number && a.head === b.head;

function waitReason(run: Run, entries: readonly QueueEntry[], merged: readonly string[]): string {
  const inQueue = entries.filter((e) => !e.merged).map((e) => `${prName(e)} (enqueued at ${e.head.slice(0, 7)})`);
  const order = mergeOrder(run);
  const done = (p: PullRequestRef) => merged.includes(prName(p)) || entries.some((e) => e.merged && prName(e) === prName(p));
  return `waits for the merge queue to merge ${inQueue.join(', ') || 'what it holds'}; the rest follow in order. ${mergedAndNot(
    order.filter(done),
    order.filter((p) => !done(p)),
  )}`;
}

export function mergeEnqueued(run: Run, e: Extract<RunEvent, { type: 'merge-enqueued' }>): DraftTransition {
  const s = run.steps[e.step];
  if (!s || planStep(run, e.step)?.kind !== 'merge' || s.status !== 'queued' || s.mode !== 'run') return { run, effects: [] };
  if (s.attempt !== e.attempt || s.epoch !== e.epoch) return { run, effects: [] };
  const record = findRecord(s, s.attempt, s.epoch);
  if (!record) return { run, effects: [] };
  const had = record.queue?.entries ?? [];
  // Stamped with the engine's time: the sweeper's looks are timed from it.
  const fresh = e.enqueued.filter((n) => !had.some((h) => sameEntry(h, n))).map((n) => ({ repo: n.repo, number: n.number, head: n.head, at: e.at }));
  const entries = [...had, ...fresh];
  const merged = [...new Set([...(record.queue?.merged ?? []), ...e.merged.map(prName)])];
  if (entries.length === had.length && merged.length === (record.queue?.merged.length ?? 0) && record.queue) return { run, effects: [] };
  const d = new Draft(run, e.at);
  setRecord(d, s, { ...record, queue: { ...record.queue, entries, merged } });
  d.step(s.id).reason = waitReason(run, entries, merged);
  d.settle();
  return d.finish();
}

export function mergeQueueChanged(run: Run, e: Extract<RunEvent, { type: 'merge-queue' }>): DraftTransition {
  const w = waiting(run);
  if (!w) return { run, effects: [] };
  const { s, record } = w;
  const ref = { runId: run.id, step: s.id, attempt: s.attempt, epoch: s.epoch, mode: 'run' as const };
  const d = new Draft(run, e.at);
  if (e.change === 'look') {
    setRecord(d, s, { ...record, queue: { ...record.queue, lookedAt: e.at } });
    d.effects.push({ type: 'merge', key: `${attemptKeyFor(ref, 'merge')}:queue:look:${run.version}`, ref });
    return d.finish();
  }
  const entry = e.pr && record.queue.entries.find((x) => !x.merged && x.repo === e.pr!.repo && x.number === e.pr!.number);
  if (!entry) return { run, effects: [] };
  if (e.change === 'merged' || MERGED_REASONS.has(e.reason ?? '')) {
    const entries = record.queue.entries.map((x) => (x === entry ? { ...x, merged: true } : x));
    setRecord(d, s, { ...record, queue: { ...record.queue, entries } });
    d.step(s.id).reason = waitReason(run, entries, record.queue.merged);
    // Keyed by the PR: the `closed` and the `dequeued` (MERGE) of one merge ask for one merge.
    d.effects.push({ type: 'merge', key: `${attemptKeyFor(ref, 'merge')}:queue:${prName(entry)}`, ref });
    d.settle();
    return d.finish();
  }
  const order = mergeOrder(run);
  const done = (p: PullRequestRef) => record.queue.merged.includes(prName(p)) || record.queue.entries.some((x) => x.merged && prName(x) === prName(p));
  const message = `${prName(entry)} was removed from the merge queue: ${removalText(e.reason)}. ${mergedAndNot(
    order.filter(done),
    order.filter((p) => !done(p)),
  )} A person decides what happens next: \`/conveyor retry\` (\`conveyor retry\`) enqueues it again.`;
  d.finishAttempt(s.id, { conclusion: 'failure', summary: message, error: { code: 'merge-failed', message } });
  d.fail(s.id, message);
  d.settle();
  return d.finish();
}

/**
 * Whether the sweeper should have the merge step look at its queue again: it waits for one, and
 * nothing was heard or looked at for `minutes` (a webhook lost on the way, the app down meanwhile).
 */
export function queueLookDue(run: Run, now: string, minutes: number): boolean {
  const w = waiting(run);
  if (!w) return false;
  const times = [w.record.queue.lookedAt, run.updatedAt, ...w.record.queue.entries.map((e) => e.at)].map((t) => Date.parse(t ?? '')).filter(Number.isFinite);
  return times.length === 0 || Date.parse(now) - Math.max(...times) >= minutes * 60_000;
}

/** Whether the run's merge step waits for a merge queue (its attempt enqueued PRs and is under way). */
export function waitsForQueue(run: Run): boolean {
  return waiting(run) !== undefined;
}

/**
 * What the engine's stop of a merge attempt that waited for its queue did: recorded on the attempt
 * and said on the step, and on the run when a PR could not be taken out (it may still merge: a
 * person must remove it). Once per attempt.
 */
export function mergeDequeued(run: Run, e: Extract<RunEvent, { type: 'merge-dequeued' }>): DraftTransition {
  const s = run.steps[e.step];
  const record = s && findRecord(s, e.attempt, e.epoch);
  const queue = record?.queue;
  if (!s || !queue || queue.dequeued || (e.removed.length === 0 && e.failed.length === 0)) return { run, effects: [] };
  const removed = e.removed.map(prName);
  const failed = e.failed.map((f) => ({ pr: prName(f), error: f.error }));
  const d = new Draft(run, e.at);
  const w = d.step(s.id);
  w.attempts = w.attempts.map((r) => (r === record ? { ...r, queue: { ...queue, dequeued: { at: e.at, removed, failed } } } : r));
  const why = failed.length === 1 ? failed[0]!.error : failed.map((f) => `${f.pr}: ${f.error}`).join('; ');
  const left = failed.length
    ? `could not take ${failed.map((f) => f.pr).join(', ')} out of the merge queue, where ${failed.length === 1 ? 'it' : 'they'} may still merge (remove ${failed.length === 1 ? 'it' : 'them'} there): ${why}`
    : '';
  const said = [removed.length ? `took ${removed.join(', ')} out of the merge queue` : '', left].filter(Boolean).join('; ');
  w.reason = capped(s.reason ? `${s.reason}; ${said}` : said, REASON_MAX);
  if (left) d.run.reason = capped(run.reason ? `${run.reason}; ${left}` : left, REASON_MAX);
  return d.finish();
}
