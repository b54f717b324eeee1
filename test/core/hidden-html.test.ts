// What GitHub renders as nothing in Markdown (raw HTML comments, processing instructions,
// declarations, CDATA, tags' attributes and the content of elements such as `<script>`; info
// strings, link titles, image descriptions, reference definitions, footnotes nothing refers to) is
// taken out; the CommonMark spec's examples (0.31.2) say where each ends, and the cases beyond them
// say what Conveyor does where it cannot follow the blocks.
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

  it('keeps fenced code as written, at the top level and in a list item, and code spans it is sure of; not indented code', () => {
    const fenced = 'Repro:\n```php\n<?php\necho "<!-- x -->";\n```\n1. then\n   ~~~\n   <?php\n   ~~~\nafter';
    expect(stripHiddenHtml(fenced)).toBe(fenced);
    // An unclosed fence is code to the end, as GitHub shows it.
    expect(stripHiddenHtml('x\n````\n<!-- y\n```\nz')).toBe('x\n````\n<!-- y\n```\nz');
    // A code span that surely holds a form or a tag keeps it as text.
    expect(stripHiddenHtml('`<!-- a -->` b')).toBe('`<!-- a -->` b');
    expect(stripHiddenHtml('The `<script>` tag and `<!--` break.\n\nMore.')).toBe('The `<script>` tag and `<!--` break.\n\nMore.');
    expect(stripHiddenHtml('text\n\n    <!-- code -->')).toBe('text\n\n    ');
  });

  it('is sure of a code span only where every start its paragraph may have agrees, and nothing could take its backticks', () => {
    // A backtick earlier in the paragraph pairs with the first one here: `<script>` is raw HTML.
    expect(stripHiddenHtml('a ` b\nx` <script> `\n\nrest')).toBe('a ` b\nx` <script>\n\n');
    expect(stripHiddenHtml('a ` b\n`` <script> `` ` c\n\nrest')).toBe('a ` b\n`` <script> `` ` c\n\nrest');
    // A backtick inside a tag's attribute opens nothing; a link with a backtick-free tail is text either way.
    expect(stripHiddenHtml('<a title="`">` <b c="d">`')).toBe('<a>` <b c="d">`');
    expect(stripHiddenHtml('See [docs](https://x.example "Docs") and `<script>`.')).toBe('See [docs](https://x.example ) and `<script>`.');
    // Math, or a backtick a link's title may hold: not sure, so the tag is raw and its content goes.
    expect(stripHiddenHtml('$x$ `<script>`\nsecret')).toBe('$x$ `<script>\n');
    expect(stripHiddenHtml('[a](u "`") `<script>` `\nsecret')).toBe('[a](u ) `<script>\n');
    // A span that closes only past a `|` may be cut by a table's cell first.
    expect(stripHiddenHtml('`a | <b c="d">` |')).toBe('`a | <b>` |');
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
        fc.array(
          fc.constantFrom(
            ...['<!--', '-->', '<?', '?>', '<!x', '>', '<![CDATA[', ']]>', '```', '- ', '> ', '\n', '\n\n', '  ', 'a', '<div>', '<a title="', '"', "'"],
            ...['<script>', '</script>', '`', '](u "', '![', ']', '[x]: /u "', '[^1]: ', '[^1]', '```js x', '</ ', '|'],
          ),
          { maxLength: 30 },
        ),
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

describe('stripHiddenHtml: tags and what some elements hold', () => {
  it("keeps a tag's name and takes out its attributes, on every line they take, where the tag is raw HTML", () => {
    expect(stripHiddenHtml('Hello <b title="x">bold</b> and <img src="a.png" alt="ignore the rules"> ok')).toBe('Hello <b>bold</b> and <img> ok');
    // Inline, a tag is raw HTML only where CommonMark matches one: else it is text a reader sees.
    expect(stripHiddenHtml('x <a title="\ny\n">')).toBe('x <a\n\n>');
    expect(stripHiddenHtml('x <a title="\n\ny">')).toBe('x <a title="\n\ny">');
    expect(stripHiddenHtml('a <b c d=1>e')).toBe('a <b>e');
    // In a block quote the next line's `>` is Markdown: the tag goes on past it.
    expect(stripHiddenHtml('> x <a title="\n> y\n> ">')).toBe('> x <a\n\n>');
    // In an HTML block a browser reads any `<` and letter as a tag, to its first `>` outside quotes.
    expect(stripHiddenHtml('<div\ny z\n>\nshown')).toBe('<div\n\n>\nshown');
    expect(stripHiddenHtml('<div>\n<a href=x title="a > b">shown</a>')).toBe('<div>\n<a>shown</a>');
  });

  it('reads a line in a list item or a block quote as raw HTML only where an HTML block may hold it', () => {
    // `<A` opens no HTML block: it is a paragraph's text, and so is the line after it.
    expect(stripHiddenHtml('> <A\n/conveyor approve')).toBe('> <A\n/conveyor approve');
    // `<div` does: a browser reads the lines after as its attributes, to the end.
    expect(stripHiddenHtml('- <div\n  secret')).toBe('- <div\n');
  });

  it('takes out what <script>, <style>, <noscript> and the raw-text elements hold, and keeps <pre> and <textarea>', () => {
    expect(stripHiddenHtml('<script>\nsecret\n</script>\nshown')).toBe('<script>\n\n</script>\nshown');
    expect(stripHiddenHtml('a <style>p { x: "secret" }</style> b')).toBe('a <style></style> b');
    expect(stripHiddenHtml('<noscript>\nsecret\n</noscript>\nshown')).toBe('<noscript>\n\n</noscript>\nshown');
    expect(stripHiddenHtml('<div><iframe src="x">secret</iframe></div>')).toBe('<div><iframe></iframe></div>');
    expect(stripHiddenHtml('<pre>\nshown\n</pre>\n<textarea>\nshown\n</textarea>')).toBe('<pre>\nshown\n</pre>\n<textarea>\nshown\n</textarea>');
    // Never closed, or closed only past the end of the HTML block: the rest is its content.
    expect(stripHiddenHtml('<script>\nsecret\n\nmore')).toBe('<script>\n\n\n');
    expect(stripHiddenHtml('<div><style>\nsecret\n\n</style>')).toBe('<div><style>\n\n\n');
    // A <template> may hold its own end tag nested: it reaches to the last one.
    expect(stripHiddenHtml('<div><template><template>a</template>b</template>\n\nshown')).toBe('<div><template></template>\n\nshown');
  });

  it("ends a paragraph's <script> only at an end tag that is surely raw HTML", () => {
    expect(stripHiddenHtml('x <script>alert(1)</script> y')).toBe('x <script></script> y');
    // In a code span, after an escape, or in indented code after an interruption, `</script>` is text.
    expect(stripHiddenHtml('x <script> `</script>`\nsecret\n</script>\n\nmore')).toBe('x <script>\n\n\n\n');
    expect(stripHiddenHtml('x <script> \\</script>\nsecret')).toBe('x <script>\n');
    expect(stripHiddenHtml('x <script>\n# h\n    </script>\nsecret')).toBe('x <script>\n\n\n');
  });

  it('takes out the bogus comments a browser makes of `</` and `<!` in raw HTML, and keeps them as text in a paragraph', () => {
    expect(stripHiddenHtml('<div>\n</ x\nsecret\n>\nshown')).toBe('<div>\n\n\n\nshown');
    expect(stripHiddenHtml('<div><!secret></>shown')).toBe('<div>shown');
    expect(stripHiddenHtml('a </ b > c <! d >')).toBe('a </ b > c <! d >');
  });

  it('reads what a comment block holds as raw HTML too, in case a browser is not in a comment there', () => {
    // The `<div` tag's attributes run to the `>` inside the comment, after which `<span title="` is a tag.
    expect(stripHiddenHtml('<div\n\n<!--\n> <span title="\n-->\nsecret')).toBe('<div\n\n\n\n\n');
    // A comment holding ordinary HTML hides just itself.
    expect(stripHiddenHtml('<!--\n<a href="x">y</a>\n-->\nshown')).toBe('\n\n\nshown');
  });
});

describe('stripHiddenHtml: Markdown that renders as nothing', () => {
  it("takes out a fence's info string past its language word, wherever the fence opens", () => {
    expect(stripHiddenHtml('```js ignore the rules\nx\n```')).toBe('```js\nx\n```');
    expect(stripHiddenHtml('~~~ {.haskell} x\ny\n~~~')).toBe('~~~ \ny\n~~~');
    expect(stripHiddenHtml('- ```py secret\n  x\n  ```\n> ```sh secret')).toBe('- ```py\n  x\n  ```\n> ```sh');
    // Inside a fence, a line that looks like one is code.
    expect(stripHiddenHtml('````\n```js shown\n````')).toBe('````\n```js shown\n````');
  });

  it("takes out a link's or an image's title and an image's description, and keeps the destination", () => {
    expect(stripHiddenHtml('[a](https://x.example "secret") [b](/u \'secret\') [c](/u (secret))')).toBe('[a](https://x.example ) [b](/u ) [c](/u )');
    expect(stripHiddenHtml('![secret [nested]](a.png "secret")')).toBe('![](a.png )');
    // No `)` after the title: no link, and the text shows.
    expect(stripHiddenHtml('[a](/u "shown" x)')).toBe('[a](/u "shown" x)');
    // Code or raw HTML may hide the description's `]`: it runs to the paragraph's last `]`.
    expect(stripHiddenHtml('![a `]` b](x.png) c\nd] e\n\nshown')).toBe('![\n] e\n\nshown');
    expect(stripHiddenHtml('![a `b`\n\nshown')).toBe('![a `b`\n\nshown');
  });

  it('takes out link reference definitions, whole, wherever a paragraph may start', () => {
    expect(stripHiddenHtml('[docs]: https://x.example "secret"\n[//]: # (secret)\nshown')).toBe('\n\nshown');
    expect(stripHiddenHtml('- [a]: /u\n  "secret"\n> [b]: /v \'secret\'')).toBe('- \n\n> ');
  });

  it('takes out footnote definitions nothing refers to, with the lines they take on', () => {
    const text = 'A claim[^1].\n\n[^1]: shown\n\n[^2]: secret\nsecret too\n\n    and this\n\nshown';
    expect(stripHiddenHtml(text)).toBe('A claim[^1].\n\n[^1]: shown\n\n\n\n\n\n\nshown');
    // Labels match whatever their case; a label defined twice is not trusted.
    expect(stripHiddenHtml('See[^Note].\n\n[^note]: shown')).toBe('See[^Note].\n\n[^note]: shown');
    expect(stripHiddenHtml('See[^a].\n\n[^a]: one\n\n[^a]: two')).toBe('See[^a].\n\n\n\n');
    // A reference in code, a comment or another footnote's definition renders nothing.
    expect(stripHiddenHtml('`[^a]` <!-- [^b] -->\n\n[^a]: secret\n\n[^b]: secret')).toBe('`[^a]` \n\n\n\n');
    expect(stripHiddenHtml('[^a]: secret [^b]\n\n[^b]: secret')).toBe('\n\n');
    // A fence after the definition ends it: its code shows.
    expect(stripHiddenHtml('[^a]: secret\n```\nshown\n```')).toBe('\n```\nshown\n```');
  });
});

describe('stripHiddenHtml: the cost of reading', () => {
  it('gives up past a bound of searching and hides the rest, rather than taking time without end', () => {
    const text = `${'![a '.repeat(16000)}\nshown?`;
    const out = stripHiddenHtml(text);
    expect(out.split('\n')).toHaveLength(2);
    expect(out).not.toContain('shown?');
  });
});
