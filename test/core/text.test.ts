// Text from outside the run on its way to GitHub: Markdown and mentions shown as characters, only
// http(s) links, and cuts that say where the rest is (what GitHub hides: hidden-html.test.ts).
import { describe, expect, it } from 'vitest';
import { code, fitText, inlineText, safeLinkTarget } from '../../core/text.ts';

describe('inlineText', () => {
  it('shows Markdown, HTML and mentions as the characters they are, on one line', () => {
    expect(inlineText('[click](javascript:alert(1)) @octocat <img src=x>\n**bold** `code` |cell|')).toBe(
      '\\[click\\]\\(javascript:alert\\(1\\)\\) &#64;octocat &lt;img src=x&gt; \\*\\*bold\\*\\* \\`code\\` \\|cell\\|',
    );
    expect(inlineText('<!-- hidden -->')).toBe('&lt;!-- hidden --&gt;');
    expect(inlineText('acme/web#12 + 3!')).toBe('acme/web#12 + 3!');
  });
});

describe('safeLinkTarget', () => {
  it('accepts http(s) only, printed again with what would end a Markdown link escaped', () => {
    expect(safeLinkTarget('https://preview.example.com/a b)')).toBe('https://preview.example.com/a%20b%29');
    expect(safeLinkTarget('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/');
    for (const bad of ['javascript:alert(1)', 'data:text/html,hi', '/relative', 'not a url', 'file:///etc/passwd', '', undefined])
      expect(safeLinkTarget(bad)).toBeUndefined();
  });
});

describe('fitText', () => {
  it('leaves text that fits, and cuts the rest with a note saying where it is', () => {
    expect(fitText('short', 100, 'see the log')).toBe('short');
    const cut = fitText('x'.repeat(70_000), 65_536, 'the full text is in the step log');
    expect(cut.length).toBe(65_536);
    expect(cut.endsWith("…(cut to fit GitHub's limit of 65536 characters; the full text is in the step log)")).toBe(true);
  });
});

describe('code', () => {
  it('makes a code span no backtick inside can end, padded where the text starts or ends with one', () => {
    expect(code('npm test')).toBe('`npm test`');
    expect(code('echo `date`')).toBe('`` echo `date` ``');
    expect(code('a ``` b')).toBe('````a ``` b````');
    expect(code('`x`')).toBe('`` `x` ``');
    expect(code(' lead')).toBe('`  lead `');
    expect(code('   ')).toBe('`   `');
  });

  it('keeps the span on its line, escapes a pipe in a table cell, and says empty text in words', () => {
    expect(code('a\nb\r\nc')).toBe('`a b c`');
    expect(code('x | y', { table: true })).toBe('`x \\| y`');
    expect(code('x | y')).toBe('`x | y`');
    expect(code('')).toBe('(empty)');
  });
});
