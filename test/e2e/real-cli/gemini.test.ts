// The real Gemini CLI (the version its preset was checked with, test/helpers/real-clis.ts) run by
// the real `conveyor run` in the embedded mode, in the sandbox, against a scripted Gemini API
// (`streamGenerateContent`, test/helpers/vendor-turns.ts) on 127.0.0.1 named as its `endpoint`:
// Gemini CLI finds it through GOOGLE_GEMINI_BASE_URL and the settings file Conveyor seeds into its
// private HOME. Its edit (made with its own write_file tool) lands on the PR's branch, its usage and
// model come from its stream-json events, its reviewer writes the verdict file with its shell tool,
// and the key reaches the vendor through the forwarder only.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, type Fleet } from '../../helpers/fleet.ts';
import { realCli, type InstalledCli } from '../../helpers/real-clis.ts';
import { git } from '../../helpers/repos.ts';
import { startVendorApi, type VendorApi } from '../../helpers/vendor-api.ts';
import { geminiGenerateContent, geminiWorkingDirectory, script } from '../../helpers/vendor-turns.ts';
import { reviewTurn, SEE_WHAT_THE_AGENT_HOLDS, status } from './real-cli-fixture.ts';

const KEY = 'AIzaSy-real-key-of-the-test-0003';

let gemini: InstalledCli;
let fleet: Fleet;
let coderApi: VendorApi | undefined;
let reviewerApi: VendorApi | undefined;

beforeAll(() => {
  gemini = realCli('gemini');
}, 600_000);
beforeEach(() => {
  fleet = createFleet();
});
afterEach(async () => {
  fleet.cleanup();
  await coderApi?.close();
  await reviewerApi?.close();
  coderApi = reviewerApi = undefined;
});

describe('Gemini CLI (the real CLI) in conveyor run', () => {
  it('edits through its write_file tool, and the edit lands on the PR branch; usage, model and the verdict it writes are recorded; the key stays with the forwarder', async () => {
    const coder = script(
      [
        (r) => ({ tool: 'write_file', input: { file_path: join(geminiWorkingDirectory(r), 'hello.txt'), content: 'hello from gemini\n' } }),
        { tool: 'run_shell_command', input: { command: SEE_WHAT_THE_AGENT_HOLDS('seen.txt'), description: 'record the environment' } },
        { text: 'Added hello.txt.' },
      ],
      { usage: { input: 1300, output: 60 } },
    );
    const reviewer = script(
      [
        {
          tool: 'run_shell_command',
          input: { command: `printf '%s' '${JSON.stringify(reviewTurn)}' > "$CONVEYOR_RESULT_FILE"`, description: 'write the verdict' },
        },
        { text: 'Wrote the verdict.' },
      ],
      { usage: { input: 700, output: 20 }, model: 'gemini-2.5-flash-002' },
    );
    coderApi = await startVendorApi({ answer: geminiGenerateContent(coder) });
    reviewerApi = await startVendorApi({ answer: geminiGenerateContent(reviewer) });
    fleet.writeConfig(`version: 1
agents:
  coder: { preset: gemini, model: google/gemini-2.5-pro, endpoint: ${coderApi.url}, timeout-minutes: 5 }
  reviewer: { preset: gemini, model: google/gemini-2.5-flash, endpoint: ${reviewerApi.url}, timeout-minutes: 5 }
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: review, kind: review, agent: reviewer }
`);

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), { env: { PATH: `${gemini.bin}:${process.env.PATH}`, GEMINI_API_KEY: KEY } });
    const s = await status(fleet, 'web-3');
    const attempts = join(dirname(fleet.state), 'attempts', 'web-3');
    const transcripts = readdirSync(attempts).map((a) => readFileSync(join(attempts, a, 'transcript.log'), 'utf8'));
    expect(s.steps.implement?.status, `${run.stdout}\n${run.stderr}\n${JSON.stringify(s.steps, null, 2)}\n${transcripts.join('\n')}`).toBe('succeeded');

    // The CLI itself made the edit, in the repository it was started in: the scripted API only asked for it.
    expect(fleet.remotes.show('acme/web', 'conveyor/web-3', 'hello.txt')).toBe('hello from gemini');
    expect(git(fleet.remotes.bare('acme/web'), 'ls-tree', '-r', '--name-only', 'conveyor/web-3').split('\n')).toEqual([
      'README.md',
      'hello.txt',
      'seen.txt',
      'value.txt',
    ]);
    expect(s.prs.map((p) => [p.repo, p.branch])).toEqual([['acme/web', 'conveyor/web-3']]);
    // Three turns, each request carrying the previous call's functionResponse back to the model.
    expect(coder.seen.map((r) => r.turn)).toEqual([0, 1, 2]);
    expect(coder.seen[1]!.text).toContain('"functionResponse"');
    expect(coder.seen[1]!.text).toContain('hello.txt');
    // Streamed, as Gemini CLI asks for its main conversation.
    expect(coderApi!.arrived.map((a) => a.path)).toEqual(Array(3).fill('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse'));

    // Its result event's stats (three answers of 1,300 in and 60 out) and the model its init event named.
    expect(s.steps.implement?.result?.usage).toEqual({ inputTokens: 3900, outputTokens: 180, models: ['gemini-2.5-pro'] });

    // The reviewer wrote the verdict file with its shell tool, as its prompt asks.
    expect(s.steps.review?.status, JSON.stringify(s.steps.review, null, 2)).toBe('succeeded');
    expect(s.steps.review?.result?.summary).toContain('Review `review` passed (0 finding(s)).');
    expect(reviewer.seen[0]!.text).toContain('CONVEYOR_RESULT_FILE');
    // The model configured (its init event) and the one the API said answered (modelVersion, the key of its stats' models).
    expect(s.steps.review?.result?.usage).toEqual({ inputTokens: 1400, outputTokens: 40, models: ['gemini-2.5-flash', 'gemini-2.5-flash-002'] });

    // The vendor got the real key on every request; the agent held a placeholder, and its HOME the settings that point it.
    expect(coderApi!.arrived.length).toBeGreaterThanOrEqual(3);
    for (const a of [...coderApi!.arrived, ...reviewerApi!.arrived]) expect(a.headers['x-goog-api-key']).toBe(KEY);
    const seen = fleet.remotes.show('acme/web', 'conveyor/web-3', 'seen.txt');
    expect(seen).toMatch(/GEMINI_API_KEY=conveyor-placeholder-[0-9a-f]{32}/);
    expect(seen).toContain('GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:3129');
    expect(seen).toContain('"selectedType": "gemini-api-key"');
    expect(seen).not.toContain(KEY);
    for (const t of transcripts) expect(t).not.toContain(KEY);
  });
});
