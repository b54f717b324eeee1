// Which lines of each file a unified diff (`git diff base...head`) shows on its new side: what a
// pull request review comment may target (GitHub's `side: RIGHT`). GitHub takes a comment only on
// a line inside one of the diff's hunks, added or context; anything else (a line the diff does not
// show, a deleted file, a binary one) is refused, so a finding there belongs in the review's body.
// Pure: the review step hands it the diff it already has.

/** Lines on the new side of the diff, by the file's path in the head commit. */
export type DiffLines = Map<string, Set<number>>;

const HUNK = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * A path as git prints it after `+++ ` or `rename to `: C-quoted (`"b/caf\303\251.txt"`) when it
 * holds special or non-ASCII characters (core.quotePath), else as it is.
 */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const bytes: number[] = [];
  const body = raw.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7, '"': 34, '\\': 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else if (next in simple) {
      bytes.push(simple[next]!);
      i += 1;
    } else {
      bytes.push(92);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** `b/src/a.ts` (or its quoted form) as `src/a.ts`; undefined for `/dev/null` (a deleted file). */
function newSidePath(raw: string): string | undefined {
  const path = unquoteGitPath(raw.replace(/\t.*$/, ''));
  if (path === '/dev/null') return undefined;
  return path.startsWith('b/') ? path.slice(2) : path;
}

export function diffLines(diff: string): DiffLines {
  const out: DiffLines = new Map();
  let file: string | undefined;
  // What the current hunk has left of each side, and the number of its next new-side line.
  let oldLeft = 0;
  let newLeft = 0;
  let line = 0;
  const keep = () => {
    if (file !== undefined) out.get(file)!.add(line);
    line++;
  };
  for (const text of diff.split('\n')) {
    if (oldLeft > 0 || newLeft > 0) {
      // Inside a hunk every line is one of its own, whatever it holds (a `+++` of content included).
      const first = text[0];
      if (first === ' ' || (text === '' && oldLeft > 0 && newLeft > 0)) {
        // (An empty line is a blank context line whose space an editor or a pipe took off.)
        keep();
        oldLeft--;
        newLeft--;
        continue;
      }
      if (first === '+' && newLeft > 0) {
        keep();
        newLeft--;
        continue;
      }
      if (first === '-' && oldLeft > 0) {
        oldLeft--;
        continue;
      }
      if (first === '\\') continue;
      // Anything else ends the hunk early (a diff cut short): it is read as a header.
      oldLeft = 0;
      newLeft = 0;
    }
    if (text.startsWith('diff --git ')) {
      file = undefined;
      continue;
    }
    if (text.startsWith('+++ ')) {
      file = newSidePath(text.slice(4));
      if (file !== undefined && !out.has(file)) out.set(file, new Set());
      continue;
    }
    const hunk = HUNK.exec(text);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      line = Number(hunk[2]);
      newLeft = hunk[3] === undefined ? 1 : Number(hunk[3]);
    }
  }
  for (const [path, lines] of out) if (lines.size === 0) out.delete(path);
  return out;
}
