// What Conveyor knows about each coding CLI a team may name as `agents.<name>.preset`: how to run
// it without a person (prompt from $CONVEYOR_PROMPT_FILE, edits allowed, JSON output where it has
// it), how to install it, what credentials it reads, which hosts its sandbox must reach, how the
// model is passed, and how a reviewer's verdict comes out of it. Pure data: the configuration
// validates against it, the plan compiler resolves credentials, hosts and install from it, the
// action builds the command line from it (action/src/presets.ts), and scripts/check-presets.ts
// checks every flag below against the CLI's own `--help`.
//
// Every flag was checked against the `--help` of the version in `version` (npm packages installed
// in a scratch folder); Aider ships on PyPI, which the machines this was written on cannot reach,
// so its flags were checked against its options reference (aider.chat/docs/config/options.html).
// That version is also the one a preset installs (`agents.<name>.version` overrides it): a CLI
// newer than the one checked may have dropped or renamed a flag, and `npm install` alone takes the
// newest (Claude Code's was 135 releases past the checked one when this was written).

export const PRESET_NAMES = ['claude-code', 'codex', 'gemini', 'copilot', 'aider'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** One argument of a command line: a literal, a variable of the agent's environment, or the verdict's JSON Schema. */
export type PresetArg = string | { env: string } | { verdictSchema: 'inline' | 'file' };

/**
 * Where a reviewer's verdict comes from:
 * - `structured-output`: the CLI enforces the schema and prints the verdict as `structured_output`
 *   in its last `{"type": "result"}` JSON line (the action writes it to $CONVEYOR_RESULT_FILE);
 * - `cli-writes-file`: the CLI enforces the schema and writes its last message to $CONVEYOR_RESULT_FILE;
 * - `agent-writes-file`: the agent writes $CONVEYOR_RESULT_FILE itself, as the prompt asks;
 * - `reply`: the agent answers with the verdict in a ```json block (a CLI that can only edit the
 *   repository's files); the action takes the last such block that is a verdict.
 */
export type VerdictSource = 'structured-output' | 'cli-writes-file' | 'agent-writes-file' | 'reply';

export interface Preset {
  name: PresetName;
  /** The product, for people. */
  title: string;
  /** The executable the preset runs (and whose presence in its install folder's `bin` skips the install). */
  cli: string;
  /** Where the CLI is published; the check script installs it from there. */
  package: { registry: 'npm' | 'pypi'; name: string };
  /** The version whose `--help` every flag below was checked against: the one its setup installs. */
  version: string;
  /** How the flags were checked against that version. */
  checked: { against: string };
  /** Variables holding credentials the CLI reads (any one of them is enough). */
  credentials: string[];
  /** Hosts the agent's sandbox must reach: the model vendor's API (and the CLI's own update host where it insists). */
  hosts: string[];
  /** Fixed variables that keep the CLI quiet and unattended (no auto-update, no telemetry). */
  env: Record<string, string>;
  /** Variables that tell the CLI an outer sandbox guards it, given only when Conveyor's sandbox runs it. */
  sandboxedEnv: Record<string, string>;
  /** Arguments after the executable, every role. */
  args: PresetArg[];
  /** Extra arguments when the agent runs outside a git repository (the coder of several repositories runs at the workspace root). */
  outsideRepoArgs: PresetArg[];
  /** How the prompt reaches the CLI: the file on its standard input, or a flag taking the file's path or its text. */
  prompt: { stdin: true } | { flag: string; value: 'path' | 'text' };
  /** The flag that takes the model; `provider` keeps a `provider/` prefix of `model` (the CLI routes by it). */
  model: { flag: string; provider: 'keep' | 'strip' };
  reviewer: { args: PresetArg[]; verdict: VerdictSource };
  /** Patterns of files the CLI leaves in a repository: excluded from commits (.git/info/exclude). */
  leaves: string[];
  /**
   * Folders of its HOME it unpacks or caches into, besides `.cache` (XDG_CACHE_HOME), kept for its
   * agent between runs (its HOME is otherwise new each time): so a CLI unpacks once.
   */
  homeCaches: string[];
  /**
   * Where the agent's usage comes from when it writes no $CONVEYOR_USAGE_FILE itself: the JSON
   * events the CLI prints (core/steps/usage-output.ts reads them), a file the CLI writes when
   * `flag` names one, or nowhere (`why`).
   */
  usage: { from: 'events' } | { from: 'file'; flag: string } | { from: 'none'; why: string };
  /** How `max-usd` reaches the CLI: a flag taking US dollars, or why it cannot (then only $CONVEYOR_MAX_USD says it). */
  maxUsd: { flag: string } | { unsupported: string };
  /** The help invocations whose output must show every flag used (a subcommand's own help where one is used). */
  help: string[][];
}

export const PRESETS: Readonly<Record<PresetName, Preset>> = {
  'claude-code': {
    name: 'claude-code',
    title: 'Claude Code',
    cli: 'claude',
    package: { registry: 'npm', name: '@anthropic-ai/claude-code' },
    version: '2.1.197',
    checked: { against: '`claude --help`' },
    credentials: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'],
    hosts: ['api.anthropic.com'],
    // Not CLAUDE_CODE_SUBPROCESS_ENV_SCRUB: from 2.1.197 it forces the permission mode back to
    // `default` (every edit is refused in --print) and runs its Bash in a sandbox of its own that
    // leaves empty decoy files (package.json, .env, lock files) in the repository, which the
    // commit would carry (test/e2e/real-cli/claude-code.test.ts).
    env: { DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    // It refuses bypassPermissions as root ("… cannot be used with root/sudo privileges") unless told a sandbox guards it.
    sandboxedEnv: { IS_SANDBOX: '1' },
    // stream-json prints each event as it happens (the stall guard sees an agent that works); with
    // --print it needs --verbose. The sandbox is the guard, so nothing asks for permission.
    args: ['--print', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions', '--add-dir', { env: 'CONVEYOR_WORKSPACE' }],
    outsideRepoArgs: [],
    prompt: { stdin: true },
    model: { flag: '--model', provider: 'strip' },
    reviewer: { args: ['--json-schema', { verdictSchema: 'inline' }], verdict: 'structured-output' },
    leaves: [],
    homeCaches: [],
    // Its last stream-json event, `{"type": "result"}`, has total_cost_usd, num_turns and usage.
    usage: { from: 'events' },
    // "Maximum dollar amount to spend on API calls (only works with --print)", which it runs with.
    maxUsd: { flag: '--max-budget-usd' },
    help: [['--help']],
  },
  codex: {
    name: 'codex',
    title: 'OpenAI Codex CLI',
    cli: 'codex',
    package: { registry: 'npm', name: '@openai/codex' },
    version: '0.171.0',
    checked: { against: '`codex exec --help`' },
    credentials: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
    hosts: ['api.openai.com'],
    env: {},
    sandboxedEnv: {},
    // Conveyor's sandbox is the external one the flag's help asks for; Codex's own would nest in it.
    args: ['exec', '--json', '--color', 'never', '--dangerously-bypass-approvals-and-sandbox'],
    outsideRepoArgs: ['--skip-git-repo-check'],
    prompt: { stdin: true },
    model: { flag: '--model', provider: 'strip' },
    reviewer: { args: ['--output-schema', { verdictSchema: 'file' }, '--output-last-message', { env: 'CONVEYOR_RESULT_FILE' }], verdict: 'cli-writes-file' },
    leaves: [],
    homeCaches: [],
    // Each `{"type": "turn.completed"}` event has that turn's token usage (no cost).
    usage: { from: 'events' },
    maxUsd: { unsupported: '`codex exec` has no flag that stops it at a cost' },
    help: [['exec', '--help']],
  },
  gemini: {
    name: 'gemini',
    title: 'Gemini CLI',
    cli: 'gemini',
    package: { registry: 'npm', name: '@google/gemini-cli' },
    version: '0.61.0',
    checked: { against: '`gemini --help`' },
    credentials: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    hosts: ['generativelanguage.googleapis.com'],
    env: { GEMINI_SANDBOX: 'false' },
    sandboxedEnv: {},
    // --prompt makes it headless and is appended to the prompt read from standard input.
    args: [
      '--output-format',
      'stream-json',
      '--approval-mode',
      'yolo',
      '--skip-trust',
      '--include-directories',
      { env: 'CONVEYOR_WORKSPACE' },
      '--prompt',
      'Do what the instructions above ask.',
    ],
    outsideRepoArgs: [],
    prompt: { stdin: true },
    model: { flag: '--model', provider: 'strip' },
    reviewer: { args: [], verdict: 'agent-writes-file' },
    leaves: [],
    homeCaches: [],
    // Its last stream-json event, `{"type": "result"}`, has `stats` with the tokens by model (no cost).
    usage: { from: 'events' },
    maxUsd: { unsupported: 'the Gemini CLI has no flag that stops it at a cost' },
    help: [['--help']],
  },
  copilot: {
    name: 'copilot',
    title: 'GitHub Copilot CLI',
    cli: 'copilot',
    package: { registry: 'npm', name: '@github/copilot' },
    version: '1.0.102',
    checked: { against: '`copilot --help`' },
    // A fine-grained personal access token with the Copilot Requests permission; never the
    // workflow's or the app's token (those are refused wherever they are named).
    credentials: ['COPILOT_GITHUB_TOKEN'],
    hosts: ['api.githubcopilot.com', '*.githubcopilot.com', 'api.github.com'],
    env: {},
    sandboxedEnv: {},
    // It takes the prompt as --prompt's value only: the file's text goes there (up to 128 KiB, the
    // system's limit on one argument).
    args: ['--allow-all', '--no-ask-user', '--no-auto-update', '--output-format', 'json'],
    outsideRepoArgs: [],
    prompt: { flag: '--prompt', value: 'text' },
    model: { flag: '--model', provider: 'strip' },
    reviewer: { args: [], verdict: 'agent-writes-file' },
    leaves: [],
    // Its npm package is a loader that unpacks the CLI for its platform (235 MB) on first run, into
    // $XDG_CACHE_HOME/copilot/pkg (1.0.102, run in the sandbox): the agent's kept `.cache`.
    homeCaches: [],
    // Its JSON events carry no tokens; --usage-output-file writes them by model (it bills in premium requests, not dollars).
    usage: { from: 'file', flag: '--usage-output-file' },
    // --max-ai-credits counts GitHub's AI credits, not dollars: a team that wants it adds it with `run`.
    maxUsd: { unsupported: 'the Copilot CLI stops at AI credits (--max-ai-credits), not at dollars' },
    help: [['--help']],
  },
  aider: {
    name: 'aider',
    title: 'Aider',
    cli: 'aider',
    package: { registry: 'pypi', name: 'aider-chat' },
    // Its 0.86 releases, as its documentation describes them (PyPI was not reachable to name a patch release).
    version: '0.86',
    checked: { against: 'the options reference, aider.chat/docs/config/options.html (PyPI was not reachable)' },
    credentials: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'DEEPSEEK_API_KEY', 'OPENROUTER_API_KEY'],
    hosts: ['api.anthropic.com', 'api.openai.com', 'generativelanguage.googleapis.com', 'api.deepseek.com', 'openrouter.ai'],
    env: {},
    sandboxedEnv: {},
    // Conveyor commits what the agent leaves (with the run's trailer) and keeps .aider* files out of
    // the commits; Aider must neither commit nor edit .gitignore.
    args: [
      '--yes-always',
      '--no-auto-commits',
      '--no-gitignore',
      '--no-check-update',
      '--no-show-model-warnings',
      '--no-pretty',
      '--no-fancy-input',
      '--analytics-disable',
    ],
    // It would offer to create a repository at the workspace root, and --yes-always would accept.
    outsideRepoArgs: ['--no-git'],
    prompt: { flag: '--message-file', value: 'path' },
    // Aider routes by the provider prefix (anthropic/…, openai/…), as LiteLLM does.
    model: { flag: '--model', provider: 'keep' },
    // It edits only files of the repository: the reviewer answers in ask mode, the verdict in its reply.
    reviewer: { args: ['--chat-mode', 'ask'], verdict: 'reply' },
    leaves: ['.aider*'],
    homeCaches: [],
    // Its options reference documents no machine-readable usage (it prints a "Tokens: … Cost: …" line for people).
    usage: { from: 'none', why: 'Aider prints its usage for people only' },
    maxUsd: { unsupported: 'Aider has no option that stops it at a cost' },
    help: [['--help']],
  },
};

export function isPresetName(name: unknown): name is PresetName {
  return typeof name === 'string' && (PRESET_NAMES as readonly string[]).includes(name);
}

/**
 * The command that installs `version` of a preset's CLI (default the checked one): npm's global
 * install and pipx, whose prefixes the action points at a tools folder of that preset and version.
 * A two-part version (Aider's `0.86`) takes that release's latest patch.
 */
export function presetInstall(preset: Preset, version = preset.version): string {
  if (preset.package.registry === 'npm') return `npm install --global ${preset.package.name}@${version}`;
  const spec = /^\d+\.\d+$/.test(version) ? `${preset.package.name}==${version}.*` : `${preset.package.name}==${version}`;
  return `pipx install '${spec}'`;
}

/**
 * The setup that installs a preset's CLI unless its install folder has it already (restored from
 * GitHub's cache, or left by an earlier step on a runner that stays). It looks in that folder
 * alone (CONVEYOR_INSTALL_DIR, which the action sets to npm's and pipx's prefix), never on PATH:
 * a runner's own `claude` of another version would otherwise stand in for the pinned one. Without
 * the variable it fails rather than look in `/bin`.
 */
export function presetSetup(preset: Preset, version = preset.version): string {
  return `test -x "\${CONVEYOR_INSTALL_DIR:?}/bin/${preset.cli}" || ${presetInstall(preset, version)}`;
}

/**
 * Whether `setup` is the preset's own install of `version`: as presetSetup writes it, or as plans
 * compiled before it looked in the install folder wrote it (a run may outlast an upgrade).
 */
export function isPresetSetup(preset: Preset, version: string, setup: string): boolean {
  return setup === presetSetup(preset, version) || setup === `command -v ${preset.cli} >/dev/null 2>&1 || ${presetInstall(preset, version)}`;
}

/** -1, 0 or 1 as version `a` is older than, the same as or newer than `b` (numeric parts; a -suffix is older than none). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', suffix] = v.split(/[-+]/, 2);
    return { parts: core.split('.').map(Number), suffix };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.parts.length, y.parts.length); i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.suffix === y.suffix) return 0;
  if (x.suffix === undefined) return 1;
  if (y.suffix === undefined) return -1;
  return x.suffix < y.suffix ? -1 : 1;
}

/** Every flag a preset's command lines use (what the check script looks for in `--help`). */
export function presetFlags(preset: Preset): string[] {
  const all: PresetArg[] = [...preset.args, ...preset.outsideRepoArgs, ...preset.reviewer.args, preset.model.flag];
  if ('flag' in preset.prompt) all.push(preset.prompt.flag);
  if (preset.usage.from === 'file') all.push(preset.usage.flag);
  if ('flag' in preset.maxUsd) all.push(preset.maxUsd.flag);
  return [...new Set(all.filter((a): a is string => typeof a === 'string' && a.startsWith('-')))];
}

/** What `model` becomes on the CLI's command line. */
export function presetModel(preset: Preset, model: string): string {
  return preset.model.provider === 'keep' ? model : model.slice(model.lastIndexOf('/') + 1);
}
