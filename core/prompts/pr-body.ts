// The body of each pull request of a change: it names the issue and links every sibling PR, so a
// reviewer of one repository sees the whole change. Pure; rewritten whenever the set changes.
import { oneLine } from './prompt.ts';
import { code } from '../text.ts';

export interface PrLink {
  repo: string;
  number: number;
  url: string;
}

export interface PrBodyInput {
  issue: { repo: string; number: number; title: string; url?: string };
  runId: string;
  /** The repository of the PR being written. */
  repo: string;
  /** Every PR of the change, this one included when it exists already. */
  prs: readonly PrLink[];
  /** The protected paths (`protect`) this PR changes: named, so the person who approves knows to look at them. */
  protected?: { paths: readonly string[]; more?: number };
}

export const PR_BODY_MARKER = '<!-- conveyor:pr -->';

export function pullRequestTitle(issue: { number: number; title: string }): string {
  return `${oneLine(issue.title, 200)} (#${issue.number})`;
}

export function pullRequestBody(input: PrBodyInput): string {
  const { issue } = input;
  const ref = `${issue.repo}#${issue.number}`;
  const lines = [
    PR_BODY_MARKER,
    // Only the PR in the issue's own repository closes it; the others belong to it.
    input.repo === issue.repo ? `Closes #${issue.number}: ${oneLine(issue.title, 200)}` : `Part of ${ref}: ${oneLine(issue.title, 200)}`,
    '',
  ];
  if (issue.url) lines.push(`Issue: ${issue.url}`, '');
  const sorted = [...input.prs].sort((a, b) => a.repo.localeCompare(b.repo));
  if (sorted.length > 1) {
    lines.push('### Pull requests of this change', '');
    for (const pr of sorted) {
      const self = pr.repo === input.repo ? ' (this pull request)' : '';
      lines.push(`- ${pr.repo}#${pr.number}${self}: ${pr.url}`);
    }
    lines.push('');
  }
  if (input.protected?.paths.length) {
    const more = input.protected.more ? [`- … and ${input.protected.more} more`] : [];
    lines.push(
      '### Protected paths',
      '',
      'This pull request changes paths the pipeline protects (`protect`): it merges only after an approval of its head.',
      '',
      ...input.protected.paths.map((p) => `- ${code(p)}`),
      ...more,
      '',
    );
  }
  lines.push(`<sub>Opened by Conveyor, run \`${input.runId}\`.</sub>`);
  return lines.join('\n');
}
