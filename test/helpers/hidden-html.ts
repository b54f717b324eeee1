// What GitHub renders as nothing a reader sees, from the CommonMark spec (0.31.2): the spec's own
// examples of raw HTML (comments, processing instructions, declarations, CDATA, tags and the
// elements whose content shows nothing) and of the Markdown that renders as nothing (info strings,
// link titles, image descriptions, reference definitions), and the same forms carrying a command a
// reader of the comment never sees.

/** A spec example, and what of it is left once the hidden forms are taken out (line breaks kept). */
export interface SpecExample {
  example: number;
  markdown: string;
  left: string;
}

export const SPEC_EXAMPLES: SpecExample[] = [
  // HTML blocks: a block of kinds 2–5 ends on the line holding its end marker; the rest of that line shows.
  { example: 177, markdown: '<!-- foo -->*bar*\n*baz*', left: '*bar*\n*baz*' },
  { example: 179, markdown: '<!-- Foo\n\nbar\n   baz -->\nokay', left: '\n\n\n\nokay' },
  { example: 180, markdown: "<?php\n\n  echo '>';\n\n?>\nokay", left: '\n\n\n\n\nokay' },
  { example: 181, markdown: '<!DOCTYPE html>', left: '' },
  {
    example: 182,
    markdown: '<![CDATA[\nfunction matchwo(a,b)\n{\n  if (a < b && a < 0) then {\n    return 1;\n\n  } else {\n\n    return 0;\n  }\n}\n]]>\nokay',
    left: `${'\n'.repeat(12)}okay`,
  },
  // Indented by four, the second is indented code (shown as text); only fenced code is kept as written.
  { example: 183, markdown: '  <!-- foo -->\n\n    <!-- foo -->', left: '  \n\n    ' },
  // HTML blocks: a tag keeps its name and loses its attributes, on as many lines as they take.
  { example: 153, markdown: '<div id="foo"\n  class="bar">\n</div>', left: '<div\n>\n</div>' },
  { example: 154, markdown: '<div id="foo" class="bar\n  baz">\n</div>', left: '<div\n>\n</div>' },
  // Never closed: a browser reads the rest as the tag's attributes.
  { example: 156, markdown: '<div id="foo"\n*hi*', left: '<div\n' },
  { example: 159, markdown: '<div><a href="bar">*foo*</a></div>', left: '<div><a>*foo*</a></div>' },
  { example: 162, markdown: '<a href="foo">\n*bar*\n</a>', left: '<a>\n*bar*\n</a>' },
  // Kind 1: `<pre>` and `<textarea>` show what they hold, `<script>` and `<style>` nothing of it.
  {
    example: 169,
    markdown: '<pre language="haskell"><code>\nimport Text.HTML.TagSoup\n\nmain :: IO ()\nmain = print $ parseTags tags\n</code></pre>\nokay',
    left: '<pre><code>\nimport Text.HTML.TagSoup\n\nmain :: IO ()\nmain = print $ parseTags tags\n</code></pre>\nokay',
  },
  {
    example: 170,
    markdown: '<script type="text/javascript">\n// JavaScript example\n\ndocument.getElementById("demo").innerHTML = "Hello JavaScript!";\n</script>\nokay',
    left: '<script>\n\n\n\n</script>\nokay',
  },
  { example: 171, markdown: '<textarea>\n\n*foo*\n\n_bar_\n\n</textarea>', left: '<textarea>\n\n*foo*\n\n_bar_\n\n</textarea>' },
  { example: 172, markdown: '<style\n  type="text/css">\nh1 {color:red;}\n\np {color:blue;}\n</style>\nokay', left: '<style\n>\n\n\n\n</style>\nokay' },
  // Never closed: the rest of the document is its content.
  { example: 173, markdown: '<style\n  type="text/css">\n\nfoo', left: '<style\n>\n\n' },
  { example: 176, markdown: '<style>p{color:red;}</style>\n*foo*', left: '<style></style>\n*foo*' },
  { example: 178, markdown: '<script>\nfoo\n</script>1. *bar*', left: '<script>\n\n</script>1. *bar*' },
  // Raw HTML: inline, each ends at its own end marker.
  { example: 625, markdown: 'foo <!-- this is a --\ncomment - with hyphens -->', left: 'foo \n' },
  { example: 626, markdown: 'foo <!--> foo -->\n\nfoo <!---> foo -->', left: 'foo  foo -->\n\nfoo  foo -->' },
  { example: 627, markdown: 'foo <?php echo $a; ?>', left: 'foo ' },
  { example: 628, markdown: 'foo <!ELEMENT br EMPTY>', left: 'foo ' },
  { example: 629, markdown: 'foo <![CDATA[>&<]]>', left: 'foo ' },
  // Raw HTML tags: attributes go, on every line they span; what is not a tag is text and stays.
  { example: 614, markdown: '<a/><b2/>', left: '<a><b2>' },
  { example: 615, markdown: '<a  /><b2\ndata="foo" >', left: '<a><b2\n>' },
  { example: 616, markdown: '<a foo="bar" bam = \'baz <em>"</em>\'\n_boolean zoop:33=zoop:33 />', left: '<a\n>' },
  { example: 617, markdown: 'Foo <responsive-image src="foo.jpg" />', left: 'Foo <responsive-image>' },
  { example: 619, markdown: '<a h*#ref="hi">', left: '<a h*#ref="hi">' },
  { example: 624, markdown: '</a href="foo">', left: '</a href="foo">' },
  { example: 630, markdown: 'foo <a href="&ouml;">', left: 'foo <a>' },
  // Code spans: a tag inside one is text; a code span inside a tag's attribute is not one.
  { example: 343, markdown: '`<a href="`">`', left: '`<a href="`">`' },
  { example: 344, markdown: '<a href="`">`', left: '<a>`' },
  // Fenced code: the info string goes past its first word (which only picks the highlighting).
  {
    example: 143,
    markdown: '~~~~    ruby startline=3 $%@#$\ndef foo(x)\n  return 3\nend\n~~~~~~~',
    left: '~~~~    ruby\ndef foo(x)\n  return 3\nend\n~~~~~~~',
  },
  { example: 146, markdown: '~~~ aa ``` ~~~\nfoo\n~~~', left: '~~~ aa\nfoo\n~~~' },
  // A backtick in a backtick fence's info string makes it no fence: it is text.
  { example: 145, markdown: '``` aa ```\nfoo', left: '``` aa ```\nfoo' },
  // Links and images: a title (a tooltip) goes, the destination stays; an image's description goes.
  { example: 482, markdown: '[link](/uri "title")', left: '[link](/uri )' },
  { example: 505, markdown: '[link](/url "title")\n[link](/url \'title\')\n[link](/url (title))', left: '[link](/url )\n[link](/url )\n[link](/url )' },
  { example: 510, markdown: '[link](   /uri\n  "title"  )', left: '[link](   /uri\n    )' },
  { example: 572, markdown: '![foo](/url "title")', left: '![](/url )' },
  { example: 579, markdown: 'My ![foo bar](/path/to/train.jpg  "title"   )', left: 'My ![](/path/to/train.jpg     )' },
  // Link reference definitions render as nothing, on every line they take.
  { example: 192, markdown: '[foo]: /url "title"\n\n[foo]', left: '\n\n[foo]' },
  { example: 193, markdown: "   [foo]: \n      /url  \n           'the title'  \n\n[foo]", left: '   \n\n\n\n[foo]' },
  { example: 196, markdown: "[foo]: /url '\ntitle\nline1\nline2\n'\n\n[foo]", left: '\n\n\n\n\n\n[foo]' },
  {
    example: 217,
    markdown: '[foo]: /foo-url "foo"\n[bar]: /bar-url\n  "bar"\n[baz]: /baz-url\n\n[foo],\n[bar],\n[baz]',
    left: '\n\n\n\n\n[foo],\n[bar],\n[baz]',
  },
  // What is no definition is text: a title across a blank line, text after the title.
  { example: 197, markdown: "[foo]: /url 'title\n\nwith blank line'\n\n[foo]", left: "[foo]: /url 'title\n\nwith blank line'\n\n[foo]" },
  { example: 209, markdown: '[foo]: /url "title" ok', left: '[foo]: /url "title" ok' },
  // A title that does not end its line leaves the definition without one: that line is a paragraph.
  { example: 210, markdown: '[foo]: /url\n"title" ok', left: '\n"title" ok' },
  { example: 212, markdown: '```\n[foo]: /url\n```\n\n[foo]', left: '```\n[foo]: /url\n```\n\n[foo]' },
];

/**
 * A hidden form holding `/conveyor approve` on a line of its own. When it closes, a visible
 * `/conveyor status` follows on line `statusLine`; when it never does, it hides the rest.
 */
export interface HiddenCommand {
  form: string;
  markdown: string;
  statusLine?: number;
}

export const HIDDEN_COMMANDS: HiddenCommand[] = [
  { form: 'a comment block (example 179)', markdown: '<!-- Foo\n\n/conveyor approve\n   baz -->\n/conveyor status', statusLine: 5 },
  {
    form: 'an inline comment (example 625)',
    markdown: 'foo <!-- this is a --\n/conveyor approve\ncomment - with hyphens -->\n\n/conveyor status',
    statusLine: 5,
  },
  { form: 'a processing instruction block (example 180)', markdown: "<?php\n\n/conveyor approve\n\n  echo '>';\n\n?>\n/conveyor status", statusLine: 8 },
  { form: 'an inline processing instruction (example 627)', markdown: 'foo <?php echo $a;\n/conveyor approve\n?>\n\n/conveyor status', statusLine: 5 },
  { form: 'a declaration block (example 181)', markdown: '<!DOCTYPE html\n/conveyor approve\n>\n/conveyor status', statusLine: 4 },
  { form: 'a lower-case declaration, indented by three', markdown: '   <!x\n/conveyor approve\n>\n/conveyor status', statusLine: 4 },
  { form: 'an inline declaration (example 628)', markdown: 'foo <!ELEMENT br\n/conveyor approve\nEMPTY>\n\n/conveyor status', statusLine: 5 },
  {
    form: 'a CDATA block (example 182)',
    markdown: '<![CDATA[\nfunction matchwo(a,b)\n/conveyor approve\n{\n  if (a < b && a < 0) then {\n    return 1;\n  }\n}\n]]>\n/conveyor status',
    statusLine: 10,
  },
  { form: 'an inline CDATA section (example 629)', markdown: 'foo <![CDATA[&<\n/conveyor approve\n]]>\n\n/conveyor status', statusLine: 5 },
  { form: 'a processing instruction in a list item', markdown: '- <?x\n  /conveyor approve\n  ?>\n\n/conveyor status', statusLine: 5 },
  { form: 'a comment block never closed', markdown: '<!--\n/conveyor approve\n\n/conveyor status' },
  { form: 'a processing instruction block never closed', markdown: '<?php\necho 1;\n\n/conveyor approve' },
  { form: 'a declaration block never closed', markdown: '<!DOCTYPE html\n\n/conveyor approve' },
  { form: 'a CDATA block never closed', markdown: '<![CDATA[\n\n/conveyor approve' },
  // Inside an HTML block a comment is raw HTML: the paragraph's `-->` is text and closes nothing.
  { form: 'a comment left open in a <div> block', markdown: '<div>\n<!-- a\n\n-->\n/conveyor approve' },
  // Tags: what a browser reads as attributes is no text, whatever lines it takes.
  {
    form: "a tag's attributes across lines, in an HTML block (example 153)",
    markdown: '<div id="foo"\n/conveyor approve\n  class="bar">\n/conveyor status',
    statusLine: 4,
  },
  { form: 'a tag whose attributes are bare words across lines', markdown: '<div\n/conveyor approve\n>\n/conveyor status', statusLine: 4 },
  { form: 'an inline tag with a quoted value across lines (example 616)', markdown: 'x <a title="\n/conveyor approve\n">\n\n/conveyor status', statusLine: 5 },
  { form: 'an inline tag with a single-quoted value across lines', markdown: "x <img alt='\n/conveyor approve\n'>\n\n/conveyor status", statusLine: 5 },
  { form: 'an inline tag in a block quote', markdown: '> x <a title="\n> /conveyor approve\n> ">\n\n/conveyor status', statusLine: 5 },
  { form: 'a tag never closed in an HTML block (example 156)', markdown: '<div id="foo"\n/conveyor approve\n\n/conveyor status' },
  { form: 'a bogus comment a browser makes of `</ …>` in an HTML block', markdown: '<div>\n</ x\n/conveyor approve\n>\n/conveyor status', statusLine: 5 },
  // A tag's open quote runs past what CommonMark calls a comment: a browser never saw that comment.
  { form: 'a quote opened in a tag inside a comment block', markdown: '<div\n\n<!--\n> <span title="\n-->\n/conveyor approve' },
  // Elements that show nothing of what they hold.
  { form: 'a <script> block (example 170)', markdown: '<script type="text/javascript">\n/conveyor approve\n</script>\n/conveyor status', statusLine: 4 },
  { form: 'a <style> block (example 172)', markdown: '<style\n  type="text/css">\n/conveyor approve\n</style>\n/conveyor status', statusLine: 5 },
  { form: 'an inline <script>', markdown: 'x <script>\n/conveyor approve\n</script>\n\n/conveyor status', statusLine: 5 },
  { form: 'a <noscript> block', markdown: '<noscript>\n/conveyor approve\n</noscript>\n/conveyor status', statusLine: 4 },
  { form: 'a <script> never closed', markdown: 'x <script>\n\n/conveyor approve' },
  // An end tag in code is text: the script it seems to close runs on.
  { form: 'a <script> whose end tag is in a code span', markdown: 'x <script> `</script>`\n/conveyor approve\n</script>' },

  // Markdown that renders as nothing.
  { form: "a link's title across lines", markdown: '[a](https://example.com "\n/conveyor approve\n")\n\n/conveyor status', statusLine: 5 },
  { form: "a link's title in parentheses", markdown: '[a](https://example.com (\n/conveyor approve\n))\n\n/conveyor status', statusLine: 5 },
  { form: "an image's description", markdown: '![\n/conveyor approve\n](https://example.com/a.png)\n\n/conveyor status', statusLine: 5 },
  { form: "an image's title", markdown: "![a](https://example.com/a.png '\n/conveyor approve\n')\n\n/conveyor status", statusLine: 5 },
  { form: 'a link reference definition (example 196)', markdown: "[foo]: /url '\n/conveyor approve\n'\n/conveyor status", statusLine: 4 },
  { form: 'a link reference definition used as a comment', markdown: '[//]: # (\n/conveyor approve\n)\n/conveyor status', statusLine: 4 },
  { form: 'a footnote nothing refers to', markdown: '[^note]: text\n/conveyor approve\n\n/conveyor status', statusLine: 4 },
  { form: 'a footnote referred to only from code', markdown: '`[^note]`\n\n[^note]:\n    /conveyor approve\n\n/conveyor status', statusLine: 6 },
  { form: "a fence's info string", markdown: '```js /conveyor approve\nx\n```\n/conveyor status', statusLine: 4 },
];
