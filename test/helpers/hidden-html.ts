// Raw HTML that GitHub renders as nothing, from the CommonMark spec (0.31.2), sections "HTML
// blocks" and "Raw HTML": the spec's own examples of comments, processing instructions,
// declarations and CDATA, and the same forms carrying a command a reader of the comment never sees.

/** A spec example, and what of it is left once the hidden forms are taken out (line breaks kept). */
export interface SpecExample {
  example: number;
  markdown: string;
  left: string;
}

export const SPEC_EXAMPLES: SpecExample[] = [
  // HTML blocks: a block of kinds 2–5 ends on the line holding its end marker; the rest of that line shows.
  { example: 179, markdown: '<!-- foo -->*bar*\n*baz*', left: '*bar*\n*baz*' },
  { example: 181, markdown: '<!-- Foo\n\nbar\n   baz -->\nokay', left: '\n\n\n\nokay' },
  { example: 182, markdown: "<?php\n\n  echo '>';\n\n?>\nokay", left: '\n\n\n\n\nokay' },
  { example: 183, markdown: '<!DOCTYPE html>', left: '' },
  {
    example: 184,
    markdown: '<![CDATA[\nfunction matchwo(a,b)\n{\n  if (a < b && a < 0) then {\n    return 1;\n\n  } else {\n\n    return 0;\n  }\n}\n]]>\nokay',
    left: `${'\n'.repeat(12)}okay`,
  },
  // Indented by four, the second is indented code (shown as text); only fenced code is kept as written.
  { example: 185, markdown: '  <!-- foo -->\n\n    <!-- foo -->', left: '  \n\n    ' },
  // Raw HTML: inline, each ends at its own end marker.
  { example: 627, markdown: 'foo <!-- this is a --\ncomment - with hyphens -->', left: 'foo \n' },
  { example: 628, markdown: 'foo <!--> foo -->\n\nfoo <!---> foo -->', left: 'foo  foo -->\n\nfoo  foo -->' },
  { example: 629, markdown: 'foo <?php echo $a; ?>', left: 'foo ' },
  { example: 630, markdown: 'foo <!ELEMENT br EMPTY>', left: 'foo ' },
  { example: 631, markdown: 'foo <![CDATA[>&<]]>', left: 'foo ' },
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
  { form: 'a comment block (example 181)', markdown: '<!-- Foo\n\n/conveyor approve\n   baz -->\n/conveyor status', statusLine: 5 },
  {
    form: 'an inline comment (example 627)',
    markdown: 'foo <!-- this is a --\n/conveyor approve\ncomment - with hyphens -->\n\n/conveyor status',
    statusLine: 5,
  },
  { form: 'a processing instruction block (example 182)', markdown: "<?php\n\n/conveyor approve\n\n  echo '>';\n\n?>\n/conveyor status", statusLine: 8 },
  { form: 'an inline processing instruction (example 629)', markdown: 'foo <?php echo $a;\n/conveyor approve\n?>\n\n/conveyor status', statusLine: 5 },
  { form: 'a declaration block (example 183)', markdown: '<!DOCTYPE html\n/conveyor approve\n>\n/conveyor status', statusLine: 4 },
  { form: 'a lower-case declaration, indented by three', markdown: '   <!x\n/conveyor approve\n>\n/conveyor status', statusLine: 4 },
  { form: 'an inline declaration (example 630)', markdown: 'foo <!ELEMENT br\n/conveyor approve\nEMPTY>\n\n/conveyor status', statusLine: 5 },
  {
    form: 'a CDATA block (example 184)',
    markdown: '<![CDATA[\nfunction matchwo(a,b)\n/conveyor approve\n{\n  if (a < b && a < 0) then {\n    return 1;\n  }\n}\n]]>\n/conveyor status',
    statusLine: 10,
  },
  { form: 'an inline CDATA section (example 631)', markdown: 'foo <![CDATA[&<\n/conveyor approve\n]]>\n\n/conveyor status', statusLine: 5 },
  { form: 'a processing instruction in a list item', markdown: '- <?x\n  /conveyor approve\n  ?>\n\n/conveyor status', statusLine: 5 },
  { form: 'a comment block never closed', markdown: '<!--\n/conveyor approve\n\n/conveyor status' },
  { form: 'a processing instruction block never closed', markdown: '<?php\necho 1;\n\n/conveyor approve' },
  { form: 'a declaration block never closed', markdown: '<!DOCTYPE html\n\n/conveyor approve' },
  { form: 'a CDATA block never closed', markdown: '<![CDATA[\n\n/conveyor approve' },
  // Inside an HTML block a comment is raw HTML: the paragraph's `-->` is text and closes nothing.
  { form: 'a comment left open in a <div> block', markdown: '<div>\n<!-- a\n\n-->\n/conveyor approve' },
];
