// The trailer block of a merge commit: which run made it and which checks really held.
import type { Run } from './run/types.ts';
import type { PullRequestRef } from './wire.ts';

/** The commit message body for merging `pr`: the PR's description line and the trailer block. */
export function mergeTrailers(run: Run, pr: PullRequestRef): string {
  const lines = [`Resolves ${run.issue.repo}#${run.issue.number}.`, '', ...trailerLines(run, pr)];
  return lines.join('\n');
}

export function trailerLines(run: Run, _pr: PullRequestRef): string[] {
  const trailers = [`Conveyor-Run: ${run.id}`];
  const approvers = [...new Set(run.approvals.map((a) => a.by))];
  for (const by of approvers) trailers.push(`Approved-by: ${by}`);
  return trailers;
}
