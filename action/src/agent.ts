// One agent run: its setup first (installing its CLI), then the prompt goes to a file, the contract
// to variables, and the command (its own `run`, or its preset's command line) runs once, in its
// sandbox, with exactly the secrets it lists, its transcript kept, and the stall guard watching.
import { mkdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { DEFAULT_STALL_MINUTES } from '../../core/config/defaults.ts';
import { PRESETS, type VerdictSource } from '../../core/config/presets.ts';
import { ConveyorError } from '../../core/errors.ts';
import { buildPrompt } from '../../core/prompts/prompt.ts';
import { replyVerdictOf, structuredOutputOf } from '../../core/steps/verdicts.ts';
import { structuredVerdictJsonSchema } from '../../core/contract/verdict-schema.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import type { CommandResult } from '../../lib/process.ts';
import { runUserCommand, safeEnvironment, secretsFor, type StepContext } from './context.ts';
import { agentCommand, type AgentCommand, type AgentRole } from './presets.ts';
import { openExchange, type Exchange } from './exchange.ts';
import { agentIsolation, agentSetupIsolation, installDir, installVariables, setupCommand } from './sandbox.ts';
import { runSetup } from './setup.ts';
import { fenced, tail } from './summary.ts';
import { code } from '../../core/text.ts';
import { openTranscript } from './transcript.ts';
import { collectUsage, usageSources, type UsageSources } from './usage.ts';
import { openModelRoute, type ModelRoute } from './model-route.ts';
import { watchRun, withVendorRetries, type RunWatch } from './agent-watch.ts';
import { networkRefusedMessage, REFUSAL_WINDOW_MINUTES, vendorUnavailableMessage, type Refusal, type VendorTrouble } from '../../core/steps/agent-trouble.ts';
import { environmentsVariables, identityVariables, reposVariable } from './variables.ts';
import type { Workspace } from './workspace.ts';

export interface AgentOutcome extends CommandResult {
  cwd: string;
  promptFile: string;
  resultFile: string;
  /** What the agent wrote to $CONVEYOR_RESULT_FILE (or its CLI gave as its verdict), if anything. */
  resultText?: string;
  /** Where its full transcript is kept, when it is. */
  transcript?: string;
  /** The models it reported using (its CLI's events or usage file, or its own usage file), the main one first. */
  models?: string[];
  stallMinutes: number;
  /** The host whose refusals stopped it (agent-network-refused). */
  refused?: Refusal;
  /** Its model's vendor was unavailable through every run (agent-vendor-unavailable). */
  vendor?: VendorTrouble;
  /** How many times it ran: more than once when its vendor was unavailable and it ran again. */
  runs?: number;
}

/** An agent's JSON events can be long: they stay whole lines (and whole for the scrubber) up to this. */
const AGENT_LINE_LIMIT = 1024 * 1024;

/**
 * The agent a step names, or a bad-payload error naming it and the known ones. `usedBy` says who
 * names it, e.g. `review r1 uses agent`.
 */
export function resolveAgent(payload: StepPayload, name: string, usedBy = `step ${payload.step.id} uses agent`): ResolvedAgent {
  const agent = payload.agents[name];
  if (!agent) {
    const known = Object.keys(payload.agents).join(', ') || 'none';
    throw new ConveyorError('bad-payload', `agents.${name}: ${usedBy} "${name}", which the payload does not define (known: ${known})`);
  }
  if (agent.run === undefined && agent.preset === undefined)
    throw new ConveyorError('bad-payload', `agents.${name}: has neither \`run\` nor \`preset\`; there is no command to run`);
  return agent;
}

/**
 * The environment of any agent (coder, reviewer, gate author): the runner's without secrets, an
 * identity for commits, its preset's fixed variables, the agent's own `env`, the contract variables,
 * its model, and the secrets it lists (its own and its preset's credentials), by name.
 */
function agentEnvironment(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  command: AgentCommand,
  files: { promptFile: string; resultFile: string; usageFile: string; PATH: string; cliUsageFile?: string; schemaFile?: string },
  given: { secrets: Record<string, string>; route?: Record<string, string> },
): Record<string, string> {
  const preset = agent.preset ? PRESETS[agent.preset] : undefined;
  return safeEnvironment(ctx, {
    // Commits made by the agent need an identity on runners that have none.
    GIT_AUTHOR_NAME: ctx.env.GIT_AUTHOR_NAME || 'Conveyor',
    GIT_AUTHOR_EMAIL: ctx.env.GIT_AUTHOR_EMAIL || 'conveyor@users.noreply.github.com',
    GIT_COMMITTER_NAME: ctx.env.GIT_COMMITTER_NAME || 'Conveyor',
    GIT_COMMITTER_EMAIL: ctx.env.GIT_COMMITTER_EMAIL || 'conveyor@users.noreply.github.com',
    ...command.env,
    // Only when Conveyor's sandbox is the guard: without it nothing else is.
    ...(preset && ctx.sandbox.availability.available ? preset.sandboxedEnv : {}),
    ...agent.env,
    ...given.secrets,
    // Last: the placeholders of the keys Conveyor keeps, and where the CLI finds its forwarder.
    ...given.route,
    PATH: files.PATH,
    CONVEYOR_PROMPT_FILE: files.promptFile,
    CONVEYOR_RESULT_FILE: files.resultFile,
    CONVEYOR_USAGE_FILE: files.usageFile,
    // For a `run` that calls its preset's CLI itself: where that CLI writes its usage, and the verdict's schema.
    ...(files.cliUsageFile ? { CONVEYOR_CLI_USAGE_FILE: files.cliUsageFile } : {}),
    ...(files.schemaFile ? { CONVEYOR_VERDICT_SCHEMA_FILE: files.schemaFile } : {}),
    CONVEYOR_WORKSPACE: ws.root,
    CONVEYOR_REPOS: reposVariable(payload, ws),
    ...(agent.model ? { CONVEYOR_MODEL: agent.model } : {}),
    ...(agent.maxUsd !== undefined ? { CONVEYOR_MAX_USD: String(agent.maxUsd) } : {}),
    ...environmentsVariables(payload),
    ...identityVariables(payload),
  });
}

/** Runs the coding agent (a code step, or a repair) with the prompt of its step. */
export async function runAgent(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  options: { mode: 'run' | 'repair'; writes: string[]; findings?: string },
): Promise<AgentOutcome> {
  const single = ws.repos.length === 1 ? ws.repos[0] : undefined;
  const prompt = buildPrompt({
    issue: payload.issue,
    step: { id: payload.step.id, kind: payload.step.kind },
    mode: options.mode,
    attempt: payload.attempt,
    singleRepo: Boolean(single),
    repos: ws.repos.map((r) => ({
      repo: r.repo,
      dir: single ? '.' : r.folder,
      role: r.role,
      services: r.services,
      base: r.base,
      branch: r.checkedOut,
      paths: Object.fromEntries(r.services.flatMap((s) => (payload.services[s]?.path ? [[s, payload.services[s].path]] : []))),
    })),
    writes: options.writes,
    ...(options.findings ? { findings: options.findings } : {}),
    notes: ws.notes,
    environments: environmentsVariables(payload),
  });
  return runAgentWithPrompt(ctx, payload, ws, agent, { prompt, cwd: single ? single.dir : ws.root, role: 'coder' });
}

const FILE_PREFIX: Record<AgentRole, string> = { coder: '', reviewer: 'review-', author: 'author-' };

/**
 * Runs any agent (coder, reviewer, gate author) on a prompt: its setup first, then the prompt goes
 * to its file (scrubbed: it may carry findings from a gate's output) in a folder made for this run
 * (`exchange`, outside the workspace: nothing an earlier command did is there), the command runs
 * with its timeout and stall guard, and its verdict or result is read back as data: a link or
 * anything but a plain file there fails the step (`output-refused`) and nothing of it is read.
 * `prompt` may depend on how its CLI gives a verdict.
 */
export async function runAgentWithPrompt(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  options: {
    prompt: string | ((verdict: VerdictSource) => string);
    cwd: string;
    role: AgentRole;
    /** The folder for its files, when the caller put more there (a reviewer's diffs); else one is made and removed. */
    exchange?: Exchange;
  },
): Promise<AgentOutcome> {
  const exchange = options.exchange ?? (await openExchange(`${options.role}-files`));
  try {
    return await runInExchange(ctx, payload, ws, agent, options, exchange);
  } finally {
    if (!options.exchange) await exchange.remove();
  }
}

async function runInExchange(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  options: { prompt: string | ((verdict: VerdictSource) => string); cwd: string; role: AgentRole },
  exchange: Exchange,
): Promise<AgentOutcome> {
  const prefix = FILE_PREFIX[options.role];
  const files = { promptFile: exchange.path(`${prefix}prompt.md`), resultFile: exchange.path(`${prefix}result.json`) };
  const schemaFile = exchange.path('verdict.schema.json');
  const cwd = options.cwd;
  // Each run (a retry after its vendor was unavailable is another) has its own usage files and command line naming them.
  const commandOf = (run: number) => {
    const usage = usageSources(agent, exchange.dir, run === 0 ? prefix : `${prefix}run-${run + 1}-`);
    const command = agentCommand(agent, {
      role: options.role,
      inRepo: ws.repos.some((r) => r.dir === cwd),
      schemaFile,
      ...(usage.cliUsageFile ? { cliUsageFile: usage.cliUsageFile } : {}),
    });
    return { usage, command };
  };
  const first = commandOf(0);
  const label = `${options.role === 'coder' ? '' : `${options.role} `}agent "${agent.name}"${agent.preset ? ` (${PRESETS[agent.preset].title})` : ''}`;
  // Its own install folder (a preset's pinned install: its preset's and version's, cached between
  // steps and runs on GitHub under that key), whose `bin` alone joins its PATH: a changed version
  // is installed, never found as the old one, and no other agent's setup put anything there.
  const install = installDir(ctx.env, ws, agent);
  const toolsPath = { PATH: [join(install, 'bin'), ctx.env.PATH ?? '/usr/bin:/bin'].join(delimiter) };

  // 1. Its setup (its CLI's install, unless its install folder has it), in that folder and writing only there.
  const setup = setupCommand(agent);
  if (setup !== undefined) {
    await mkdir(join(install, 'bin'), { recursive: true });
    await runSetup(ctx, payload, {
      who: `agent "${agent.name}"`,
      command: setup,
      timeoutMinutes: agent.setupTimeoutMinutes,
      cwd: install,
      isolation: agentSetupIsolation(ws, install, ctx.env),
      extra: { ...toolsPath, ...installVariables(install) },
    });
  }
  // 2. Its files: the prompt, the verdict's schema for a CLI that takes it as a file.
  const prompt = typeof options.prompt === 'string' ? options.prompt : options.prompt(first.command.verdict);
  await exchange.write(`${prefix}prompt.md`, ctx.scrubber.scrub(prompt));
  if (options.role === 'reviewer') await exchange.write('verdict.schema.json', JSON.stringify(structuredVerdictJsonSchema()));
  for (const r of ws.repos) await r.git.exclude(first.command.leaves);

  // 3. The command, its transcript kept line by line (and its CLI's usage events read as they come),
  // its model's keys kept in the step process where its CLI allows (model-route.ts).
  const secrets = secretsFor(ctx, agent.secrets ?? [], `agent "${agent.name}"`);
  // The forwarder lives for every run of the agent; each run's watch hears its answers.
  let watch: RunWatch | undefined;
  const route = await openModelRoute(ctx, agent, secrets, label, (status, body) => watch?.onAnswer(status, body));
  try {
    return await withVendorRetries(ctx, agent, label, async (run) => {
      const { usage, command } = run === 0 ? first : commandOf(run);
      watch = watchRun(ctx, agent, label);
      return runCommandOf(ctx, payload, ws, agent, exchange, {
        label,
        command,
        cwd,
        usage,
        prefix,
        watch,
        env: agentEnvironment(
          ctx,
          payload,
          ws,
          agent,
          command,
          {
            ...files,
            usageFile: usage.usageFile,
            ...toolsPath,
            ...(usage.cliUsageFile ? { cliUsageFile: usage.cliUsageFile } : {}),
            ...(options.role === 'reviewer' ? { schemaFile } : {}),
          },
          { secrets, ...(route ? { route: route.env } : {}) },
        ),
        routePolicy: route?.policy ?? {},
        files,
      });
    });
  } finally {
    await route?.close();
  }
}

/** Runs the agent's command and reads back what it used and what it wrote. */
async function runCommandOf(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  exchange: Exchange,
  run: {
    label: string;
    command: AgentCommand;
    cwd: string;
    usage: UsageSources;
    prefix: string;
    env: Record<string, string>;
    routePolicy: ModelRoute['policy'];
    files: { promptFile: string; resultFile: string };
    watch: RunWatch;
  },
): Promise<AgentOutcome> {
  const { label, command, cwd, usage, prefix, env, files, watch } = run;
  if (command.maxUsdNote) ctx.log.info(`${label}: ${command.maxUsdNote}`);
  const stallMinutes = agent.stallMinutes ?? DEFAULT_STALL_MINUTES;
  ctx.log.info(`running ${label} in ${cwd} (timeout ${agent.timeoutMinutes} min, stall ${stallMinutes} min): ${command.command}`);
  const transcript = openTranscript(
    ctx.env,
    payload,
    `# ${label}, step ${payload.step.id} (${payload.mode}), attempt ${payload.attempt}.${payload.epoch}: ${ctx.scrubber.scrub(command.command)}`,
  );
  let structured: unknown;
  const result = await runUserCommand(ctx, {
    command: command.command,
    cwd,
    env,
    timeoutMinutes: agent.timeoutMinutes,
    sandbox: agentIsolation(ws, agent, exchange.dir, ctx.env, run.routePolicy),
    stall: { minutes: stallMinutes, watch: ws.root },
    lineLimit: AGENT_LINE_LIMIT,
    onRefused: watch.onRefused,
    onAllowed: watch.onAllowed,
    stop: watch.stop,
    onLine: (line) => {
      transcript?.write(line);
      usage.reader?.line(line);
      watch.onLine(line);
      if (command.verdict === 'structured-output') structured = structuredOutputOf(line) ?? structured;
    },
  });

  // 4. What it used (whatever became of it), and what it wrote or the verdict its CLI gave: kept
  // in memory, never written back where the agent could have put a link.
  const seen = watch.end(result.exitCode !== 0 || result.aborted === true);
  const used = await collectUsage(ctx.usage, label, usage, (t) => ctx.scrubber.scrub(t), ctx.log, agent.model);
  const written = await exchange.read(`${prefix}result.json`, `what ${label} left at $CONVEYOR_RESULT_FILE`);
  const given =
    command.verdict === 'structured-output' ? structured : command.verdict === 'reply' && written === undefined ? replyVerdictOf(result.output) : undefined;
  const text = given !== undefined && result.exitCode === 0 ? JSON.stringify(given) : written;
  const resultText = text === undefined ? undefined : ctx.scrubber.scrub(text);
  return {
    ...result,
    cwd,
    ...files,
    stallMinutes,
    ...(used?.models ? { models: used.models } : {}),
    ...(resultText !== undefined ? { resultText } : {}),
    ...(transcript ? { transcript: transcript.path } : {}),
    ...seen,
  };
}

/**
 * The end of an agent's output for its step's summary, with where its full transcript is. On
 * GitHub the file is on the runner, which is gone after the job: only the embedded mode's is named
 * here, and the entry links GitHub's copy (a workflow artifact) once the step is done.
 */
export function agentOutputSection(ctx: StepContext, title: string, outcome: AgentOutcome): string {
  const where = outcome.transcript && ctx.env.GITHUB_ACTIONS !== 'true' ? `; full transcript: ${code(outcome.transcript)}` : '';
  const last = tail(outcome.output);
  // Said in words: an empty block reads as a rendering fault.
  if (!last.trim()) return `${title} printed nothing${where ? ` (${where.slice(2)})` : ''}.`;
  return `${title} output (last lines${where}):\n\n${fenced(last)}`;
}

/** How an agent that ended without a result of its own stopped, for the step's error: the stall guard, the timeout or its exit. */
export function agentStopped(
  outcome: AgentOutcome,
  agent: ResolvedAgent,
  who: string,
): { code: 'agent-stalled' | 'agent-timeout' | 'agent-network-refused' | 'agent-vendor-unavailable'; message: string } | undefined {
  if (outcome.refused) {
    const needsProvider = agent.preset === 'copilot' && !agent.provider;
    return { code: 'agent-network-refused', message: networkRefusedMessage(who, agent.name, outcome.refused, REFUSAL_WINDOW_MINUTES * 60, needsProvider) };
  }
  if (outcome.stalled) {
    return {
      code: 'agent-stalled',
      message: `${who} printed nothing and changed nothing in the workspace for ${outcome.stallMinutes} minute(s) (stall-minutes) and was stopped; the attempt runs again.`,
    };
  }
  if (outcome.timedOut) return { code: 'agent-timeout', message: `${who} ran out of its ${agent.timeoutMinutes} minute(s) and was stopped.` };
  if (outcome.vendor && outcome.exitCode !== 0) {
    return { code: 'agent-vendor-unavailable', message: vendorUnavailableMessage(who, agent.name, outcome.vendor, outcome.runs ?? 1) };
  }
  return undefined;
}
