// Runs an agent with a prompt of its own (the reviewer, a gate's author): the same contract as the
// coding agent (prompt and result files, CONVEYOR_* variables, no secret in its environment), but
// the prompt is the caller's and the result file starts absent, so whatever is there is its own.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedAgent } from '../../../core/plan/types.ts';
import type { StepPayload } from '../../../core/wire.ts';
import { agentEnvironment, conveyorDir, runAgentCommand, type AgentOutcome } from '../agent.ts';
import type { StepContext } from '../context.ts';
import type { Workspace } from '../workspace.ts';

export async function runRoleAgent(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  agent: ResolvedAgent,
  options: { prompt: string; cwd: string; role: string },
): Promise<AgentOutcome> {
  const dir = await conveyorDir(ws);
  const promptFile = join(dir, `${options.role}-prompt.md`);
  const resultFile = join(dir, `${options.role}-result.json`);
  await rm(resultFile, { force: true });
  await writeFile(promptFile, ctx.scrubber.scrub(options.prompt));
  const env = agentEnvironment(ctx, payload, ws, agent, { promptFile, resultFile });
  ctx.log(`conveyor: running ${options.role} agent "${agent.name}" in ${options.cwd} (timeout ${agent.timeoutMinutes} min)`);
  return runAgentCommand(ctx, agent, options.cwd, env, { promptFile, resultFile });
}

/** Shell-quotes one argument: what `{path}` becomes in a gate command. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
