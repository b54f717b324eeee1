// What an attempt's agents used, through the real entry: an agent that writes $CONVEYOR_USAGE_FILE
// gets its figures into the result (sealed by the receipt) and the check run's summary; one that
// writes garbage is reported and ignored, and the step still succeeds; one that writes nothing has
// no usage. A gate whose author and whose agent both report sums them; max-usd reaches the agent.
// A preset's agent cannot lower what its CLI said (a stand-in `claude` on PATH prints the CLI's
// figures while the agent writes its own): the CLI's count, and both are shown where they differ.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEntry } from '../../action/src/entry.ts';
import { readPayload } from '../../action/src/payload.ts';
import { inputsDigest, verifyReceipt } from '../../core/contract/receipt.ts';
import { MAX_USD } from '../../core/contract/usage.ts';
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

/**
 * A stand-in Claude Code on PATH: as an agent inside it would, it edits the repository and writes
 * `agentWrites` to $CONVEYOR_USAGE_FILE; then, as the CLI does, it prints its last `result` event.
 */
function claudeStandIn(cliResult: object, agentWrites?: string): string {
  const bin = join(scratch, 'bin');
  mkdirSync(bin, { recursive: true });
  const write = agentWrites === undefined ? '' : `printf '%s' '${agentWrites}' > "$CONVEYOR_USAGE_FILE"\n`;
  const event = JSON.stringify({ type: 'result', subtype: 'success', result: 'done', ...cliResult });
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\ncat > /dev/null\necho changed > change.txt\n${write}printf '%s\\n' '${event}'\n`, { mode: 0o755 });
  return bin;
}

/** The coder as the claude-code preset's own command line (no `run` of its own). */
function presetPayload(): StepPayload {
  const base = makePayload({ repos: [{ repo: 'acme/web' }] });
  return { ...base, agents: { coder: { name: 'coder', preset: 'claude-code', timeoutMinutes: 5, env: {} } } };
}

async function run(payload: StepPayload, bin?: string) {
  const payloadPath = join(scratch, 'payload.json');
  writeFileSync(payloadPath, JSON.stringify(payload));
  const lines: string[] = [];
  const result = await runEntry({
    env: {
      PATH: bin ? `${bin}:${process.env.PATH}` : process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_SERVER_URL: remotes.url,
      CONVEYOR_PAYLOAD_PATH: payloadPath,
      CONVEYOR_WORKSPACE_ROOT: join(scratch, 'ws'),
    },
    payload: await readPayload({ env: { CONVEYOR_PAYLOAD_PATH: payloadPath }, getInput: () => '' }),
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
    expect(result.summary).toContain('| agent "coder" | `claude-sonnet-4-5` | $0.42 · 12,000 tokens in, 3,400 out · 7 turns | the agent |');
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
    expect(result.summary).toContain('| author agent "coder" | none reported | $0.05 · 100 tokens in, 10 out | the agent |');
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

  it("a preset's agent that claims less than its CLI said: the CLI's figures count, and both are shown", async () => {
    const bin = claudeStandIn(
      { total_cost_usd: 42.5, num_turns: 31, usage: { input_tokens: 120000, output_tokens: 9000 }, modelUsage: { 'claude-sonnet-4-5': {} } },
      '{"cost_usd": 0, "input_tokens": 0, "output_tokens": 0, "turns": 0}',
    );
    const payload = presetPayload();
    const { result, log } = await run(payload, bin);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage).toEqual({ costUsd: 42.5, inputTokens: 120000, outputTokens: 9000, turns: 31, models: ['claude-sonnet-4-5'] });
    expect(sealedFor(result, payload)).toBe(true);
    const who = 'agent "coder" (Claude Code)';
    expect(log).toContain(`conveyor: ${who} used $42.50 · 120,000 tokens in, 9,000 out · 31 turns (from its CLI's output)`);
    expect(log).toContain(`conveyor: ${who}: cost: its CLI said $42.50, the agent's $CONVEYOR_USAGE_FILE claimed $0.00; the CLI's $42.50 counted`);
    expect(log).toContain(`conveyor: ${who}: turns: its CLI said 31, the agent's $CONVEYOR_USAGE_FILE claimed 0; the CLI's 31 counted`);
    expect(result.summary).toContain(`| ${who} | \`claude-sonnet-4-5\` | $42.50 · 120,000 tokens in, 9,000 out · 31 turns | its CLI |`);
    expect(result.summary).toContain(
      `> Usage differs: ${who}: cost: its CLI said $42.50, the agent's $CONVEYOR_USAGE_FILE claimed $0.00; the CLI's $42.50 counted.`,
    );
    expect(result.summary).toContain(
      `> Usage differs: ${who}: input tokens: its CLI said 120,000, the agent's $CONVEYOR_USAGE_FILE claimed 0; the CLI's 120,000 counted.`,
    );
  });

  it("a preset's agent may add a figure its CLI did not give; one that writes nothing leaves the CLI's", async () => {
    const bin = claudeStandIn({ usage: { input_tokens: 500, output_tokens: 20 } }, '{"cost_usd": 0.07, "input_tokens": 500}');
    const { result, log } = await run(presetPayload(), bin);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage).toEqual({ inputTokens: 500, outputTokens: 20, costUsd: 0.07 });
    expect(log).toContain("used $0.07 · 500 tokens in, 20 out (from its CLI's output, with cost from its $CONVEYOR_USAGE_FILE)");
    expect(result.summary).toContain('| agent "coder" (Claude Code) | none reported | $0.07 · 500 tokens in, 20 out | its CLI and the agent |');
    expect(result.summary).not.toContain('Usage differs');

    removeDir(join(scratch, 'ws'));
    const quiet = claudeStandIn({ total_cost_usd: 1.25 });
    const { result: second } = await run(presetPayload(), quiet);
    expect(second.usage).toEqual({ costUsd: 1.25 });
  });

  it("a plain `run` agent's usage file stays the only source, whatever it prints", async () => {
    const printsLikeClaude = `echo '{"type": "result", "total_cost_usd": 42.5}'; ${coderWriting('{"cost_usd": 0.5}')}`;
    const { result } = await run(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: printsLikeClaude }));
    expect(result.usage).toEqual({ costUsd: 0.5 });
  });

  it('a usage file with a figure past the ceiling is refused, and a run total at the ceiling is said to be capped', async () => {
    const refused = await run(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: coderWriting('{"cost_usd": 1.5e308}') }));
    expect(refused.result.usage).toBeUndefined();
    expect(refused.result.summary).toContain('> Usage ignored: agent "coder" wrote $CONVEYOR_USAGE_FILE, but cost_usd: must be at most $1000000000');

    removeDir(join(scratch, 'ws'));
    const payload: StepPayload = {
      ...makePayload({ repos: [{ repo: 'acme/web' }], agentRun: coderWriting('{"cost_usd": 0.5}') }),
      usageSoFar: { run: { costUsd: MAX_USD }, budgetUsd: 10 },
    };
    const { result } = await run(payload);
    expect(result.usage).toEqual({ costUsd: 0.5 });
    expect(result.summary).toContain("Run `run-1` so far: $1000000000.00 of its $10.00 budget ($1000000000.00 · cost at Conveyor's ceiling).");
    expect(result.summary).toContain(
      "> Usage capped: the run's cost reached Conveyor's ceiling ($1000000000.00 for a cost, 9007199254740991 for a count) and counts as that, so a budget still stops it.",
    );
  });
});
