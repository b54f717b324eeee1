// What the agents of one attempt used: each agent run's usage is read once it ends, from what its
// preset's CLI printed and what the agent wrote to $CONVEYOR_USAGE_FILE, put together by
// recordedUsage (core/contract/usage-record.ts: the agent's file never lowers a figure the CLI
// gave), summed into the result's `usage` (which the receipt seals), and shown on the attempt's
// check run beside what the step and the run used before it, with what the agent claimed where it
// differs from what the CLI said. A usage file that is not the contract's shape is said in the log
// and on the check run, and ignored: usage is bookkeeping, never a reason for a step to fail.
import { join } from 'node:path';
import { code } from '../../core/text.ts';
import { readHandedBack } from './exchange.ts';
import { PRESETS } from '../../core/config/presets.ts';
import { describeDisputes, describeSources, recordedUsage, type RecordedUsage } from '../../core/contract/usage-record.ts';
import { cappedFigures, describeUsage, formatUsd, MAX_COUNT, MAX_USD, parseUsageFile, sumUsage, type Usage } from '../../core/contract/usage.ts';
import type { StepPayload, StepResult } from '../../core/contract/wire.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import { copilotUsageOf, usageReaderFor, type UsageReader } from '../../core/steps/usage-output.ts';
import type { Logger } from '../../lib/logger.ts';

export interface AgentUsage {
  /** Who ran, for people: `agent "coder"`, `reviewer agent "reviewer"`. */
  who: string;
  usage: Usage;
  /** Where the figures came from. */
  from: RecordedUsage['from'];
  /** Its configured `model`, shown beside the models it reported. */
  configured?: string;
  /** Each figure the agent's file and its CLI gave differently: what each said and which counted. */
  disputes: string[];
}

/** The attempt's account: every agent run's usage and every problem with what one reported. */
export class UsageMeter {
  readonly runs: AgentUsage[] = [];
  readonly problems: string[] = [];

  total(): Usage | undefined {
    return sumUsage(this.runs.map((r) => r.usage));
  }
}

/** Where one agent run's usage may come from. */
export interface UsageSources {
  /** The folder of this run's files (what it may write there is read only inside it). */
  dir: string;
  /** $CONVEYOR_USAGE_FILE of this run. */
  usageFile: string;
  /** The file the CLI writes its usage to (a preset whose `usage` is a file), passed on its command line. */
  cliUsageFile?: string;
  /** Reads the CLI's JSON events (a preset whose `usage` is its events), fed each line it prints. */
  reader?: UsageReader;
}

/**
 * The sources of an agent run whose files live in `dir`, the folder made for this run alone
 * (`prefix`: the role's, as the prompt's), so nothing an earlier run left is there.
 */
export function usageSources(agent: ResolvedAgent, dir: string, prefix: string): UsageSources {
  const usageFile = join(dir, `${prefix}usage.json`);
  // A preset's CLI is read whether the preset's command line runs it or the agent's own `run` does
  // (which may wrap it): what the CLI reports counts as the CLI's, and the agent's file cannot lower it.
  const preset = agent.preset ? PRESETS[agent.preset] : undefined;
  const cliUsageFile = preset?.usage.from === 'file' ? join(dir, `${prefix}cli-usage.json`) : undefined;
  const reader = preset?.usage.from === 'events' ? usageReaderFor(preset.name) : undefined;
  return { dir, usageFile, ...(cliUsageFile ? { cliUsageFile } : {}), ...(reader ? { reader } : {}) };
}

/** A usage file the agent (or its CLI) wrote, read as data: a link there fails the step, nothing of it read. */
async function readText(path: string | undefined, within: string): Promise<string | undefined> {
  if (!path) return undefined;
  return readHandedBack(path, within, `the usage file ${path}`);
}

/**
 * Reads one agent run's usage into the meter: what its CLI said (a preset's, run by its own command
 * line or by the agent's own `run` wrapping it) and what
 * the agent wrote, put together by recordedUsage; a usage file that is not the contract's shape is
 * reported and ignored. `scrub` masks secrets in what the agent wrote (a model name is free text).
 */
export async function collectUsage(
  meter: UsageMeter,
  who: string,
  sources: UsageSources,
  scrub: (t: string) => string,
  log: Logger,
  configured?: string,
): Promise<Usage | undefined> {
  const written = await readText(sources.usageFile, sources.dir);
  let claimed: Usage | undefined;
  if (written !== undefined) {
    const reading = parseUsageFile(scrub(written));
    if (reading.ok) claimed = reading.usage;
    else {
      const problem = `${who} wrote $CONVEYOR_USAGE_FILE, but ${scrub(reading.problem)}; it was ignored`;
      meter.problems.push(problem);
      log.warn(problem);
    }
  }
  const cliText = await readText(sources.cliUsageFile, sources.dir);
  const fromCli = sources.reader?.usage() ?? (cliText !== undefined ? copilotUsageOf(scrub(cliText)) : undefined);
  const record = recordedUsage(fromCli, claimed);
  if (!record) {
    if (written === undefined) log.info(`${who} reported no usage ($CONVEYOR_USAGE_FILE was not written)`);
    return undefined;
  }
  const disputes = describeDisputes(record);
  meter.runs.push({ who, usage: record.usage, from: record.from, disputes, ...(configured ? { configured } : {}) });
  log.info(`${who} used ${describeUsage(record.usage)} (${describeSources(record)})`);
  for (const d of disputes) log.warn(`${who}: ${d}`);
  return record.usage;
}

/**
 * The models an agent run reported using, and its configured `model` where that is not among them
 * (a CLI may run another model than it was given).
 */
function modelCell(r: AgentUsage): string {
  // A model's name is what the agent or its CLI said: shown as code, never as Markdown.
  const name = (m: string) => code(m, { table: true });
  const reported = r.usage.models ?? [];
  const configured = r.configured;
  if (!reported.length) return configured ? `${name(configured)} (configured; none reported)` : 'none reported';
  const named = configured?.slice(configured.lastIndexOf('/') + 1);
  const differs = configured !== undefined && named !== undefined && !reported.includes(named) && !reported.includes(configured);
  return `${reported.map(name).join(', ')}${differs ? ` (configured: ${name(configured)})` : ''}`;
}

/**
 * The result with the attempt's usage in `usage` and its summary: each agent run, the attempt's
 * total, what the step and the run had used before, the run's budget, where an agent's claim and
 * its CLI differed, any usage that was ignored, and a total that reached Conveyor's ceiling.
 * Unchanged when no agent ran.
 */
export function withUsageReport(result: StepResult, meter: UsageMeter, payload: StepPayload | undefined): StepResult {
  if (meter.runs.length === 0 && meter.problems.length === 0) return result;
  const total = meter.total();
  const lines: string[] = [];
  if (meter.runs.length > 0) {
    const rows = meter.runs.map((r) => `| ${r.who} | ${modelCell(r)} | ${describeUsage(r.usage)} | ${r.from} |`);
    lines.push(['| agent run | model | usage | reported by |', '| --- | --- | --- | --- |', ...rows].join('\n'));
    if (meter.runs.length > 1) lines.push(`This attempt: ${describeUsage(total)}.`);
  }
  const before = payload?.usageSoFar;
  // The narrowest total first: a capped attempt caps its step and its run too.
  const totals: Array<[string, Usage | undefined]> = [["this attempt's", total]];
  if (before && payload) {
    const step = sumUsage([before.step, total]);
    const run = sumUsage([before.run, total]);
    totals.push([`step \`${payload.step.id}\`'s`, step], ["the run's", run]);
    lines.push(`Step \`${payload.step.id}\` so far, earlier attempts included: ${describeUsage(step)}.`);
    const budget = before.budgetUsd !== undefined ? ` of its ${formatUsd(before.budgetUsd)} budget` : '';
    lines.push(
      `Run \`${payload.runId}\` so far: ${run?.costUsd !== undefined ? formatUsd(run.costUsd) : 'no cost reported'}${budget} (${describeUsage(run)}).`,
    );
  }
  for (const r of meter.runs) for (const d of r.disputes) lines.push(`> Usage differs: ${r.who}: ${d}.`);
  for (const p of meter.problems) lines.push(`> Usage ignored: ${p}.`);
  const capped = totals.map(([whose, u]) => [whose, cappedFigures(u)] as const).find(([, figures]) => figures.length > 0);
  if (capped) {
    lines.push(
      `> Usage capped: ${capped[0]} ${capped[1].join(', ')} reached Conveyor's ceiling (${formatUsd(MAX_USD)} for a cost, ${MAX_COUNT} for a count) ` +
        'and counts as that, so a budget still stops it.',
    );
  }
  return { ...result, summary: [result.summary, '### Usage', ...lines].join('\n\n'), ...(total ? { usage: total } : {}) };
}
