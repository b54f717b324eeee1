// Source positions of configuration values, by key path. Only needed when something is wrong, so
// the index is built lazily, once, on the first question, in one walk of the YAML syntax tree.
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Document, LineCounter, Node } from 'yaml';

export type PathSegment = string | number;
export type Position = { line: number; column: number };

const SIMPLE_KEY = /^[A-Za-z0-9_-]+$/;

/** `pipelines.default.steps[2].needs[0]`; keys that are not plain words are quoted: `a["x.y"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (SIMPLE_KEY.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

type Entry = { key?: Node; value?: Node };

const keyOf = (node: unknown): PathSegment | undefined => {
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  }
  return undefined;
};

export class Locator {
  private index: Map<string, Entry> | undefined;

  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  private position(offset: number): Position {
    const p = this.lines.linePos(offset);
    return { line: p.line, column: p.col };
  }

  /**
   * Where `path` is written: `at: 'key'` points at the key itself (an unknown key), otherwise at
   * the value. A path that does not exist (a missing key) points at the nearest enclosing value
   * that does: the object that lacks the key.
   */
  locate(path: readonly PathSegment[], at: 'key' | 'value' = 'value'): Position {
    const index = (this.index ??= this.build());
    for (let n = path.length; n >= 0; n--) {
      const entry = index.get(formatPath(path.slice(0, n)));
      if (entry === undefined) continue;
      // A missing key points at the key naming the object that lacks it; an empty value (`p3:`)
      // at its key, since the value has no text of its own.
      const preferKey = n < path.length || at === 'key' || (isScalar(entry.value) && entry.value.value === null);
      const node = preferKey ? (entry.key ?? entry.value) : (entry.value ?? entry.key);
      if (node?.range) return this.position(node.range[0]);
    }
    return { line: 1, column: 1 };
  }

  /** Key path of the innermost node at a source offset (for YAML syntax errors). */
  pathAt(offset: number): PathSegment[] {
    const path: PathSegment[] = [];
    let node: unknown = this.doc.contents;
    const inside = (n: unknown): boolean =>
      !!n && typeof n === 'object' && 'range' in n && Array.isArray(n.range) && offset >= n.range[0] && offset <= n.range[1];
    for (let depth = 0; depth < 64; depth++) {
      let next: unknown;
      if (isMap(node)) {
        for (const pair of node.items) {
          const key = keyOf(pair.key);
          if (key === undefined) continue;
          if (inside(pair.key)) return [...path, key];
          if (inside(pair.value)) {
            path.push(key);
            next = pair.value;
            break;
          }
        }
      } else if (isSeq(node)) {
        const i = node.items.findIndex(inside);
        if (i >= 0) {
          path.push(i);
          next = node.items[i];
        }
      }
      if (next === undefined) return path;
      node = next;
    }
    return path;
  }

  private build(): Map<string, Entry> {
    const index = new Map<string, Entry>();
    const seen = new Set<Node>();
    const walk = (node: unknown, path: PathSegment[], key: Node | undefined): void => {
      if (!node || typeof node !== 'object') {
        if (key) index.set(formatPath(path), { key });
        return;
      }
      const own = node as Node;
      const entry: Entry = { value: own };
      if (key) entry.key = key;
      const id = formatPath(path);
      if (!index.has(id)) index.set(id, entry);
      // An alias points where it is written; what lies under it is found through its anchor.
      let target: unknown = own;
      if (isAlias(own)) target = own.resolve(this.doc);
      if (!target || typeof target !== 'object' || seen.has(target as Node)) return;
      seen.add(target as Node);
      if (isMap(target)) {
        const merged: unknown[] = [];
        for (const pair of target.items) {
          const k = keyOf(pair.key);
          if (k === '<<') merged.push(pair.value);
          else if (k !== undefined) walk(pair.value, [...path, k], pair.key as Node);
        }
        // Merge keys (`<<: *base`): merged entries belong to this path, and keys written here win.
        for (const source of merged) {
          const resolved = isAlias(source) ? source.resolve(this.doc) : source;
          const maps = isSeq(resolved) ? resolved.items.map((i) => (isAlias(i) ? i.resolve(this.doc) : i)) : [resolved];
          for (const m of maps) {
            if (!isMap(m)) continue;
            for (const pair of m.items) {
              const k = keyOf(pair.key);
              if (k !== undefined && k !== '<<') walk(pair.value, [...path, k], pair.key as Node);
            }
          }
        }
      } else if (isSeq(target)) {
        target.items.forEach((item, i) => walk(item, [...path, i], undefined));
      }
      seen.delete(target as Node);
    };
    walk(this.doc.contents, [], undefined);
    return index;
  }
}
