// Chooses the work of a step attempt by its kind and mode.
import { ConveyorError } from '../../core/errors.ts';
import type { StepPayload, StepResult } from '../../core/contract/wire.ts';
import { agentOfAttempt } from '../../core/contract/attempt.ts';
import type { StepContext } from './context.ts';
import { runCodeWork } from './steps/code.ts';
import { runGate } from './steps/gate.ts';
import { runAuthorGate } from './steps/gate-author.ts';
import { runReview } from './steps/review.ts';
import { runDeploy } from './steps/deploy.ts';
import { runTeardown } from './steps/teardown.ts';

export async function runStep(ctx: StepContext, payload: StepPayload): Promise<StepResult> {
  const step = payload.step;
  if (payload.mode === 'teardown') return runTeardown(ctx, payload);
  if (payload.mode === 'repair') {
    // A repair is a code run by the step's repair agent with the findings to address.
    // A merge step's repair resolves a conflict with the base: the coder's work on the work branch.
    const agent = agentOfAttempt(payload);
    if (!agent) throw new ConveyorError('bad-payload', `step ${step.id} (${step.kind}) has no repair agent; a repair attempt cannot run`);
    // Every repair keeps to the code step's write boundary: a gate's repair must not rewrite the gate.
    return runCodeWork(ctx, payload, {
      agent,
      mode: 'repair',
      writes: payload.coder?.writes ?? [],
      ...(payload.findings ? { findings: payload.findings } : {}),
      // Conveyor starts the merge and commits it once the agent resolved the conflicts: the agent needs no git.
      ...(step.kind === 'merge' ? { resolveConflicts: true } : {}),
    });
  }
  switch (step.kind) {
    case 'code':
      return runCodeWork(ctx, payload, { agent: step.agent, mode: 'run', writes: step.writes, ...(payload.findings ? { findings: payload.findings } : {}) });
    case 'gate':
      if (step.author) return runAuthorGate(ctx, payload);
      return runGate(ctx, payload);
    case 'review':
      return runReview(ctx, payload);
    case 'deploy':
      return runDeploy(ctx, payload);
    case 'approval':
    case 'merge':
    case 'ci':
      throw new ConveyorError(
        'bad-payload',
        `step ${step.id} is a ${step.kind} step, which the Conveyor app carries out itself; it is never dispatched to the action`,
      );
  }
}
