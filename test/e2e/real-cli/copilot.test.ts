// The real Copilot CLI (the version its preset was checked with, test/helpers/real-clis.ts) run by
// the real `conveyor run` in the embedded mode, in the sandbox, in its bring-your-own-key mode
// (`provider`: no GitHub sign-in, COPILOT_OFFLINE) against scripted OpenAI APIs on 127.0.0.1
// named as its `endpoint`: Chat Completions (its default wire API) for the coder, Responses
// (`wire-api: responses`) for the reviewer. Its edit lands on the PR's branch, its usage comes
// from its --usage-output-file, its reviewer writes the verdict file, the provider key reaches
// the vendor through the forwarder only, and the 235 MB it unpacks stays in its agent's cache.
// Then its failures, named for what they are: a refused host, a vendor answering 503, a stream
// that stalls.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBench } from '../../action/preset-fixture.ts';
import { cli } from '../../helpers/cli.ts';
import { createFleet, type Fleet } from '../../helpers/fleet.ts';
import { processesWith } from '../../helpers/processes.ts';
import { realCli, restoreCli, type InstalledCli } from '../../helpers/real-clis.ts';
import { git } from '../../helpers/repos.ts';
import { startVendorApi, type VendorApi } from '../../helpers/vendor-api.ts';
import { chatCompletionsTools, openaiChatCompletions, openaiResponses, script, workingDirectory, type Turn } from '../../helpers/vendor-turns.ts';
import { reviewTurn, SEE_WHAT_THE_AGENT_HOLDS, status, runIntoAStall } from './real-cli-fixture.ts';

const KEY = 'sk-proj-real-provider-key-of-the-test-0004';

let copilot: InstalledCli;
let fleet: Fleet;
let coderApi: VendorApi | undefined;
let reviewerApi: VendorApi | undefined;

beforeAll(() => {
  copilot = realCli('copilot');
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

/** Where Copilot CLI unpacks itself in an agent's kept cache (its XDG_CACHE_HOME), under `root` (CONVEYOR_CACHE_DIR). */
const unpacked = (root: string, agent: string) => join(root, 'agents', 'acme__web', agent, 'cache', 'copilot', 'pkg', 'linux-x64', copilot.version);

describe('Copilot CLI (the real CLI) in its bring-your-own-key mode in conveyor run', () => {
  it('edits through its create tool, and the edit lands on the PR branch; usage and model from its usage file, the verdict it writes; the provider key stays with the forwarder; it unpacks once', async () => {
    const coder = script(
      [
        (r) => ({ tool: 'create', input: { path: join(workingDirectory(r), 'hello.txt'), file_text: 'hello from copilot\n' } }),
        (r) => ({
          tool: 'bash',
          input: { command: SEE_WHAT_THE_AGENT_HOLDS(join(workingDirectory(r), 'seen.txt'), '.cache/copilot/pkg'), description: 'record the environment' },
        }),
        { text: 'Added hello.txt.' },
      ],
      // The API answers as a dated model: Copilot CLI records the one it asked for all the same.
      { usage: { input: 1500, output: 70 }, model: 'gpt-5-2025-08-07' },
    );
    // Its verdict source is the file the prompt names: the reviewer writes it with its bash tool.
    const reviewer = script(
      [
        { tool: 'bash', input: { command: `printf '%s' '${JSON.stringify(reviewTurn)}' > "$CONVEYOR_RESULT_FILE"`, description: 'write the verdict' } },
        { text: 'Reviewed.' },
      ],
      { usage: { input: 800, output: 30 } },
    );
    coderApi = await startVendorApi({ answer: openaiChatCompletions(coder) });
    reviewerApi = await startVendorApi({ answer: openaiResponses(reviewer) });
    const cache = restoreCli(copilot, join(fleet.dir, 'cache'));
    fleet.writeConfig(`version: 1
agents:
  coder: { preset: copilot, provider: openai, model: openai/gpt-5, endpoint: ${coderApi.url}/v1, timeout-minutes: 5 }
  reviewer: { preset: copilot, provider: openai, wire-api: responses, model: openai/gpt-5-mini, endpoint: ${reviewerApi.url}/v1, timeout-minutes: 5 }
services:
  web: { repo: acme/web }
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: review, kind: review, agent: reviewer }
`);
    const env = { PATH: `${copilot.bin}:${process.env.PATH}`, COPILOT_PROVIDER_API_KEY: KEY, CONVEYOR_CACHE_DIR: cache };

    const run = await cli(fleet.runArgs('--title', 'Say hello', '--issue', '3'), { env });
    const s = await status(fleet, 'web-3');
    expect(s.steps.implement?.status, `${run.stdout}\n${run.stderr}\n${JSON.stringify(s.steps, null, 2)}`).toBe('succeeded');

    // The CLI itself made the edit: the scripted API only asked for it.
    expect(fleet.remotes.show('acme/web', 'conveyor/web-3', 'hello.txt')).toBe('hello from copilot');
    expect(git(fleet.remotes.bare('acme/web'), 'ls-tree', '-r', '--name-only', 'conveyor/web-3').split('\n')).toEqual([
      'README.md',
      'hello.txt',
      'seen.txt',
      'value.txt',
    ]);
    expect(s.prs.map((p) => [p.repo, p.branch])).toEqual([['acme/web', 'conveyor/web-3']]);
    expect(coder.seen.map((r) => r.turn)).toEqual([0, 1, 2]);
    expect(chatCompletionsTools(coder.seen[0]!)).toEqual(expect.arrayContaining(['bash', 'create', 'edit', 'view']));
    // The second request carries the create tool's result back to the model.
    expect(coder.seen[1]!.text).toContain('"role":"tool"');

    // Its usage file: three answers of 1,500 in and 70 out, by the model it asked for (the configured one, without its
    // `openai/`), not the one the answers named.
    expect(s.steps.implement?.result?.usage).toMatchObject({ inputTokens: 4500, outputTokens: 210, models: ['gpt-5'] });
    expect(coder.seen[0]!.body.model).toBe('gpt-5');

    // The reviewer wrote the verdict file, talking the Responses wire API.
    expect(s.steps.review?.status, JSON.stringify(s.steps.review, null, 2)).toBe('succeeded');
    expect(s.steps.review?.result?.summary).toContain('Review `review` passed (0 finding(s)).');
    expect(s.steps.review?.result?.usage).toMatchObject({ inputTokens: 1600, outputTokens: 60, models: ['gpt-5-mini'] });
    expect(reviewerApi.arrived.every((a) => a.path === '/v1/responses')).toBe(true);

    // The vendor got the real key on every request; the agent held a placeholder.
    const posts = coderApi.arrived.filter((a) => a.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const a of [...posts, ...reviewerApi.arrived]) expect(a.headers.authorization).toBe(`Bearer ${KEY}`);
    const seen = fleet.remotes.show('acme/web', 'conveyor/web-3', 'seen.txt');
    expect(seen).toMatch(/COPILOT_PROVIDER_API_KEY=conveyor-placeholder-[0-9a-f]{32}/);
    expect(seen).toContain('COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:3129/v1');
    expect(seen).toContain('COPILOT_OFFLINE=true');
    expect(seen).not.toContain(KEY);
    const attempts = join(dirname(fleet.state), 'attempts', 'web-3');
    for (const a of readdirSync(attempts)) expect(readFileSync(join(attempts, a, 'transcript.log'), 'utf8')).not.toContain(KEY);

    // It unpacked itself into its agent's kept cache, each agent its own.
    const main = join(unpacked(cache, 'coder'), 'cli-main.js');
    const first = statSync(main);
    expect(statSync(join(unpacked(cache, 'reviewer'), 'cli-main.js')).ino).not.toBe(first.ino);

    // A second run finds it there and does not unpack again: the same files, untouched.
    const review = statSync(join(unpacked(cache, 'reviewer'), 'cli-main.js'));
    coderApi.answer = openaiChatCompletions(
      script([(r) => ({ tool: 'create', input: { path: join(workingDirectory(r), 'again.txt'), file_text: 'again\n' } }), { text: 'Done.' }]),
    );
    const second = await cli(fleet.runArgs('--title', 'Say it again', '--issue', '4'), { env });
    const s2 = await status(fleet, 'web-4');
    expect(s2.steps.review?.status, `${second.stdout}\n${second.stderr}\n${JSON.stringify(s2.steps, null, 2)}`).toBe('succeeded');
    expect(fleet.remotes.show('acme/web', 'conveyor/web-4', 'again.txt')).toBe('again');
    const stamp = (f: { ino: number; ctimeMs: number }) => [f.ino, f.ctimeMs];
    expect(stamp(statSync(main))).toEqual(stamp(first));
    expect(stamp(statSync(join(unpacked(cache, 'reviewer'), 'cli-main.js')))).toEqual(stamp(review));
  });
});

const overloaded = (status: number): Turn => ({ status, body: JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error' } }) });

describe('Copilot CLI (the real CLI) when things go wrong', () => {
  it('signed in to GitHub with an allow-list lacking GitHub: stopped at once as agent-network-refused, naming the host and the key to add', async () => {
    const bench = createBench();
    try {
      const payload = bench.payloadFrom(
        `
version: 1
agents:
  coder: { preset: copilot, model: github/gpt-5, network: { allow: [registry.npmjs.org] }, timeout-minutes: 10, env: { REFUSE_MARK: real-copilot } }
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
      restoreCli(copilot, bench.cache);
      const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), {
        env: { COPILOT_GITHUB_TOKEN: 'github_pat_11AAAAAAA0fake0token0of0the0test' },
        path: `${copilot.bin}:${process.env.PATH}`,
      });
      expect(result.sandbox?.mode).toBe('bubblewrap');
      expect(result.error?.code, `${result.summary}\n${log}`).toBe('agent-network-refused');
      // Its first request, before any model call: the GitHub sign-in, refused once and stopped there.
      expect(result.sandbox?.blocked).toEqual([expect.objectContaining({ host: 'api.github.com', port: 443 })]);
      // Signed in to GitHub it takes an endpoint only in its bring-your-own-key mode: the fix says so.
      expect(result.error?.message).toMatch(
        /^The agent was stopped: the sandbox refused api\.github\.com:443 \(1 time\), which is not in its network\.allow, and it is the agent's model API\. To let it through, add api\.github\.com to `agents\.coder\.network\.allow` \(which replaces its preset's hosts\), or point the agent with `agents\.coder\.provider` and `agents\.coder\.endpoint` at an API it may reach\./,
      );
      expect(processesWith('REFUSE_MARK', 'real-copilot')).toEqual([]);
      expect(bench.remotes.branches('acme/web')).toEqual(['main']);
    } finally {
      bench.cleanup();
    }
  });

  it('a vendor answering 503 through its own five retries: agent-vendor-unavailable, run again after a backoff in the same attempt, and the step succeeds once the vendor recovers', async () => {
    const bench = createBench();
    let failures = 0;
    const recovering = script([
      (r) =>
        failures++ < 6
          ? overloaded(503)
          : { tool: 'create', input: { path: join(workingDirectory(r), 'acme__web', 'hello.txt'), file_text: 'hello after the outage\n' } },
      { text: 'Added hello.txt.' },
    ]);
    const api = await startVendorApi({ answer: openaiChatCompletions(recovering) });
    const slept: number[] = [];
    try {
      const payload = bench.payloadFrom(
        `
version: 1
agents:
  coder: { preset: copilot, provider: openai, model: openai/gpt-5, endpoint: ${api.url}/v1, timeout-minutes: 10 }
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
      restoreCli(copilot, bench.cache);
      const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), {
        env: { COPILOT_PROVIDER_API_KEY: KEY },
        path: `${copilot.bin}:${process.env.PATH}`,
        sleep: (ms) => {
          slept.push(ms);
          return Promise.resolve();
        },
      });
      expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
      // Its first run: the request and its own five retries all answered 503, then it gave up; the second run got through.
      expect(failures).toBe(7);
      expect(slept).toEqual([30_000]);
      expect(log).toContain(
        `its model's API was unavailable (503: "The server is overloaded"); running it again in 30 s (retry 1 of 3, in this attempt: no repair is spent)`,
      );
      expect(result).toMatchObject({ attempt: payload.attempt, mode: 'run' });
      const branch = bench.remotes.branches('acme/web').find((b) => b !== 'main');
      expect(bench.remotes.show('acme/web', branch!, 'hello.txt')).toBe('hello after the outage');
    } finally {
      await api.close();
      bench.cleanup();
    }
  });

  it('is stopped by the stall guard as agent-stalled when its API starts an answer and never finishes it', async () => {
    // A minute of 1 s: the guard fires after 20 s of silence, the timeout after 120 s. Its first run in a new cache is
    // silent while it unpacks itself (6 s and more here), which a real stall-minutes never notices but a shrunk one must allow.
    const run = await runIntoAStall({
      cli: copilot,
      wire: openaiChatCompletions,
      agent: (url) =>
        `{ preset: copilot, provider: openai, model: openai/gpt-5, endpoint: ${url}/v1, timeout-minutes: 120, stall-minutes: 20, env: { STALL_MARK: real-copilot } }`,
      mark: 'real-copilot',
      env: { COPILOT_PROVIDER_API_KEY: KEY },
      minuteMs: 1000,
    });
    expect(run.result.error?.code, `${run.result.summary}\n${run.log}`).toBe('agent-stalled');
    // It reached the API and got the answer's start: the stall is the stream's, not a refused connection.
    expect(run.seen).toBe(1);
    expect(run.result.summary).toContain('"type":"model.call_start"');
    expect(run.left).toEqual([]);
    expect(run.branches).toEqual(['main']);
  });
});
