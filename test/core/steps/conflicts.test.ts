// Which lines of a conflicted file still hold git's markers (core/steps/conflicts.ts): what makes a
// conflict repair's commit refused as conflict-unresolved.
import { describe, expect, it } from 'vitest';
import { conflictMarkerLines } from '../../../core/steps/conflicts.ts';

describe('conflict markers left in a file', () => {
  it("finds every line of a conflict git left, diff3's base marker included, CRLF or not", () => {
    const text = ['a', '<<<<<<< HEAD', 'ours', '||||||| base', 'was', '=======', 'theirs', '>>>>>>> main', 'b'].join('\n');
    expect(conflictMarkerLines(text)).toEqual([2, 4, 6, 8]);
    expect(conflictMarkerLines(text.replaceAll('\n', '\r\n'))).toEqual([2, 4, 6, 8]);
    expect(conflictMarkerLines('x\n<<<<<<<\ny\n')).toEqual([2]);
  });

  it("takes a resolved file's text, a Markdown underline and longer or indented runs as no marker", () => {
    expect(conflictMarkerLines('ours and theirs\n')).toEqual([]);
    expect(conflictMarkerLines('Title\n=======\ntext\n')).toEqual([]);
    expect(conflictMarkerLines('<<<<<<<< eight\n  <<<<<<< indented\n<<<<<<<x\n')).toEqual([]);
  });

  it('counts a bare separator only between an opening and a closing marker', () => {
    expect(conflictMarkerLines('=======\n<<<<<<< a\n=======\n>>>>>>> b\n=======\n')).toEqual([2, 3, 4]);
  });
});
