// One agent run: the prompt goes to a file, the contract goes to variables, and the command runs
// once at the workspace root (inside the repository when there is only one) with an environment
// holding no token or secret.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConveyorError } from '../../core/errors.ts';
import { buildPrompt } from '../../core/prompts/prompt.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import type { CommandResult } from '../../lib/process.ts';
import { runUserCommand, safeEnvironment, type StepContext } from './context.ts';
import { agentIsolation } from './sandbox.ts';
import type { Workspace } from './workspace.ts';

export interface AgentOutcome extends CommandResult {
  cwd: string;
  promptFile: string;
  resultFile: string;
  /** What the agent wrote to $CONVEYOR_RESULT_FILE, if anything. */
  resultText?: string;
}

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
  return agent;
}

/** The folder for Conveyor's own files of this attempt: inside the root, outside every repository. */
export async function conveyorDir(ws: Workspace): Promise<string> {
  const dir = join(ws.root, '.conveyor');
  await mkdir(dir, { recursive: true });
  return dir;
}

/** $CONVEYOR_REPOS: what each folder is. */
export function reposVariable(payload: StepPayload, ws: Workspace): string {
  return JSON.stringify(
    ws.repos.map((r) => {
      const paths = Object.fromEntries(
        r.services.flatMap((s) => {
          const p = payload.services[s]?.path;
          return p ? [[s, p]] : [];
        }),
      );
      return {
        repo: r.repo,
        dir: r.dir,
        folder: r.folder,
        role: r.role,
        service: r.services[0] ?? null,
        services: r.services,
        ...(Object.keys(paths).length ? { paths } : {}),
        base: r.base,
        branch: r.checkedOut,
      };
    }),
  );
}

/** The contract variables every user command of a step gets (agents, gates). */
export function identityVariables(payload: StepPayload): Record<string, string> {
  return {
    CONVEYOR_STEP: payload.step.id,
    CONVEYOR_ATTEMPT: String(payload.attempt),
    CONVEYOR_RUN_ID: payload.runId,
  };
}

/**
 * The environment of any agent (coder, reviewer, gate author): the runner's without secrets, an
 * identity for commits, the agent's own `env`, and the contract variables.
 */
function agentEnvironment(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  files: { promptFile: string; resultFile: string },
): Record<string, string> {
  return safeEnvironment(ctx, {
    // Commits made by the agent need an identity on runners that have none.
    GIT_AUTHOR_NAME: ctx.env.GIT_AUTHOR_NAME || 'Conveyor',
    GIT_AUTHOR_EMAIL: ctx.env.GIT_AUTHOR_EMAIL || 'conveyor@users.noreply.github.com',
    GIT_COMMITTER_NAME: ctx.env.GIT_COMMITTER_NAME || 'Conveyor',
    GIT_COMMITTER_EMAIL: ctx.env.GIT_COMMITTER_EMAIL || 'conveyor@users.noreply.github.com',
    ...agent.env,
    CONVEYOR_PROMPT_FILE: files.promptFile,
    CONVEYOR_RESULT_FILE: files.resultFile,
    CONVEYOR_WORKSPACE: ws.root,
    CONVEYOR_REPOS: reposVariable(payload, ws),
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
  });
  return runAgentWithPrompt(ctx, payload, ws, agent, { prompt, cwd: single ? single.dir : ws.root });
}

/**
 * Runs any agent (coder, reviewer, gate author) on a prompt: the prompt goes to its file (scrubbed:
 * it may carry findings from a gate's output), the result file starts absent (so whatever is there
 * is the agent's own), the command runs with its timeout, and what it wrote to its result file is
 * read back. `role` names the files of an agent other than the coder (`review-prompt.md`...).
 */
export async function runAgentWithPrompt(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  options: { prompt: string; cwd: string; role?: string },
): Promise<AgentOutcome> {
  const dir = await conveyorDir(ws);
  const prefix = options.role ? `${options.role}-` : '';
  const files = { promptFile: join(dir, `${prefix}prompt.md`), resultFile: join(dir, `${prefix}result.json`) };
  await rm(files.resultFile, { force: true });
  await writeFile(files.promptFile, ctx.scrubber.scrub(options.prompt));
  const env = agentEnvironment(ctx, payload, ws, agent, files);
  const cwd = options.cwd;
  ctx.log(`conveyor: running ${options.role ? `${options.role} ` : ''}agent "${agent.name}" in ${cwd} (timeout ${agent.timeoutMinutes} min)`);
  const result = await runUserCommand(ctx, { command: agent.run, cwd, env, timeoutMinutes: agent.timeoutMinutes, sandbox: agentIsolation(ws.root, agent) });
  let resultText: string | undefined;
  try {
    resultText = ctx.scrubber.scrub(await readFile(files.resultFile, 'utf8'));
  } catch {
    resultText = undefined;
  }
  return { ...result, cwd, ...files, ...(resultText !== undefined ? { resultText } : {}) };
}
