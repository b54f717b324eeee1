// Keys the agent never holds, end to end: each preset's coder, configured with `endpoint` only,
// runs as a stand-in of its CLI (test/fixtures/agents/stand-in.mjs) in the sandbox and calls its
// model's API the way its CLI finds it; a stand-in vendor API on 127.0.0.1 records what arrives.
// The real key reaches the vendor; the agent's environment, HOME and requests hold a placeholder.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRESETS, type PresetName } from '../../core/config/presets.ts';
import { pathWithoutBubblewrap } from '../helpers/processes.ts';
import { startVendorApi, type VendorApi } from '../helpers/vendor-api.ts';
import { createBench, type Bench } from './preset-fixture.ts';

const KEYS: Record<string, string> = {
  ANTHROPIC_API_KEY: 'sk-ant-real-0001',
  CODEX_API_KEY: 'codex-real-0002',
  OPENAI_API_KEY: 'sk-openai-real-0003',
  GEMINI_API_KEY: 'gemini-real-0004',
  COPILOT_PROVIDER_API_KEY: 'provider-real-0005',
};

interface Case {
  preset: PresetName;
  /** The agent's keys besides `preset`, with VENDOR for the stand-in vendor's URL. */
  agent: string;
  /** The request the vendor must get, and the header carrying the key. */
  path: string;
  header: string;
  value: string;
}

const CASES: Case[] = [
  {
    preset: 'claude-code',
    agent: 'model: anthropic/claude-sonnet-4-5, endpoint: VENDOR',
    path: '/v1/messages',
    header: 'x-api-key',
    value: KEYS.ANTHROPIC_API_KEY!,
  },
  { preset: 'codex', agent: 'model: openai/gpt-5, endpoint: VENDOR/v1', path: '/v1/responses', header: 'authorization', value: `Bearer ${KEYS.CODEX_API_KEY}` },
  {
    preset: 'gemini',
    agent: 'model: google/gemini-2.5-pro, endpoint: VENDOR',
    path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    header: 'x-goog-api-key',
    value: KEYS.GEMINI_API_KEY!,
  },
  {
    preset: 'copilot',
    agent: 'model: openai/gpt-5, provider: openai, wire-api: responses, endpoint: VENDOR/v1',
    path: '/v1/chat/completions',
    header: 'authorization',
    value: `Bearer ${KEYS.COPILOT_PROVIDER_API_KEY}`,
  },
  {
    preset: 'aider',
    agent: 'model: openai/gpt-5, endpoint: VENDOR/v1',
    path: '/v1/chat/completions',
    header: 'authorization',
    value: `Bearer ${KEYS.OPENAI_API_KEY}`,
  },
];

let bench: Bench;
let vendor: VendorApi;

beforeEach(async () => {
  bench = createBench();
  vendor = await startVendorApi();
});
afterEach(async () => {
  bench.cleanup();
  await vendor.close();
});

function payloadOf(c: Case, extra = '') {
  return bench.payloadFrom(
    `
version: 1
agents:
  coder: { preset: ${c.preset}, ${c.agent.replaceAll('VENDOR', vendor.url)}, env: { STAND_IN_API: '1' }${extra} }
services:
  web: { repo: acme/web }
  api: { repo: acme/api }
pipelines:
  default:
    service: web
    involves: [api]
    steps:
      - { id: implement, kind: code, agent: coder }
`,
    'implement',
  );
}

describe.each(CASES)("the $preset preset's key", (c) => {
  const cli = PRESETS[c.preset].cli;

  it('reaches its vendor through the forwarder, and never the agent: its environment, HOME and request hold a placeholder', async () => {
    bench.standIn(cli);
    const ws = join(bench.scratch, 'ws');
    const { result, log } = await bench.run(payloadOf(c), ws, { env: KEYS });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.sandbox?.mode).toBe('bubblewrap');

    // The vendor got the request, with the real key where it reads it, and its stream came back whole.
    expect(vendor.arrived.map((a) => a.path)).toEqual([c.path]);
    expect(vendor.arrived[0]!.headers[c.header]).toBe(c.value);
    expect(vendor.arrived[0]!.body).toContain(`"from":"${cli}"`);
    const rec = bench.recordOf(ws, cli);
    expect(rec.api).toMatchObject({ status: 200 });
    expect(rec.api!.body).toContain('message_stop');
    // Inside its sandbox the CLI talks to its own loopback, bridged to the forwarder.
    expect(rec.api!.url.startsWith('http://127.0.0.1:3129/')).toBe(true);

    // What the agent could see: its environment, every file of its HOME, its own request.
    // (Aider gets the other vendors' keys it reads by name: only the key of its route is kept.)
    const seen = JSON.stringify(rec);
    expect(seen).not.toContain(c.value.replace(/^Bearer /, ''));
    expect(seen).toMatch(/conveyor-placeholder-[0-9a-f]{32}/);
    expect(rec.homeMode).toBe('700');
    expect(log).toContain(`talks to ${vendor.url}`);
    expect(log).toMatch(/stays in the step process, and the agent holds a placeholder/);
  });
});

describe('the files and variables that point a CLI at its endpoint', () => {
  it("seed Codex's config.toml into a CODEX_HOME it may write, and Gemini CLI's settings selecting its API key", async () => {
    bench.standIn('codex');
    bench.standIn('gemini');
    const wsCodex = join(bench.scratch, 'ws-codex');
    expect((await bench.run(payloadOf(CASES[1]!), wsCodex, { env: KEYS })).result.conclusion).toBe('success');
    const codex = bench.recordOf(wsCodex, 'codex');
    expect(codex.home!['.codex/config.toml']).toBe('openai_base_url = "http://127.0.0.1:3129/v1"\n');
    expect(codex.env.CODEX_HOME).toBe(join(codex.env.HOME!, '.codex'));

    const wsGemini = join(bench.scratch, 'ws-gemini');
    expect((await bench.run(payloadOf(CASES[2]!), wsGemini, { env: KEYS })).result.conclusion).toBe('success');
    const gemini = bench.recordOf(wsGemini, 'gemini');
    expect(JSON.parse(gemini.home!['.gemini/settings.json']!)).toEqual({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
    });
    expect(gemini.env.GEMINI_CLI_HOME).toBe(gemini.env.HOME);
    expect(gemini.env.GOOGLE_GEMINI_BASE_URL).toBe('http://127.0.0.1:3129');
  });

  it('give Gemini CLI the placeholder in GEMINI_API_KEY, the one it reads, when the runner holds GOOGLE_API_KEY only', async () => {
    bench.standIn('gemini');
    const ws = join(bench.scratch, 'ws');
    const { result, log } = await bench.run(payloadOf(CASES[2]!), ws, { env: { GOOGLE_API_KEY: 'google-real-0006' } });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    const rec = bench.recordOf(ws, 'gemini');
    expect(rec.env.GEMINI_API_KEY).toMatch(/^conveyor-placeholder-[0-9a-f]{32}$/);
    expect(rec.env.GOOGLE_API_KEY).toBe(rec.env.GEMINI_API_KEY);
    expect(vendor.arrived.map((a) => a.headers['x-goog-api-key'])).toEqual(['google-real-0006']);
    expect(JSON.stringify(rec)).not.toContain('google-real-0006');
  });

  it("put Copilot CLI in its bring-your-own-key mode, offline, with the provider's wire API", async () => {
    bench.standIn('copilot');
    const ws = join(bench.scratch, 'ws');
    expect((await bench.run(payloadOf(CASES[3]!), ws, { env: KEYS })).result.conclusion).toBe('success');
    const env = bench.recordOf(ws, 'copilot').env;
    expect(env).toMatchObject({
      COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:3129/v1',
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_WIRE_API: 'responses',
      COPILOT_OFFLINE: 'true',
    });
    expect(env.COPILOT_GITHUB_TOKEN).toBeUndefined();
  });
});

describe('without a sandbox', () => {
  it('the forwarder listens on a loopback port, the key still stays in the step process, and the seeded HOME is private, not the runner’s', async () => {
    bench.standIn('codex');
    const ws = join(bench.scratch, 'ws');
    const { result, log } = await bench.run(payloadOf(CASES[1]!), ws, { env: KEYS, path: `${bench.bin}:${pathWithoutBubblewrap()}` });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(result.sandbox?.mode).toBe('none');
    const rec = bench.recordOf(ws, 'codex');
    expect(rec.api).toMatchObject({ status: 200 });
    expect(rec.api!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/responses$/);
    expect(rec.api!.url.startsWith('http://127.0.0.1:3129/')).toBe(false);
    expect(vendor.arrived[0]!.headers.authorization).toBe(`Bearer ${KEYS.CODEX_API_KEY}`);
    expect(JSON.stringify(rec)).not.toContain(KEYS.CODEX_API_KEY);
    expect(rec.env.HOME).not.toBe(process.env.HOME);
    expect(rec.home!['.codex/config.toml']).toContain('openai_base_url = "http://127.0.0.1:');
  });
});

describe('a credential Conveyor cannot keep', () => {
  it("passes by name: Claude Code's OAuth token reaches the agent, and its requests go through the forwarder as they are", async () => {
    bench.standIn('claude');
    const ws = join(bench.scratch, 'ws');
    const { result, log } = await bench.run(payloadOf(CASES[0]!), ws, { env: { CLAUDE_CODE_OAUTH_TOKEN: 'oauth-by-name-0006' } });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    const rec = bench.recordOf(ws, 'claude');
    expect(rec.env.CLAUDE_CODE_OAUTH_TOKEN).toBe('oauth-by-name-0006');
    // No placeholder in its key's variable: that would take the place of its sign-in.
    expect(rec.env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(rec.env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:3129');
    expect(vendor.arrived).toHaveLength(1);
    expect(log).toContain("no key of its that Conveyor can keep is set, so the agent's requests go through as they are");
  });
});
