// What GitHub renders as nothing a reader sees, in Markdown. CommonMark passes raw HTML through, as
// an HTML block at the start of a line or inline in a paragraph; of it, a comment (`<!-- … -->`), a
// processing instruction (`<? … ?>`), a declaration (`<!DOCTYPE …>`, `<!x …>`) and a CDATA section
// (`<![CDATA[ … ]]>`) render as nothing, a tag shows nothing of its attributes, and some elements
// (`<script>`, `<style>`, … see hidden-tags.ts) nothing of their content. Some Markdown renders as
// nothing either: info strings, link titles, image descriptions, reference definitions, footnotes
// nothing refers to (see hidden-markdown.ts). Text in any of them is read by nobody, so it must not
// count as a command or reach an agent's prompt as the words. Pure.
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
// - Indented code is not kept, nor code spans, except where a paragraph's code span surely holds
//   the form (hidden-markdown.ts says when it is sure).
// A line Conveyor cannot place (an indented line after a list that may or may not have ended, a
// lone tag after a paragraph that may be lazy) is read both ways, and whatever either way hides is
// hidden: removing more than GitHub hides is the safe side, less never is.
import { Doc, type Range, type Rule } from './hidden-doc.ts';
import {
  fenceInfo,
  footnoteDefinition,
  footnoteReferences,
  imageDescription,
  linkTitle,
  referenceDefinition,
  surelyInCodeSpan,
  unreferencedFootnotes,
  type FootnoteDefinition,
} from './hidden-markdown.ts';
import { tagAt, tagRanges } from './hidden-tags.ts';
import { CONTAINER, fenceOpening, hiddenFormAt, indentation, KIND_1, KIND_1_END, KIND_6, KIND_7, LIST_FENCE, type HiddenForm } from './hidden-blocks.ts';

interface Segment {
  from: number;
  to: number;
  rule: Rule | 'code';
}

interface State {
  mode: 'normal' | 'fence' | 'html' | 'lost';
  /**
   * `column`: where the fence's list item keeps its text (0 at the top level); `exact` when that
   * is known (the fence opens on the item's own line), else the item may start up to 3 before.
   */
  fence?: { char: string; size: number; column: number; exact: boolean };
  /** `html`: the block's last line and where it ends. */
  last?: number;
  extent?: number;
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

/** More possible readings of the document than this, and every line is read loosely. */
const MAX_STATES = 16;

/** The ranges of `text` (lines ending in `\n`) GitHub renders as nothing, as [start, end) pairs in order, merged. */
export function hiddenHtmlRanges(text: string): Array<[number, number]> {
  const doc = new Doc(text);
  const { n, lines } = doc;
  const lineText = (li: number) => doc.lineText(li);
  const lineOf = (pos: number) => doc.lineOf(pos);
  const find = (needle: string, from: number) => doc.find(needle, from);
  const endOf = (needle: string, from: number) => {
    const at = find(needle, from);
    return at < 0 ? -1 : at + needle.length;
  };
  // The `>` opening a block quote's line is Markdown, not text: no browser sees it end anything.
  let gt = { from: -1, at: -1 };
  const gtEnd = (from: number): number => {
    if (gt.from >= 0 && gt.from <= from && (gt.at === -1 || gt.at >= from)) return gt.at < 0 ? -1 : gt.at + 1;
    let at = text.indexOf('>', from);
    while (at >= 0 && at < doc.markersEnd(lineOf(at))) at = text.indexOf('>', at + 1);
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

  const regions: Range[] = [];
  /** Everything from here on is hidden already: the scan can stop. */
  let reach = 0;
  const push = (range: Range | undefined) => {
    if (!range || range[1] <= range[0]) return;
    regions.push(range);
    reach = Math.max(reach, range[1]);
  };
  const hide = (form: HiddenForm, i: number, end: number) => {
    if (end <= i) return;
    push([i, end]);
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

  // Kind-1 end tags ahead of each line, for where those HTML blocks end.
  const nextEndTag: number[] = new Array<number>(lines.length + 1);
  nextEndTag[lines.length] = lines.length;
  for (let li = lines.length - 1; li >= 0; li--) nextEndTag[li] = KIND_1_END.test(lineText(li)) ? li : nextEndTag[li + 1]!;
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
      hide(form, at, close < 0 ? n : close);
      return [
        {
          state: last === li ? { ...base, para: 'none', container: false } : blockTo(last, base),
          // What it holds is read as raw HTML too: where a browser is not in a comment there (the
          // `<!--` was inside something it ended later), a tag in it can hide what follows.
          segments: [{ from: at + 1, to: end, rule: { kind: 'raw', extent: lines[last]!.end } }],
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
    if (KIND_6.test(content)) return [html(doc.nextBlank(li + 1) - 1)];
    if (KIND_7.test(content)) {
      // A lone tag cannot interrupt a paragraph: it is the paragraph's text then.
      if (s.para === 'open') return [paragraph('open')];
      if (s.para === 'none') return [html(doc.nextBlank(li + 1) - 1)];
      return [paragraph('unknown'), html(doc.nextBlank(li + 1) - 1)];
    }
    if (/^#{1,6}(?:[ \t]|$)/.test(content)) return [paragraph('none', false)];
    // Tables, setext underlines and breaks: whether a paragraph stays open is not worth guessing.
    return [paragraph(/^[-=_*]/.test(content) || content.includes('|') ? 'unknown' : 'open')];
  }

  function advance(s: State, li: number): Outcome[] {
    const { start, end } = lines[li]!;
    const line = text.slice(start, end);
    const loose = (state: State): Outcome => ({ state, segments: [{ from: start, to: end, rule: { kind: 'loose', lineEnd: end } }] });
    // Outside a fence and raw HTML, a line that looks like a fence may open one: its info string goes.
    if ((s.mode === 'normal' || s.mode === 'lost') && infoLine !== li) {
      infoLine = li;
      push(fenceInfo(doc, li));
    }
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
    if (s.mode === 'html') {
      const done: State = { mode: 'normal', para: 'none', container: false, blank: false };
      return [{ state: li === s.last ? done : s, segments: [{ from: start, to: end, rule: { kind: 'raw', extent: s.extent! } }] }];
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

  // A line in a list item or a block quote is raw HTML only in an HTML block: one of kinds 6 or 7
  // opened since the last blank line, or of kinds 1–5 not yet ended. Elsewhere it is a paragraph's.
  const lastHtml: number[] = [];
  /** The last line a block of kinds 1–5 opened on a line so far runs to: blank lines do not end those. */
  const longTo: number[] = [];
  for (let li = 0; li < lines.length; li++) {
    const at = doc.markersEnd(li);
    const content = text.slice(at, lines[li]!.end);
    const form = hiddenFormAt(text, at);
    const close = form ? closeOf(form, at) : -1;
    const last = KIND_1.test(content) ? nextEndTag[li]! : form ? (close < 0 ? lines.length : lineOf(close - 1)) : -1;
    longTo.push(Math.max(last, longTo[li - 1] ?? -1));
    lastHtml.push(KIND_6.test(content) || KIND_7.test(content) ? li : (lastHtml[li - 1] ?? -1));
  }
  const mayBeRaw = (li: number) => lastHtml[li]! > doc.prevBlank(li) || longTo[li]! >= li;

  /** What a tag, or raw HTML a browser reads as a bogus comment, hides where `rule` says. */
  const tagUnder = (rule: Rule, i: number): Range[] => {
    const raw = rule.kind === 'raw' || (rule.kind === 'loose' && mayBeRaw(lineOf(i)));
    const tag = tagAt(text, i);
    if (tag) return tagRanges(doc, rule, tag, i, raw);
    // `</` and no letter, `<!` and no form: text in a paragraph, a comment to a browser (to its
    // first `>`, which in an HTML block may open a line).
    if (!raw || !'!/'.includes(text[i + 1] ?? '')) return [];
    const close = text.startsWith('</>', i) ? i + 3 : rule.kind === 'raw' ? endOf('>', i + 2) : gtEnd(i + 2);
    return [[i, close < 0 ? n : close]];
  };

  /** Past this many steps of searching, the rest of the text is hidden rather than searched. */
  const budget = 64 * n + 100_000;
  const footnotes: FootnoteDefinition[] = [];
  const references: Array<{ label: string; at: number }> = [];
  /** The Markdown a line read as `rule` hides: definitions opening it, link titles and image descriptions in it. */
  const markdown = (li: number, from: number, to: number, rule: Rule) => {
    if (from === lines[li]!.start) {
      push(referenceDefinition(doc, li));
      const footnote = footnoteDefinition(doc, li);
      if (footnote && footnotes.at(-1)?.range[0] !== footnote.range[0]) footnotes.push(footnote);
    }
    const inCode = (p: number) => rule.kind === 'paragraph' && surelyInCodeSpan(doc, p);
    for (const [needle, hidden] of [['](', linkTitle] as const, ['![', imageDescription] as const]) {
      for (let p = find(needle, from); p >= 0 && p < to; p = find(needle, p + 1)) {
        if (!inCode(p)) push(hidden(doc, p));
        if (doc.work > budget) return push([p, n]);
      }
    }
  };

  let infoLine = -1;
  let states: State[] = [{ mode: 'normal', para: 'none', container: false, blank: true }];
  for (let li = 0; li < lines.length && reach < n; li++) {
    const outcomes = states.flatMap((s) => advance(s, li));
    const segments = outcomes.flatMap((o) => o.segments);
    const { start, end } = lines[li]!;
    for (let i = find('<', start); i >= 0 && i < end && reach < n; i = text.indexOf('<', i + 1)) {
      if (doc.work > budget) {
        push([i, n]);
        break;
      }
      // Every reading of the line that is not code has its say; the longest wins. A paragraph's
      // code span holds text, not raw HTML.
      let code: boolean | undefined;
      const readings = segments.filter(
        (seg): seg is Segment & { rule: Rule } =>
          seg.rule !== 'code' && seg.from <= i && i < seg.to && !(seg.rule.kind === 'paragraph' && (code ??= surelyInCodeSpan(doc, i))),
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
    const read = new Set<string>();
    for (const seg of segments) {
      if (seg.rule === 'code' || seg.rule.kind === 'raw' || read.has(`${seg.from} ${seg.rule.kind}`)) continue;
      read.add(`${seg.from} ${seg.rule.kind}`);
      markdown(li, seg.from, seg.to, seg.rule);
    }
    if (segments.length > 0 && segments.every((seg) => seg.rule !== 'code' && seg.rule.kind === 'paragraph')) references.push(...footnoteReferences(doc, li));
    if (doc.work > budget) push([start, n]);
    const unique = new Map(outcomes.map((o) => [JSON.stringify(o.state), o.state]));
    states = unique.size > MAX_STATES ? [{ mode: 'lost', para: 'unknown', container: true, blank: false }] : [...unique.values()];
  }

  const merged = merge(regions);
  return merge([...merged, ...unreferencedFootnotes(footnotes, references, merged)]);
}

function merge(regions: Range[]): Range[] {
  const sorted = regions.map(([from, to]): Range => [from, to]).sort((a, b) => a[0] - b[0]);
  const merged: Range[] = [];
  for (const [from, to] of sorted) {
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
