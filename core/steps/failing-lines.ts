// What a repair agent gets from a failed gate: the lines of each repository's output that report
// failures and errors, plus the last lines (where most tools print their verdict), bounded in size
// so a noisy test suite cannot flood the prompt. Pure: the caller scrubs secrets first.
import { code, fence } from '../text.ts';

/** Lines that look like a failure or an error report in common test runners and compilers. */
const FAILURE_LINE =
  /\b(fail(s|ed|ure|ures|ing)?|errors?|exception|panic(ked)?|fatal|assert(ion)?(error)?|traceback|not ok|expected|received|undefined reference|segmentation fault)\b|[✗✕✘×]|^\s*E\s{2,}|^\s*at .+:\d+:\d+\)?$/i;
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
const MAX_LINE_CHARS = 400;
const GAP = '…';

export interface FailingLinesOptions {
  /** How many of the last non-empty lines are always kept (default 15). */
  tailLines?: number;
  /** Upper bound of the result in UTF-8 bytes (default 8192). */
  maxBytes?: number;
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} ${GAP}` : line;
}

/** Cuts text to at most maxBytes UTF-8 bytes without splitting a character. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (bytes(text) <= maxBytes) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const b = bytes(ch);
    if (used + b > maxBytes) break;
    out += ch;
    used += b;
  }
  return out;
}

/** A TAP failure (node --test, tap, prove): its indented block after it holds the actual values. */
const NOT_OK = /^(\s*)not ok\b/;
/** Lines of a failure's detail block beyond this many are left out (the stack comes last). */
const MAX_BLOCK_LINES = 40;

const indentOf = (line: string): number => line.length - line.trimStart().length;

/**
 * The lines that belong to a failure: a `not ok` line with the indented detail block that follows
 * it (TAP's YAML diagnostics: error, expected, actual, operator, stack, up to its `...`), or a
 * single failure line.
 */
function failureGroups(lines: readonly string[]): number[][] {
  const groups: number[][] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const tap = NOT_OK.exec(line);
    if (tap) {
      const indent = (tap[1] ?? '').length;
      const group = [i];
      let j = i + 1;
      for (; j < lines.length; j++) {
        const next = lines[j] ?? '';
        if (next.trim() && indentOf(next) <= indent) break;
        if (group.length < MAX_BLOCK_LINES && next.trim()) group.push(j);
        if (next.trim() === '...') {
          j++;
          break;
        }
      }
      groups.push(group);
      i = j - 1;
    } else if (line.trim() && FAILURE_LINE.test(line)) {
      groups.push([i]);
    }
  }
  return groups;
}

/**
 * The failing lines of one command's output, in their original order, with `…` where lines were
 * left out. The tail is kept first (half the budget at most), then failures from the top, each
 * with its detail block when it has one: the first error is most often the cause of the rest.
 */
export function failingLines(output: string, options: FailingLinesOptions = {}): string {
  const tailLines = options.tailLines ?? 15;
  const maxBytes = options.maxBytes ?? 8192;
  if (maxBytes <= 0) return '';
  const lines = output
    .replace(ANSI, '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => clip(l.trimEnd()));
  const nonEmpty = lines.map((l, i) => (l.trim() ? i : -1)).filter((i) => i >= 0);
  const keep = new Set<number>();
  let used = 0;
  // Tail: the last lines, newest first, up to half the budget.
  for (const i of nonEmpty.slice(-tailLines).reverse()) {
    const cost = bytes(lines[i] ?? '') + 1;
    if (used + cost > maxBytes / 2) break;
    keep.add(i);
    used += cost;
  }
  // Failures from the top, while they fit (gap markers cost a line each); a block that does not
  // fit whole keeps its first lines.
  let full = false;
  for (const group of failureGroups(lines)) {
    for (const i of group) {
      if (keep.has(i)) continue;
      const cost = bytes(lines[i] ?? '') + 1 + GAP.length + 3;
      if (used + cost > maxBytes) {
        full = true;
        break;
      }
      keep.add(i);
      used += cost;
    }
    if (full) break;
  }
  const ordered = [...keep].sort((a, b) => a - b);
  const out: string[] = [];
  let previous = -1;
  // A gap is marked only where a non-empty line was left out (blank lines are not worth a mark).
  const leftOutBetween = (from: number, to: number): boolean => {
    for (let j = from + 1; j < to; j++) if (lines[j]?.trim()) return true;
    return false;
  };
  for (const i of ordered) {
    if (previous >= 0 && leftOutBetween(previous, i)) out.push(GAP);
    else if (previous < 0 && i > (nonEmpty[0] ?? 0)) out.push(GAP);
    out.push(lines[i] ?? '');
    previous = i;
  }
  return truncateBytes(out.join('\n'), maxBytes);
}

export interface GateOutcome {
  repo: string;
  command: string;
  exitCode: number | null;
  timedOut?: boolean;
  output: string;
}

/**
 * Markdown findings of a failed gate: one section per failing repository naming it, its command
 * and exit, and its failing lines in a block no backticks of theirs can close (a gate that printed
 * nothing says so in words: an empty block reads as a rendering fault); the byte budget is shared
 * evenly between failing repositories.
 */
export function gateFindings(outcomes: readonly GateOutcome[], maxBytes = 8192): string {
  const failed = outcomes.filter((o) => o.exitCode !== 0);
  if (failed.length === 0) return '';
  const share = Math.floor(maxBytes / failed.length);
  const sections = failed.map((o) => {
    const how = o.timedOut ? 'timed out' : `exit ${o.exitCode ?? 'signal'}`;
    const head = `### ${o.repo}: ${code(o.command.split('\n')[0] ?? '')} (${how})\n`;
    // The fence's length depends on the backticks inside: cut again by what it took past the share.
    let room = Math.max(0, share - bytes(head) - 16);
    for (;;) {
      const lines = failingLines(o.output, { maxBytes: room });
      if (!lines.trim()) return `${head}It printed nothing.\n`;
      const section = `${head}${fence(lines)}\n`;
      const over = bytes(section) + 1 - share;
      if (over <= 0 || room === 0) return section;
      room = Math.max(0, room - over);
    }
  });
  return truncateBytes(sections.join('\n'), maxBytes);
}
