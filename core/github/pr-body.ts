// The body of each pull request of a change, written for the person who reviews it: what changed
// in this repository (the agent's own summary when it gave one, and the files with their lines
// added and removed), the issue and every sibling PR as `owner/repo#N`, and where the run stands
// (pr-status.ts: its gates, review and approval, and how to approve), which Conveyor keeps current
// between its markers. Pure; kept within GitHub's body limit.
import { COMMENT_MAX, fitComment } from './limits.ts';
import { code, inlineText } from '../text.ts';
import { oneLine } from '../prompts/prompt.ts';

export interface PrLink {
  repo: string;
  number: number;
  url: string;
}

/** A file of the PR's diff against its base: lines added and removed (null for a binary file). */
export interface FileChange {
  path: string;
  added: number | null;
  removed: number | null;
}

/** What changed in the PR's repository, as the code step saw it. */
export interface RepoChangeSummary {
  /** The agent's own words on its change (untrusted: shown as text), when it gave any. */
  summary?: string;
  files: readonly FileChange[];
}

export interface PrBodyInput {
  issue: { repo: string; number: number; title: string; url?: string };
  runId: string;
  /** The repository of the PR being written. */
  repo: string;
  /** Every PR of the change, this one included when it exists already. */
  prs: readonly PrLink[];
  /** What changed here; a body written before the code step ran has none. */
  change?: RepoChangeSummary;
  /** The status section's inside (renderPrStatus), kept from the body as it was when not given. */
  status?: string;
  /** The protected paths (`protect`) this PR changes: named, so the person who approves knows to look at them. */
  protected?: { paths: readonly string[]; more?: number };
}

export const PR_BODY_MARKER = '<!-- conveyor:pr -->';
export const PR_STATUS_START = '<!-- conveyor:status -->';
export const PR_STATUS_END = '<!-- /conveyor:status -->';

/** Files listed one by one; the rest are counted. */
export const FILES_SHOWN = 50;
/** How much of the agent's summary a body shows. */
const AGENT_SUMMARY_MAX = 4_000;
/** The status section, whatever the run holds: it must leave room for the rest. */
const STATUS_MAX = 8_000;

/** The issue as a PR in `repo` cites it: `#N` in its own repository, `owner/repo#N` in any other (GitHub would link `#N` to the wrong one). */
function issueRef(issue: { repo: string; number: number }, repo: string): string {
  return repo === issue.repo ? `#${issue.number}` : `${issue.repo}#${issue.number}`;
}

/** A PR's title (and its merge's subject): the issue's title and its reference as seen from `repo` (default: the issue's own). */
export function pullRequestTitle(issue: { repo?: string; number: number; title: string }, repo = issue.repo): string {
  const ref = issue.repo && repo ? issueRef({ repo: issue.repo, number: issue.number }, repo) : `#${issue.number}`;
  return `${oneLine(issue.title, 200)} (${ref})`;
}

/** The status section of a body as it stands, without its markers; undefined when it has none. */
export function statusOf(body: string): string | undefined {
  const start = body.indexOf(PR_STATUS_START);
  const end = body.indexOf(PR_STATUS_END);
  if (start < 0 || end < start) return undefined;
  return body.slice(start + PR_STATUS_START.length, end).replace(/^\n|\n$/g, '');
}

/**
 * The body with its status section replaced (added before the footer where it had none): what the
 * app and the embedded mode write as the run moves on, leaving what the code step wrote alone.
 */
export function withStatus(body: string, status: string): string {
  const section = statusSection(status);
  const start = body.indexOf(PR_STATUS_START);
  const end = body.indexOf(PR_STATUS_END);
  if (start >= 0 && end > start) return fitComment(`${body.slice(0, start)}${section}${body.slice(end + PR_STATUS_END.length)}`);
  const footer = body.lastIndexOf('\n<sub>');
  return fitComment(footer >= 0 ? `${body.slice(0, footer)}\n${section}\n${body.slice(footer + 1)}` : `${body}\n\n${section}`);
}

function statusSection(status: string): string {
  const inside = status.length > STATUS_MAX ? `${status.slice(0, STATUS_MAX - 1)}…` : status;
  return `${PR_STATUS_START}\n${inside}\n${PR_STATUS_END}`;
}

/** `+N −M` of a file (`binary` for one git counts no lines of). */
function lines(f: FileChange): string {
  return f.added === null || f.removed === null ? 'binary' : `+${f.added} −${f.removed}`;
}

function changeSection(repo: string, change: RepoChangeSummary): string[] {
  const out = [`### What changed in ${repo}`, ''];
  const summary = change.summary?.trim();
  if (summary) {
    const cut = summary.length > AGENT_SUMMARY_MAX ? `${summary.slice(0, AGENT_SUMMARY_MAX - 1)}…` : summary;
    // The agent's words are its own: shown as text in a quote, never as Markdown of Conveyor's.
    out.push('The agent says:', '', ...cut.split(/\r\n?|\n/).map((l) => (l.trim() ? `> ${inlineText(l)}` : '>')), '');
  }
  if (change.files.length === 0) {
    out.push('No file differs from the base.', '');
    return out;
  }
  const added = change.files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = change.files.reduce((n, f) => n + (f.removed ?? 0), 0);
  out.push(`${change.files.length} file(s), +${added} −${removed}:`, '');
  for (const f of change.files.slice(0, FILES_SHOWN)) out.push(`- ${code(f.path)} ${lines(f)}`);
  const rest = change.files.slice(FILES_SHOWN);
  if (rest.length) {
    const restAdded = rest.reduce((n, f) => n + (f.added ?? 0), 0);
    const restRemoved = rest.reduce((n, f) => n + (f.removed ?? 0), 0);
    out.push(`- and ${rest.length} more file(s), +${restAdded} −${restRemoved} (the diff shows them all)`);
  }
  out.push('');
  return out;
}

export function pullRequestBody(input: PrBodyInput, current?: string): string {
  const { issue } = input;
  const title = oneLine(issue.title, 200);
  const lines = [
    PR_BODY_MARKER,
    // Only the PR in the issue's own repository closes it; the others belong to it.
    input.repo === issue.repo ? `Closes #${issue.number}: ${title}` : `Part of ${issue.repo}#${issue.number}: ${title}`,
    '',
  ];
  if (issue.url) lines.push(`Issue: ${issue.url}`, '');
  if (input.change) lines.push(...changeSection(input.repo, input.change));
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
  // Until the run's state is written here (the embedded mode does at its next change), the tracking comment has it.
  const status =
    input.status ??
    (current === undefined ? undefined : statusOf(current)) ??
    `Where the run stands, and how to approve it: the tracking comment on ${issue.repo}#${issue.number}.`;
  lines.push(statusSection(status), '', `<sub>Opened by Conveyor, run \`${input.runId}\`.</sub>`);
  const body = lines.join('\n');
  return body.length <= COMMENT_MAX ? body : fitComment(body);
}
