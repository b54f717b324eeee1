import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  splitRepo
} from "./chunk-ZQDVONEP.js";

// core/hidden-doc.ts
var MARKERS = /^(?:[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))*[ \t]*/;
var Doc = class {
  constructor(text) {
    this.text = text;
    this.n = text.length;
    for (let start = 0; ; ) {
      const nl = text.indexOf("\n", start);
      this.lines.push({ start, end: nl < 0 ? this.n : nl });
      if (nl < 0) break;
      start = nl + 1;
    }
    const count = this.lines.length;
    this.blankAfter = new Array(count + 1).fill(count);
    this.blankBefore = new Array(count).fill(-1);
    for (let li = count - 1; li >= 0; li--) this.blankAfter[li] = this.isBlank(li) ? li : this.blankAfter[li + 1];
    for (let li = 1; li < count; li++) this.blankBefore[li] = this.isBlank(li - 1) ? li - 1 : this.blankBefore[li - 1];
  }
  text;
  n;
  lines = [];
  /** Steps the scan has spent on searches it could not reuse; past a bound it hides the rest instead. */
  work = 0;
  blankAfter;
  blankBefore;
  found = /* @__PURE__ */ new Map();
  ticks;
  lineText(li) {
    return this.text.slice(this.lines[li].start, this.lines[li].end);
  }
  isBlank(li) {
    return /^[ \t]*$/.test(this.lineText(li));
  }
  /** The first blank line at `li` or after it (the number of lines when none is). */
  nextBlank(li) {
    return this.blankAfter[Math.min(li, this.lines.length)];
  }
  /** The last blank line before `li` (-1 when none is). */
  prevBlank(li) {
    return this.blankBefore[li];
  }
  /** Where the paragraph holding `pos` ends at the latest: the start of the next blank line, or the end. */
  paragraphLimit(pos) {
    const blank = this.nextBlank(this.lineOf(pos) + 1);
    return blank < this.lines.length ? this.lines[blank].start : this.n;
  }
  /** Whether a blank line lies between `from` and `to` (a paragraph cannot hold one). */
  crossesBlank(from, to) {
    return this.nextBlank(this.lineOf(from) + 1) < this.lineOf(to);
  }
  lineOf(pos) {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = lo + hi + 1 >> 1;
      if (this.lines[mid].start <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  /** Where the text of line `li` starts past its block quote and list markers and its indentation. */
  markersEnd(li) {
    return this.lines[li].start + MARKERS.exec(this.lineText(li))[0].length;
  }
  /** `text.indexOf(needle, from)`, reusing the last answer for that needle where it still holds. */
  find(needle, from) {
    const last = this.found.get(needle);
    if (last && last.from <= from && (last.at === -1 || last.at >= from)) return last.at;
    const at = this.text.indexOf(needle, from);
    this.found.set(needle, { from, at });
    return at;
  }
  /** The first backtick at `pos` or after it (`n` when none is). */
  nextTick(pos) {
    if (!this.ticks) {
      this.ticks = new Int32Array(this.n + 1).fill(this.n);
      for (let p = this.n - 1; p >= 0; p--) this.ticks[p] = this.text[p] === "`" ? p : this.ticks[p + 1];
    }
    return this.ticks[Math.min(Math.max(pos, 0), this.n)];
  }
};

// core/hidden-blocks.ts
var CONTAINER = /^(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)|\[\^[^\]\s]*\]:)/;
var FENCE = /^(`{3,}|~{3,})(.*)$/;
var KIND_1 = /^<(?:pre|script|style|textarea)(?:[ \t>]|$)/i;
var KIND_1_END = /<\/(?:pre|script|style|textarea)>/i;
var KIND_6 = /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t>]|\/>|$)/i;
var ATTRIBUTE = `[ \\t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \\t]*=[ \\t]*(?:[^ \\t"'=<>\`]+|'[^']*'|"[^"]*"))?`;
var KIND_7 = new RegExp(
  `^(?:<(?!(?:pre|script|style|textarea)(?![A-Za-z0-9-]))[A-Za-z][A-Za-z0-9-]*(?:${ATTRIBUTE})*[ \\t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \\t]*>)[ \\t]*$`,
  "i"
);
function hiddenFormAt(text, i) {
  if (text[i] !== "<") return void 0;
  if (text[i + 1] === "?") return "instruction";
  if (text[i + 1] !== "!") return void 0;
  if (text.startsWith("--", i + 2)) return "comment";
  if (text.startsWith("[CDATA[", i + 2)) return "cdata";
  return /[A-Za-z]/.test(text[i + 2] ?? "") ? "declaration" : void 0;
}
function indentation(line) {
  let cols = 0;
  let offset = 0;
  for (; offset < line.length; offset++) {
    if (line[offset] === " ") cols++;
    else if (line[offset] === "	") cols += 4 - cols % 4;
    else break;
  }
  return { cols, offset };
}
function fenceOpening(content) {
  const m = FENCE.exec(content);
  if (!m || m[1][0] === "`" && m[2].includes("`")) return void 0;
  return { char: m[1][0], size: m[1].length };
}
var LIST_FENCE = /^ {0,3}(?:(?:[-+*]|\d{1,9}[.)]) {1,4}(?! ))+(?=`{3}|~{3})/;

// core/hidden-tags.ts
var HIDDEN_CONTENT = /* @__PURE__ */ new Set(["iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "template", "xmp"]);
var RAW_TEXT = /* @__PURE__ */ new Set(["iframe", "noembed", "noframes", "script", "style", "xmp"]);
var letter = (c) => c !== void 0 && /[A-Za-z]/.test(c);
var isSpace = (c) => c === " " || c === "	" || c === "\n" || c === "\f";
function tagAt(text, i) {
  if (text[i] !== "<") return void 0;
  const close = text[i + 1] === "/";
  const start = i + (close ? 2 : 1);
  if (!letter(text[start])) return void 0;
  let end = start + 1;
  while (end < text.length && !isSpace(text[end]) && text[end] !== "/" && text[end] !== ">") end++;
  return { close, name: text.slice(start, end).toLowerCase(), nameEnd: end };
}
function hidesContent(tag) {
  return !tag.close && HIDDEN_CONTENT.has(tag.name);
}
function space(doc, pos, markers) {
  const { text } = doc;
  while (text[pos] === " " || text[pos] === "	") pos++;
  if (text[pos] !== "\n") return pos;
  if (markers) return doc.markersEnd(doc.lineOf(pos + 1));
  pos++;
  while (text[pos] === " " || text[pos] === "	") pos++;
  return pos;
}
function commonMarkTagEnd(doc, i, markers = false) {
  const { text } = doc;
  let pos = i + 1;
  const close = text[pos] === "/";
  if (close) pos++;
  if (!letter(text[pos])) return -1;
  while (pos < text.length && /[A-Za-z0-9-]/.test(text[pos])) pos++;
  if (close) {
    pos = space(doc, pos, markers);
    return text[pos] === ">" ? pos + 1 : -1;
  }
  for (; ; ) {
    const next = space(doc, pos, markers);
    if (text[next] === ">") return next + 1;
    if (text.startsWith("/>", next)) return next + 2;
    if (next === pos || !/[A-Za-z_:]/.test(text[next] ?? "")) return -1;
    pos = next + 1;
    while (pos < text.length && /[A-Za-z0-9_.:-]/.test(text[pos])) pos++;
    const eq = space(doc, pos, markers);
    if (text[eq] !== "=") continue;
    const value = space(doc, eq + 1, markers);
    const quote = text[value];
    if (quote === '"' || quote === "'") {
      const end = doc.find(quote, value + 1);
      if (end < 0 || doc.crossesBlank(value, end)) return -1;
      pos = end + 1;
    } else {
      let end = value;
      while (end < text.length && !/[ \t\n"'=<>`]/.test(text[end])) end++;
      if (end === value) return -1;
      pos = end;
    }
  }
}
function browserTagEnd(doc, from, limit, markers) {
  const { text, n } = doc;
  let pos = from;
  const skip = (slash) => {
    while (pos < n) {
      const c = text[pos];
      if (c === "\n" && markers) pos = doc.markersEnd(doc.lineOf(pos + 1));
      else if (isSpace(c) || slash && c === "/") pos++;
      else break;
    }
  };
  for (; ; ) {
    skip(true);
    if (pos >= n) return n;
    if (text[pos] === ">") return pos + 1;
    pos++;
    while (pos < n && !isSpace(text[pos]) && !"/>=".includes(text[pos])) pos++;
    skip(false);
    if (text[pos] !== "=") continue;
    pos++;
    skip(false);
    const quote = text[pos];
    if (quote === '"' || quote === "'") {
      const end = doc.find(quote, pos + 1);
      if (end < 0 || end >= limit) return n;
      pos = end + 1;
    } else if (quote === ">") return pos + 1;
    else while (pos < n && !isSpace(text[pos]) && text[pos] !== ">") pos++;
  }
}
function endTagAt(text, p, name) {
  if (text[p] !== "<" || text[p + 1] !== "/") return false;
  const after = text[p + 2 + name.length];
  return text.slice(p + 2, p + 2 + name.length).toLowerCase() === name && (isSpace(after) || after === "/" || after === ">");
}
function scriptEnd(text, from, limit) {
  let state = "data";
  for (let p = from; p < limit; p++) {
    const c = text[p];
    if (c === "-" && state !== "data" && text.startsWith("-->", p)) {
      state = "data";
      p += 2;
    } else if (c !== "<") continue;
    else if (state === "data" && text.startsWith("<!--", p)) {
      state = "escaped";
      p += 1;
    } else if (endTagAt(text, p, "script")) {
      if (state !== "double") return p;
      state = "escaped";
    } else if (state === "escaped" && text.slice(p + 1, p + 7).toLowerCase() === "script" && (isSpace(text[p + 7]) || "/>".includes(text[p + 7] ?? ""))) {
      state = "double";
    }
  }
  return -1;
}
function contentEnd(doc, name, from, limit) {
  const { text } = doc;
  limit = Math.min(limit, doc.n);
  if (name === "plaintext") return -1;
  if (name === "script") {
    doc.work += limit - from;
    return scriptEnd(text, from, limit);
  }
  let last = -1;
  for (let p = doc.find("</", from); p >= 0 && p < limit; p = text.indexOf("</", p + 2)) {
    doc.work++;
    if (!endTagAt(text, p, name)) continue;
    if (RAW_TEXT.has(name)) return p;
    last = p;
  }
  return last;
}
var NOT_SURELY_RAW = /[`\\$~\]]|\n(?: {4}|\t| {0,3}\t)/;
function tagRanges(doc, rule, tag, i, raw) {
  const { text, n } = doc;
  const ranges = [];
  const add = (end, limit, paragraph) => {
    if (end < 0) return;
    ranges.push([tag.nameEnd, text[end - 1] === ">" ? end - 1 : end]);
    if (!hidesContent(tag) || end >= n) return;
    let close = contentEnd(doc, tag.name, end, limit);
    if (close >= 0 && paragraph) {
      doc.work += close - end;
      if (NOT_SURELY_RAW.test(text.slice(end, close))) close = -1;
    }
    ranges.push([end, close < 0 ? n : close]);
  };
  if (rule.kind !== "raw") {
    const limit = doc.paragraphLimit(i);
    add(commonMarkTagEnd(doc, i), limit, true);
    if (rule.kind === "loose") add(commonMarkTagEnd(doc, i, true), limit, true);
  }
  if (raw && rule.kind !== "paragraph") {
    const limit = rule.kind === "raw" ? rule.extent : rule.lineEnd;
    add(browserTagEnd(doc, tag.nameEnd, limit, rule.kind === "loose"), limit, false);
  }
  return ranges;
}

// core/hidden-markdown.ts
var PUNCTUATION = /[!-/:-@[-`{-~]/;
var LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}(?=[ \t]|$)/;
function fenceInfo(doc, li) {
  const at = doc.markersEnd(li);
  const { end } = doc.lines[li];
  const fence2 = fenceOpening(doc.text.slice(at, end));
  if (!fence2) return void 0;
  let info = at + fence2.size;
  while (doc.text[info] === " " || doc.text[info] === "	") info++;
  const from = info + (LANGUAGE.exec(doc.text.slice(info, end))?.[0].length ?? 0);
  return from < end ? [from, end] : void 0;
}
function space2(doc, pos) {
  const { text } = doc;
  while (text[pos] === " " || text[pos] === "	") pos++;
  if (text[pos] !== "\n" || doc.isBlank(doc.lineOf(pos + 1))) return pos;
  return doc.markersEnd(doc.lineOf(pos + 1));
}
function destinationEnd(doc, pos, empty) {
  const { text } = doc;
  if (text[pos] === "<") {
    for (let p2 = pos + 1; p2 < doc.n; p2++) {
      if (text[p2] === "\\") p2++;
      else if (text[p2] === ">") return p2 + 1;
      else if (text[p2] === "<" || text[p2] === "\n") return -1;
    }
    return -1;
  }
  let depth = 0;
  let p = pos;
  for (; p < doc.n && text.charCodeAt(p) > 32 && text.charCodeAt(p) !== 127; p++) {
    if (text[p] === "\\" && PUNCTUATION.test(text[p + 1] ?? "")) p++;
    else if (text[p] === "(") depth++;
    else if (text[p] === ")" && depth-- === 0) break;
  }
  return p === pos && !empty || depth > 0 ? -1 : p;
}
function titleEnd(doc, pos) {
  const { text } = doc;
  const open = text[pos];
  const close = open === "(" ? ")" : open;
  if (open !== '"' && open !== "'" && open !== "(") return -1;
  const limit = doc.paragraphLimit(pos);
  for (let p = pos + 1; p < limit; p++) {
    doc.work++;
    if (text[p] === "\\") p++;
    else if (text[p] === close) return p + 1;
    else if (open === "(" && text[p] === "(") return -1;
  }
  return -1;
}
function linkTail(doc, close) {
  const dest = space2(doc, close + 2);
  const after = destinationEnd(doc, dest, true);
  if (after < 0) return void 0;
  if (doc.text[space2(doc, after)] === ")") return { end: space2(doc, after) + 1 };
  const title = space2(doc, after);
  const end = title > after ? titleEnd(doc, title) : -1;
  const paren = end > 0 ? space2(doc, end) : -1;
  return paren > 0 && doc.text[paren] === ")" ? { end: paren + 1, title: [title, end] } : void 0;
}
function linkTitle(doc, close) {
  return linkTail(doc, close)?.title;
}
function imageDescription(doc, bang) {
  const { text } = doc;
  const limit = doc.paragraphLimit(bang);
  let depth = 1;
  for (let p = bang + 2; p < limit; p++) {
    doc.work++;
    const c = text[p];
    if (c === "\\") p++;
    else if (c === "`" || c === "<" || c === "$") {
      const last = text.lastIndexOf("]", limit - 1);
      return last > p ? [bang + 2, last] : void 0;
    } else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return [bang + 2, p];
  }
  return void 0;
}
function referenceDefinition(doc, li) {
  const { text } = doc;
  const start = doc.markersEnd(li);
  if (text[start] !== "[" || text[start + 1] === "^") return void 0;
  let p = start + 1;
  let words = false;
  for (; p < doc.n && p - start <= 1e3; p++) {
    const c = text[p];
    if (c === "\\") p++;
    else if (c === "[" || c === "\n" && doc.isBlank(doc.lineOf(p + 1))) return void 0;
    else if (c === "]") break;
    if (!/\s/.test(c)) words = true;
  }
  if (text[p] !== "]" || text[p + 1] !== ":" || !words) return void 0;
  const dest = space2(doc, p + 2);
  const after = destinationEnd(doc, dest, false);
  if (after < 0) return void 0;
  const restOfLine = (from) => {
    const { end: end2 } = doc.lines[doc.lineOf(from)];
    return /^[ \t]*$/.test(text.slice(from, end2)) ? end2 : -1;
  };
  const title = space2(doc, after);
  const end = title > after ? titleEnd(doc, title) : -1;
  const withTitle = end > 0 ? restOfLine(end) : -1;
  if (withTitle >= 0) return [start, withTitle];
  const bare = restOfLine(after);
  return bare >= 0 ? [start, bare] : void 0;
}
var FOOTNOTE = /^\[\^([^\]\n]+)\]:/;
var FENCE_LINE = /^ {0,3}(?:`{3,}|~{3,})/;
var runs = /* @__PURE__ */ new WeakMap();
function footnoteRun(doc, k) {
  let run = runs.get(doc);
  if (!run) {
    const count = doc.lines.length;
    run = new Int32Array(count + 1);
    run[count] = count - 1;
    let nonBlank = count;
    for (let li = count - 1; li >= 0; li--) {
      if (!doc.isBlank(li)) {
        nonBlank = li;
        run[li] = FENCE_LINE.test(doc.lineText(li)) ? li - 1 : Math.max(li, run[li + 1]);
      } else run[li] = nonBlank < count && /^(?: {4}|\t| {0,3}\t)/.test(doc.lineText(nonBlank)) ? run[nonBlank] : li - 1;
    }
    runs.set(doc, run);
  }
  return run[k];
}
function footnoteDefinition(doc, li) {
  const start = doc.markersEnd(li);
  const m = FOOTNOTE.exec(doc.text.slice(start, doc.lines[li].end));
  if (!m) return void 0;
  const last = Math.max(li, footnoteRun(doc, li + 1));
  return { label: m[1], range: [start, doc.lines[last].end] };
}
function footnoteReferences(doc, li) {
  const line = doc.lineText(li);
  if (/[`<\\$]|\]\(|\]\[/.test(line) || /^\[[^\]]*\]:/.test(doc.text.slice(doc.markersEnd(li), doc.lines[li].end))) return [];
  const { start } = doc.lines[li];
  return [...line.matchAll(/(?<![!\]])\[\^([^\]\s]+)\](?!:)/g)].map((m) => ({ label: m[1], at: start + m.index }));
}
function within(ranges, at) {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = lo + hi >> 1;
    if (ranges[mid][1] <= at) lo = mid + 1;
    else if (ranges[mid][0] > at) hi = mid - 1;
    else return true;
  }
  return false;
}
function unreferencedFootnotes(defs, refs, hidden) {
  const key = (label) => /^[\x21-\x7e]+$/.test(label) ? label.toLowerCase() : void 0;
  const count = /* @__PURE__ */ new Map();
  for (const d of defs) {
    const k = key(d.label);
    if (k) count.set(k, (count.get(k) ?? 0) + 1);
  }
  const spans = [];
  for (const { range } of [...defs].sort((a, b) => a.range[0] - b.range[0])) {
    const last = spans.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else spans.push([...range]);
  }
  const referenced = new Set(refs.filter((r) => !within(hidden, r.at) && !within(spans, r.at)).map((r) => key(r.label)));
  return defs.filter((d) => !(key(d.label) && count.get(key(d.label)) === 1 && referenced.has(key(d.label)))).map((d) => d.range);
}
function autolinkEnd(text, p, lineEnd) {
  let q = p + 1;
  while (q < lineEnd && text[q] !== ">" && text[q] !== "<" && text.charCodeAt(q) > 32) q++;
  if (text[q] !== ">") return -1;
  const inner = text.slice(p + 1, q);
  const uri = /^[A-Za-z][A-Za-z0-9+.-]{1,31}:/.test(inner);
  const email = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/.test(
    inner
  );
  return uri || email ? q + 1 : -1;
}
function inlineRawEnd(doc, p, lineEnd) {
  const { text } = doc;
  const within2 = (needle, from) => {
    const at = doc.find(needle, from);
    return at >= 0 && at + needle.length <= lineEnd ? at + needle.length : -1;
  };
  if (text.startsWith("<!--", p)) return within2("-->", p + 2);
  if (text.startsWith("<?", p)) return within2("?>", p + 2);
  if (text.startsWith("<![CDATA[", p)) return within2("]]>", p + 9);
  if (text[p + 1] === "!") return /[A-Za-z]/.test(text[p + 2] ?? "") ? within2(">", p + 2) : -1;
  const end = Math.max(commonMarkTagEnd(doc, p), autolinkEnd(text, p, lineEnd));
  return end <= lineEnd ? end : -1;
}
function inSpanFrom(doc, from, i, lineEnd) {
  const { text } = doc;
  const bareUrl = (p) => !/^[^\s<]*`/.test(text.slice(p, doc.lines[doc.lineOf(p)].end));
  for (let p = from; p < i; ) {
    doc.work++;
    const c = text[p];
    if (c === "$") return false;
    if ((text.startsWith("://", p) || /^www\./i.test(text.slice(p, p + 4))) && !bareUrl(p)) return false;
    if (c === "\\") p += PUNCTUATION.test(text[p + 1] ?? "") ? 2 : 1;
    else if (c === "]" && (text[p + 1] === "(" || text[p + 1] === "[")) {
      const end = text[p + 1] === "(" ? linkTail(doc, p)?.end ?? -1 : text.indexOf("]", p + 2) + 1;
      const tail = end > 0 ? text.slice(p, end) : "";
      if (end <= 0 || end > doc.lines[doc.lineOf(p)].end || /[`<\\\n$|]|\[.*\[/.test(tail) || /:\/\/|www\./i.test(tail) && !bareUrl(end)) return false;
      p = end;
    } else if (c === "<") {
      const end = inlineRawEnd(doc, p, doc.lines[doc.lineOf(p)].end);
      if (end < 0) p++;
      else if (end > i) return false;
      else p = end;
    } else if (c === "`") {
      let k = 1;
      while (text[p + k] === "`") k++;
      let q = doc.nextTick(p + k);
      let closer = -1;
      while (q < lineEnd) {
        let m = 1;
        while (text[q + m] === "`") m++;
        if (m === k) {
          closer = q;
          break;
        }
        q = doc.nextTick(q + m);
      }
      if (closer < 0 || text.slice(p, closer).includes("|")) return false;
      if (i < closer) return true;
      p = closer + k;
    } else p++;
  }
  return false;
}
var SPAN_LINES = 12;
function surelyInCodeSpan(doc, i) {
  const li = doc.lineOf(i);
  const first = doc.prevBlank(li) + 1;
  const { end } = doc.lines[li];
  if (li - first > SPAN_LINES || doc.nextTick(i) >= end || doc.nextTick(doc.lines[first].start) >= i) return false;
  for (let start = li; start >= first; start--) if (!inSpanFrom(doc, doc.lines[start].start, i, end)) return false;
  return true;
}

// core/hidden-html.ts
var MAX_STATES = 16;
function hiddenHtmlRanges(text) {
  const doc = new Doc(text);
  const { n, lines } = doc;
  const lineText = (li) => doc.lineText(li);
  const lineOf = (pos) => doc.lineOf(pos);
  const find = (needle, from) => doc.find(needle, from);
  const endOf = (needle, from) => {
    const at = find(needle, from);
    return at < 0 ? -1 : at + needle.length;
  };
  let gt = { from: -1, at: -1 };
  const gtEnd = (from) => {
    if (gt.from >= 0 && gt.from <= from && (gt.at === -1 || gt.at >= from)) return gt.at < 0 ? -1 : gt.at + 1;
    let at = text.indexOf(">", from);
    while (at >= 0 && at < doc.markersEnd(lineOf(at))) at = text.indexOf(">", at + 1);
    gt = { from, at };
    return at < 0 ? -1 : at + 1;
  };
  const closeOf = (form, i) => form === "comment" ? endOf("-->", i + 2) : form === "instruction" ? endOf("?>", i + 2) : form === "declaration" ? gtEnd(i + 2) : endOf("]]>", i + 9);
  const browserEnd = (i) => {
    const at = gtEnd(i + 2);
    return at < 0 ? n : at;
  };
  const remainders = [];
  const remainderEnd = (i) => {
    if (remainders.length > 8) remainders.splice(0, remainders.length, ...remainders.filter(([, to]) => to > i));
    let end;
    for (const [from, to] of remainders) if (from <= i && i < to) end = end === void 0 ? to : Math.min(end, to);
    return end;
  };
  const regions = [];
  let reach = 0;
  const push = (range) => {
    if (!range || range[1] <= range[0]) return;
    regions.push(range);
    reach = Math.max(reach, range[1]);
  };
  const hide = (form, i, end) => {
    if (end <= i) return;
    push([i, end]);
    if (form === "instruction" || form === "cdata") {
      const gt2 = browserEnd(i);
      if (gt2 < end) {
        const last = remainders.at(-1);
        if (last && last[1] === end) last[0] = Math.min(last[0], gt2);
        else remainders.push([gt2, end]);
      }
    }
  };
  const endUnder = (rule, form, i) => {
    if (form === "comment") {
      const close2 = closeOf(form, i);
      let end = close2 < 0 ? n : close2;
      if (rule.kind === "raw" && end > rule.extent) end = n;
      if (rule.kind === "loose" && end > rule.lineEnd) end = n;
      const remainder = remainderEnd(i);
      return remainder !== void 0 && end > remainder ? n : end;
    }
    if (rule.kind === "paragraph") {
      const close2 = closeOf(form, i);
      return close2 < 0 ? i : close2;
    }
    if (rule.kind === "raw") return browserEnd(i);
    const close = closeOf(form, i);
    return close >= 0 && close <= rule.lineEnd ? Math.max(close, browserEnd(i)) : browserEnd(i);
  };
  const nextEndTag = new Array(lines.length + 1);
  nextEndTag[lines.length] = lines.length;
  for (let li = lines.length - 1; li >= 0; li--) nextEndTag[li] = KIND_1_END.test(lineText(li)) ? li : nextEndTag[li + 1];
  const blockTo = (last, base) => ({ ...base, mode: "html", last, extent: lines[last].end, para: "none", container: false });
  function topLevel(s, li, cols, offset) {
    const { start, end } = lines[li];
    const at = start + offset;
    const content = text.slice(at, end);
    const base = { ...s, mode: "normal", blank: false };
    const paragraph = (para, container = s.container && !(cols <= 1 && s.blank)) => ({
      state: { ...base, para, container },
      segments: [{ from: start, to: end, rule: { kind: "paragraph" } }]
    });
    if (cols >= 4) return [paragraph(s.para === "open" ? "open" : "unknown", s.container)];
    const fence2 = fenceOpening(content);
    if (fence2)
      return [
        {
          state: { ...base, mode: "fence", fence: { ...fence2, column: 0, exact: true }, para: "none", container: false },
          segments: [{ from: start, to: end, rule: "code" }]
        }
      ];
    const form = hiddenFormAt(text, at);
    if (form === "comment") {
      const close = endOf("-->", at + 2);
      const last = close < 0 ? lines.length - 1 : lineOf(close - 1);
      hide(form, at, close < 0 ? n : close);
      return [
        {
          state: last === li ? { ...base, para: "none", container: false } : blockTo(last, base),
          // What it holds is read as raw HTML too: where a browser is not in a comment there (the
          // `<!--` was inside something it ended later), a tag in it can hide what follows.
          segments: [{ from: at + 1, to: end, rule: { kind: "raw", extent: lines[last].end } }]
        }
      ];
    }
    if (form) {
      const close = form === "instruction" ? endOf("?>", at + 1) : form === "declaration" ? endOf(">", at + 2) : endOf("]]>", at + 9);
      const last = close < 0 ? lines.length - 1 : lineOf(close - 1);
      const state = blockTo(last, base);
      const outcome = { state: last === li ? { ...base, para: "none", container: false } : state, segments: [] };
      outcome.segments.push({ from: at + 1, to: end, rule: { kind: "raw", extent: state.extent } });
      hide(form, at, close < 0 ? n : close);
      return [outcome];
    }
    const html = (last) => {
      const state = blockTo(last, base);
      return {
        state: last === li ? { ...base, para: "none", container: false } : state,
        segments: [{ from: start, to: end, rule: { kind: "raw", extent: state.extent } }]
      };
    };
    if (KIND_1.test(content)) return [html(nextEndTag[li] < lines.length ? nextEndTag[li] : lines.length - 1)];
    if (KIND_6.test(content)) return [html(doc.nextBlank(li + 1) - 1)];
    if (KIND_7.test(content)) {
      if (s.para === "open") return [paragraph("open")];
      if (s.para === "none") return [html(doc.nextBlank(li + 1) - 1)];
      return [paragraph("unknown"), html(doc.nextBlank(li + 1) - 1)];
    }
    if (/^#{1,6}(?:[ \t]|$)/.test(content)) return [paragraph("none", false)];
    return [paragraph(/^[-=_*]/.test(content) || content.includes("|") ? "unknown" : "open")];
  }
  function advance(s, li) {
    const { start, end } = lines[li];
    const line = text.slice(start, end);
    const loose = (state) => ({ state, segments: [{ from: start, to: end, rule: { kind: "loose", lineEnd: end } }] });
    if ((s.mode === "normal" || s.mode === "lost") && infoLine !== li) {
      infoLine = li;
      push(fenceInfo(doc, li));
    }
    if (s.mode === "lost") return [loose(s)];
    if (s.mode === "fence") {
      const fence2 = s.fence;
      const code2 = (state) => ({ state, segments: [{ from: start, to: end, rule: "code" }] });
      const after = { mode: "normal", para: fence2.column ? "unknown" : "none", container: fence2.column > 0, blank: false };
      if (/^[ \t]*$/.test(line)) return [code2(s)];
      const { cols: cols2, offset: offset2 } = indentation(line);
      if (cols2 < fence2.column) {
        const ended = advance(after, li);
        return fence2.exact || cols2 < fence2.column - 3 ? ended : [code2(s), ...ended];
      }
      const closing = new RegExp(`^\\${fence2.char}{${fence2.size},}[ \\t]*$`);
      if (cols2 > fence2.column + 3 || !closing.test(line.slice(offset2))) return [code2(s)];
      return fence2.exact || cols2 === fence2.column ? [code2(after)] : [code2(after), code2(s)];
    }
    if (s.mode === "html") {
      const done = { mode: "normal", para: "none", container: false, blank: false };
      return [{ state: li === s.last ? done : s, segments: [{ from: start, to: end, rule: { kind: "raw", extent: s.extent } }] }];
    }
    if (/^[ \t]*$/.test(line)) return [{ state: { ...s, para: "none", blank: true }, segments: [] }];
    const { cols, offset } = indentation(line);
    const content = line.slice(offset);
    if (cols <= 3 && CONTAINER.test(content)) {
      const opened = !line.includes("	") && LIST_FENCE.exec(line);
      const fence2 = opened && fenceOpening(line.slice(opened[0].length));
      if (!opened || !fence2) return [loose({ ...s, para: "unknown", container: true, blank: false })];
      return [
        {
          state: { ...s, mode: "fence", fence: { ...fence2, column: opened[0].length, exact: true }, para: "unknown", container: true, blank: false },
          segments: [{ from: start, to: end, rule: "code" }]
        }
      ];
    }
    if (s.container && cols >= 2) {
      const fence2 = fenceOpening(content);
      const inside = fence2 && cols <= 3 && !line.slice(0, offset).includes("	") ? {
        state: { ...s, mode: "fence", fence: { ...fence2, column: cols, exact: false }, para: "unknown", blank: false },
        segments: [{ from: start, to: end, rule: "code" }]
      } : loose({ ...s, para: "unknown", blank: false });
      const startsBlock = fence2 || hiddenFormAt(text, start + offset) || KIND_1.test(content) || KIND_6.test(content) || KIND_7.test(content);
      return cols <= 3 && startsBlock ? [inside, ...topLevel({ ...s, container: false }, li, cols, offset)] : [inside];
    }
    return topLevel(s, li, cols, offset);
  }
  const lastHtml = [];
  const longTo = [];
  for (let li = 0; li < lines.length; li++) {
    const at = doc.markersEnd(li);
    const content = text.slice(at, lines[li].end);
    const form = hiddenFormAt(text, at);
    const close = form ? closeOf(form, at) : -1;
    const last = KIND_1.test(content) ? nextEndTag[li] : form ? close < 0 ? lines.length : lineOf(close - 1) : -1;
    longTo.push(Math.max(last, longTo[li - 1] ?? -1));
    lastHtml.push(KIND_6.test(content) || KIND_7.test(content) ? li : lastHtml[li - 1] ?? -1);
  }
  const mayBeRaw = (li) => lastHtml[li] > doc.prevBlank(li) || longTo[li] >= li;
  const tagUnder = (rule, i) => {
    const raw = rule.kind === "raw" || rule.kind === "loose" && mayBeRaw(lineOf(i));
    const tag = tagAt(text, i);
    if (tag) return tagRanges(doc, rule, tag, i, raw);
    if (!raw || !"!/".includes(text[i + 1] ?? "")) return [];
    const close = text.startsWith("</>", i) ? i + 3 : rule.kind === "raw" ? endOf(">", i + 2) : gtEnd(i + 2);
    return [[i, close < 0 ? n : close]];
  };
  const budget = 64 * n + 1e5;
  const footnotes = [];
  const references = [];
  const markdown = (li, from, to, rule) => {
    if (from === lines[li].start) {
      push(referenceDefinition(doc, li));
      const footnote = footnoteDefinition(doc, li);
      if (footnote && footnotes.at(-1)?.range[0] !== footnote.range[0]) footnotes.push(footnote);
    }
    const inCode = (p) => rule.kind === "paragraph" && surelyInCodeSpan(doc, p);
    for (const [needle, hidden] of [["](", linkTitle], ["![", imageDescription]]) {
      for (let p = find(needle, from); p >= 0 && p < to; p = find(needle, p + 1)) {
        if (!inCode(p)) push(hidden(doc, p));
        if (doc.work > budget) return push([p, n]);
      }
    }
  };
  let infoLine = -1;
  let states = [{ mode: "normal", para: "none", container: false, blank: true }];
  for (let li = 0; li < lines.length && reach < n; li++) {
    const outcomes = states.flatMap((s) => advance(s, li));
    const segments = outcomes.flatMap((o) => o.segments);
    const { start, end } = lines[li];
    for (let i = find("<", start); i >= 0 && i < end && reach < n; i = text.indexOf("<", i + 1)) {
      if (doc.work > budget) {
        push([i, n]);
        break;
      }
      let code2;
      const readings = segments.filter(
        (seg) => seg.rule !== "code" && seg.from <= i && i < seg.to && !(seg.rule.kind === "paragraph" && (code2 ??= surelyInCodeSpan(doc, i)))
      );
      const form = hiddenFormAt(text, i);
      if (!form) {
        for (const seg of readings) for (const range of tagUnder(seg.rule, i)) push(range);
        continue;
      }
      let hiddenTo = i;
      for (const seg of readings) hiddenTo = Math.max(hiddenTo, endUnder(seg.rule, form, i));
      hide(form, i, hiddenTo);
    }
    const read = /* @__PURE__ */ new Set();
    for (const seg of segments) {
      if (seg.rule === "code" || seg.rule.kind === "raw" || read.has(`${seg.from} ${seg.rule.kind}`)) continue;
      read.add(`${seg.from} ${seg.rule.kind}`);
      markdown(li, seg.from, seg.to, seg.rule);
    }
    if (segments.length > 0 && segments.every((seg) => seg.rule !== "code" && seg.rule.kind === "paragraph")) references.push(...footnoteReferences(doc, li));
    if (doc.work > budget) push([start, n]);
    const unique = new Map(outcomes.map((o) => [JSON.stringify(o.state), o.state]));
    states = unique.size > MAX_STATES ? [{ mode: "lost", para: "unknown", container: true, blank: false }] : [...unique.values()];
  }
  const merged = merge(regions);
  return merge([...merged, ...unreferencedFootnotes(footnotes, references, merged)]);
}
function merge(regions) {
  const sorted = regions.map(([from, to]) => [from, to]).sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const [from, to] of sorted) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}
function stripHiddenHtml(text) {
  const normal = text.replace(/\r\n?/g, "\n");
  let out = "";
  let at = 0;
  for (const [from, to] of hiddenHtmlRanges(normal)) {
    out += normal.slice(at, from) + normal.slice(from, to).replace(/[^\n]/g, "");
    at = to;
  }
  return out + normal.slice(at);
}

// core/text.ts
function inlineText(text) {
  return text.replace(/\r\n?|\n/g, " ").replace(/[\\`*_{}[\]()|~]/g, (c) => `\\${c}`).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/@/g, "&#64;");
}
function safeLinkTarget(url) {
  if (!url) return void 0;
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return void 0;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return void 0;
  return parsed.href.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
function fitText(text, max, rest) {
  if (text.length <= max) return text;
  const note = `

\u2026(cut to fit GitHub's limit of ${max} characters; ${rest})`;
  if (note.length >= max) return text.slice(0, max);
  return `${text.slice(0, max - note.length)}${note}`;
}
function sanitizeIssueText(text) {
  return stripHiddenHtml(text).replace(new RegExp("\\p{Cf}", "gu"), "").replace(/[\u034F\u115F\u1160\u3164\uFFA0]/g, "").replace(/[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}]/gu, "").replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, "");
}
function fence(text, lang = "text") {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}
${text}
${ticks}`;
}
function code(text, options = {}) {
  let body = text.replace(/\r\n?|\n/g, " ");
  if (options.table) body = body.replace(/\|/g, "\\|");
  if (body === "") return "(empty)";
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(body) && body.trim() !== "" ? " " : "";
  return `${ticks}${pad}${body}${pad}${ticks}`;
}

// core/github/limits.ts
var COMMENT_MAX = 65536;
var CHECK_OUTPUT_MAX = 65535;
var CHECK_TITLE_MAX = 1e3;
var DEPLOYMENT_DESCRIPTION_MAX = 140;
var PR_TITLE_MAX = 256;
var REVIEW_BODY_MAX = COMMENT_MAX;
var REVIEW_COMMENTS_MAX = 50;
function fitComment(body) {
  return fitText(body, COMMENT_MAX, "the whole text is in the run (`/conveyor status`, `conveyor status`) and the step logs");
}
function fitCheckOutput(output) {
  const title = output.title.length > CHECK_TITLE_MAX ? `${output.title.slice(0, CHECK_TITLE_MAX - 1)}\u2026` : output.title;
  return {
    ...output,
    title,
    summary: fitText(output.summary, CHECK_OUTPUT_MAX, "the whole output is in the step's log (its workflow run)"),
    ...output.text !== void 0 ? { text: fitText(output.text, CHECK_OUTPUT_MAX, "the whole output is in the step's log (its workflow run)") } : {}
  };
}

// adapters/github/forge/api.ts
function repoParams(repo) {
  const { owner, name } = splitRepo(repo);
  return { owner, repo: name };
}

export {
  inlineText,
  safeLinkTarget,
  fitText,
  sanitizeIssueText,
  fence,
  code,
  COMMENT_MAX,
  CHECK_OUTPUT_MAX,
  DEPLOYMENT_DESCRIPTION_MAX,
  PR_TITLE_MAX,
  REVIEW_BODY_MAX,
  REVIEW_COMMENTS_MAX,
  fitComment,
  fitCheckOutput,
  repoParams
};
//# sourceMappingURL=chunk-RJ72IU5G.js.map
