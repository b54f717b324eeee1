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
import { openaiResponses, script } from '../../helpers/vendor-turns.ts';
import { reviewTurn, SEE_WHAT_THE_AGENT_HOLDS, status } from './real-cli-fixture.ts';

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
