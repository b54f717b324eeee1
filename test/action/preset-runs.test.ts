// Presets where teams run them, through the real entry with stand-ins of the CLIs
// (test/fixtures/agents/stand-in.mjs): an agent's own `run` keeps what its preset knows (its CLI's
// usage, its verdict), the model a CLI really ran is recorded and shown beside the configured one,
// and Claude Code is told a sandbox guards it only when Conveyor's does.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/repos.ts';
import { pathWithoutBubblewrap } from '../helpers/processes.ts';
import { createBench, type Bench } from './preset-fixture.ts';

let bench: Bench;
beforeEach(() => {
  bench = createBench();
});
afterEach(() => bench.cleanup());

/** A pipeline whose coder and reviewer are `coder` and `reviewer` as written (YAML flow mappings). */
const pipeline = (coder: string, reviewer = coder) => `
version: 1
agents:
  coder: ${coder}
  reviewer: ${reviewer}
services:
  web: { repo: acme/web }
  api: { repo: acme/api }
pipelines:
  default:
    service: web
    involves: [api]
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: review, kind: review, agent: reviewer }
`;

const KEYS = { OPENAI_API_KEY: 'sk-openai-0001', ANTHROPIC_API_KEY: 'sk-ant-0002', COPILOT_GITHUB_TOKEN: 'github_pat_0003' };

function onWorkBranch(): void {
  git(bench.remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
  bench.remotes.commit('acme/web', 'conveyor/web-7', { 'greet.js': 'export const greet = () => "hello";\n' });
}

describe('an agent with a preset and its own `run`', () => {
  it("keeps its CLI's usage: Codex's turn events count", async () => {
    bench.standIn('codex');
    const run = `codex exec --json --skip-git-repo-check < "$CONVEYOR_PROMPT_FILE"`;
    const payload = bench.payloadFrom(pipeline(`{ preset: codex, model: openai/gpt-5, run: '${run}' }`), 'implement');
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage).toEqual({ inputTokens: 300, outputTokens: 50, turns: 2 });
    expect(log).toContain("(from its CLI's output)");
  });

  it("keeps Copilot CLI's usage file, which its `run` writes at $CONVEYOR_CLI_USAGE_FILE", async () => {
    bench.standIn('copilot');
    const run = `copilot --allow-all --usage-output-file "$CONVEYOR_CLI_USAGE_FILE" --prompt "$(cat "$CONVEYOR_PROMPT_FILE")"`;
    const payload = bench.payloadFrom(pipeline(`{ preset: copilot, model: github/gpt-5, run: '${run}' }`), 'implement');
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage).toEqual({ inputTokens: 400, outputTokens: 60, models: ['gpt-5'] });
  });

  it("keeps its verdict source: Claude Code's structured output is the reviewer's verdict", async () => {
    bench.standIn('claude');
    onWorkBranch();
    const run = `claude --print --output-format stream-json --verbose --json-schema "$(cat "$CONVEYOR_VERDICT_SCHEMA_FILE")" < "$CONVEYOR_PROMPT_FILE"`;
    const payload = bench.payloadFrom(pipeline('{ preset: codex }', `{ preset: claude-code, model: anthropic/claude-sonnet-4-5, run: '${run}' }`), 'review');
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.review?.verdict).toBe('pass');
    expect(result.review?.findings).toEqual([{ file: null, line: null, message: 'checked by the claude stand-in' }]);
    // Its prompt asks for the verdict as the CLI's answer, as the preset's own command line's does.
    expect(bench.recordOf(join(bench.scratch, 'ws'), 'claude').prompt).toContain('Give your verdict as your final answer');
  });
});

describe('the model a CLI really ran', () => {
  it('is recorded with the attempt, the main one first, and shown beside the configured one on the check run', async () => {
    bench.standIn('claude');
    const payload = bench.payloadFrom(
      pipeline('{ preset: claude-code, model: anthropic/claude-opus-4-1, env: { STAND_IN_MODEL: claude-opus-4-8 } }'),
      'implement',
    );
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.usage?.models).toEqual(['claude-opus-4-8']);
    expect(result.summary).toContain('| agent "coder" (Claude Code) | `claude-opus-4-8` (configured: `anthropic/claude-opus-4-1`) |');
  });

  it('judges review independence: a reviewer whose CLI reported the coder’s model family is not independent', async () => {
    bench.standIn('copilot');
    onWorkBranch();
    // Copilot CLI configured with gpt-5 "auto"-chose a Claude model: the coder's family.
    const payload = bench.payloadFrom(
      pipeline(
        '{ preset: claude-code, model: anthropic/claude-sonnet-4-5 }',
        '{ preset: copilot, model: github/gpt-5, env: { STAND_IN_MODEL: claude-sonnet-4.5 } }',
      ),
      'review',
    );
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.review?.independent).toBe(false);
    expect(result.summary).toContain(
      '**Not independent** review: coder `coder` is configured with anthropic/claude-sonnet-4-5 and reviewer `reviewer` reported using claude-sonnet-4.5: the same model family `claude-sonnet`.',
    );
  });
});

describe('Claude Code, which refuses to bypass permissions as root unless told a sandbox guards it', () => {
  const payload = () => bench.payloadFrom(pipeline('{ preset: claude-code, model: anthropic/claude-sonnet-4-5 }'), 'implement');

  it("is told so (IS_SANDBOX=1) when Conveyor's sandbox runs it", async () => {
    bench.standIn('claude');
    const ws = join(bench.scratch, 'ws');
    const { result } = await bench.run(payload(), ws, { env: KEYS });
    expect(result.sandbox?.mode).toBe('bubblewrap');
    expect(bench.recordOf(ws, 'claude').env.IS_SANDBOX).toBe('1');
  });

  it('is not, where no sandbox can be made: nothing else guards it then', async () => {
    bench.standIn('claude');
    const ws = join(bench.scratch, 'ws');
    const { result } = await bench.run(payload(), ws, { env: KEYS, path: `${bench.bin}:${pathWithoutBubblewrap()}` });
    expect(result.sandbox?.mode).toBe('none');
    expect(bench.recordOf(ws, 'claude').env.IS_SANDBOX).toBeUndefined();
  });
});
