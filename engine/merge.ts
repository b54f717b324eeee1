// The merge step, carried out by the engine through the forge (GitHub, or the local forge of the
// embedded mode). First every PR of the run is judged, so nothing merges unless all of them can:
// open, still at the head the run saw, mergeable (a mergeability the forge is still computing is
// asked again with backoff, a bounded number of times) and not blocked by required checks or
// reviews. A PR that conflicts with its base (or is behind a base that must be merged in) makes
// the step fail with `merge-conflict`: the reducer dispatches a code attempt that resolves it on
// the work branch, then the gates run again on that head. Then the PRs merge in order, providers'
// repositories first, with the configured method, each commit carrying the run's trailers. A PR
// merged by an earlier try counts as merged. If a later PR cannot be merged after an earlier one
// was, the step fails saying exactly which PRs are merged and which are not. Before any of it, a
// change holding protected paths (`protect`) that no approval saw at its head stops the step as
// `protected-paths`, naming them (core/run/protect.ts).
import { pullRequestTitle } from '../core/github/pr-body.ts';
import { code } from '../core/text.ts';
import type { Run, RunEffect } from '../core/run/types.ts';
import { WIRE_VERSION, type PullRequestRef, type StepResult } from '../core/contract/wire.ts';
import { mergeTrailers } from '../core/github/trailers.ts';
import { protectedRefusal } from '../core/run/protect.ts';
import { MergeRefused, type Forge, type PullRequest } from './ports/forge.ts';
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
 * The run's PRs in merge order: the repositories of providers before their consumers'; a revert
 * run's (core/run/revert.ts) the other way round, so no provider loses what a consumer still uses.
 */
export function mergeOrder(run: Run): PullRequestRef[] {
  const order = dependencyOrder(run);
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

/** `Merged: a#1, b#2. Not merged: c#3.`: exactly where a merge that stopped part-way left the PRs. */
export function mergedAndNot(merged: readonly PullRequestRef[], rest: readonly PullRequestRef[]): string {
  const list = (xs: readonly PullRequestRef[]) => (xs.length ? xs.map((p) => `${p.repo}#${p.number}`).join(', ') : 'none');
  return `Merged: ${list(merged)}. Not merged: ${list(rest)}.`;
}

type Verdict = { kind: 'ready' } | { kind: 'merged'; sha: string } | { kind: 'conflict'; why: string } | { kind: 'blocked'; why: string; checks?: boolean };

const name = (pr: PullRequestRef) => `${pr.repo}#${pr.number}`;

const RESOLVE =
  'Conveyor has started merging the base branch into the work branch of each of these repositories and left the conflicts marked in the files (the prompt lists them): resolve every conflict by editing those files, keeping the intent of both sides and leaving no conflict marker. Do not run git: Conveyor commits the merge.';

/** 1. judge every PR, 2. stop on a conflict (repaired) or a block (a person decides), 3. merge in order. */
export async function mergeRun(forge: Forge, run: Run, effect: Extract<RunEffect, { type: 'merge' }>, policy: MergePolicy = {}): Promise<StepResult> {
  const { ref } = effect;
  const step = run.plan.steps.find((s) => s.id === ref.step);
  const method = step?.kind === 'merge' ? step.method : 'squash';
  const base: Pick<StepResult, 'version' | 'runId' | 'step' | 'mode' | 'attempt' | 'epoch' | 'environments'> = {
    version: WIRE_VERSION,
    runId: run.id,
    step: ref.step,
    mode: 'run',
    attempt: ref.attempt,
    epoch: ref.epoch,
    environments: [],
  };
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
  for (const pr of prs) {
    let v = await judge(forge, pr, policy);
    // GitHub says only `blocked`: where required checks of other apps are why, the block names them.
    if (v.kind === 'blocked' && v.checks) {
      const named = await blockingChecks(forge, run, pr, policy.ownAppId).catch(() => undefined);
      if (named) v = { kind: 'blocked', why: `${named} (its required checks must pass before it merges)` };
    }
    if (v.kind === 'merged') {
      merged.push(pr);
      commits[pr.repo] = v.sha;
    } else if (v.kind === 'conflict') conflicts.push(`${name(pr)}: ${v.why}`);
    else if (v.kind === 'blocked') blocked.push(`${name(pr)}: ${v.why}`);
  }
  const rest = () => prs.filter((p) => !merged.includes(p));
  // 2. A block waits for a person; a conflict goes to the repair agent.
  if (blocked.length > 0) return fail('merge-failed', `not merging: ${blocked.join('; ')}. ${mergedAndNot(merged, rest())}`, commits);
  if (conflicts.length > 0) {
    const findings = [
      'Merging was refused because these pull requests do not merge cleanly into their base branch:',
      ...conflicts.map((c) => `- ${c}`),
      '',
      RESOLVE,
    ].join('\n');
    return fail('merge-conflict', `not merging: ${conflicts.join('; ')}. ${mergedAndNot(merged, rest())}`, commits, findings);
  }

  // 3. Merge in order.
  const before = merged.length;
  for (const pr of prs) {
    if (merged.includes(pr)) continue;
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
      if (e instanceof MergeRefused && e.conflict && merged.length === before && before === 0) {
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

async function judge(forge: Forge, pr: PullRequestRef, policy: MergePolicy): Promise<Verdict> {
  const polls = Math.max(1, policy.polls ?? 5);
  const wait = policy.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let i = 0; ; i++) {
    const p: PullRequest = await forge.getPullRequest(pr.repo, pr.number);
    if (p.state === 'merged') return { kind: 'merged', sha: p.mergeCommit ?? '' };
    if (p.state !== 'open') return { kind: 'blocked', why: 'it is closed' };
    if (pr.head && p.head !== pr.head) return { kind: 'blocked', why: `its head moved to ${p.head.slice(0, 7)} since the run checked ${pr.head.slice(0, 7)}` };
    // The action marked the run's draft ready for review when the code step pushed the change; a
    // draft now is one a person turned back into a draft to hold the merge, and it is theirs to release.
    if (p.draft) return { kind: 'blocked', why: 'it is a draft (mark it ready for review, then `/conveyor retry`)' };
    if (p.mergeable === null) {
      if (i + 1 >= polls) return { kind: 'blocked', why: `the forge was still computing whether it can merge after ${polls} reads` };
      await wait((policy.baseMs ?? 1000) * 2 ** i);
      continue;
    }
    if (p.mergeable === false || p.mergeableState === 'dirty') return { kind: 'conflict', why: `it conflicts with ${code(p.base)}` };
    if (p.mergeableState === 'behind') return { kind: 'conflict', why: `it is behind ${code(p.base)}, which branch protection requires merged in` };
    if (p.mergeableState === 'blocked') return { kind: 'blocked', why: 'its required checks or reviews do not pass', checks: true };
    return { kind: 'ready' };
  }
}
