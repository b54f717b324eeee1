// Which usage Conveyor records for one agent run, from its two possible sources: what the CLI of
// its preset said (its JSON events or its usage file, core/steps/usage-output.ts) and what the
// agent wrote to $CONVEYOR_USAGE_FILE (core/contract/usage.ts).
//
// The agent is untrusted and its file is its own word; the CLI is the program that called the
// model and was billed for it. So a figure the CLI gave is a floor: the agent's file can add a
// figure the CLI did not give (Codex and Gemini CLI report no cost), and it can raise one (a
// wrapper that ran more than the CLI saw), but never lower one; an agent that overstates only
// brings its own run nearer its budget. Where both gave a figure and they differ, the record says
// what each said and which counted, for the step's log and its check run.
//
// The rule does not ask where the CLI's figures came from: an agent with no CLI figures (a plain
// `run`, whose output is its own) has its file as the record, and an agent whose `run` keeps its
// preset's usage reading gets the same floor as the preset's own command line.
import { FIGURES, USAGE_FIGURES, compact, formatTokens, formatUsd, isEmptyUsage, joinModels, type Usage, type UsageFigure } from './usage.ts';

/** A figure both sources gave, differently. */
export interface UsageDispute {
  figure: UsageFigure;
  cli: number;
  agent: number;
  /** Whose figure is in the record: the higher one. */
  counted: 'cli' | 'agent';
}

export interface RecordedUsage {
  usage: Usage;
  /** Whose figures the record holds, for people. */
  from: 'the agent' | 'its CLI' | 'its CLI and the agent';
  /** Figures both gave, differently (in USAGE_FIGURES order). */
  disputes: UsageDispute[];
  /** Figures only the agent's file gave. */
  added: UsageFigure[];
}

/** The usage to record for one agent run, or undefined when neither source reported any. */
export function recordedUsage(cli: Usage | undefined, agent: Usage | undefined): RecordedUsage | undefined {
  const fromCli = cli && !isEmptyUsage(cli) ? cli : undefined;
  const fromAgent = agent && !isEmptyUsage(agent) ? agent : undefined;
  if (!fromCli) return fromAgent ? { usage: fromAgent, from: 'the agent', disputes: [], added: [] } : undefined;
  if (!fromAgent) return { usage: fromCli, from: 'its CLI', disputes: [], added: [] };

  const disputes: UsageDispute[] = [];
  const added: UsageFigure[] = [];
  const record: { [K in keyof Usage]: Usage[K] | undefined } = {};
  for (const f of FIGURES) {
    const [c, a] = [fromCli[f], fromAgent[f]];
    if (c === undefined) {
      if (a !== undefined) added.push(f);
      record[f] = a;
    } else if (a === undefined || a === c) {
      record[f] = c;
    } else {
      const counted = a > c ? 'agent' : 'cli';
      disputes.push({ figure: f, cli: c, agent: a, counted });
      record[f] = Math.max(a, c);
    }
  }
  // Models are names, not figures: every one either source named, the CLI's first.
  const models = joinModels(fromCli.models, fromAgent.models);
  const agentCounted = added.length > 0 || disputes.some((d) => d.counted === 'agent');
  return { usage: compact({ ...record, models }), from: agentCounted ? 'its CLI and the agent' : 'its CLI', disputes, added };
}

function formatFigure(f: UsageFigure, x: number): string {
  return f === 'costUsd' ? formatUsd(x) : f === 'turns' ? String(x) : formatTokens(x);
}

/** One sentence per disputed figure: what each source said and which counted. */
export function describeDisputes(record: RecordedUsage): string[] {
  return record.disputes.map((d) => {
    const [cli, agent] = [formatFigure(d.figure, d.cli), formatFigure(d.figure, d.agent)];
    const counted = d.counted === 'cli' ? `the CLI's ${cli}` : `the agent's ${agent}`;
    return `${USAGE_FIGURES[d.figure]}: its CLI said ${cli}, the agent's $CONVEYOR_USAGE_FILE claimed ${agent}; ${counted} counted`;
  });
}

/** How the record's figures were put together, for the log line: `from its CLI's output, with cost from its $CONVEYOR_USAGE_FILE`. */
export function describeSources(record: RecordedUsage): string {
  if (record.from === 'the agent') return 'its $CONVEYOR_USAGE_FILE';
  const added = record.added.map((f) => USAGE_FIGURES[f]);
  return `from its CLI's output${added.length ? `, with ${added.join(', ')} from its $CONVEYOR_USAGE_FILE` : ''}`;
}
