// Git's conflict markers left in a file a conflict repair was to resolve. Pure.

/** A line git writes around a conflict: `<<<<<<< ours`, `||||||| base`, `>>>>>>> theirs`, or a bare `=======` between them. */
const MARKER = /^(<{7}|\|{7}|>{7})(?: |$)/;
const SEPARATOR = /^={7}$/;

/**
 * The 1-based numbers of the lines that still hold a conflict marker. A `=======` line alone is a
 * Markdown heading's underline as often as a marker: it counts only between an opening and a
 * closing marker.
 */
export function conflictMarkerLines(text: string): number[] {
  const found: number[] = [];
  let open = false;
  text.split(/\r?\n/).forEach((line, i) => {
    if (MARKER.test(line)) {
      found.push(i + 1);
      open = line.startsWith('<') ? true : line.startsWith('>') ? false : open;
    } else if (open && SEPARATOR.test(line)) found.push(i + 1);
  });
  return found;
}
