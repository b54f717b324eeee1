// Tags as CommonMark (a paragraph) and a browser (an HTML block) read them, and where the content of
// an element that shows nothing of it ends.
import { describe, expect, it } from 'vitest';
import { Doc } from '../../core/hidden-doc.ts';
import { browserTagEnd, commonMarkTagEnd, contentEnd, tagAt } from '../../core/hidden-tags.ts';

const end = (text: string, read: (doc: Doc) => number) => {
  const at = read(new Doc(text));
  return at < 0 ? undefined : text.slice(0, at);
};

describe('commonMarkTagEnd', () => {
  it('matches the open and closing tags of CommonMark 0.31.2, "Raw HTML", and nothing else', () => {
    expect(end('<a  /><b2', (d) => commonMarkTagEnd(d, 0))).toBe('<a  />');
    expect(end('<b2\ndata="foo" >x', (d) => commonMarkTagEnd(d, 0))).toBe('<b2\ndata="foo" >');
    expect(end('</foo >', (d) => commonMarkTagEnd(d, 0))).toBe('</foo >');
    for (const text of ['<33>', '<a h*#ref="hi">', '<a href="hi\'>', "<a href='bar'title=title>", '</a href="foo">', '<a title="x\n\ny">', '<a\n\nb>'])
      expect(
        end(text, (d) => commonMarkTagEnd(d, 0)),
        text,
      ).toBeUndefined();
  });

  it("skips a block quote's markers on the lines after only where told the paragraph is in one", () => {
    expect(end('<a\n> b>', (d) => commonMarkTagEnd(d, 0, true))).toBe('<a\n> b>');
    expect(end('<a\n    > b', (d) => commonMarkTagEnd(d, 0))).toBe('<a\n    >');
  });
});

describe('browserTagEnd', () => {
  const tag = (text: string, limit = text.length, markers = false) => end(text, (d) => browserTagEnd(d, tagAt(text, 0)!.nameEnd, limit, markers));

  it('ends a tag at its first `>` outside a quoted value, the rest of the text when it has none', () => {
    expect(tag('<div a="x > y" b=\'>\' c=d>e')).toBe('<div a="x > y" b=\'>\' c=d>');
    expect(tag('<div\n/conveyor approve\n>x')).toBe('<div\n/conveyor approve\n>');
    expect(tag('<div a=>b')).toBe('<div a=>');
    expect(tag('<div *???-&&&-<---\n*foo*')).toBe('<div *???-&&&-<---\n*foo*');
  });

  it('takes the rest of the text for a quoted value still open where its raw HTML ends', () => {
    expect(tag('<div a="x\n\n" >shown', 7)).toBe('<div a="x\n\n" >shown');
  });

  it("skips a block quote's markers on the lines after where told to", () => {
    expect(tag('<div\n> a\n> >x', 100, true)).toBe('<div\n> a\n> >x');
    expect(tag('<div\n> a>x')).toBe('<div\n>');
  });
});

describe('contentEnd', () => {
  const content = (name: string, text: string) => end(text, (d) => contentEnd(d, name, 0, text.length));

  it('ends raw text at the first end tag of its element, whatever its case', () => {
    expect(content('style', 'a </b> </STYLE >c')).toBe('a </b> ');
    expect(content('style', 'a </stylex> b')).toBeUndefined();
  });

  it('ends a script as a browser does: `<!--` and a nested `<script>` escape an end tag until `-->`', () => {
    expect(content('script', 'a</script>')).toBe('a');
    expect(content('script', '<!--<script></script>b</script>c')).toBe('<!--<script></script>b');
    expect(content('script', '<!--<script>--></script>c')).toBe('<!--<script>-->');
    expect(content('script', '<!--></script>')).toBe('<!-->');
  });

  it('reaches to the last end tag of an element that may nest its own, and never ends <plaintext>', () => {
    expect(content('template', '<template>a</template>b</template>c')).toBe('<template>a</template>b');
    expect(content('plaintext', 'a</plaintext>')).toBeUndefined();
  });
});
