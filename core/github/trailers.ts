// The trailer block of a merge commit: which run made it and which checks really held on the very
// commit being merged. A gate or review counts only when it succeeded, its stored result verifies
// against its receipt, and the commit it checked in this repository is the PR head being merged;
// a review counts only when it passed and was independent of the coder. Approvals that went stale
// do not count.
import { receiptHex } from '../contract/receipt.ts';
import { stepVerifies } from '../run/receipts.ts';
import type { Run } from '../run/types.ts';
import type { PullRequestRef } from '../contract/wire.ts';
import { runUsage } from '../run/usage.ts';

/** The commit message body for merging `pr`: the PR's description line and the trailer block. */
export function mergeTrailers(run: Run, pr: PullRequestRef): string {
  // A revert run's merge undoes what another run merged: it resolves nothing.
  const what = run.revertOf !== undefined ? `Reverts what Conveyor run ${oneLine(run.revertOf)} merged for` : 'Resolves';
  const lines = [`${what} ${run.issue.repo}#${run.issue.number}.`, '', ...trailerLines(run, pr)];
  return lines.join('\n');
}

/** A trailer value on one line: no newline can start a forged trailer. */
const oneLine = (text: string): string => text.replace(/[\r\n]+/g, ' ').trim();

export function trailerLines(run: Run, pr: PullRequestRef): string[] {
  const trailers = [`Conveyor-Run: ${oneLine(run.id)}`, ...(run.revertOf !== undefined ? [`Conveyor-Reverts: ${oneLine(run.revertOf)}`] : [])];
  for (const p of run.plan.steps) {
    if (p.kind !== 'gate' && p.kind !== 'review') continue;
    const s = run.steps[p.id];
    const r = s?.result;
    if (s?.status !== 'succeeded' || !r?.receipt || r.conclusion !== 'success') continue;
    if (!pr.head || r.commits[pr.repo] !== pr.head) continue;
    if (!stepVerifies(s)) continue;
    const digest = `sha256:${receiptHex(r.receipt)}`;
    if (p.kind === 'gate') trailers.push(`Tested-by: conveyor gate ${oneLine(p.id)} (${digest})`);
    else if (r.review && r.review.verdict === 'pass' && r.review.independent) {
      trailers.push(`Reviewed-by: ${oneLine([r.review.agent, r.review.model].filter(Boolean).join(' '))} (${digest})`);
    }
  }
  for (const a of run.approvals) if (!a.stale) trailers.push(`Approved-by: ${oneLine(a.by)}`);
  // What the run's agents said it cost, all attempts of all steps; only when one reported a cost.
  const cost = runUsage(run)?.costUsd;
  if (cost !== undefined) trailers.push(`Conveyor-Cost: $${cost.toFixed(2)}`);
  return [...new Set(trailers)];
}

/**
 * The trailer crediting a GitHub account as a commit's co-author, with the no-reply address GitHub
 * gives every account (`ID+login@users.noreply.github.com`): GitHub links it to the account by
 * that address, and no one's real address is written into the history.
 */
export function coAuthoredBy(author: { login: string; id: number }): string {
  return `Co-authored-by: ${oneLine(author.login)} <${author.id}+${oneLine(author.login)}@users.noreply.github.com>`;
}
