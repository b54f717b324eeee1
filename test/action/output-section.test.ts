// What a step's check run says of an agent's output: its last lines in a block no backticks of
// theirs can close, or, when it printed nothing, that in words (an empty block reads as a fault).
import { describe, expect, it } from 'vitest';
import { agentOutputSection, type AgentOutcome } from '../../action/src/agent.ts';
import type { StepContext } from '../../action/src/context.ts';

const ctx = (env: NodeJS.ProcessEnv) => ({ env }) as unknown as StepContext;
const outcome = (output: string, transcript?: string) => ({ output, ...(transcript ? { transcript } : {}) }) as unknown as AgentOutcome;

describe("an agent's output on its step's check run", () => {
  it('says in words that the agent printed nothing, with where its transcript is', () => {
    expect(agentOutputSection(ctx({}), 'Agent `coder`', outcome(' \n'))).toBe('Agent `coder` printed nothing.');
    expect(agentOutputSection(ctx({}), 'Agent `coder`', outcome('', '/w/attempts/a b`c`/transcript.log'))).toBe(
      'Agent `coder` printed nothing (full transcript: ``/w/attempts/a b`c`/transcript.log``).',
    );
  });

  it('shows its last lines in a block its own backticks cannot close', () => {
    expect(agentOutputSection(ctx({ GITHUB_ACTIONS: 'true' }), 'Agent `coder`', outcome('done\n```\nnot code', '/t'))).toBe(
      'Agent `coder` output (last lines):\n\n````text\ndone\n```\nnot code\n````',
    );
  });
});
