// The real Codex CLI (the version its preset was checked with, test/helpers/real-clis.ts) run by
// the real `conveyor run` in the embedded mode, in the sandbox, against a scripted OpenAI
// Responses API on 127.0.0.1 (test/helpers/vendor-turns.ts) named as its `endpoint`: Codex finds it
// through the config.toml Conveyor seeds into its private CODEX_HOME. Its edit (made with its own
// exec_command tool) lands on the PR's branch, its usage is read from its events, its reviewer's
// last message is the verdict, and the key reaches the vendor through the forwarder only.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, type Fleet } from '../../helpers/fleet.ts';
import { realCli, restoreCli, type InstalledCli } from '../../helpers/real-clis.ts';
import { git } from '../../helpers/repos.ts';
import { startVendorApi, type VendorApi } from '../../helpers/vendor-api.ts';
import { openaiResponses, outage, script } from '../../helpers/vendor-turns.ts';
import { reviewTurn, SEE_WHAT_THE_AGENT_HOLDS, status, coderOnly, stepLog, runIntoAStall } from './real-cli-fixture.ts';

const KEY = 'sk-proj-real-key-of-the-test-0002';

let codex: InstalledCli;
let fleet: Fleet;
let coderApi: VendorApi | undefined;
let reviewerApi: VendorApi | undefined;

beforeAll(() => {
  codex = realCli('codex');
}, 600_000);
beforeEach(() => {
  fleet = createFleet();
});
afterEach(async () => {
  fleet.cleanup();
  await coderApi?.close();
  await reviewerApi?.close();
});

describe('Codex (the real CLI) in conveyor run', () => {
  it('edits through its exec_command tool, and the edit lands on the PR branch; usage and the verdict of its last message are recorded; the key stays with the forwarder', async () => {
    const coder = script(
      [
        { tool: 'exec_command', input: { cmd: "printf 'hello from codex\\n' > hello.txt" } },
        { tool: 'exec_command', input: { cmd: SEE_WHAT_THE_AGENT_HOLDS('seen.txt') } },
        { text: 'Added hello.txt.' },
      ],
      { usage: { input: 1500, output: 70 } },
    );
    const reviewer = script([{ text: JSON.stringify(reviewTurn) }], { usage: { input: 800, output: 30 } });
    coderApi = await startVendorApi({ answer: openaiResponses(coder) });
    reviewerApi = await startVendorApi({ answer: openaiResponses(reviewer) });
    fleet.writeConfig(`version: 1
agents:
  coder: { preset: codex, model: openai/gpt-5, endpoint: ${coderApi.url}/v1, timeout-minutes: 5 }
  reviewer: { preset: codex, model: openai/gpt-5-mini, endpoint: ${reviewerApi.url}/v1, timeout-minutes: 5 }
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: review, kind: review, agent: reviewer }
`);

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${codex.bin}:${process.env.PATH}`, CODEX_API_KEY: KEY, CONVEYOR_CACHE_DIR: restoreCli(codex, join(fleet.dir, 'cache')) },
    });
    const s = await status(fleet, 'web-3');
    expect(s.steps.implement?.status, `${run.stdout}\n${run.stderr}\n${JSON.stringify(s.steps, null, 2)}`).toBe('succeeded');

    expect(fleet.remotes.show('acme/web', 'conveyor/web-3', 'hello.txt')).toBe('hello from codex');
    expect(git(fleet.remotes.bare('acme/web'), 'ls-tree', '-r', '--name-only', 'conveyor/web-3').split('\n')).toEqual([
      'README.md',
      'hello.txt',
      'seen.txt',
      'value.txt',
    ]);
    expect(coder.seen.map((r) => r.turn)).toEqual([0, 1, 2]);
    // The second request carries the first command's output back to the model.
    expect(coder.seen[1]!.text).toContain('function_call_output');

    expect(s.steps.implement?.result?.usage).toMatchObject({ inputTokens: 4500, outputTokens: 210 });

    expect(s.steps.review?.status, JSON.stringify(s.steps.review, null, 2)).toBe('succeeded');
    // Its last message, written by the CLI to the result file, is the verdict.
    expect(s.steps.review?.result?.summary).toContain('Review `review` passed (0 finding(s)).');
    expect(s.steps.review?.result?.usage).toMatchObject({ inputTokens: 800, outputTokens: 30 });
    // It was given the verdict's schema to enforce (--output-schema), as OpenAI's structured outputs take it.
    expect(reviewer.seen[0]!.text).toContain('"complexity"');

    const posts = coderApi.arrived.filter((a) => a.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const a of posts) expect(a.headers.authorization).toBe(`Bearer ${KEY}`);
    const seen = fleet.remotes.show('acme/web', 'conveyor/web-3', 'seen.txt');
    expect(seen).toMatch(/CODEX_API_KEY=conveyor-placeholder-[0-9a-f]{32}/);
    expect(seen).toContain('openai_base_url = "http://127.0.0.1:3129/v1"');
    expect(seen).not.toContain(KEY);
    const attempts = join(dirname(fleet.state), 'attempts', 'web-3');
    for (const a of readdirSync(attempts)) expect(readFileSync(join(attempts, a, 'transcript.log'), 'utf8')).not.toContain(KEY);
  });
});

describe('Codex (the real CLI) when its model API is out of reach or unavailable', () => {
  it('sent to a host its network allow-list lacks: stopped within a minute as agent-network-refused (not left retrying), naming the host and the key to add', async () => {
    // No key of its on the runner, so no forwarder: Codex goes to api.openai.com itself, through the
    // sandbox's proxy, which refuses it; left alone it would print "Reconnecting…" lines until its timeout.
    fleet.writeConfig(coderOnly('{ preset: codex, model: openai/gpt-5, network: { allow: [registry.npmjs.org] }, timeout-minutes: 30 }'));
    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${codex.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(codex, join(fleet.dir, 'cache')) },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement!;
    expect(step.result?.error?.code, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}`).toBe('agent-network-refused');
    expect(step.status).toBe('failed');
    expect(step.result?.summary).toMatch(
      /^\*\*The agent was stopped: the sandbox refused api\.openai\.com:443 \(\d+ times?\), which is not in its network\.allow, and it is the agent's model API\. To let it through, add api\.openai\.com to `agents\.coder\.network\.allow` \(which replaces its preset's hosts\), or point the agent with `agents\.coder\.endpoint` at an API it may reach\./,
    );
    expect(step.result?.sandbox).toMatchObject({
      mode: 'bubblewrap',
      // Beside it, github.com once, which this Codex asks for as it starts (and does without).
      blocked: expect.arrayContaining([expect.objectContaining({ host: 'api.openai.com', port: 443 })]),
    });
    expect(fleet.remotes.branches('acme/web')).toEqual(['main']);
    const text = await cli(['status', 'web-3', '--state', fleet.state]);
    expect(text.stdout).toContain('agent-network-refused: The agent was stopped: the sandbox refused api.openai.com:443');
  });

  it('a 503 through its first run (its own retries included): agent-vendor-unavailable, run again after a backoff within the attempt (no repair spent), and the step succeeds once the vendor recovers', async () => {
    const coder = script([{ tool: 'exec_command', input: { cmd: "printf 'hello after the outage\\n' > hello.txt" } }, { text: 'Added hello.txt.' }], {
      usage: { input: 1500, output: 70 },
    });
    const said = 'The server is overloaded or not ready yet.';
    const down = outage(openaiResponses(coder), { status: 503, body: JSON.stringify({ error: { message: said, type: 'server_error' } }), runs: 1 });
    coderApi = await startVendorApi({ answer: down.answer });
    fleet.writeConfig(coderOnly(`{ preset: codex, model: openai/gpt-5, endpoint: ${coderApi.url}/v1, timeout-minutes: 5 }`));

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${codex.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(codex, join(fleet.dir, 'cache')), CODEX_API_KEY: KEY },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement!;
    expect(step.status, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}\n${stepLog(fleet, 'web-3')}`).toBe('succeeded');
    // Two runs of the CLI: the first met the 503 on every request, through all its own retries.
    expect(down.sessions).toHaveLength(2);
    expect(down.failed.filter((a) => a.method === 'POST').length).toBeGreaterThan(1);
    for (const a of down.failed) expect(a.headers['session-id']).toBe(down.sessions[0]);
    expect(step.attempts.map((a) => [a.mode, a.conclusion])).toEqual([['run', 'success']]);
    expect(step.repairs).toBe(0);
    expect(stepLog(fleet, 'web-3')).toContain(
      `its model's API was unavailable (503: ${JSON.stringify(said)}); running it again in 30 s (retry 1 of 3, in this attempt: no repair is spent)`,
    );

    expect(fleet.remotes.show('acme/web', 'conveyor/web-3', 'hello.txt')).toBe('hello after the outage');
    expect(coder.seen.map((r) => r.turn)).toEqual([0, 1]);
    expect(step.result?.usage).toMatchObject({ inputTokens: 3000, outputTokens: 140 });
    const posts = coderApi.arrived.filter((a) => a.method === 'POST');
    for (const a of posts) expect(a.headers.authorization).toBe(`Bearer ${KEY}`);
    const attempts = join(dirname(fleet.state), 'attempts', 'web-3');
    for (const a of readdirSync(attempts)) expect(readFileSync(join(attempts, a, 'transcript.log'), 'utf8')).not.toContain(KEY);
  });

  it('a 429 with no retry left (vendor-retries: 0): agent-vendor-unavailable at once, naming what the vendor said, not what Codex made of it', async () => {
    const said = 'Rate limit reached for gpt-5 in organization org-test on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200.';
    const coder = script([{ text: 'never reached' }]);
    const down = outage(openaiResponses(coder), {
      status: 429,
      body: JSON.stringify({ error: { message: said, type: 'tokens', code: 'rate_limit_exceeded' } }),
      runs: Infinity,
    });
    coderApi = await startVendorApi({ answer: down.answer });
    fleet.writeConfig(coderOnly(`{ preset: codex, model: openai/gpt-5, endpoint: ${coderApi.url}/v1, timeout-minutes: 5, vendor-retries: 0 }`));

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${codex.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(codex, join(fleet.dir, 'cache')), CODEX_API_KEY: KEY },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement!;
    expect(step.result?.error?.code, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}\n${stepLog(fleet, 'web-3')}`).toBe(
      'agent-vendor-unavailable',
    );
    // Codex itself says only "exceeded retry limit, last status: 429 Too Many Requests": the vendor's words came through the forwarder.
    expect(step.result?.error).toMatchObject({
      message:
        `The agent could not work: its model's API answered 429 (${JSON.stringify(said)}) in each of 1 run, with a backoff between them. ` +
        'That is the vendor, not the work: no repair was spent. Retry the step later, or raise `agents.coder.vendor-retries`. Nothing was pushed.',
    });
    expect(down.sessions).toHaveLength(1);
    expect(coder.seen).toEqual([]);
    expect(step.attempts).toHaveLength(1);
    expect(stepLog(fleet, 'web-3')).not.toContain('running it again');
    expect(fleet.remotes.branches('acme/web')).toEqual(['main']);
  });
});

describe('Codex (the real CLI) on a stream that stalls', () => {
  it('is stopped by the stall guard as agent-stalled when its API starts an answer and never finishes it', async () => {
    // A minute of 500 ms: the guard fires after 8 s of silence, the timeout after 60 s. Codex waits 5
    // minutes on an idle stream before it retries: the stall is the stream's.
    const run = await runIntoAStall({
      cli: codex,
      wire: openaiResponses,
      agent: (url) => `{ preset: codex, model: openai/gpt-5, endpoint: ${url}/v1, timeout-minutes: 120, stall-minutes: 16, env: { STALL_MARK: real-codex } }`,
      mark: 'real-codex',
      env: { CODEX_API_KEY: KEY },
      minuteMs: 500,
    });
    expect(run.result.error?.code, `${run.result.summary}\n${run.log}`).toBe('agent-stalled');
    // It reached the API and got the answer's start: the stall is the stream's, not a refused connection.
    expect(run.seen).toBe(1);
    expect(run.result.summary).toContain('"type":"turn.started"');
    expect(run.left).toEqual([]);
    expect(run.branches).toEqual(['main']);
  });
});
