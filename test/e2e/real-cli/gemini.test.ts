// The real Gemini CLI (the version its preset was checked with, test/helpers/real-clis.ts) run by
// the real `conveyor run` in the embedded mode, in the sandbox, against a scripted Gemini API
// (`streamGenerateContent`, test/helpers/vendor-turns.ts) on 127.0.0.1 named as its `endpoint`:
// Gemini CLI finds it through GOOGLE_GEMINI_BASE_URL and the settings file Conveyor seeds into its
// private HOME. Its edit (made with its own write_file tool) lands on the PR's branch, its usage and
// model come from its stream-json events, its reviewer writes the verdict file with its shell tool,
// and the key reaches the vendor through the forwarder only. And its failures are named for what
// they are: its vendor's host refused by the sandbox, its API overloaded, its stream stalled.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createFleet, type Fleet } from '../../helpers/fleet.ts';
import { realCli, restoreCli, type InstalledCli } from '../../helpers/real-clis.ts';
import { git } from '../../helpers/repos.ts';
import { startVendorApi, type VendorApi } from '../../helpers/vendor-api.ts';
import { geminiGenerateContent, geminiWorkingDirectory, script } from '../../helpers/vendor-turns.ts';
import { reviewTurn, SEE_WHAT_THE_AGENT_HOLDS, status, type StatusJson, runIntoAStall, coderOnly } from './real-cli-fixture.ts';

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

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${gemini.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(gemini, join(fleet.dir, 'cache')), GEMINI_API_KEY: KEY },
    });
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
    // Its usage statistics (for play.googleapis.com) are off: the sandbox refused nothing.
    expect(seen).toContain('"usageStatisticsEnabled": false');
    for (const step of [s.steps.implement, s.steps.review]) expect((step?.result as { sandbox?: { blocked: unknown[] } }).sandbox?.blocked).toEqual([]);
    expect(seen).not.toContain(KEY);
    for (const t of transcripts) expect(t).not.toContain(KEY);
  }, 300_000);
});

type Step = StatusJson['steps'][string] & { repairs?: number; result?: { error?: { code: string; message?: string } } };

describe('Gemini CLI (the real CLI) when its model is out of reach', () => {
  it("asked to reach its vendor's host, which its network.allow lacks: stopped as agent-network-refused within a minute, naming the host", async () => {
    // A key Conveyor does not hold (the agent's own env gives it), so nothing points the CLI at the
    // forwarder: it goes to generativelanguage.googleapis.com itself, through the sandbox's proxy.
    fleet.writeConfig(
      coderOnly(
        `{ preset: gemini, model: google/gemini-2.5-pro, network: { allow: [registry.npmjs.org] }, env: { GEMINI_API_KEY: not-a-key-conveyor-holds }, timeout-minutes: 5 }`,
      ),
    );
    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${gemini.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(gemini, join(fleet.dir, 'cache')) },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement as Step;
    expect(step.result?.error?.code, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}`).toBe('agent-network-refused');
    expect(step.result?.error?.message).toMatch(
      /^The agent was stopped: the sandbox refused generativelanguage\.googleapis\.com:443 \(\d+ times?\), which is not in its network\.allow, and it is the agent's model API\. To let it through, add generativelanguage\.googleapis\.com to `agents\.coder\.network\.allow`/,
    );
    // Stopped by the refusal watch at its model's host (its code), not after the CLI's ten retries or its timeout (agent-timeout).
    expect((step.result as { sandbox?: { blocked: Array<{ host: string }> } }).sandbox?.blocked.map((b) => b.host)).toContain(
      'generativelanguage.googleapis.com',
    );
    expect(fleet.remotes.branches('acme/web')).toEqual(['main']);
  });

  it('answered 503 "overloaded" by its API: agent-vendor-unavailable, run again in the same attempt without a repair, then failed with what the vendor said', async () => {
    const said = 'The model is overloaded. Please try again later.';
    const overloaded = script([{ status: 503, body: JSON.stringify({ error: { code: 503, message: said, status: 'UNAVAILABLE' } }) }]);
    coderApi = await startVendorApi({ answer: geminiGenerateContent(overloaded) });
    // Gemini CLI retries a 503 itself ten times, 5 to 30 s apart (four minutes), before it gives up:
    // the repository's own settings make it one try, so the test takes a minute. It reads them only
    // in a folder it trusts, which --skip-trust says too late (after it has loaded its settings).
    fleet.remotes.commit('acme/web', 'main', { '.gemini/settings.json': JSON.stringify({ general: { maxAttempts: 1 } }) }, 'Gemini CLI tries once');
    fleet.writeConfig(
      coderOnly(
        `{ preset: gemini, model: google/gemini-2.5-pro, endpoint: ${coderApi.url}, vendor-retries: 1, env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' }, timeout-minutes: 5 }`,
      ),
    );
    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      // GOOGLE_API_KEY, which the CLI does not read with an API key's sign-in: Conveyor gives it the placeholder as GEMINI_API_KEY.
      env: { PATH: `${gemini.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(gemini, join(fleet.dir, 'cache')), GOOGLE_API_KEY: KEY },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement as Step;
    expect(step.result?.error?.code, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}`).toBe('agent-vendor-unavailable');
    expect(step.result?.error?.message).toContain(`its model's API answered 503 (${JSON.stringify(said)}) in each of 2 runs, with a backoff between them.`);
    expect(step.result?.error?.message).toContain('no repair was spent');
    // Both runs in the one attempt: no repair, no second attempt.
    expect(step.attempts).toHaveLength(1);
    expect(step.repairs).toBe(0);
    // One request a run: the CLI's own retries were off, so the second is Conveyor's.
    expect(overloaded.seen.map((r) => r.turn)).toEqual([0, 0]);
    for (const a of coderApi.arrived) expect(a.headers['x-goog-api-key']).toBe(KEY);
    expect(fleet.remotes.branches('acme/web')).toEqual(['main']);
  }, 300_000);
});

describe('Gemini CLI (the real CLI) when its vendor recovers', () => {
  it('answered 503 once: run again after the backoff in the same attempt, and the step succeeds with its edit', async () => {
    const said = 'The model is overloaded. Please try again later.';
    const coder = script([
      (r) => ({ tool: 'write_file', input: { file_path: join(geminiWorkingDirectory(r), 'hello.txt'), content: 'hello after the outage\n' } }),
      { text: 'Added hello.txt.' },
    ]);
    const answer = geminiGenerateContent(coder);
    let failed = 0;
    coderApi = await startVendorApi({
      answer: (req, res, arrived) => {
        if (failed++ > 0) return answer(req, res, arrived);
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 503, message: said, status: 'UNAVAILABLE' } }));
      },
    });
    // One try a run, as above: the retry that recovers is Conveyor's.
    fleet.remotes.commit('acme/web', 'main', { '.gemini/settings.json': JSON.stringify({ general: { maxAttempts: 1 } }) }, 'Gemini CLI tries once');
    fleet.writeConfig(
      coderOnly(
        `{ preset: gemini, model: google/gemini-2.5-pro, endpoint: ${coderApi.url}, vendor-retries: 2, env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' }, timeout-minutes: 5 }`,
      ),
    );
    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), {
      env: { PATH: `${gemini.bin}:${process.env.PATH}`, CONVEYOR_CACHE_DIR: restoreCli(gemini, join(fleet.dir, 'cache')), GEMINI_API_KEY: KEY },
    });
    const s = await status(fleet, 'web-3');
    const step = s.steps.implement as Step;
    expect(step.status, `${run.stdout}\n${run.stderr}\n${JSON.stringify(step, null, 2)}`).toBe('succeeded');
    expect(step.attempts).toHaveLength(1);
    expect(step.repairs).toBe(0);
    expect(fleet.remotes.show('acme/web', 'conveyor/web-3', 'hello.txt')).toBe('hello after the outage');
    // The failed request, then the second run's two turns.
    expect(coderApi.arrived).toHaveLength(3);
    expect(coder.seen.map((r) => r.turn)).toEqual([0, 1]);
  }, 300_000);
});

describe('Gemini CLI (the real CLI) on a stream that stalls', () => {
  it('is stopped by the stall guard as agent-stalled when its API starts an answer and never finishes it', async () => {
    // A minute of 500 ms: the guard fires after 10 s of silence (Gemini CLI takes seconds to start
    // before its first line), the timeout after 60 s.
    const run = await runIntoAStall({
      cli: gemini,
      wire: geminiGenerateContent,
      agent: (url) =>
        `{ preset: gemini, model: google/gemini-2.5-pro, endpoint: ${url}, timeout-minutes: 120, stall-minutes: 20, env: { STALL_MARK: real-gemini } }`,
      mark: 'real-gemini',
      env: { GEMINI_API_KEY: KEY },
      minuteMs: 500,
    });
    expect(run.result.error?.code, `${run.result.summary}\n${run.log}`).toBe('agent-stalled');
    // It reached the API and got the answer's start: the stall is the stream's, not a refused connection.
    expect(run.seen).toBe(1);
    expect(run.result.summary).toContain('"type":"init"');
    expect(run.left).toEqual([]);
    expect(run.branches).toEqual(['main']);
  });
});
