// Markdown pieces of a step's summary. Everything that came from a command passes the scrubber
// before it gets here.
import { code } from '../../core/text.ts';
import type { Workspace } from './workspace.ts';

/** A fenced text block no backticks in `text` can close. */
export { fence as fenced } from '../../core/prompts/prompt.ts';

/** The last `maxLines` lines, at most `maxChars` characters. */
export function tail(text: string, maxLines = 40, maxChars = 4000): string {
  const lines = text.trimEnd().split('\n');
  const kept = lines.slice(-maxLines).join('\n');
  return kept.length > maxChars ? `…${kept.slice(-maxChars)}` : kept;
}

const BASE_MERGE: Record<string, string> = {
  'new-branch': 'new branch from base',
  'up-to-date': 'resumed, base already in',
  merged: 'resumed, base merged in',
  conflict: 'resumed, **base does not merge cleanly: left unmerged**',
  'not-merged': 'resumed',
};

export function workspaceTable(ws: Workspace, extra?: (repo: string) => string): string {
  const rows = ws.repos.map((r) => {
    const state = r.checkedOut === r.workBranch ? BASE_MERGE[r.baseMerge] : `on base ${code(r.base, { table: true })} (no work branch yet)`;
    return `| ${r.repo} | ${r.role} | ${code(r.checkedOut, { table: true })} | ${state} |${extra ? ` ${extra(r.repo)} |` : ''}`;
  });
  const head = `| repository | role | branch | state |${extra ? ' result |' : ''}`;
  const rule = `| --- | --- | --- | --- |${extra ? ' --- |' : ''}`;
  return [head, rule, ...rows].join('\n');
}
