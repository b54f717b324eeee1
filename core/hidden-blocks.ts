// How a line of Markdown opens a block, as CommonMark 0.31.2 says, for hidden-html.ts: the raw HTML
// forms GitHub renders as nothing, the kinds of HTML block, fences and containers. Pure.

export type HiddenForm = 'comment' | 'instruction' | 'declaration' | 'cdata';

/** A line that opens a block quote, a list item or a footnote (after up to three columns). */
export const CONTAINER = /^(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)|\[\^[^\]\s]*\]:)/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;
export const KIND_1 = /^<(?:pre|script|style|textarea)(?:[ \t>]|$)/i;
export const KIND_1_END = /<\/(?:pre|script|style|textarea)>/i;
export const KIND_6 =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t>]|\/>|$)/i;
const ATTRIBUTE = `[ \\t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \\t]*=[ \\t]*(?:[^ \\t"'=<>\`]+|'[^']*'|"[^"]*"))?`;
/** CommonMark's kind 7: one complete open or closing tag alone on its line. */
export const KIND_7 = new RegExp(
  `^(?:<(?!(?:pre|script|style|textarea)(?![A-Za-z0-9-]))[A-Za-z][A-Za-z0-9-]*(?:${ATTRIBUTE})*[ \\t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \\t]*>)[ \\t]*$`,
  'i',
);
/** The form that opens at `i`, if one does. */
export function hiddenFormAt(text: string, i: number): HiddenForm | undefined {
  if (text[i] !== '<') return undefined;
  if (text[i + 1] === '?') return 'instruction';
  if (text[i + 1] !== '!') return undefined;
  if (text.startsWith('--', i + 2)) return 'comment';
  if (text.startsWith('[CDATA[', i + 2)) return 'cdata';
  return /[A-Za-z]/.test(text[i + 2] ?? '') ? 'declaration' : undefined;
}

/** Columns of a line's indentation (a tab to the next multiple of four) and where its text starts. */
export function indentation(line: string): { cols: number; offset: number } {
  let cols = 0;
  let offset = 0;
  for (; offset < line.length; offset++) {
    if (line[offset] === ' ') cols++;
    else if (line[offset] === '\t') cols += 4 - (cols % 4);
    else break;
  }
  return { cols, offset };
}

export function fenceOpening(content: string): { char: string; size: number } | undefined {
  const m = FENCE.exec(content);
  if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) return undefined;
  return { char: m[1]![0]!, size: m[1]!.length };
}

/** List markers (each followed by 1–4 spaces: 5 would make indented code) before a fence. */
export const LIST_FENCE = /^ {0,3}(?:(?:[-+*]|\d{1,9}[.)]) {1,4}(?! ))+(?=`{3}|~{3})/;
