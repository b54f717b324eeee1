// Failures named for what they are, through the real entry with stand-ins of the CLIs
// (test/fixtures/agents/stand-in.mjs) in the sandbox: a vendor API on 127.0.0.1 that answers 529 or
// 429 (then 200) makes `agent-vendor-unavailable`, retried with backoff within the attempt (the
// backoff recorded, not waited); a CLI retrying a host its sandbox refuses is stopped as
// `agent-network-refused`, long before its timeout.
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVendorApi, streamTwoEvents, type VendorApi } from '../helpers/vendor-api.ts';
import { createBench, type Bench } from './preset-fixture.ts';

let bench: Bench;
let vendor: VendorApi;
let slept: number[];
const sleep = (ms: number) => {
  slept.push(ms);
  return Promise.resolve();
};

beforeEach(async () => {
  bench = createBench();
  vendor = await startVendorApi();
  slept = [];
});
afterEach(async () => {
  bench.cleanup();
  await vendor.close();
});

const KEYS = { ANTHROPIC_API_KEY: 'sk-ant-real-0001', OPENAI_API_KEY: 'sk-openai-real-0002' };

function payloadOf(agent: string) {
  return bench.payloadFrom(
    `
version: 1
agents:
  coder: ${agent.replaceAll('VENDOR', vendor.url)}
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
}

/** Answers `status` with `body` for the first `times` requests, then streams as the vendor does. */
function failing(status: number, body: string, times = Infinity) {
  let n = 0;
  return (req: IncomingMessage, res: ServerResponse, arrived: Parameters<typeof streamTwoEvents>[2]) => {
    if (n++ < times) res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    else streamTwoEvents(req, res, arrived);
  };
}

const OVERLOADED = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const CLAUDE = `{ preset: claude-code, model: anthropic/claude-sonnet-4-5, endpoint: VENDOR, env: { STAND_IN_API: '1', STAND_IN_GIVE_UP: '1' } }`;

describe('a vendor that is unavailable', () => {
  it('529 twice, then 200: the agent runs again after 30 s and 1 min, within the attempt, and the step succeeds', async () => {
    bench.standIn('claude');
    vendor.answer = failing(529, OVERLOADED, 2);
    const payload = payloadOf(CLAUDE);
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS, sleep });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(vendor.arrived).toHaveLength(3);
    expect(slept).toEqual([30_000, 60_000]);
    // The same attempt: the retries are no repair and no new dispatch.
    expect(result).toMatchObject({ attempt: payload.attempt, mode: 'run' });
    expect(log).toContain(`its model's API was unavailable (529: "Overloaded"); running it again in 30 s (retry 1 of 3, in this attempt: no repair is spent)`);
    expect(log).toContain('running it again in 60 s (retry 2 of 3');
  });

  it('429 through every retry: agent-vendor-unavailable, with what the vendor said, after `vendor-retries` runs more', async () => {
    bench.standIn('claude');
    const said = 'Number of request tokens has exceeded your per-minute rate limit';
    vendor.answer = failing(429, JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: said } }));
    const payload = payloadOf(CLAUDE.replace('endpoint: VENDOR', 'endpoint: VENDOR, vendor-retries: 1'));
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS, sleep });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('failure');
    expect(vendor.arrived).toHaveLength(2);
    expect(slept).toEqual([30_000]);
    expect(result.error?.code).toBe('agent-vendor-unavailable');
    expect(result.error?.message).toBe(
      `The agent could not work: its model's API answered 429 (${JSON.stringify(said)}) in each of 2 runs, with a backoff between them. ` +
        'That is the vendor, not the work: no repair was spent. Retry the step later, or raise `agents.coder.vendor-retries`. Nothing was pushed.',
    );
    // The check run's summary opens with it.
    expect(result.summary.split('\n')[0]).toContain("its model's API answered 429");
  });

  it("a CLI's own error event saying it was rate limited counts the same; another error is the agent's own failure", async () => {
    bench.standIn('codex');
    const limited = JSON.stringify({ type: 'turn.failed', error: { message: 'exceeded retry limit, last status: 429 Too Many Requests' } });
    const one = await bench.run(payloadOf(`{ preset: codex, vendor-retries: 0, env: { STAND_IN_SAY: '${limited}' } }`), join(bench.scratch, 'ws1'), {
      env: KEYS,
      sleep,
    });
    expect(one.result.error?.code, one.log).toBe('agent-vendor-unavailable');
    expect(one.result.error?.message).toContain('its model\'s API answered 429 ("exceeded retry limit, last status: 429 Too Many Requests") in each of 1 run,');
    expect(slept).toEqual([]);

    const broken = JSON.stringify({ type: 'error', message: 'cannot read src/app.ts: no such file' });
    const two = await bench.run(payloadOf(`{ preset: codex, env: { STAND_IN_SAY: '${broken}' } }`), join(bench.scratch, 'ws2'), { env: KEYS, sleep });
    expect(two.result.error?.code, two.log).toBe('agent-failed');
    expect(slept).toEqual([]);
  });
});

describe('a host the sandbox refuses', () => {
  it('its model API (an allow-list without it): stopped at once as agent-network-refused, naming the host and the keys to set', async () => {
    bench.standIn('claude');
    const payload = payloadOf(`{ preset: claude-code, network: { allow: [registry.npmjs.org] }, env: { STAND_IN_CONNECT: 'api.anthropic.com:443' } }`);
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS, sleep });
    expect(result.sandbox?.mode).toBe('bubblewrap');
    expect(result.error?.code, `${result.summary}\n${log}`).toBe('agent-network-refused');
    expect(result.error?.message).toMatch(
      /^The agent was stopped: the sandbox refused api\.anthropic\.com:443 \(1 time\), which is not in its network\.allow, and it is the agent's model API\. To let it through, add api\.anthropic\.com to `agents\.coder\.network\.allow` \(which replaces its preset's hosts\), or point the agent with `agents\.coder\.endpoint` at an API it may reach\./,
    );
    expect(result.sandbox?.blocked).toEqual([expect.objectContaining({ host: 'api.anthropic.com', port: 443 })]);
    expect(slept).toEqual([]);
  });

  it('another host, retried with no other traffic: stopped once the refusals have gone on for the window', async () => {
    bench.standIn('claude');
    const payload = payloadOf(`{ preset: claude-code, env: { STAND_IN_CONNECT: 'telemetry.example.com:443' } }`);
    // A minute of 400 ms: the window of half a minute is 200 ms (the timeout, 45 minutes, is 18 s).
    const { result, log } = await bench.run(payload, join(bench.scratch, 'ws'), { env: KEYS, sleep, minuteMs: 400 });
    expect(result.error?.code, `${result.summary}\n${log}`).toBe('agent-network-refused');
    expect(result.error?.message).toContain('the sandbox refused telemetry.example.com:443 (');
    expect(result.error?.message).toContain('the agent kept asking for it with no other traffic for 30 s');
    expect(result.error?.message).toContain('add telemetry.example.com to `agents.coder.network.allow` if the agent needs it');
    expect(result.sandbox?.blocked[0]?.count).toBeGreaterThanOrEqual(3);
  });
});
