// What GitHub hides of the raw HTML in Markdown. CommonMark passes raw HTML through, as an HTML
// block at the start of a line or inline in a paragraph; of it, a comment (`<!-- … -->`), a
// processing instruction (`<? … ?>`), a declaration (`<!DOCTYPE …>`, `<!x …>`) and a CDATA section
// (`<![CDATA[ … ]]>`) render as nothing. Text inside one is read by nobody, so it must not count as
// a command or reach an agent's prompt as the words. Pure.
//
// Where each ends is CommonMark's rule where Conveyor can follow it, and past it where it cannot:
// - The document's own blocks are followed: fenced code (kept as written, at the top level and in
//   a list item: a reader sees it as text, `<?php` included), HTML blocks (one of kinds 2–5 ends at
//   the line holding its end marker, or runs to the end of the document) and paragraphs (an inline
//   form ends at its end marker; a comment never closed hides the rest of the document).
// - A form inside raw HTML is cut where a browser cuts it: `<? … >`, `<!x … >` and `<![CDATA[ … >`
//   at their first `>`; a comment whose `-->` is not raw HTML too (escaped text, another block)
//   never closes, so it hides everything after it.
// - Inside a list item or a block quote, whose blocks Conveyor does not follow, a comment must
//   close on its own line and the others end at their first `>`, else they run to the end.
// - Code spans and indented code are not kept: Conveyor does not parse inline code, and a form
//   inside backticks goes too.
// A line Conveyor cannot place (an indented line after a list that may or may not have ended, a
// lone tag after a paragraph that may be lazy) is read both ways, and whatever either way hides is
// hidden: removing more than GitHub hides is the safe side, less never is.

export type HiddenForm = 'comment' | 'instruction' | 'declaration' | 'cdata';

/** Where a form found at some position may end, by what surrounds it. */
type Rule = { kind: 'paragraph' } | { kind: 'raw'; extent: number } | { kind: 'loose'; lineEnd: number };
interface Segment {
  from: number;
  to: number;
  rule: Rule | 'code';
}

interface State {
  mode: 'normal' | 'fence' | 'html' | 'comment' | 'lost';
  /**
   * `column`: where the fence's list item keeps its text (0 at the top level); `exact` when that
   * is known (the fence opens on the item's own line), else the item may start up to 3 before.
   */
  fence?: { char: string; size: number; column: number; exact: boolean };
  /** `html` and `comment`: the block's last line and where it ends. */
  last?: number;
  extent?: number;
  /** `comment`: where the comment ends on its last line (what follows there is raw HTML). */
  skipTo?: number;
  /** Whether a paragraph is open (a lone tag cannot interrupt one). */
  para: 'none' | 'open' | 'unknown';
  /** Whether a list item or block quote may still be open. */
  container: boolean;
  blank: boolean;
}

interface Outcome {
  state: State;
  segments: Segment[];
}

/** A line that opens a block quote, a list item or a footnote (after up to three columns). */
const CONTAINER = /^(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)|\[\^[^\]\s]*\]:)/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;
const KIND_1 = /^<(?:pre|script|style|textarea)(?:[ \t>]|$)/i;
const KIND_1_END = /<\/(?:pre|script|style|textarea)>/i;
const KIND_6 =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[ \t>]|\/>|$)/i;
const ATTRIBUTE = `[ \\t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \\t]*=[ \\t]*(?:[^ \\t"'=<>\`]+|'[^']*'|"[^"]*"))?`;
/** CommonMark's kind 7: one complete open or closing tag alone on its line. */
const KIND_7 = new RegExp(
  `^(?:<(?!(?:pre|script|style|textarea)\\b)[A-Za-z][A-Za-z0-9-]*(?:${ATTRIBUTE})*[ \\t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \\t]*>)[ \\t]*$`,
  'i',
);
/** More possible readings of the document than this, and every line is read loosely. */
const MAX_STATES = 16;

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
function indentation(line: string): { cols: number; offset: number } {
  let cols = 0;
  let offset = 0;
  for (; offset < line.length; offset++) {
    if (line[offset] === ' ') cols++;
    else if (line[offset] === '\t') cols += 4 - (cols % 4);
    else break;
  }
  return { cols, offset };
}

function fenceOpening(content: string): { char: string; size: number } | undefined {
  const m = FENCE.exec(content);
  if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) return undefined;
  return { char: m[1]![0]!, size: m[1]!.length };
}

/** List markers (each followed by 1–4 spaces: 5 would make indented code) before a fence. */
const LIST_FENCE = /^ {0,3}(?:(?:[-+*]|\d{1,9}[.)]) {1,4}(?! ))+(?=`{3}|~{3})/;

/** The ranges of `text` (lines ending in `\n`) GitHub renders as nothing, as [start, end) pairs in order, merged. */
export function hiddenHtmlRanges(text: string): Array<[number, number]> {
  const n = text.length;
  const lines: Array<{ start: number; end: number }> = [];
  for (let start = 0; ;) {
    const nl = text.indexOf('\n', start);
    lines.push({ start, end: nl < 0 ? n : nl });
    if (nl < 0) break;
    start = nl + 1;
  }
  const lineText = (li: number) => text.slice(lines[li]!.start, lines[li]!.end);
  const isBlank = (li: number) => /^[ \t]*$/.test(lineText(li));
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lines[mid]!.start <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  // Each search goes forward through the text as the scan does, so its last answer is reused.
  const found = new Map<string, { from: number; at: number }>();
  const find = (needle: string, from: number): number => {
    const last = found.get(needle);
    if (last && last.from <= from && (last.at === -1 || last.at >= from)) return last.at;
    const at = text.indexOf(needle, from);
    found.set(needle, { from, at });
    return at;
  };
  const endOf = (needle: string, from: number) => {
    const at = find(needle, from);
    return at < 0 ? -1 : at + needle.length;
  };
  // The `>` opening a block quote's line is Markdown, not text: no browser sees it end anything.
  const quoted = (li: number) => /^(?:[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))*/.exec(lineText(li))![0].length;
  let gt = { from: -1, at: -1 };
  const gtEnd = (from: number): number => {
    if (gt.from >= 0 && gt.from <= from && (gt.at === -1 || gt.at >= from)) return gt.at < 0 ? -1 : gt.at + 1;
    let at = text.indexOf('>', from);
    while (at >= 0 && at - lines[lineOf(at)]!.start < quoted(lineOf(at))) at = text.indexOf('>', at + 1);
    gt = { from, at };
    return at < 0 ? -1 : at + 1;
  };
  /** Where CommonMark ends the form inline (or -1): after its end marker. */
  const closeOf = (form: HiddenForm, i: number): number =>
    form === 'comment' ? endOf('-->', i + 2) : form === 'instruction' ? endOf('?>', i + 2) : form === 'declaration' ? gtEnd(i + 2) : endOf(']]>', i + 9);
  /** Where a browser ends `<? … >`, `<!x … >`, `<![CDATA[ … >`: after the first `>` (or the end). */
  const browserEnd = (i: number) => {
    const at = gtEnd(i + 2);
    return at < 0 ? n : at;
  };

  // Raw text inside a processing instruction or CDATA after its first `>`: a browser has ended the
  // form there, so a comment opening in it must close before the form's own end, else it never does.
  const remainders: Array<[number, number]> = [];
  const remainderEnd = (i: number): number | undefined => {
    if (remainders.length > 8) remainders.splice(0, remainders.length, ...remainders.filter(([, to]) => to > i));
    let end: number | undefined;
    for (const [from, to] of remainders) if (from <= i && i < to) end = end === undefined ? to : Math.min(end, to);
    return end;
  };

  const regions: Array<[number, number]> = [];
  /** Everything from here on is hidden already: the scan can stop. */
  let reach = 0;
  const hide = (form: HiddenForm, i: number, end: number) => {
    if (end <= i) return;
    regions.push([i, end]);
    reach = Math.max(reach, end);
    if (form === 'instruction' || form === 'cdata') {
      const gt = browserEnd(i);
      if (gt < end) {
        const last = remainders.at(-1);
        if (last && last[1] === end) last[0] = Math.min(last[0], gt);
        else remainders.push([gt, end]);
      }
    }
  };

  /** Where the form at `i` ends when found where `rule` says (`i`: it hides nothing). */
  const endUnder = (rule: Rule, form: HiddenForm, i: number): number => {
    if (form === 'comment') {
      const close = closeOf(form, i);
      let end = close < 0 ? n : close;
      if (rule.kind === 'raw' && end > rule.extent) end = n;
      if (rule.kind === 'loose' && end > rule.lineEnd) end = n;
      const remainder = remainderEnd(i);
      return remainder !== undefined && end > remainder ? n : end;
    }
    if (rule.kind === 'paragraph') {
      const close = closeOf(form, i);
      return close < 0 ? i : close;
    }
    if (rule.kind === 'raw') return browserEnd(i);
    const close = closeOf(form, i);
    return close >= 0 && close <= rule.lineEnd ? Math.max(close, browserEnd(i)) : browserEnd(i);
  };

  // Blank lines and kind-1 end tags ahead of each line, for where HTML blocks end.
  const nextBlank: number[] = new Array<number>(lines.length + 1);
  const nextEndTag: number[] = new Array<number>(lines.length + 1);
  nextBlank[lines.length] = lines.length;
  nextEndTag[lines.length] = lines.length;
  for (let li = lines.length - 1; li >= 0; li--) {
    nextBlank[li] = isBlank(li) ? li : nextBlank[li + 1]!;
    nextEndTag[li] = KIND_1_END.test(lineText(li)) ? li : nextEndTag[li + 1]!;
  }
  const blockTo = (last: number, base: State): State => ({ ...base, mode: 'html', last, extent: lines[last]!.end, para: 'none', container: false });

  /** A line at the top level of the document (no container around it), read as CommonMark does. */
  function topLevel(s: State, li: number, cols: number, offset: number): Outcome[] {
    const { start, end } = lines[li]!;
    const at = start + offset;
    const content = text.slice(at, end);
    const base: State = { ...s, mode: 'normal', blank: false };
    const paragraph = (para: State['para'], container = s.container && !(cols <= 1 && s.blank)): Outcome => ({
      state: { ...base, para, container },
      segments: [{ from: start, to: end, rule: { kind: 'paragraph' } }],
    });
    if (cols >= 4) return [paragraph(s.para === 'open' ? 'open' : 'unknown', s.container)];
    const fence = fenceOpening(content);
    if (fence)
      return [
        {
          state: { ...base, mode: 'fence', fence: { ...fence, column: 0, exact: true }, para: 'none', container: false },
          segments: [{ from: start, to: end, rule: 'code' }],
        },
      ];
    const form = hiddenFormAt(text, at);
    if (form === 'comment') {
      const close = endOf('-->', at + 2);
      const last = close < 0 ? lines.length - 1 : lineOf(close - 1);
      const skipTo = close < 0 ? n : close;
      hide(form, at, skipTo);
      return [
        {
          state: last === li ? { ...base, para: 'none', container: false } : { ...base, mode: 'comment', last, skipTo, para: 'none', container: false },
          segments: last === li ? [{ from: skipTo, to: end, rule: { kind: 'raw', extent: end } }] : [],
        },
      ];
    }
    if (form) {
      // Kinds 3–5 end at the first line holding `?>`, `>` or `]]>` (the opening line included).
      const close = form === 'instruction' ? endOf('?>', at + 1) : form === 'declaration' ? endOf('>', at + 2) : endOf(']]>', at + 9);
      const last = close < 0 ? lines.length - 1 : lineOf(close - 1);
      const state = blockTo(last, base);
      const outcome: Outcome = { state: last === li ? { ...base, para: 'none', container: false } : state, segments: [] };
      outcome.segments.push({ from: at + 1, to: end, rule: { kind: 'raw', extent: state.extent! } });
      hide(form, at, close < 0 ? n : close);
      return [outcome];
    }
    const html = (last: number): Outcome => {
      const state = blockTo(last, base);
      return {
        state: last === li ? { ...base, para: 'none', container: false } : state,
        segments: [{ from: start, to: end, rule: { kind: 'raw', extent: state.extent! } }],
      };
    };
    if (KIND_1.test(content)) return [html(nextEndTag[li]! < lines.length ? nextEndTag[li]! : lines.length - 1)];
    if (KIND_6.test(content)) return [html(nextBlank[li + 1]! - 1)];
    if (KIND_7.test(content)) {
      // A lone tag cannot interrupt a paragraph: it is the paragraph's text then.
      if (s.para === 'open') return [paragraph('open')];
      if (s.para === 'none') return [html(nextBlank[li + 1]! - 1)];
      return [paragraph('unknown'), html(nextBlank[li + 1]! - 1)];
    }
    if (/^#{1,6}(?:[ \t]|$)/.test(content)) return [paragraph('none', false)];
    // Tables, setext underlines and breaks: whether a paragraph stays open is not worth guessing.
    return [paragraph(/^[-=_*]/.test(content) || content.includes('|') ? 'unknown' : 'open')];
  }

  function advance(s: State, li: number): Outcome[] {
    const { start, end } = lines[li]!;
    const line = text.slice(start, end);
    const loose = (state: State): Outcome => ({ state, segments: [{ from: start, to: end, rule: { kind: 'loose', lineEnd: end } }] });
    if (s.mode === 'lost') return [loose(s)];
    if (s.mode === 'fence') {
      const fence = s.fence!;
      const code = (state: State): Outcome => ({ state, segments: [{ from: start, to: end, rule: 'code' }] });
      const after: State = { mode: 'normal', para: fence.column ? 'unknown' : 'none', container: fence.column > 0, blank: false };
      if (/^[ \t]*$/.test(line)) return [code(s)];
      const { cols, offset } = indentation(line);
      if (cols < fence.column) {
        // Out of its list item, which ends it; unless the item may start that far left.
        const ended = advance(after, li);
        return fence.exact || cols < fence.column - 3 ? ended : [code(s), ...ended];
      }
      const closing = new RegExp(`^\\${fence.char}{${fence.size},}[ \\t]*$`);
      if (cols > fence.column + 3 || !closing.test(line.slice(offset))) return [code(s)];
      return fence.exact || cols === fence.column ? [code(after)] : [code(after), code(s)];
    }
    if (s.mode === 'html' || s.mode === 'comment') {
      const done: State = { mode: 'normal', para: 'none', container: false, blank: false };
      if (s.mode === 'comment' && li < s.last!) return [{ state: s, segments: [] }];
      const from = s.mode === 'comment' ? s.skipTo! : start;
      const extent = s.mode === 'comment' ? end : s.extent!;
      return [{ state: li === s.last ? done : s, segments: [{ from, to: end, rule: { kind: 'raw', extent } }] }];
    }
    if (/^[ \t]*$/.test(line)) return [{ state: { ...s, para: 'none', blank: true }, segments: [] }];
    const { cols, offset } = indentation(line);
    const content = line.slice(offset);
    if (cols <= 3 && CONTAINER.test(content)) {
      const opened = !line.includes('\t') && LIST_FENCE.exec(line);
      const fence = opened && fenceOpening(line.slice(opened[0].length));
      if (!opened || !fence) return [loose({ ...s, para: 'unknown', container: true, blank: false })];
      return [
        {
          state: { ...s, mode: 'fence', fence: { ...fence, column: opened[0].length, exact: true }, para: 'unknown', container: true, blank: false },
          segments: [{ from: start, to: end, rule: 'code' }],
        },
      ];
    }
    if (s.container && cols >= 2) {
      // In the list item, or past its end at the top level: both, when it starts a block.
      const fence = fenceOpening(content);
      const inside: Outcome =
        fence && cols <= 3 && !line.slice(0, offset).includes('\t')
          ? {
              state: { ...s, mode: 'fence', fence: { ...fence, column: cols, exact: false }, para: 'unknown', blank: false },
              segments: [{ from: start, to: end, rule: 'code' }],
            }
          : loose({ ...s, para: 'unknown', blank: false });
      const startsBlock = fence || hiddenFormAt(text, start + offset) || KIND_1.test(content) || KIND_6.test(content) || KIND_7.test(content);
      return cols <= 3 && startsBlock ? [inside, ...topLevel({ ...s, container: false }, li, cols, offset)] : [inside];
    }
    return topLevel(s, li, cols, offset);
  }

  let states: State[] = [{ mode: 'normal', para: 'none', container: false, blank: true }];
  for (let li = 0; li < lines.length && reach < n; li++) {
    const outcomes = states.flatMap((s) => advance(s, li));
    const segments = outcomes.flatMap((o) => o.segments);
    const { start, end } = lines[li]!;
    for (let i = text.indexOf('<', start); i >= 0 && i < end; i = text.indexOf('<', i + 1)) {
      const form = hiddenFormAt(text, i);
      if (!form) continue;
      // Every reading of the line that is not code has its say; the longest wins.
      let hiddenTo = i;
      for (const seg of segments) if (seg.rule !== 'code' && seg.from <= i && i < seg.to) hiddenTo = Math.max(hiddenTo, endUnder(seg.rule, form, i));
      hide(form, i, hiddenTo);
    }
    const unique = new Map(outcomes.map((o) => [JSON.stringify(o.state), o.state]));
    states = unique.size > MAX_STATES ? [{ mode: 'lost', para: 'unknown', container: true, blank: false }] : [...unique.values()];
  }

  regions.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of regions) {
    const last = merged.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/**
 * The text as GitHub shows it, without its hidden HTML (see above). Line endings become `\n`, and
 * each hidden range leaves its line breaks behind, so the lines around it keep their numbers.
 */
export function stripHiddenHtml(text: string): string {
  const normal = text.replace(/\r\n?/g, '\n');
  let out = '';
  let at = 0;
  for (const [from, to] of hiddenHtmlRanges(normal)) {
    out += normal.slice(at, from) + normal.slice(from, to).replace(/[^\n]/g, '');
    at = to;
  }
  return out + normal.slice(at);
}
