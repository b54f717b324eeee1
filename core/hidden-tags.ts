// Raw HTML tags in Markdown, for hidden-html.ts. GitHub shows nothing of a tag but what it
// encloses: its attributes are gone or kept as attributes (a title is a tooltip, an alt text shows
// only when an image fails), never as text. And some elements show nothing of what they enclose
// either: GitHub's sanitizer removes `<script>` with its content and `<noscript>` whole; the others
// here are read by a browser as raw text or kept out of the page (`<template>`), and Conveyor does
// not bet on which of them GitHub shows.
//
// Two readings, as for the other raw HTML. In a paragraph a tag is raw HTML only where CommonMark
// 0.31.2 ("Raw HTML") matches one, else it is text a reader sees. In an HTML block a browser reads
// every `<` and letter as a tag, to its first `>` outside a quoted attribute value. Pure.
import type { Doc, Range, Rule } from './hidden-doc.ts';

/** Elements whose content GitHub may show nothing of. */
const HIDDEN_CONTENT = new Set(['iframe', 'noembed', 'noframes', 'noscript', 'plaintext', 'script', 'style', 'template', 'xmp']);
/** Of those, the ones a browser ends at their first end tag (raw text, or `<script>` with its escapes). */
const RAW_TEXT = new Set(['iframe', 'noembed', 'noframes', 'script', 'style', 'xmp']);

export interface Tag {
  close: boolean;
  /** The tag name as a browser reads it, lower-cased. */
  name: string;
  /** Where the name ends: the attributes start there. */
  nameEnd: number;
}

const letter = (c: string | undefined) => c !== undefined && /[A-Za-z]/.test(c);
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\f';

/** The tag opening at `i` (`<name` or `</name`), if one does. */
export function tagAt(text: string, i: number): Tag | undefined {
  if (text[i] !== '<') return undefined;
  const close = text[i + 1] === '/';
  const start = i + (close ? 2 : 1);
  if (!letter(text[start])) return undefined;
  let end = start + 1;
  while (end < text.length && !isSpace(text[end]) && text[end] !== '/' && text[end] !== '>') end++;
  return { close, name: text.slice(start, end).toLowerCase(), nameEnd: end };
}

/** Whether an element opened by `tag` hides what it encloses. */
function hidesContent(tag: Tag): boolean {
  return !tag.close && HIDDEN_CONTENT.has(tag.name);
}

/** CommonMark's whitespace inside a tag: spaces and tabs with at most one line ending (and with `markers`, the next line's). */
function space(doc: Doc, pos: number, markers: boolean): number {
  const { text } = doc;
  while (text[pos] === ' ' || text[pos] === '\t') pos++;
  if (text[pos] !== '\n') return pos;
  if (markers) return doc.markersEnd(doc.lineOf(pos + 1));
  pos++;
  while (text[pos] === ' ' || text[pos] === '\t') pos++;
  return pos;
}

/**
 * Where CommonMark's open or closing tag at `i` ends (after its `>`), or -1 where none matches:
 * a tag name, attributes each after whitespace, values unquoted or quoted (a quoted one may span
 * lines, but no blank line: the paragraph would end there). With `markers`, the paragraph is in a
 * block quote or list item, whose markers on the lines after are not its text.
 */
export function commonMarkTagEnd(doc: Doc, i: number, markers = false): number {
  const { text } = doc;
  let pos = i + 1;
  const close = text[pos] === '/';
  if (close) pos++;
  if (!letter(text[pos])) return -1;
  while (pos < text.length && /[A-Za-z0-9-]/.test(text[pos]!)) pos++;
  if (close) {
    pos = space(doc, pos, markers);
    return text[pos] === '>' ? pos + 1 : -1;
  }
  for (;;) {
    const next = space(doc, pos, markers);
    if (text[next] === '>') return next + 1;
    if (text.startsWith('/>', next)) return next + 2;
    if (next === pos || !/[A-Za-z_:]/.test(text[next] ?? '')) return -1;
    pos = next + 1;
    while (pos < text.length && /[A-Za-z0-9_.:-]/.test(text[pos]!)) pos++;
    const eq = space(doc, pos, markers);
    if (text[eq] !== '=') continue;
    const value = space(doc, eq + 1, markers);
    const quote = text[value];
    if (quote === '"' || quote === "'") {
      const end = doc.find(quote, value + 1);
      if (end < 0 || doc.crossesBlank(value, end)) return -1;
      pos = end + 1;
    } else {
      let end = value;
      while (end < text.length && !/[ \t\n"'=<>`]/.test(text[end]!)) end++;
      if (end === value) return -1;
      pos = end;
    }
  }
}

/**
 * Where a browser ends the tag whose name ends at `from`: after its first `>` outside a quoted
 * attribute value, or the end of the text. `limit` is where the raw HTML around it ends: a quoted
 * value still open there runs into what Markdown writes of the lines after, whose quotes Conveyor
 * cannot see, so it takes the rest. With `markers`, a line's block quote and list markers are
 * skipped: Markdown, not the tag's.
 */
export function browserTagEnd(doc: Doc, from: number, limit: number, markers: boolean): number {
  const { text, n } = doc;
  let pos = from;
  const skip = (slash: boolean) => {
    while (pos < n) {
      const c = text[pos];
      if (c === '\n' && markers) pos = doc.markersEnd(doc.lineOf(pos + 1));
      else if (isSpace(c) || (slash && c === '/')) pos++;
      else break;
    }
  };
  for (;;) {
    skip(true);
    if (pos >= n) return n;
    if (text[pos] === '>') return pos + 1;
    // An attribute's name (its first character may be `=`), then its value if `=` follows.
    pos++;
    while (pos < n && !isSpace(text[pos]) && !'/>='.includes(text[pos]!)) pos++;
    skip(false);
    if (text[pos] !== '=') continue;
    pos++;
    skip(false);
    const quote = text[pos];
    if (quote === '"' || quote === "'") {
      const end = doc.find(quote, pos + 1);
      if (end < 0 || end >= limit) return n;
      pos = end + 1;
    } else if (quote === '>') return pos + 1;
    else while (pos < n && !isSpace(text[pos]) && text[pos] !== '>') pos++;
  }
}

/** Whether the end tag of `name` is at `p` as a browser reads one (`</name` and a space, `/` or `>`). */
function endTagAt(text: string, p: number, name: string): boolean {
  if (text[p] !== '<' || text[p + 1] !== '/') return false;
  const after = text[p + 2 + name.length];
  return text.slice(p + 2, p + 2 + name.length).toLowerCase() === name && (isSpace(after) || after === '/' || after === '>');
}

/** Where `<script>`'s content ends as a browser reads it (`<!--` and a nested `<script>` escape an end tag). */
function scriptEnd(text: string, from: number, limit: number): number {
  let state: 'data' | 'escaped' | 'double' = 'data';
  for (let p = from; p < limit; p++) {
    const c = text[p];
    if (c === '-' && state !== 'data' && text.startsWith('-->', p)) {
      state = 'data';
      p += 2;
    } else if (c !== '<') continue;
    else if (state === 'data' && text.startsWith('<!--', p)) {
      // Its dashes may be those of `-->` as well: `<!-->` escapes nothing.
      state = 'escaped';
      p += 1;
    } else if (endTagAt(text, p, 'script')) {
      if (state !== 'double') return p;
      state = 'escaped';
    } else if (state === 'escaped' && text.slice(p + 1, p + 7).toLowerCase() === 'script' && (isSpace(text[p + 7]) || '/>'.includes(text[p + 7] ?? ''))) {
      state = 'double';
    }
  }
  return -1;
}

/**
 * Where the content of the element `name`, opened with a tag ending at `from`, ends: the start of
 * its end tag at or before `limit`, or -1 when it has none there. An element whose content a
 * browser reads as markup may hold its own end tag nested (in a script, say): the last one before
 * `limit` is as far as it can reach.
 */
export function contentEnd(doc: Doc, name: string, from: number, limit: number): number {
  const { text } = doc;
  limit = Math.min(limit, doc.n);
  if (name === 'plaintext') return -1;
  if (name === 'script') {
    doc.work += limit - from;
    return scriptEnd(text, from, limit);
  }
  let last = -1;
  for (let p = doc.find('</', from); p >= 0 && p < limit; p = text.indexOf('</', p + 2)) {
    doc.work++;
    if (!endTagAt(text, p, name)) continue;
    if (RAW_TEXT.has(name)) return p;
    last = p;
  }
  return last;
}

/** Text between a paragraph's `<script>` and an end tag that might not be raw HTML: code, an escape, math, a link, indented code after an interruption. */
const NOT_SURELY_RAW = /[`\\$~\]]|\n(?: {4}|\t| {0,3}\t)/;

/**
 * What the tag at `i` hides, read as `rule` says (`raw`: whether a browser may read it as raw
 * HTML, which a line read loosely may be): its attributes (up to its `>`) and, for an element that
 * hides its content, that content up to its end tag. In a paragraph, an end tag Markdown may have
 * turned into text (in code, after an escape) ends nothing, so an element it would close runs to
 * the end of the text, as does one never closed.
 */
export function tagRanges(doc: Doc, rule: Rule, tag: Tag, i: number, raw: boolean): Range[] {
  const { text, n } = doc;
  const ranges: Range[] = [];
  const add = (end: number, limit: number, paragraph: boolean) => {
    if (end < 0) return;
    ranges.push([tag.nameEnd, text[end - 1] === '>' ? end - 1 : end]);
    if (!hidesContent(tag) || end >= n) return;
    let close = contentEnd(doc, tag.name, end, limit);
    if (close >= 0 && paragraph) {
      doc.work += close - end;
      if (NOT_SURELY_RAW.test(text.slice(end, close))) close = -1;
    }
    ranges.push([end, close < 0 ? n : close]);
  };
  if (rule.kind !== 'raw') {
    const limit = doc.paragraphLimit(i);
    add(commonMarkTagEnd(doc, i), limit, true);
    if (rule.kind === 'loose') add(commonMarkTagEnd(doc, i, true), limit, true);
  }
  if (raw && rule.kind !== 'paragraph') {
    const limit = rule.kind === 'raw' ? rule.extent : rule.lineEnd;
    add(browserTagEnd(doc, tag.nameEnd, limit, rule.kind === 'loose'), limit, false);
  }
  return ranges;
}
