// The real Claude Code (the version its preset was checked with, test/helpers/real-clis.ts) run
// by the real `conveyor run` in the embedded mode, in the sandbox, against a scripted Anthropic
// Messages API on 127.0.0.1 (test/helpers/vendor-turns.ts) that the configuration names as its
// `endpoint`. Nothing pretends to be the CLI: its edit lands on the PR's branch, its usage and
// model are recorded, its reviewer's `structured_output` verdict parses, and the key reaches the
// vendor through Conveyor's forwarder, never the agent.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { git } from '../../helpers/repos.ts';
import { createFleet, type Fleet } from '../../helpers/fleet.ts';
import { realCli, restoreCli, type InstalledCli } from '../../helpers/real-clis.ts';
import { startVendorApi, type VendorApi } from '../../helpers/vendor-api.ts';
import { anthropicMessages, outage, script, workingDirectory, type Script } from '../../helpers/vendor-turns.ts';
import { status, reviewTurn, SEE_WHAT_THE_AGENT_HOLDS, coderOnly, stepLog, runIntoAStall } from './real-cli-fixture.ts';

const KEY = 'sk-ant-api03-real-key-of-the-test-0001';

let claude: InstalledCli;
let fleet: Fleet;
let coderApi: VendorApi;
let reviewerApi: VendorApi;

beforeAll(() => {
  claude = realCli('claude-code');
}, 600_000);
beforeEach(() => {
  fleet = createFleet();
});
afterEach(async () => {
  fleet.cleanup();
  await coderApi?.close();
  await reviewerApi?.close();
});

function config(): string {
  return `version: 1
agents:
  coder:
    preset: claude-code
    model: anthropic/claude-sonnet-4-5
    endpoint: ${coderApi.url}
    timeout-minutes: 5
  reviewer:
    preset: claude-code
    model: anthropic/claude-opus-4-1
    endpoint: ${reviewerApi.url}
    timeout-minutes: 5
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: review, kind: review, agent: reviewer }
`;
}

describe(`Claude Code (the real CLI) in conveyor run`, () => {
  it('edits through its Write tool, and the edit lands on the PR branch; usage, model and the structured verdict are recorded; the key stays with the forwarder', async () => {
    const coder: Script = script(
      [
        (r) => ({ tool: 'Write', input: { file_path: join(workingDirectory(r), 'hello.txt'), content: 'hello from claude\n' } }),
        (r) => ({ tool: 'Bash', input: { command: SEE_WHAT_THE_AGENT_HOLDS(join(workingDirectory(r), 'seen.txt')), description: 'record the environment' } }),
        { text: 'Added hello.txt.' },
      ],
      { usage: { input: 1200, output: 80 } },
    );
    const reviewer = script([{ tool: 'StructuredOutput', input: reviewTurn }], { usage: { input: 900, output: 40 } });
    coderApi = await startVendorApi({ answer: anthropicMessages(coder) });
    reviewerApi = await startVendorApi({ answer: anthropicMessages(reviewer) });
    fleet.writeConfig(config());

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${claude.bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: KEY, CONVEYOR_CACHE_DIR: restoreCli(claude, join(fleet.dir, 'cache')) },
    });
    const s = await status(fleet, 'web-3');
    expect(s.steps.implement?.status, `${run.stdout}\n${run.stderr}\n${JSON.stringify(s.steps, null, 2)}`).toBe('succeeded');

    // The CLI itself made the edit: the scripted API only asked for it.
    expect(fleet.remotes.show('acme/web', 'conveyor/web-3', 'hello.txt')).toBe('hello from claude');
    // And nothing else: no decoy files of a sandbox of its own (package.json, .env, lock files) ride along.
    expect(git(fleet.remotes.bare('acme/web'), 'ls-tree', '-r', '--name-only', 'conveyor/web-3').split('\n')).toEqual([
      'README.md',
      'hello.txt',
      'seen.txt',
      'value.txt',
    ]);
    expect(s.prs.map((p) => [p.repo, p.branch])).toEqual([['acme/web', 'conveyor/web-3']]);
    // Three turns of the main conversation, each request carrying the previous turns' tool results.
    expect(coder.seen.map((r) => r.turn)).toEqual([0, 1, 2]);
    expect(coder.seen[1]!.text).toContain('hello.txt');

    // Its result event's usage (three answers of 1,200 in and 80 out) and the model it ran.
    expect(s.steps.implement?.result?.usage).toMatchObject({ inputTokens: 3600, outputTokens: 240, turns: 3, models: ['claude-sonnet-4-5'] });
    expect(s.steps.implement?.result?.usage?.costUsd).toBeGreaterThan(0);

    // The reviewer's verdict came back as Claude Code's structured_output, through its StructuredOutput tool.
    expect(s.steps.review?.status, JSON.stringify(s.steps.review, null, 2)).toBe('succeeded');
    expect(s.steps.review?.result?.summary).toContain('pass');
    // Configured claude-opus-4-1, this Claude Code asks for claude-opus-4-8: what it really ran is what is recorded.
    expect(reviewer.seen[0]!.body.model).toBe('claude-opus-4-8');
    expect(s.steps.review?.result?.usage).toMatchObject({ inputTokens: 900, outputTokens: 40, models: ['claude-opus-4-8'] });
    expect(reviewer.seen[0]!.text).toContain('StructuredOutput');

    // The vendor got the real key on every request of the main conversation; the agent held a placeholder.
    const main = coderApi.arrived.filter((a) => a.path.startsWith('/v1/messages'));
    expect(main.length).toBeGreaterThanOrEqual(3);
    for (const a of main) expect(a.headers['x-api-key']).toBe(KEY);
    const seen = fleet.remotes.show('acme/web', 'conveyor/web-3', 'seen.txt');
    expect(seen).toMatch(/ANTHROPIC_API_KEY=conveyor-placeholder-[0-9a-f]{32}/);
    expect(seen).toContain('ANTHROPIC_BASE_URL=http://127.0.0.1:3129');
    expect(seen).not.toContain(KEY);
    // Nor did the transcripts keep it (the forwarder never gave it to the CLI to print).
    const attempts = join(dirname(fleet.state), 'attempts', 'web-3');
    for (const a of readdirSync(attempts)) expect(readFileSync(join(attempts, a, 'transcript.log'), 'utf8')).not.toContain(KEY);
  });
});

describe('Claude Code (the real CLI) on a stream that stalls', () => {
  it('is stopped by the stall guard as agent-stalled when its API starts an answer and never finishes it', async () => {
    // A minute of 500 ms: the guard fires after 8 s of silence, the timeout after 60 s. (Not 3 s:
    // on a busy machine this Claude Code prints nothing for longer than that as it starts.)
    const run = await runIntoAStall({
      cli: claude,
      wire: anthropicMessages,
      agent: (url) =>
        `{ preset: claude-code, model: anthropic/claude-sonnet-4-5, endpoint: ${url}, timeout-minutes: 120, stall-minutes: 16, env: { STALL_MARK: real-claude } }`,
      mark: 'real-claude',
      env: { ANTHROPIC_API_KEY: KEY },
      minuteMs: 500,
    });
    expect(run.result.error?.code, `${run.result.summary}\n${run.log}`).toBe('agent-stalled');
    // It reached the API and got the answer's start: the stall is the stream's, not a refused connection.
    expect(run.seen).toBe(1);
    expect(run.result.summary).toContain('"subtype":"init"');
    expect(run.left).toEqual([]);
    expect(run.branches).toEqual(['main']);
  });
});

const OVERLOADED = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
// Claude Code retries an overloaded API itself, ten times over some three minutes by default (each
// retry printed as an `api_retry` event, so the stall guard rightly leaves it be); here once, so a
// run it gives up on takes seconds. Conveyor's own retry is what is tested.
const ONE_RETRY_OF_ITS_OWN = '{ CLAUDE_CODE_MAX_RETRIES: "1" }';

describe('Claude Code (the real CLI) when its model API is out of reach or unavailable', () => {
  it('sent to a host its network allow-list lacks: stopped within a minute as agent-network-refused, naming the host and the key to add', async () => {
    // A subscription's OAuth token passes to the CLI by name (no forwarder), so the CLI goes to its
    // vendor itself, through the sandbox's proxy: an allow-list that replaced the preset's hosts refuses it.
    fleet.writeConfig(coderOnly('{ preset: claude-code, model: anthropic/claude-sonnet-4-5, network: { allow: [registry.npmjs.org] }, timeout-minutes: 30 }'));
    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: {
        PATH: `${claude.bin}:${process.env.PATH}`,
        CONVEYOR_CACHE_DIR: restoreCli(claude, join(fleet.dir, 'cache')),
        CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-token-of-the-test-0003',
      },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement!;
    expect(step.result?.error?.code, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}`).toBe('agent-network-refused');
    expect(step.status).toBe('failed');
    expect(step.result?.summary).toMatch(
      /^\*\*The agent was stopped: the sandbox refused api\.anthropic\.com:443 \(\d+ times?\), which is not in its network\.allow, and it is the agent's model API\. To let it through, add api\.anthropic\.com to `agents\.coder\.network\.allow` \(which replaces its preset's hosts\), or point the agent with `agents\.coder\.endpoint` at an API it may reach\./,
    );
    // Stopped at the refusal (its code says the refusal watch stopped it), not at its 30-minute timeout (agent-timeout).
    expect(step.result?.sandbox).toMatchObject({
      mode: 'bubblewrap',
      blocked: [expect.objectContaining({ host: 'api.anthropic.com', port: 443 })],
    });
    expect(fleet.remotes.branches('acme/web')).toEqual(['main']);
    // `conveyor status` says it too.
    const text = await cli(['status', 'web-3', '--state', fleet.state]);
    expect(text.stdout).toContain('agent-network-refused: The agent was stopped: the sandbox refused api.anthropic.com:443');
  });

  it('a 529 "overloaded" on its first run: agent-vendor-unavailable, run again after a backoff within the attempt (no repair spent), and the step succeeds once the vendor recovers', async () => {
    const coder = script(
      [
        (r) => ({ tool: 'Write', input: { file_path: join(workingDirectory(r), 'hello.txt'), content: 'hello after the outage\n' } }),
        { text: 'Added hello.txt.' },
      ],
      { usage: { input: 1200, output: 80 } },
    );
    const down = outage(anthropicMessages(coder), { status: 529, body: OVERLOADED, runs: 1 });
    coderApi = await startVendorApi({ answer: down.answer });
    fleet.writeConfig(
      coderOnly(`{ preset: claude-code, model: anthropic/claude-sonnet-4-5, endpoint: ${coderApi.url}, timeout-minutes: 5, env: ${ONE_RETRY_OF_ITS_OWN} }`),
    );

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${claude.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(claude, join(fleet.dir, 'cache')), ANTHROPIC_API_KEY: KEY },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement!;
    expect(step.status, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}\n${stepLog(fleet, 'web-3')}`).toBe('succeeded');
    // Two runs of the CLI (two sessions), the first of them overloaded through its own retry too.
    expect(down.sessions).toHaveLength(2);
    expect(down.failed.length).toBe(2);
    for (const a of down.failed) expect(a.headers['x-claude-code-session-id']).toBe(down.sessions[0]);
    // One attempt, no repair: the retry was within it.
    expect(step.attempts.map((a) => [a.mode, a.conclusion])).toEqual([['run', 'success']]);
    expect(step.repairs).toBe(0);
    expect(stepLog(fleet, 'web-3')).toContain(
      `its model's API was unavailable (529: "Overloaded"); running it again in 30 s (retry 1 of 3, in this attempt: no repair is spent)`,
    );

    expect(fleet.remotes.show('acme/web', 'conveyor/web-3', 'hello.txt')).toBe('hello after the outage');
    expect(coder.seen.map((r) => r.turn)).toEqual([0, 1]);
    // The overloaded run used nothing; the second's two answers are the attempt's usage.
    expect(step.result?.usage).toMatchObject({ inputTokens: 2400, outputTokens: 160, models: ['claude-sonnet-4-5'] });
    // The real key went to the vendor on every request, the overloaded ones too; never to the agent.
    const posts = coderApi.arrived.filter((a) => a.path.startsWith('/v1/messages'));
    expect(posts.length).toBeGreaterThanOrEqual(4);
    for (const a of posts) expect(a.headers['x-api-key']).toBe(KEY);
    const attempts = join(dirname(fleet.state), 'attempts', 'web-3');
    for (const a of readdirSync(attempts)) expect(readFileSync(join(attempts, a, 'transcript.log'), 'utf8')).not.toContain(KEY);
  });

  it('a vendor that stays overloaded: agent-vendor-unavailable after `vendor-retries` more runs, naming what the vendor said; nothing pushed and no repair spent', async () => {
    const coder = script([{ text: 'never reached' }]);
    const down = outage(anthropicMessages(coder), { status: 529, body: OVERLOADED, runs: Infinity });
    coderApi = await startVendorApi({ answer: down.answer });
    fleet.writeConfig(
      coderOnly(
        `{ preset: claude-code, model: anthropic/claude-sonnet-4-5, endpoint: ${coderApi.url}, timeout-minutes: 5, vendor-retries: 1, env: ${ONE_RETRY_OF_ITS_OWN} }`,
      ),
    );

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${claude.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(claude, join(fleet.dir, 'cache')), ANTHROPIC_API_KEY: KEY },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement!;
    expect(step.result?.error?.code, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}\n${stepLog(fleet, 'web-3')}`).toBe(
      'agent-vendor-unavailable',
    );
    expect(step.status).toBe('failed');
    expect(step.result?.error).toMatchObject({
      message:
        `The agent could not work: its model's API answered 529 ("Overloaded") in each of 2 runs, with a backoff between them. ` +
        'That is the vendor, not the work: no repair was spent. Retry the step later, or raise `agents.coder.vendor-retries`. Nothing was pushed.',
    });
    expect(down.sessions).toHaveLength(2);
    expect(coder.seen).toEqual([]);
    expect(step.attempts).toHaveLength(1);
    expect(step.repairs).toBe(0);
    expect(fleet.remotes.branches('acme/web')).toEqual(['main']);
    const text = await cli(['status', 'web-3', '--state', fleet.state]);
    expect(text.stdout).toContain(`agent-vendor-unavailable: The agent could not work: its model's API answered 529 ("Overloaded")`);
  });
});
