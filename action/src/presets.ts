// The command line of an agent: its own `run`, or its preset's (core/config/presets.ts) built for
// its role. Every value Conveyor puts in is shell-quoted; the prompt travels in its file (on the
// CLI's standard input, or named by a flag), never on the command line as issue text would.
import { PRESETS, presetModel, type PresetArg, type VerdictSource } from '../../core/config/presets.ts';
import { structuredVerdictJsonSchema } from '../../core/contract/verdict-schema.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import { shellQuote } from '../../core/shell.ts';

export type AgentRole = 'coder' | 'reviewer' | 'author';

export interface AgentCommand {
  command: string;
  /** Where a reviewer's verdict comes from (a plain `run` writes $CONVEYOR_RESULT_FILE itself). */
  verdict: VerdictSource;
  /** The preset's fixed variables (no auto-update, no telemetry). */
  env: Record<string, string>;
  /** Files the CLI leaves in a repository, kept out of the commits (.git/info/exclude). */
  leaves: string[];
  /** Why `max-usd` does not reach the CLI itself, when it is set and cannot (the agent still gets $CONVEYOR_MAX_USD). */
  maxUsdNote?: string;
}

export interface CommandPlace {
  role: AgentRole;
  /** The agent runs inside a git repository (not at the root of a workspace of several). */
  inRepo: boolean;
  /** Where the verdict's JSON Schema is written, for a CLI that takes it as a file. */
  schemaFile: string;
  /** Where a CLI that writes its usage to a file (the preset's `usage.flag`) writes it. */
  cliUsageFile?: string;
}

export function agentCommand(agent: ResolvedAgent, place: CommandPlace): AgentCommand {
  const preset = agent.preset ? PRESETS[agent.preset] : undefined;
  const env = { ...(preset?.env ?? {}) };
  const leaves = [...(preset?.leaves ?? [])];
  if (agent.run !== undefined || !preset) {
    const note = agent.maxUsd !== undefined ? `max-usd ${agent.maxUsd} is given to its own \`run\` as $CONVEYOR_MAX_USD only` : undefined;
    // `run` replaces the command line only: a preset's reviewer still gives its verdict the preset's
    // way (its structured output, its reply), and $CONVEYOR_RESULT_FILE still counts when written.
    const verdict = preset && place.role === 'reviewer' ? preset.reviewer.verdict : 'agent-writes-file';
    return { command: agent.run ?? 'false', verdict, env, leaves, ...(note ? { maxUsdNote: note } : {}) };
  }
  const budget = agent.maxUsd !== undefined && 'flag' in preset.maxUsd ? [preset.maxUsd.flag, String(agent.maxUsd)] : [];
  const args: PresetArg[] = [
    ...preset.args,
    ...(place.inRepo ? [] : preset.outsideRepoArgs),
    ...(agent.model ? [preset.model.flag, presetModel(preset, agent.model)] : []),
    ...budget,
    ...(place.role === 'reviewer' ? preset.reviewer.args : []),
  ];
  if (preset.usage.from === 'file' && place.cliUsageFile) args.push(preset.usage.flag, place.cliUsageFile);
  const words = [preset.cli, ...args.map((a) => render(a, place))];
  const prompt = preset.prompt;
  if ('flag' in prompt) words.push(prompt.flag, prompt.value === 'path' ? '"$CONVEYOR_PROMPT_FILE"' : '"$(cat "$CONVEYOR_PROMPT_FILE")"');
  else words.push('< "$CONVEYOR_PROMPT_FILE"');
  const note =
    agent.maxUsd !== undefined && 'unsupported' in preset.maxUsd
      ? `max-usd ${agent.maxUsd} cannot stop it (${preset.maxUsd.unsupported}); only $CONVEYOR_MAX_USD says it`
      : undefined;
  return {
    command: words.join(' '),
    verdict: place.role === 'reviewer' ? preset.reviewer.verdict : 'agent-writes-file',
    env,
    leaves,
    ...(note ? { maxUsdNote: note } : {}),
  };
}

function render(arg: PresetArg, place: CommandPlace): string {
  if (typeof arg === 'string') return /^[A-Za-z0-9_./=:-]+$/.test(arg) ? arg : shellQuote(arg);
  if ('env' in arg) return `"$${arg.env}"`;
  return shellQuote(arg.verdictSchema === 'inline' ? JSON.stringify(structuredVerdictJsonSchema()) : place.schemaFile);
}
