// A Markdown text as hidden-html.ts and its helpers read it: its lines, where its blank lines are,
// and searches that go forward through it as the scan does, so an answer is found once. Pure.

/**
 * Where a form found at some position may end, by what surrounds it: a paragraph (CommonMark's
 * inline rules), an HTML block ending at `extent` (a browser's), or a line in a list item or block
 * quote whose blocks are not followed (`loose`: either).
 */
export type Rule = { kind: 'paragraph' } | { kind: 'raw'; extent: number } | { kind: 'loose'; lineEnd: number };

export type Range = [number, number];

export interface Line {
  start: number;
  /** Where its `\n` is (or the end of the text). */
  end: number;
}

/** The block quote and list markers a line opens with: Markdown, not text, even where they look like `>`. */
const MARKERS = /^(?:[ \t]*(?:>|[-+*](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)))*[ \t]*/;

export class Doc {
  readonly n: number;
  readonly lines: Line[] = [];
  /** Steps the scan has spent on searches it could not reuse; past a bound it hides the rest instead. */
  work = 0;
  private readonly blankAfter: number[];
  private readonly blankBefore: number[];
  private readonly found = new Map<string, { from: number; at: number }>();
  private ticks: Int32Array | undefined;

  constructor(readonly text: string) {
    this.n = text.length;
    for (let start = 0; ;) {
      const nl = text.indexOf('\n', start);
      this.lines.push({ start, end: nl < 0 ? this.n : nl });
      if (nl < 0) break;
      start = nl + 1;
    }
    const count = this.lines.length;
    this.blankAfter = new Array<number>(count + 1).fill(count);
    this.blankBefore = new Array<number>(count).fill(-1);
    for (let li = count - 1; li >= 0; li--) this.blankAfter[li] = this.isBlank(li) ? li : this.blankAfter[li + 1]!;
    for (let li = 1; li < count; li++) this.blankBefore[li] = this.isBlank(li - 1) ? li - 1 : this.blankBefore[li - 1]!;
  }

  lineText(li: number): string {
    return this.text.slice(this.lines[li]!.start, this.lines[li]!.end);
  }

  isBlank(li: number): boolean {
    return /^[ \t]*$/.test(this.lineText(li));
  }

  /** The first blank line at `li` or after it (the number of lines when none is). */
  nextBlank(li: number): number {
    return this.blankAfter[Math.min(li, this.lines.length)]!;
  }

  /** The last blank line before `li` (-1 when none is). */
  prevBlank(li: number): number {
    return this.blankBefore[li]!;
  }

  /** Where the paragraph holding `pos` ends at the latest: the start of the next blank line, or the end. */
  paragraphLimit(pos: number): number {
    const blank = this.nextBlank(this.lineOf(pos) + 1);
    return blank < this.lines.length ? this.lines[blank]!.start : this.n;
  }

  /** Whether a blank line lies between `from` and `to` (a paragraph cannot hold one). */
  crossesBlank(from: number, to: number): boolean {
    return this.nextBlank(this.lineOf(from) + 1) < this.lineOf(to);
  }

  lineOf(pos: number): number {
    let lo = 0;
    let hi = this.lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lines[mid]!.start <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Where the text of line `li` starts past its block quote and list markers and its indentation. */
  markersEnd(li: number): number {
    return this.lines[li]!.start + MARKERS.exec(this.lineText(li))![0].length;
  }

  /** `text.indexOf(needle, from)`, reusing the last answer for that needle where it still holds. */
  find(needle: string, from: number): number {
    const last = this.found.get(needle);
    if (last && last.from <= from && (last.at === -1 || last.at >= from)) return last.at;
    const at = this.text.indexOf(needle, from);
    this.found.set(needle, { from, at });
    return at;
  }

  /** The first backtick at `pos` or after it (`n` when none is). */
  nextTick(pos: number): number {
    if (!this.ticks) {
      this.ticks = new Int32Array(this.n + 1).fill(this.n);
      for (let p = this.n - 1; p >= 0; p--) this.ticks[p] = this.text[p] === '`' ? p : this.ticks[p + 1]!;
    }
    return this.ticks[Math.min(Math.max(pos, 0), this.n)]!;
  }
}
