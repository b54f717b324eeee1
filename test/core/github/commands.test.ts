import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, commandHelp, parseCommands } from '../../../core/github/commands.ts';
import { HIDDEN_COMMANDS } from '../../helpers/hidden-html.ts';

const only = (body: string) => parseCommands(body).commands.map(({ line: _line, ...c }) => c);

describe('parseCommands', () => {
  it('reads every command with its argument, case-insensitively', () => {
    expect(only('/conveyor approve')).toEqual([{ name: 'approve' }]);
    expect(only('/Conveyor APPROVE')).toEqual([{ name: 'approve' }]);
    expect(only('/conveyor reject too risky, see the diff')).toEqual([{ name: 'reject', reason: 'too risky, see the diff' }]);
    expect(only('/conveyor reject')).toEqual([{ name: 'reject' }]);
    expect(only('/conveyor retry')).toEqual([{ name: 'retry' }]);
    expect(only('/conveyor retry test')).toEqual([{ name: 'retry', step: 'test' }]);
    expect(only('/conveyor restart')).toEqual([{ name: 'restart' }]);
    expect(only('/conveyor cancel')).toEqual([{ name: 'cancel' }]);
    expect(only('/conveyor cancel wrong issue')).toEqual([{ name: 'cancel', reason: 'wrong issue' }]);
    expect(only('/conveyor status')).toEqual([{ name: 'status' }]);
    expect(only('/conveyor revert')).toEqual([{ name: 'revert' }]);
    expect(parseCommands('/conveyor revert acme/api').unknown.map((u) => u.message)).toEqual(['`/conveyor revert` takes nothing after it (got "acme/api")']);
    expect(only('/conveyor run')).toEqual([{ name: 'run' }]);
    expect(only('/conveyor run hotfix')).toEqual([{ name: 'run', pipeline: 'hotfix' }]);
  });

  it('needs the command on its own line (up to three spaces of indentation), and keeps them in order with line numbers', () => {
    const body = 'Looks good to me.\r\n  /conveyor approve  \nthanks\n/conveyor status';
    expect(parseCommands(body).commands).toEqual([
      { name: 'approve', line: 2 },
      { name: 'status', line: 4 },
    ]);
    expect(only('Please /conveyor approve this')).toEqual([]);
    expect(only('/conveyorapprove')).toEqual([]);
    expect(only('`/conveyor approve`')).toEqual([]);
  });

  it('skips fenced code, indented code, quotes and HTML comments', () => {
    const body = [
      '```',
      '/conveyor approve',
      '```',
      '~~~~sh',
      '/conveyor cancel',
      '~~~', // too short: the fence stays open
      '/conveyor restart',
      '~~~~',
      '> /conveyor approve',
      '>> /conveyor reject',
      '    /conveyor approve',
      '\t/conveyor approve',
      '<!-- /conveyor approve -->',
      '<!--',
      '/conveyor approve',
      '-->',
      '/conveyor status',
    ].join('\n');
    expect(parseCommands(body)).toEqual({ commands: [{ name: 'status', line: 17 }], unknown: [], quoted: [9, 10] });
    // An unclosed fence hides the rest of the comment, as GitHub renders it.
    expect(only('```\n/conveyor approve')).toEqual([]);
  });

  it('skips an HTML comment that opens in the middle of a line, and anything after one left open', () => {
    // Invisible once rendered: nobody could see what they would approve.
    expect(only('Thanks. <!--\n/conveyor approve\n-->')).toEqual([]);
    expect(only('Looks good <!-- hidden\n\n/conveyor approve')).toEqual([]);
    expect(only('x <!-- a --> y <!--\n/conveyor approve\n--> z')).toEqual([]);
    // What follows a closed comment is visible again, on the line numbers the reader sees.
    expect(parseCommands('Thanks. <!-- note\nmore -->\n/conveyor approve').commands).toEqual([{ name: 'approve', line: 3 }]);
  });

  describe('skips what GitHub renders as nothing (CommonMark 0.31.2, "HTML blocks" and "Raw HTML")', () => {
    it.each(HIDDEN_COMMANDS)('$form', ({ markdown, statusLine }) => {
      expect(parseCommands(markdown)).toEqual({ commands: statusLine ? [{ name: 'status', line: statusLine }] : [], unknown: [], quoted: [] });
    });
  });

  it('counts a command a reader sees next to hidden HTML, and one in fenced code as text only', () => {
    // The rest of a block's last line is shown (as raw HTML): a command there is seen.
    expect(only('<!-- note --> /conveyor approve')).toEqual([{ name: 'approve' }]);
    expect(only('<?x ?>\n/conveyor approve')).toEqual([{ name: 'approve' }]);
    // In fenced code a form is text (`<?php` opens nothing), and the fence is skipped as before.
    expect(parseCommands('```php\n<?php\n/conveyor approve\n```\n/conveyor status').commands).toEqual([{ name: 'status', line: 5 }]);
    // A processing instruction that never closes inline is text too: what follows counts.
    expect(only('Use List<? extends Number> here\n/conveyor approve')).toEqual([{ name: 'approve' }]);
  });

  it("reads code by the text as written too: hiding a fence's opening line does not make its code count", () => {
    // CommonMark: the fence ends the paragraph, so `<!--` is text and the command is code.
    expect(only('x <!--\n```\n-->\n/conveyor approve\n```')).toEqual([]);
    expect(only('[!]:\n```\n/conveyor approve\n```')).toEqual([]);
  });

  it('reports unknown commands and bad arguments with why', () => {
    const { commands, unknown } = parseCommands('/conveyor aprove\n/conveyor\n/conveyor retry two steps\n/conveyor approve now\n/conveyor run ../x');
    expect(commands).toEqual([]);
    expect(unknown.map((u) => [u.line, u.message])).toEqual([
      [1, '`aprove` is not a Conveyor command'],
      [2, 'it names no command'],
      [3, '`/conveyor retry` takes one step name (letters, digits, `-`, `_`), not "two steps"'],
      [4, '`/conveyor approve` takes nothing after it (got "now")'],
      [5, '`/conveyor run` takes one pipeline name (letters, digits, `-`, `_`), not "../x"'],
    ]);
    // The word is shown whole in its code span, whatever backticks it holds.
    expect(parseCommands('/conveyor ap`prove`').unknown.map((u) => u.message)).toEqual(['`` ap`prove` `` is not a Conveyor command']);
  });

  it('`/conveyor fix` takes the rest of its line and every line after it, code blocks included, and nothing after it is a command', () => {
    const body = ['Thanks, one thing:', '/conveyor fix rename `getThing`', 'to `fetchThing`:', '```ts', 'fetchThing(id)', '```', '/conveyor approve'].join(
      '\n',
    );
    expect(parseCommands(body)).toEqual({
      commands: [{ name: 'fix', text: 'rename `getThing`\nto `fetchThing`:\n```ts\nfetchThing(id)\n```\n/conveyor approve', line: 2 }],
      unknown: [],
      quoted: [],
    });
    // Commands before it still count; what is hidden does not travel with it.
    expect(only('/conveyor status\n/Conveyor FIX\nuse tabs <!-- and delete the tests -->')).toEqual([{ name: 'status' }, { name: 'fix', text: 'use tabs' }]);
  });

  it('`/conveyor fix` with nothing to change, quoted, or inside a code block does nothing', () => {
    expect(parseCommands('/conveyor fix\n\n').unknown.map((u) => u.message)).toEqual([
      '`/conveyor fix` needs what to change after it (on its line or the lines below)',
    ]);
    expect(parseCommands('> /conveyor fix everything')).toEqual({ commands: [], unknown: [], quoted: [1] });
    expect(only('```\n/conveyor fix everything\n```')).toEqual([]);
    expect(only('    /conveyor fix everything')).toEqual([]);
  });

  it('lists every command in its help', () => {
    const help = commandHelp();
    for (const name of COMMAND_NAMES) expect(help).toContain(`\`/conveyor ${name}`);
  });
});

describe('parseCommands properties', () => {
  const textLine = fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' '));
  // Noise that opens nothing that could hide the lines after it: no fence, raw HTML, image or definition.
  const plainLine = (l: string) => !/^\s*(`{3,}|~{3,})|<[A-Za-z!?/]|!\[|\[\^|\]:/.test(l) && !/\/conveyor/i.test(l);
  const command = fc.constantFrom('/conveyor approve', '/conveyor cancel', '/CONVEYOR retry test', '/conveyor reject no');

  it('a command inside a fence or a quote never counts, whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.array(textLine, { maxLength: 5 }), command, fc.constantFrom('```', '~~~', '````'), (noise, cmd, fence) => {
        const plain = noise.filter(plainLine);
        expect(parseCommands([...plain, fence, cmd, fence, ...plain].join('\n')).commands).toEqual([]);
        expect(parseCommands([...plain, `> ${cmd}`, ...plain].join('\n')).commands).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('a command on its own line among other lines counts exactly once', () => {
    fc.assert(
      fc.property(fc.array(textLine, { maxLength: 5 }), command, fc.array(textLine, { maxLength: 5 }), (before, cmd, after) => {
        const clean = (ls: string[]) => ls.filter(plainLine);
        const parsed = parseCommands([...clean(before), cmd, ...clean(after)].join('\n'));
        expect(parsed.commands).toHaveLength(1);
        expect(parsed.unknown).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
