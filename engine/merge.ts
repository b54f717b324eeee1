// The merge step, carried out by the engine through the forge (GitHub, or the local forge of the
// embedded mode). First every PR of the run is judged, so nothing merges unless all of them can:
// open, still at the head the run saw, mergeable (a mergeability the forge is still computing is
// asked again with backoff, a bounded number of times) and not blocked by required checks or
// reviews. A PR that conflicts with its base (or is behind a base that must be merged in) makes
// the step fail with `merge-conflict`: the reducer dispatches a code attempt that resolves it on
// the work branch, then the gates run again on that head. Then the PRs merge in order, providers'
// repositories first, with the configured method, each commit carrying the run's trailers. A PR
// merged by an earlier try counts as merged. If a later PR cannot be merged after an earlier one
// was, the step fails saying exactly which PRs are merged and which are not.
// With a merge queue (the base branch's rules require one), a PR is enqueued instead, pinned to
// the approved head, and only once every PR before it in merge order has merged: the attempt then
// returns a wait (MergeWait), which the engine records, and the queue's webhooks (or the
// sweeper's look) have the merge carried out again, which enqueues the next (core/run/queue.ts).
// Where a base branch requires PRs up to date with it and no queue does that, a PR behind its base
// goes to the same repair as a conflict: the base is merged into the work branch and the gates run
// again on that head before it merges.
// A cancel stops a merge attempt that waits for its queue by taking what it enqueued and the queue
// has not merged out of the queue again (dequeueRun): a PR left there would merge later on its own.
// Before any of it, a change holding protected paths (`protect`) that no approval saw at its head
// stops the step as `protected-paths`, naming them (core/run/protect.ts).
import { pullRequestTitle } from '../core/github/pr-body.ts';
import { code } from '../core/text.ts';
import type { QueueEntry, Run, RunEffect } from '../core/run/types.ts';
import { resultBase, type PullRequestRef, type StepResult } from '../core/contract/wire.ts';
import type { AttemptRef } from '../core/contract/attempt-ref.ts';
import { mergeTrailers } from '../core/github/trailers.ts';
import { protectedRefusal } from '../core/run/protect.ts';
import { mergedAndNot, mergeOrder, prName as name } from '../core/run/queue.ts';
import { MergeRefused, type BranchRules, type Forge, type PullRequest } from './ports/forge.ts';
import { blockingChecks } from './ci.ts';

export interface MergePolicy {
  /** The app's own id: its check runs are not among the required checks a block is explained by. */
  ownAppId?: number;
  /** Reads of a PR whose mergeability is still being computed (default 5). */
  polls?: number;
  /** First wait between them, doubled each time (default 1000 ms). */
  baseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * A merge attempt that enqueued PRs (or found them still in their queue) and waits for the queue
 * to merge them: the engine records it (`merge-enqueued`) and the attempt stays under way.
 */
export interface MergeWait {
  kind: 'enqueued';
  enqueued: Array<Pick<QueueEntry, 'repo' | 'number' | 'head'>>;
  merged: PullRequestRef[];
}
export type MergeOutcome = StepResult | MergeWait;
export const isMergeWait = (o: MergeOutcome): o is MergeWait => 'kind' in o && o.kind === 'enqueued';

type Verdict =
  | { kind: 'ready'; pr: PullRequest; queue: boolean }
  | { kind: 'merged'; sha: string }
  | { kind: 'enqueued'; entry: QueueEntry }
  | { kind: 'conflict'; why: string; behind?: boolean }
  | { kind: 'blocked'; why: string; checks?: boolean };

const NO_RULES: BranchRules = { mergeQueue: false, upToDate: false };

const UP_TO_DATE =
  'Conveyor has merged the base branch into the work branch of each of these repositories (it merged cleanly): there is nothing to resolve. Change nothing unless the merge broke something; the gates run again on the new head before it merges.';

const RESOLVE =
  'Conveyor has started merging the base branch into the work branch of each of these repositories and left the conflicts marked in the files (the prompt lists them): resolve every conflict by editing those files, keeping the intent of both sides and leaving no conflict marker. Do not run git: Conveyor commits the merge.';

/** 1. judge every PR, 2. stop on a conflict (repaired) or a block (a person decides), 3. merge in order. */
export async function mergeRun(forge: Forge, run: Run, effect: Extract<RunEffect, { type: 'merge' }>, policy: MergePolicy = {}): Promise<MergeOutcome> {
  const { ref } = effect;
  const step = run.plan.steps.find((s) => s.id === ref.step);
  const method = step?.kind === 'merge' ? step.method : 'squash';
  const base = resultBase({ ...ref, mode: 'run' });
  const prs = mergeOrder(run);
  const fail = (
    code: 'merge-failed' | 'merge-conflict' | 'protected-paths',
    message: string,
    commits: Record<string, string>,
    findings?: string,
  ): StepResult => ({
    ...base,
    conclusion: 'failure',
    summary: message,
    prs,
    commits,
    error: { code, message },
    ...(findings ? { findings } : {}),
  });
  if (prs.length === 0) return fail('merge-failed', 'the run has no pull requests to merge', {});
  // Before anything is asked of the forge: a protected change nobody approved at its head waits for a person.
  const refusal = protectedRefusal(run);
  if (refusal) return fail('protected-paths', refusal, {});

  // 1. Every PR is judged before any merges.
  const merged: PullRequestRef[] = [];
  const commits: Record<string, string> = {};
  const conflicts: string[] = [];
  const blocked: string[] = [];
  const verdicts = new Map<PullRequestRef, Verdict>();
  // What this attempt enqueued before (its record): those are waited for, never enqueued twice.
  const record = run.steps[ref.step]?.attempts.findLast((r) => r.attempt === ref.attempt && r.epoch === ref.epoch && r.mode === 'run');
  const entries = record?.queue?.entries ?? [];
  const rules = rulesOf(forge);
  let behindOnly = true;
  for (const pr of prs) {
    const entry = entries.find((e) => !e.merged && e.repo === pr.repo && e.number === pr.number && (!pr.head || e.head === pr.head));
    let v = await judge(forge, pr, policy, rules, entry);
    // GitHub says only `blocked`: where required checks of other apps are why, the block names them.
    if (v.kind === 'blocked' && v.checks) {
      const named = await blockingChecks(forge, run, pr, policy.ownAppId).catch(() => undefined);
      if (named) v = { kind: 'blocked', why: `${named} (its required checks must pass before it merges)` };
    }
    verdicts.set(pr, v);
    if (v.kind === 'merged') {
      merged.push(pr);
      commits[pr.repo] = v.sha;
    } else if (v.kind === 'conflict') {
      conflicts.push(`${name(pr)}: ${v.why}`);
      if (!v.behind) behindOnly = false;
    } else if (v.kind === 'blocked') blocked.push(`${name(pr)}: ${v.why}`);
  }
  const rest = () => prs.filter((p) => !merged.includes(p));
  // 2. A block waits for a person; a conflict goes to the repair agent.
  if (blocked.length > 0) return fail('merge-failed', `not merging: ${blocked.join('; ')}. ${mergedAndNot(merged, rest())}`, commits);
  if (conflicts.length > 0) {
    const findings = [
      behindOnly
        ? 'These pull requests are behind their base branch, which requires them up to date with it before they merge:'
        : 'Merging was refused because these pull requests do not merge cleanly into their base branch:',
      ...conflicts.map((c) => `- ${c}`),
      '',
      behindOnly ? UP_TO_DATE : RESOLVE,
    ].join('\n');
    return fail('merge-conflict', `not merging: ${conflicts.join('; ')}. ${mergedAndNot(merged, rest())}`, commits, findings);
  }

  // 3. Merge in order; a PR whose base requires a queue is enqueued once everything before it merged, and waited for.
  for (const pr of prs) {
    if (merged.includes(pr)) continue;
    const v = verdicts.get(pr);
    if (v?.kind === 'enqueued') return { kind: 'enqueued', enqueued: [v.entry], merged };
    if (v?.kind === 'ready' && v.queue) {
      const head = pr.head ?? v.pr.head;
      try {
        if (!forge.mergeQueue) throw new Error(`${code(v.pr.base)} requires a merge queue, which this forge has none of`);
        await forge.mergeQueue.enqueue(v.pr, head);
      } catch (e) {
        const why = `enqueueing ${name(pr)} in the merge queue of ${code(v.pr.base)} failed: ${(e as Error).message}`;
        return fail(
          'merge-failed',
          `${why}. ${mergedAndNot(merged, rest())} A person decides what happens next (\`/conveyor retry\`, \`conveyor retry\`, tries the rest again).`,
          commits,
        );
      }
      return { kind: 'enqueued', enqueued: [{ repo: pr.repo, number: pr.number, head }], merged };
    }
    try {
      const result = await forge.mergePullRequest(pr.repo, pr.number, {
        method,
        // `owner/repo#N` outside the issue's repository: GitHub would link `#N` to that repository's own.
        title: pullRequestTitle(run.issue, pr.repo),
        message: mergeTrailers(run, pr),
        ...(pr.head ? { expectedHead: pr.head } : {}),
      });
      if (!result.merged) throw new MergeRefused(result.message || 'the forge did not merge it', false);
      merged.push(pr);
      commits[pr.repo] = result.sha;
    } catch (e) {
      // A refusal reads `(HTTP 405) Base branch was modified...`; anything else says what failed.
      const why = e instanceof MergeRefused ? `merging ${name(pr)} failed ${e.message}` : `merging ${name(pr)} failed: ${(e as Error).message}`;
      // Nothing merged by this try yet: a refusal for a conflict is a conflict to resolve, not a half-merged run.
      if (e instanceof MergeRefused && e.conflict && merged.length === 0) {
        return fail('merge-conflict', `${why}. ${mergedAndNot(merged, rest())}`, commits, `${why}.\n\n${RESOLVE}`);
      }
      return fail(
        'merge-failed',
        `${why}. ${mergedAndNot(merged, rest())} A person decides what happens next (\`/conveyor retry\`, \`conveyor retry\`, tries the rest again).`,
        commits,
      );
    }
  }
  return { ...base, conclusion: 'success', summary: `Merged ${merged.map(name).join(', ')} (${method}).`, prs, commits };
}

/** What stopping a merge attempt that waited for its queue did: the PRs taken out, and those that could not be, with why. */
export interface Dequeued {
  removed: Array<{ repo: string; number: number }>;
  failed: Array<{ repo: string; number: number; error: string }>;
}

/**
 * Takes out of the merge queue every PR the attempt `ref` enqueued that has not merged. One that
 * merged meanwhile, was closed, or that the queue no longer holds has nothing to take out; one the
 * forge refuses to remove is told in `failed`, and the others are still tried.
 */
export async function dequeueRun(forge: Forge, run: Run, ref: AttemptRef): Promise<Dequeued> {
  const out: Dequeued = { removed: [], failed: [] };
  for (const entry of unmergedEntries(run, ref)) {
    const at = { repo: entry.repo, number: entry.number };
    try {
      if (!forge.mergeQueue) throw new Error('this forge has no merge queue to take it out of');
      const pr = await forge.getPullRequest(entry.repo, entry.number);
      if (pr.state !== 'open') continue;
      if (await forge.mergeQueue.dequeue({ ...at, ...(pr.nodeId ? { nodeId: pr.nodeId } : {}) })) out.removed.push(at);
    } catch (e) {
      out.failed.push({ ...at, error: (e as Error).message });
    }
  }
  return out;
}

/** The PRs the merge attempt `ref` enqueued that the queue has not merged (as far as the run heard), each once. */
export function unmergedEntries(run: Run, ref: AttemptRef): QueueEntry[] {
  const record = run.steps[ref.step]?.attempts.findLast((r) => r.attempt === ref.attempt && r.epoch === ref.epoch && r.mode === 'run');
  return (record?.queue?.entries ?? []).filter((e, i, all) => !e.merged && all.findIndex((x) => name(x) === name(e)) === i);
}

/** Each base branch's rules, asked once per merge attempt. */
function rulesOf(forge: Forge): (repo: string, branch: string) => Promise<BranchRules> {
  const asked = new Map<string, Promise<BranchRules>>();
  return (repo, branch) => {
    const key = `${repo}\u0000${branch}`;
    let r = asked.get(key);
    if (!r) {
      r = forge.branchRules ? forge.branchRules(repo, branch) : Promise.resolve(NO_RULES);
      asked.set(key, r);
    }
    return r;
  };
}

async function judge(
  forge: Forge,
  pr: PullRequestRef,
  policy: MergePolicy,
  rulesFor: (repo: string, branch: string) => Promise<BranchRules>,
  entry: QueueEntry | undefined,
): Promise<Verdict> {
  const polls = Math.max(1, policy.polls ?? 5);
  const wait = policy.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let i = 0; ; i++) {
    const p: PullRequest = await forge.getPullRequest(pr.repo, pr.number);
    if (p.state === 'merged') return { kind: 'merged', sha: p.mergeCommit ?? '' };
    if (p.state !== 'open') return { kind: 'blocked', why: 'it is closed' };
    if (pr.head && p.head !== pr.head) return { kind: 'blocked', why: `its head moved to ${p.head.slice(0, 7)} since the run checked ${pr.head.slice(0, 7)}` };
    if (entry) {
      // Enqueued by this attempt and not merged yet: still in the queue, or removed unheard of.
      if (await forge.mergeQueue?.holds(pr.repo, pr.number)) return { kind: 'enqueued', entry };
      return {
        kind: 'blocked',
        why: 'it was removed from the merge queue, and the forge did not say why (see its timeline); `/conveyor retry` enqueues it again',
      };
    }
    // The action marked the run's draft ready for review when the code step pushed the change; a
    // draft now is one a person turned back into a draft to hold the merge, and it is theirs to release.
    if (p.draft) return { kind: 'blocked', why: 'it is a draft (mark it ready for review, then `/conveyor retry`)' };
    if (p.mergeable === null) {
      if (i + 1 >= polls) return { kind: 'blocked', why: `the forge was still computing whether it can merge after ${polls} reads` };
      await wait((policy.baseMs ?? 1000) * 2 ** i);
      continue;
    }
    if (p.mergeable === false || p.mergeableState === 'dirty') return { kind: 'conflict', why: `it conflicts with ${code(p.base)}` };
    const rules = await rulesFor(pr.repo, p.base);
    // A queue tests each PR on the latest base itself: being behind it is no reason to wait.
    if (p.mergeableState === 'behind' && !rules.mergeQueue) {
      return { kind: 'conflict', why: `it is behind ${code(p.base)}, which branch protection requires merged in`, behind: true };
    }
    if (p.mergeableState === 'blocked') return { kind: 'blocked', why: 'its required checks or reviews do not pass', checks: true };
    if (!rules.mergeQueue && rules.upToDate && forge.commitsBehind && (await forge.commitsBehind(pr.repo, p.base, p.head)) > 0) {
      return { kind: 'conflict', why: `it is behind ${code(p.base)}, whose rules require it up to date before it merges`, behind: true };
    }
    return { kind: 'ready', pr: p, queue: rules.mergeQueue };
  }
}
