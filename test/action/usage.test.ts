// What an attempt's agents used, through the real entry: an agent that writes $CONVEYOR_USAGE_FILE
// gets its figures into the result (sealed by the receipt) and the check run's summary; one that
// writes garbage is reported and ignored, and the step still succeeds; one that writes nothing has
// no usage. A gate whose author and whose agent both report sums them; max-usd reaches the agent.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEntry } from '../../action/src/entry.ts';
import { inputsDigest, verifyReceipt } from '../../core/contract/receipt.ts';
import type { StepPayload, StepResult } from '../../core/contract/wire.ts';
import { gateStep, makePayload } from '../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

let remotes: Remotes;
let scratch: string;

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-usage-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});

/** An agent that changes a file, then writes `usage` (as it is) to its usage file when given. */
function coderWriting(usage?: string): string {
  const write = usage === undefined ? '' : `; printf '%s' '${usage}' > "$CONVEYOR_USAGE_FILE"`;
  return `echo changed > change.txt${write}`;
}

async function run(payload: StepPayload) {
  const payloadPath = join(scratch, 'payload.json');
  writeFileSync(payloadPath, JSON.stringify(payload));
  const lines: string[] = [];
  const result = await runEntry({
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_SERVER_URL: remotes.url,
      CONVEYOR_PAYLOAD_PATH: payloadPath,
      CONVEYOR_WORKSPACE_ROOT: join(scratch, 'ws'),
    },
    getInput: () => '',
    setSecret: () => undefined,
    log: (l) => lines.push(l),
  });
  return { result, log: lines.join('\n') };
}

const sealedFor = (result: StepResult, payload: StepPayload) => verifyReceipt(result, inputsDigest(payload));

describe("an agent's usage", () => {
  it('an agent that writes its usage file: the figures are in the result, sealed, and on the check run', async () => {
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      agentRun: coderWriting('{"input_tokens": 12000, "output_tokens": 3400, "cost_usd": 0.42, "turns": 7, "model": "claude-sonnet-4-5"}'),
    });
    const { result, log } = await run(payload);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage).toEqual({ inputTokens: 12000, outputTokens: 3400, costUsd: 0.42, turns: 7, models: ['claude-sonnet-4-5'] });
    expect(log).toContain('conveyor: agent "coder" used $0.42 · 12,000 tokens in, 3,400 out · 7 turns (its $CONVEYOR_USAGE_FILE)');
    expect(result.summary).toContain('### Usage');
    expect(result.summary).toContain('| agent "coder" | $0.42 · 12,000 tokens in, 3,400 out · 7 turns (claude-sonnet-4-5) | the agent |');
    expect(sealedFor(result, payload)).toBe(true);
    // The receipt covers the cost: the same result claiming less does not verify.
    expect(sealedFor({ ...result, usage: { ...result.usage, costUsd: 0.01 } }, payload)).toBe(false);
  });

  it.each([
    ['not JSON', 'spent a lot', /it is not JSON/],
    ['a key of another name', '{"cost": 3}', /unknown key "cost"/],
    ['a figure of the wrong kind', '{"input_tokens": "many"}', /input_tokens: must be a whole number of tokens/],
    ['a negative cost', '{"cost_usd": -1}', /cost_usd: must not be negative/],
  ])('a usage file that is %s is reported in the log and on the check run, ignored, and fails nothing', async (_what, text, problem) => {
    const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentRun: coderWriting(text) });
    const { result, log } = await run(payload);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage).toBeUndefined();
    expect(log).toMatch(new RegExp(`conveyor: agent "coder" wrote \\$CONVEYOR_USAGE_FILE, but ${problem.source}.*; it was ignored`));
    expect(result.summary).toMatch(new RegExp(`> Usage ignored: agent "coder" wrote \\$CONVEYOR_USAGE_FILE, but ${problem.source}`));
    expect(remotes.show('acme/web', 'conveyor/web-7', 'change.txt')).toBe('changed');
    expect(sealedFor(result, payload)).toBe(true);
  });

  it('an agent that writes nothing has no usage, and its check run no usage section', async () => {
    const payload = makePayload({ repos: [{ repo: 'acme/web' }], agentRun: coderWriting() });
    const { result, log } = await run(payload);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage).toBeUndefined();
    expect(result.summary).not.toContain('### Usage');
    expect(log).toContain('conveyor: agent "coder" reported no usage ($CONVEYOR_USAGE_FILE was not written)');
  });

  it("counts a gate author's usage, and a failed attempt keeps what it spent", async () => {
    // The test it writes passes on the base branch already: the step fails as not discriminating.
    const author = `echo "exit 0" > accept.test; printf '%s' '{"input_tokens": 100, "output_tokens": 10, "cost_usd": 0.05}' > "$CONVEYOR_USAGE_FILE"`;
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      step: gateStep({ run: 'sh {path}', author: 'coder', path: 'accept.test' }),
      agentRun: author,
    });
    const { result, log } = await run(payload);
    expect(result.error?.code, `${result.summary}\n${log}`).toBe('gate-not-discriminating');
    expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 10, costUsd: 0.05 });
    expect(result.summary).toContain('| author agent "coder" | $0.05 · 100 tokens in, 10 out | the agent |');
    expect(sealedFor(result, payload)).toBe(true);
  });

  it('shows what the step and the run used before this attempt, and the budget, from the payload', async () => {
    const payload: StepPayload = {
      ...makePayload({ repos: [{ repo: 'acme/web' }], agentRun: coderWriting('{"cost_usd": 0.5, "input_tokens": 1000, "output_tokens": 100}') }),
      attempt: 2,
      usageSoFar: { step: { costUsd: 1.25, inputTokens: 9000 }, run: { costUsd: 3, inputTokens: 20000, outputTokens: 500 }, budgetUsd: 10 },
    };
    const { result } = await run(payload);
    expect(result.usage).toEqual({ costUsd: 0.5, inputTokens: 1000, outputTokens: 100 });
    expect(result.summary).toContain('Step `implement` so far, earlier attempts included: $1.75 · 10,000 tokens in, 100 out.');
    expect(result.summary).toContain('Run `run-1` so far: $3.50 of its $10.00 budget ($3.50 · 21,000 tokens in, 600 out).');
  });

  it('gives the agent its max-usd as $CONVEYOR_MAX_USD', async () => {
    const base = makePayload({ repos: [{ repo: 'acme/web' }], agentRun: 'echo "$CONVEYOR_MAX_USD" > "$CONVEYOR_WORKSPACE/max-usd"; echo x > change.txt' });
    const payload = { ...base, agents: { coder: { ...base.agents.coder!, maxUsd: 2.5 } } };
    const { result, log } = await run(payload);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(readFileSync(join(scratch, 'ws', 'max-usd'), 'utf8').trim()).toBe('2.5');
    expect(log).toContain('max-usd 2.5 is given to its own `run` as $CONVEYOR_MAX_USD only');
  });
});
