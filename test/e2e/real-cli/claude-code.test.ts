// The real Claude Code (the version its preset was checked with, test/helpers/real-clis.ts) run
// by the real `conveyor run` in the embedded mode, in the sandbox, against a scripted Anthropic
// Messages API on 127.0.0.1 (test/helpers/vendor-turns.ts) that the configuration names as its
// `endpoint`. Nothing pretends to be the CLI: its edit lands on the PR's branch, its usage and
// model are recorded, its reviewer's `structured_output` verdict parses, and the key reaches the
// vendor through Conveyor's forwarder, never the agent.
import { readdirSync, readFileSync } from 'node:fs';
import { processesWith } from '../../helpers/processes.ts';
import { createBench } from '../../action/preset-fixture.ts';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { git } from '../../helpers/repos.ts';
import { createFleet, type Fleet } from '../../helpers/fleet.ts';
import { realCli, restoreCli, type InstalledCli } from '../../helpers/real-clis.ts';
import { startVendorApi, type VendorApi } from '../../helpers/vendor-api.ts';
import { anthropicMessages, script, workingDirectory, type Script } from '../../helpers/vendor-turns.ts';
import { status, reviewTurn, SEE_WHAT_THE_AGENT_HOLDS } from './real-cli-fixture.ts';

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
    // Through the action's entry, where a minute can be shrunk: `conveyor run`'s is a real one.
    const bench = createBench();
    const stalled = script([{ stall: true }]);
    const api = await startVendorApi({ answer: anthropicMessages(stalled) });
    try {
      const payload = bench.payloadFrom(
        `
version: 1
agents:
  coder: { preset: claude-code, model: anthropic/claude-sonnet-4-5, endpoint: ${api.url}, timeout-minutes: 60, stall-minutes: 6, env: { STALL_MARK: real-claude } }
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
`,
        'implement',
      );
      restoreCli(claude, bench.cache);
      const started = Date.now();
      // A minute of 500 ms: the guard fires after 3 s of silence, the timeout after 30 s.
      const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), {
        env: { ANTHROPIC_API_KEY: KEY },
        path: `${claude.bin}:${process.env.PATH}`,
        minuteMs: 500,
      });
      expect(result.error?.code, `${result.summary}\n${log}`).toBe('agent-stalled');
      expect(Date.now() - started).toBeLessThan(25_000);
      // It did reach the API and got the answer's start: the stall is the stream's, not a refused connection.
      expect(stalled.seen).toHaveLength(1);
      expect(result.summary).toContain('"subtype":"init"');
      expect(processesWith('STALL_MARK', 'real-claude')).toEqual([]);
      expect(bench.remotes.branches('acme/web')).toEqual(['main']);
    } finally {
      await api.close();
      bench.cleanup();
    }
  });
});
