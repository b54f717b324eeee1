// Comment commands: `/conveyor <command> [argument]` on a line of its own in an issue comment, a
// PR comment or a PR review body. Only lines a reader sees as the writer's own words count: lines
// inside fenced code blocks (``` or ~~~), indented code, block quotes (`>`, someone quoting an
// earlier command) and whatever GitHub renders as nothing (raw HTML comments, processing
// instructions, declarations and CDATA wherever they open, tags' attributes, what `<script>` and
// its like hold, link titles, image descriptions, reference definitions, footnotes nothing refers
// to, see hidden-html.ts: nobody could see what they would approve) are skipped. A line is code
// if it is by the text as written or by what is left of it once the hidden parts are out. The
// command word is case-insensitive. `/conveyor fix` takes the rest of its line and every line after
// it as what to change (code blocks included: people quote code in feedback), so nothing after it
// is read as a command. Pure: the app decides who may give them.
import { code } from '../text.ts';
import { stripHiddenHtml } from '../hidden-html.ts';

export type Command =
  | { name: 'approve' }
  | { name: 'reject'; reason?: string }
  | { name: 'retry'; step?: string }
  | { name: 'restart' }
  | { name: 'cancel'; reason?: string }
  | { name: 'revert' }
  | { name: 'status' }
  | { name: 'run'; pipeline?: string }
  | { name: 'fix'; text: string };

export type CommandName = Command['name'];

/** A `/conveyor …` line that is not a command Conveyor knows, with why. */
export interface UnknownCommand {
  line: number;
  text: string;
  message: string;
}

export interface ParsedCommands {
  commands: Array<Command & { line: number }>;
  unknown: UnknownCommand[];
  /** Lines of a block quote that hold a command: they do not count (someone quoting it may think they do). */
  quoted: number[];
}

const USAGE: Record<CommandName, string> = {
  approve: '`/conveyor approve` — approve the step waiting for approval',
  reject: '`/conveyor reject [reason]` — reject it (the run waits for a retry or cancel)',
  retry: '`/conveyor retry [step]` — run again from the first step that did not succeed, or from `step`',
  restart: '`/conveyor restart` — start the pipeline over on the current configuration',
  cancel: '`/conveyor cancel [reason]` — cancel the run and tear its environments down',
  revert: '`/conveyor revert` — after a merge that stopped part-way: open revert pull requests of what merged (consumers first), merged once approved',
  status: '`/conveyor status` — show where the run is and what it waits for',
  run: '`/conveyor run [pipeline]` — start a run for this issue',
  fix: '`/conveyor fix <what to change>` — send the coder back to change that (the rest of the comment, several lines allowed); the steps after it run again',
};

export const COMMAND_NAMES = Object.keys(USAGE) as CommandName[];

/** The commands, one per line, for a reply to an unknown command. */
export function commandHelp(): string {
  return COMMAND_NAMES.map((n) => `- ${USAGE[n]}`).join('\n');
}

/** Step ids and pipeline names as the configuration allows them. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const COMMAND_LINE = /^\/conveyor(?:[ \t]+(\S+))?(?:[ \t]+(.*?))?[ \t]*$/i;

/**
 * Which lines are a fenced code block's (its fences included), as the parser reads fences: a run of
 * three or more backticks or tildes opening a line, closed by a run as long of the same.
 */
function fenced(lines: string[]): boolean[] {
  let fence: { char: string; size: number } | undefined;
  return lines.map((raw) => {
    const indent = /^[ ]*/.exec(raw)![0].length;
    const line = raw.trim();
    const opener = /^(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opener && opener[1]![0] === fence.char && opener[1]!.length >= fence.size && line.slice(opener[1]!.length).trim() === '') fence = undefined;
      return true;
    }
    if (opener && indent < 4) fence = { char: opener[1]![0]!, size: opener[1]!.length };
    return fence !== undefined;
  });
}

export function parseCommands(body: string): ParsedCommands {
  const out: ParsedCommands = { commands: [], unknown: [], quoted: [] };
  const lines = stripHiddenHtml(body).split('\n');
  // Code by the text as written too: hidden HTML taken out around a fence's opening line must not
  // turn the code after it into lines that count.
  const code = fenced(lines);
  const written = fenced(body.replace(/\r\n?/g, '\n').split('\n'));
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (code[i] || written[i]) continue;
    // Up to three spaces of indentation keep a line in the paragraph; four make it code.
    const indent = /^[ ]*/.exec(raw)![0].length;
    const line = raw.trim();
    if (indent >= 4 || raw.startsWith('\t')) continue;
    if (line.startsWith('>')) {
      if (COMMAND_LINE.test(line.replace(/^(?:>\s*)+/, ''))) out.quoted.push(i + 1);
      continue;
    }
    const m = COMMAND_LINE.exec(line);
    if (!m) continue;
    if (m[1]?.toLowerCase() === 'fix') {
      const text = [m[2] ?? '', ...lines.slice(i + 1)].join('\n').trim();
      if (text) out.commands.push({ name: 'fix', text, line: i + 1 });
      else out.unknown.push({ line: i + 1, text: line, message: '`/conveyor fix` needs what to change after it (on its line or the lines below)' });
      break;
    }
    const parsed = parseOne(m[1], m[2]);
    if ('message' in parsed) out.unknown.push({ line: i + 1, text: line, message: parsed.message });
    else out.commands.push({ ...parsed, line: i + 1 });
  }
  return out;
}

function parseOne(word: string | undefined, rest: string | undefined): Command | { message: string } {
  const arg = rest?.trim() || undefined;
  if (!word) return { message: 'it names no command' };
  const name = word.toLowerCase();
  const none = (command: Command): Command | { message: string } =>
    arg === undefined ? command : { message: `\`/conveyor ${name}\` takes nothing after it (got "${clip(arg)}")` };
  const oneName = (what: string, make: (value: string | undefined) => Command): Command | { message: string } => {
    if (arg === undefined) return make(undefined);
    if (!NAME.test(arg)) return { message: `\`/conveyor ${name}\` takes one ${what} name (letters, digits, \`-\`, \`_\`), not "${clip(arg)}"` };
    return make(arg);
  };
  switch (name) {
    case 'approve':
    case 'restart':
    case 'revert':
    case 'status':
      return none({ name });
    case 'reject':
    case 'cancel':
      return arg === undefined ? { name } : { name, reason: arg };
    case 'retry':
      return oneName('step', (step) => (step === undefined ? { name } : { name, step }));
    case 'run':
      return oneName('pipeline', (pipeline) => (pipeline === undefined ? { name } : { name, pipeline }));
    default:
      return { message: `${code(clip(word))} is not a Conveyor command` };
  }
}

const clip = (text: string, max = 60): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
