// The Markdown GitHub renders as nothing a reader sees, for hidden-html.ts: a fenced code block's
// info string (past its first word, which only picks the highlighting), a link's or an image's
// title (a tooltip), an image's description (its alt text, shown only when the image fails to
// load), link reference definitions (never rendered), and footnote definitions nothing refers to
// (GitHub renders a footnote only where a reference to it is). Each is found as CommonMark 0.31.2
// (GFM for footnotes) finds it where Conveyor can follow it, and hides more where it cannot. Pure.
import { fenceOpening } from './hidden-blocks.ts';
import type { Doc, Range } from './hidden-doc.ts';
import { commonMarkTagEnd } from './hidden-tags.ts';

const PUNCTUATION = /[!-/:-@[-`{-~]/;
/** A language name: what GitHub takes from an info string, kept for the reader of a prompt. */
const LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}(?=[ \t]|$)/;

/** What a line that may open a fence (`li`) hides of its info string, past the language word. */
export function fenceInfo(doc: Doc, li: number): Range | undefined {
  const at = doc.markersEnd(li);
  const { end } = doc.lines[li]!;
  const fence = fenceOpening(doc.text.slice(at, end));
  if (!fence) return undefined;
  let info = at + fence.size;
  while (doc.text[info] === ' ' || doc.text[info] === '\t') info++;
  const from = info + (LANGUAGE.exec(doc.text.slice(info, end))?.[0].length ?? 0);
  return from < end ? [from, end] : undefined;
}

/** Spaces and tabs with at most one line ending (past the next line's markers): a link's whitespace. */
function space(doc: Doc, pos: number): number {
  const { text } = doc;
  while (text[pos] === ' ' || text[pos] === '\t') pos++;
  if (text[pos] !== '\n' || doc.isBlank(doc.lineOf(pos + 1))) return pos;
  return doc.markersEnd(doc.lineOf(pos + 1));
}

/** Where a link destination starting at `pos` ends, or -1: `<…>` on one line, or a run without spaces and with balanced parentheses. */
function destinationEnd(doc: Doc, pos: number, empty: boolean): number {
  const { text } = doc;
  if (text[pos] === '<') {
    for (let p = pos + 1; p < doc.n; p++) {
      if (text[p] === '\\') p++;
      else if (text[p] === '>') return p + 1;
      else if (text[p] === '<' || text[p] === '\n') return -1;
    }
    return -1;
  }
  let depth = 0;
  let p = pos;
  for (; p < doc.n && text.charCodeAt(p) > 32 && text.charCodeAt(p) !== 127; p++) {
    if (text[p] === '\\' && PUNCTUATION.test(text[p + 1] ?? '')) p++;
    else if (text[p] === '(') depth++;
    else if (text[p] === ')' && depth-- === 0) break;
  }
  return (p === pos && !empty) || depth > 0 ? -1 : p;
}

/** Where a link title opening at `pos` ends (after its closing quote or parenthesis), or -1. */
function titleEnd(doc: Doc, pos: number): number {
  const { text } = doc;
  const open = text[pos];
  const close = open === '(' ? ')' : open;
  if (open !== '"' && open !== "'" && open !== '(') return -1;
  const limit = doc.paragraphLimit(pos);
  for (let p = pos + 1; p < limit; p++) {
    doc.work++;
    if (text[p] === '\\') p++;
    else if (text[p] === close) return p + 1;
    else if (open === '(' && text[p] === '(') return -1;
  }
  return -1;
}

/** The end (past its `)`) and the title of the inline link or image whose `](` is at `close`: `[a](url "title")`. */
function linkTail(doc: Doc, close: number): { end: number; title?: Range } | undefined {
  const dest = space(doc, close + 2);
  const after = destinationEnd(doc, dest, true);
  if (after < 0) return undefined;
  if (doc.text[space(doc, after)] === ')') return { end: space(doc, after) + 1 };
  const title = space(doc, after);
  const end = title > after ? titleEnd(doc, title) : -1;
  const paren = end > 0 ? space(doc, end) : -1;
  return paren > 0 && doc.text[paren] === ')' ? { end: paren + 1, title: [title, end] } : undefined;
}

/** The title of the inline link or image whose `](` is at `close`. */
export function linkTitle(doc: Doc, close: number): Range | undefined {
  return linkTail(doc, close)?.title;
}

/**
 * The description of the image whose `![` is at `bang`, to its `]`. Code, raw HTML or math may
 * hide that `]`: then to the paragraph's last `]`. With no `]`, `![` is text.
 */
export function imageDescription(doc: Doc, bang: number): Range | undefined {
  const { text } = doc;
  const limit = doc.paragraphLimit(bang);
  let depth = 1;
  for (let p = bang + 2; p < limit; p++) {
    doc.work++;
    const c = text[p];
    if (c === '\\') p++;
    else if (c === '`' || c === '<' || c === '$') {
      const last = text.lastIndexOf(']', limit - 1);
      return last > p ? [bang + 2, last] : undefined;
    } else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return [bang + 2, p];
  }
  return undefined;
}

/**
 * The link reference definition opening line `li` (`[label]: url "title"`), whole: GitHub
 * renders none. A title that does not end its line leaves the definition without one, and one
 * whose destination does not end its line either is no definition.
 */
export function referenceDefinition(doc: Doc, li: number): Range | undefined {
  const { text } = doc;
  const start = doc.markersEnd(li);
  if (text[start] !== '[' || text[start + 1] === '^') return undefined;
  let p = start + 1;
  let words = false;
  for (; p < doc.n && p - start <= 1000; p++) {
    const c = text[p]!;
    if (c === '\\') p++;
    else if (c === '[' || (c === '\n' && doc.isBlank(doc.lineOf(p + 1)))) return undefined;
    else if (c === ']') break;
    if (!/\s/.test(c)) words = true;
  }
  if (text[p] !== ']' || text[p + 1] !== ':' || !words) return undefined;
  const dest = space(doc, p + 2);
  const after = destinationEnd(doc, dest, false);
  if (after < 0) return undefined;
  const restOfLine = (from: number) => {
    const { end } = doc.lines[doc.lineOf(from)]!;
    return /^[ \t]*$/.test(text.slice(from, end)) ? end : -1;
  };
  const title = space(doc, after);
  const end = title > after ? titleEnd(doc, title) : -1;
  const withTitle = end > 0 ? restOfLine(end) : -1;
  if (withTitle >= 0) return [start, withTitle];
  const bare = restOfLine(after);
  return bare >= 0 ? [start, bare] : undefined;
}

export interface FootnoteDefinition {
  label: string;
  range: Range;
}

const FOOTNOTE = /^\[\^([^\]\n]+)\]:/;
const FENCE_LINE = /^ {0,3}(?:`{3,}|~{3,})/;

/** Per text, for each line, the last line a footnote definition opened above it takes on from there. */
const runs = new WeakMap<Doc, Int32Array>();

/**
 * The last line a footnote definition whose first line is before `k` takes on from `k` (`k - 1`
 * when none): lines not blank, and blank ones when a line indented by four follows them, but not
 * a fence that ends it.
 */
function footnoteRun(doc: Doc, k: number): number {
  let run = runs.get(doc);
  if (!run) {
    const count = doc.lines.length;
    run = new Int32Array(count + 1);
    run[count] = count - 1;
    let nonBlank = count;
    for (let li = count - 1; li >= 0; li--) {
      if (!doc.isBlank(li)) {
        nonBlank = li;
        run[li] = FENCE_LINE.test(doc.lineText(li)) ? li - 1 : Math.max(li, run[li + 1]!);
      } else run[li] = nonBlank < count && /^(?: {4}|\t| {0,3}\t)/.test(doc.lineText(nonBlank)) ? run[nonBlank]! : li - 1;
    }
    runs.set(doc, run);
  }
  return run[k]!;
}

/** The footnote definition opening line `li` (`[^label]: text`), with the lines it takes on. */
export function footnoteDefinition(doc: Doc, li: number): FootnoteDefinition | undefined {
  const start = doc.markersEnd(li);
  const m = FOOTNOTE.exec(doc.text.slice(start, doc.lines[li]!.end));
  if (!m) return undefined;
  const last = Math.max(li, footnoteRun(doc, li + 1));
  return { label: m[1]!, range: [start, doc.lines[last]!.end] };
}

/**
 * The footnote references on line `li` GitHub surely renders: only on a line with nothing that
 * could make one text instead (code, raw HTML, math, an escape, a link's destination).
 */
export function footnoteReferences(doc: Doc, li: number): Array<{ label: string; at: number }> {
  const line = doc.lineText(li);
  if (/[`<\\$]|\]\(|\]\[/.test(line) || /^\[[^\]]*\]:/.test(doc.text.slice(doc.markersEnd(li), doc.lines[li]!.end))) return [];
  const { start } = doc.lines[li]!;
  return [...line.matchAll(/(?<![!\]])\[\^([^\]\s]+)\](?!:)/g)].map((m) => ({ label: m[1]!, at: start + m.index }));
}

/** Whether `at` lies in one of `ranges` (sorted by start, not overlapping). */
function within(ranges: Range[], at: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid]![1] <= at) lo = mid + 1;
    else if (ranges[mid]![0] > at) hi = mid - 1;
    else return true;
  }
  return false;
}

/**
 * The footnote definitions GitHub does not render: those no reference names from outside
 * `hidden` (sorted, merged) and outside every definition, and those sharing a label.
 */
export function unreferencedFootnotes(defs: FootnoteDefinition[], refs: Array<{ label: string; at: number }>, hidden: Range[]): Range[] {
  const key = (label: string) => (/^[\x21-\x7e]+$/.test(label) ? label.toLowerCase() : undefined);
  const count = new Map<string, number>();
  for (const d of defs) {
    const k = key(d.label);
    if (k) count.set(k, (count.get(k) ?? 0) + 1);
  }
  const spans: Range[] = [];
  for (const { range } of [...defs].sort((a, b) => a.range[0] - b.range[0])) {
    const last = spans.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else spans.push([...range]);
  }
  const referenced = new Set(refs.filter((r) => !within(hidden, r.at) && !within(spans, r.at)).map((r) => key(r.label)));
  return defs.filter((d) => !(key(d.label) && count.get(key(d.label)!) === 1 && referenced.has(key(d.label)))).map((d) => d.range);
}

/** Where an autolink (`<scheme:…>`, `<user@host>`) at `p` ends, or -1. */
function autolinkEnd(text: string, p: number, lineEnd: number): number {
  let q = p + 1;
  while (q < lineEnd && text[q] !== '>' && text[q] !== '<' && text.charCodeAt(q) > 32) q++;
  if (text[q] !== '>') return -1;
  const inner = text.slice(p + 1, q);
  const uri = /^[A-Za-z][A-Za-z0-9+.-]{1,31}:/.test(inner);
  const email = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/.test(
    inner,
  );
  return uri || email ? q + 1 : -1;
}

/** Where CommonMark's inline raw HTML at `p` ends, if it ends on its line; -1 where there is none, or it runs on. */
function inlineRawEnd(doc: Doc, p: number, lineEnd: number): number {
  const { text } = doc;
  const within = (needle: string, from: number) => {
    const at = doc.find(needle, from);
    return at >= 0 && at + needle.length <= lineEnd ? at + needle.length : -1;
  };
  if (text.startsWith('<!--', p)) return within('-->', p + 2);
  if (text.startsWith('<?', p)) return within('?>', p + 2);
  if (text.startsWith('<![CDATA[', p)) return within(']]>', p + 9);
  if (text[p + 1] === '!') return /[A-Za-z]/.test(text[p + 2] ?? '') ? within('>', p + 2) : -1;
  const end = Math.max(commonMarkTagEnd(doc, p), autolinkEnd(text, p, lineEnd));
  return end <= lineEnd ? end : -1;
}

/** Whether `i` lies in a code span of a paragraph that starts at `from` and holds `i`'s line (false where unsure). */
function inSpanFrom(doc: Doc, from: number, i: number, lineEnd: number): boolean {
  const { text } = doc;
  /** Whether a bare URL at `p` (which GitHub links up to a space or `<`) leaves every backtick alone. */
  const bareUrl = (p: number) => !/^[^\s<]*`/.test(text.slice(p, doc.lines[doc.lineOf(p)]!.end));
  for (let p = from; p < i;) {
    doc.work++;
    const c = text[p]!;
    // Math may hold a backtick: whether it does is not followed.
    if (c === '$') return false;
    if ((text.startsWith('://', p) || /^www\./i.test(text.slice(p, p + 4))) && !bareUrl(p)) return false;
    if (c === '\\') p += PUNCTUATION.test(text[p + 1] ?? '') ? 2 : 1;
    else if (c === ']' && (text[p + 1] === '(' || text[p + 1] === '[')) {
      // A link's destination, title or label, or text: the same either way when it holds no
      // backtick, raw HTML, escape, math or cell boundary, and ends on its line.
      const end = text[p + 1] === '(' ? (linkTail(doc, p)?.end ?? -1) : text.indexOf(']', p + 2) + 1;
      const tail = end > 0 ? text.slice(p, end) : '';
      if (end <= 0 || end > doc.lines[doc.lineOf(p)]!.end || /[`<\\\n$|]|\[.*\[/.test(tail) || (/:\/\/|www\./i.test(tail) && !bareUrl(end))) return false;
      p = end;
    } else if (c === '<') {
      const end = inlineRawEnd(doc, p, doc.lines[doc.lineOf(p)]!.end);
      if (end < 0) p++;
      else if (end > i) return false;
      else p = end;
    } else if (c === '`') {
      let k = 1;
      while (text[p + k] === '`') k++;
      let q = doc.nextTick(p + k);
      let closer = -1;
      while (q < lineEnd) {
        let m = 1;
        while (text[q + m] === '`') m++;
        if (m === k) {
          closer = q;
          break;
        }
        q = doc.nextTick(q + m);
      }
      // No closer on the line, or one past a `|` that may end a table's cell first: not sure.
      if (closer < 0 || text.slice(p, closer).includes('|')) return false;
      if (i < closer) return true;
      p = closer + k;
    } else p++;
  }
  return false;
}

const SPAN_LINES = 12;

/**
 * Whether the `<` at `i`, in a paragraph, surely lies in a code span, where it is text. The
 * paragraph may start on any line since the last blank one: it must hold for each (and there must
 * be few), and a span must close on `i`'s line.
 */
export function surelyInCodeSpan(doc: Doc, i: number): boolean {
  const li = doc.lineOf(i);
  const first = doc.prevBlank(li) + 1;
  const { end } = doc.lines[li]!;
  if (li - first > SPAN_LINES || doc.nextTick(i) >= end || doc.nextTick(doc.lines[first]!.start) >= i) return false;
  for (let start = li; start >= first; start--) if (!inSpanFrom(doc, doc.lines[start]!.start, i, end)) return false;
  return true;
}
