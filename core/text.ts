// Text from outside the run (issue and comment bodies, what agents and commands print) on its way
// into what people read on GitHub: what a reader cannot see is taken out, and what would be read
// as Markdown, HTML or an @mention is shown as the characters it is.
import { stripHiddenHtml } from './hidden-html.ts';

/**
 * Text shown as it is inside a Markdown line (a table cell, a list item, a heading): line breaks
 * become spaces; Markdown, HTML and @mentions are escaped, so an agent's output cannot add links,
 * images, markup, hidden comments or notifications to what Conveyor writes.
 */
export function inlineText(text: string): string {
  return (
    text
      .replace(/\r\n?|\n/g, ' ')
      // What opens markup within a line (a heading's # or a list's - only count at a line's start, which inline text never is).
      .replace(/[\\`*_{}[\]()|~]/g, (c) => `\\${c}`)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/@/g, '&#64;')
  );
}

/**
 * An http(s) URL fit for a Markdown link target, or undefined for anything else (`javascript:`,
 * `data:`, relative or malformed): parsed and printed again, with what would end the link escaped.
 */
export function safeLinkTarget(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  return parsed.href.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Cuts text to `max` characters, ending with a note that says how much was cut and where the rest
 * is; text that fits is returned as it is.
 */
export function fitText(text: string, max: number, rest: string): string {
  if (text.length <= max) return text;
  const note = `\n\n…(cut to fit GitHub's limit of ${max} characters; ${rest})`;
  if (note.length >= max) return text.slice(0, max);
  return `${text.slice(0, max - note.length)}${note}`;
}

/**
 * Removes what GitHub renders as nothing (raw HTML comments, processing instructions, declarations
 * and CDATA, tags' attributes, what `<script>` and its like hold, link titles, image descriptions,
 * reference definitions, footnotes nothing refers to, see hidden-html.ts), then invisible/format
 * and bidi characters, and control characters other than newline and tab. Fenced code is kept as
 * written, a reader sees it, but for its info string past the language word.
 */
export function sanitizeIssueText(text: string): string {
  return (
    stripHiddenHtml(text)
      // \p{Cf}: zero-width spaces and joiners, bidi embeddings/overrides/isolates, BOM, soft
      // hyphen, tag characters; plus variation selectors and the other default-ignorables.
      .replace(/\p{Cf}/gu, '')
      .replace(/[\u034F\u115F\u1160\u3164\uFFA0]/g, '')
      .replace(/[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}]/gu, '')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '')
  );
}

/** A fenced code block that no run of backticks inside `text` can close. */
export function fence(text: string, lang = 'text'): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/**
 * A code span (CommonMark 6.1) that shows `text` exactly, whatever backticks it holds: delimited by
 * one backtick more than its longest run, padded with a space where it starts or ends with a
 * backtick (or a space, which the padding would otherwise eat). Line breaks become spaces, as a
 * code span shows them anyway, so the span stays on its line. `table`: the span sits in a table
 * cell, where GitHub splits at a `|` even inside code unless it is escaped (and shows `\|` as `|`).
 * Empty text has no code span: it is said in words.
 */
export function code(text: string, options: { table?: boolean } = {}): string {
  let body = text.replace(/\r\n?|\n/g, ' ');
  if (options.table) body = body.replace(/\|/g, '\\|');
  if (body === '') return '(empty)';
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(body) && body.trim() !== '' ? ' ' : '';
  return `${ticks}${pad}${body}${pad}${ticks}`;
}
