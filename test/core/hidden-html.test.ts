// What GitHub renders as nothing of the raw HTML in Markdown (comments, processing instructions,
// declarations, CDATA) is taken out; the CommonMark spec's examples (0.31.2) say where each ends,
// and the cases beyond them say what Conveyor does where it cannot follow the blocks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hiddenHtmlRanges, stripHiddenHtml } from '../../core/hidden-html.ts';
import { SPEC_EXAMPLES } from '../helpers/hidden-html.ts';

describe('stripHiddenHtml', () => {
  it.each(SPEC_EXAMPLES)('takes out what CommonMark example $example hides, keeping its line breaks', ({ markdown, left }) => {
    expect(stripHiddenHtml(markdown)).toBe(left);
  });

  it('ends a form where CommonMark does: inline at its end marker, a block of kinds 2–5 on the line holding it', () => {
    expect(stripHiddenHtml('a <!-- b -->c')).toBe('a c');
    expect(stripHiddenHtml('a <!--\nb\n--> c\nd')).toBe('a \n\n c\nd');
    expect(stripHiddenHtml('a <? b\nc ?> d')).toBe('a \n d');
    // A block ends on the line holding its marker; what follows on that line is shown.
    expect(stripHiddenHtml('<?x\nsecret\n?> shown\nnext')).toBe('\n\n shown\nnext');
    expect(stripHiddenHtml('<!DOCTYPE html\nsecret\n> shown')).toBe('\n\n shown');
    expect(stripHiddenHtml('<![CDATA[\n\nsecret\n]]>shown')).toBe('\n\n\nshown');
    // Never closed: a block, and a comment anywhere, hide the rest of the text.
    expect(stripHiddenHtml('visible <!-- never closed\nsecret')).toBe('visible \n');
    expect(stripHiddenHtml('visible\n<?php\n\nsecret')).toBe('visible\n\n\n');
    // Inline, a processing instruction that never closes is text (Java's `List<? extends T>`).
    expect(stripHiddenHtml('List<? extends T> here')).toBe('List<? extends T> here');
    expect(stripHiddenHtml('Map<?, ?> here')).toBe('Map here');
  });

  it('keeps fenced code as written, at the top level and in a list item; not code spans or indented code', () => {
    const fenced = 'Repro:\n```php\n<?php\necho "<!-- x -->";\n```\n1. then\n   ~~~\n   <?php\n   ~~~\nafter';
    expect(stripHiddenHtml(fenced)).toBe(fenced);
    // An unclosed fence is code to the end, as GitHub shows it.
    expect(stripHiddenHtml('x\n````\n<!-- y\n```\nz')).toBe('x\n````\n<!-- y\n```\nz');
    // Inline code is not parsed: a form inside backticks goes, as the brief allows.
    expect(stripHiddenHtml('`<!-- a -->` b')).toBe('`` b');
    expect(stripHiddenHtml('text\n\n    <!-- code -->')).toBe('text\n\n    ');
  });

  it('cuts a form inside raw HTML where a browser does, and an open comment there never closes', () => {
    // In an HTML block a browser ends `<? …` at its first `>`, and shows what follows.
    expect(stripHiddenHtml('<div>\nfoo <? a > bar\n</div>')).toBe('<div>\nfoo  bar\n</div>');
    // The paragraph's `-->` is escaped text: nothing ends the comment opened in the block.
    expect(stripHiddenHtml('<div>\n<!-- a\n\n-->\nsecret')).toBe('<div>\n\n\n\n');
    // Nor one opened inside a processing instruction, past the `>` a browser ended it at.
    expect(stripHiddenHtml('foo <? a > <!-- ?> b --> c\n\nsecret')).toBe('foo \n\n');
  });

  it('inside a block quote or a list item, closes a comment on its own line only, and ends the others at their first `>`', () => {
    expect(stripHiddenHtml('> <!-- a --> b\n> c')).toBe(' b\n> c'.replace(/^/, '> '));
    // The comment block ends with the quote, and a browser never closes it: the rest is hidden.
    expect(stripHiddenHtml('> <!-- a\nx -->\nsecret')).toBe('> \n\n');
    // A block quote's own `>` ends nothing: the instruction runs to the `>` of `?>`.
    expect(stripHiddenHtml('> <?x\n> secret\n> ?> shown')).toBe('> \n\n shown');
    expect(stripHiddenHtml('- <?x\n  secret\n\nshown >')).toBe('- \n\n\n');
  });

  it('reads a line it cannot place both ways, and hides what either way hides', () => {
    // `1.` keeps its text from column 3, so the comment at column 2 is a block at the top level,
    // which `-->` closes; read as the item's, the item ends under it unclosed, hiding the rest.
    expect(stripHiddenHtml('1. a\n\n  <!-- x\n-->\nshown')).toBe('1. a\n\n  \n\n');
    // Both readings of a fence there keep its code.
    expect(stripHiddenHtml('1. a\n\n  ```\n  <!-- x\n  ```\n-->')).toBe('1. a\n\n  ```\n  <!-- x\n  ```\n-->');
    // After a list, a lone tag may continue the list's paragraph or open an HTML block.
    expect(stripHiddenHtml('- a\n<span>\nb <? c > d')).toBe('- a\n<span>\nb  d');
  });

  it('keeps the text around what it takes out, and every line break', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('<!--', '-->', '<?', '?>', '<!x', '>', '<![CDATA[', ']]>', '```', '- ', '> ', '\n', '\n\n', '  ', 'a', '<div>'), {
          maxLength: 30,
        }),
        (parts) => {
          const text = parts.join('');
          const out = stripHiddenHtml(text);
          expect(out.split('\n').length).toBe(text.split('\n').length);
          // What is left is the text with ranges taken out, in order.
          let rebuilt = '';
          let at = 0;
          for (const [from, to] of hiddenHtmlRanges(text)) {
            expect(from).toBeGreaterThanOrEqual(at);
            rebuilt += text.slice(at, from) + text.slice(from, to).replace(/[^\n]/g, '');
            at = to;
          }
          expect(rebuilt + text.slice(at)).toBe(out);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads CRLF and CR as line breaks', () => {
    expect(stripHiddenHtml('a\r\n<?x\r\nsecret\r\n?>\r\nb')).toBe('a\n\n\n\nb');
  });
});
