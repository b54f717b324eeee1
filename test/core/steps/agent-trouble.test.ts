// The pure rules that name an agent's failure when it is not its work: which refusals stop it, and
// which answers and CLI events say its vendor was unavailable.
import { describe, expect, it } from 'vitest';
import { hostAllowed } from '../../../core/hosts.ts';
import {
  networkRefusedMessage,
  RefusalWatch,
  VendorWatch,
  vendorBackoffMinutes,
  vendorTroubleOfLine,
  vendorUnavailableStatus,
} from '../../../core/steps/agent-trouble.ts';

describe('the refusal watch', () => {
  const watch = () => new RefusalWatch({ modelHosts: ['api.anthropic.com', '*.githubcopilot.com'], windowMs: 30_000 });

  it('stops at the first refusal of the model API (an allow-list pattern matches as the proxy reads it)', () => {
    const w = watch();
    expect(w.check(0)).toBeUndefined();
    w.refused('eu.githubcopilot.com', 443, 5);
    expect(w.check(5)).toEqual({ host: 'eu.githubcopilot.com', port: 443, count: 1, modelHost: true });
    expect(hostAllowed('githubcopilot.com', ['*.githubcopilot.com'])).toBe(false);
  });

  it('stops on another host only once refusals have gone on for the window, at least three, with no traffic between', () => {
    const w = watch();
    w.refused('telemetry.example.com', 443, 0);
    w.refused('telemetry.example.com', 443, 10_000);
    expect(w.check(40_000)).toBeUndefined(); // two refusals are no pattern yet
    w.refused('telemetry.example.com', 443, 20_000);
    expect(w.check(29_999)).toBeUndefined();
    expect(w.check(30_000)).toEqual({ host: 'telemetry.example.com', port: 443, count: 3, modelHost: false });
  });

  it('forgets refusals once traffic goes through: an agent getting on with its work is not stopped', () => {
    const w = watch();
    for (const t of [0, 10_000, 20_000]) w.refused('registry.npmjs.org', 443, t);
    w.traffic();
    w.refused('registry.npmjs.org', 443, 25_000);
    expect(w.check(50_000)).toBeUndefined();
    // It names the host refused most since the traffic stopped.
    w.refused('other.example.com', 80, 26_000);
    w.refused('registry.npmjs.org', 443, 27_000);
    expect(w.check(60_000)).toMatchObject({ host: 'registry.npmjs.org', count: 5 });
  });

  it('names the fix: the host to allow, or an endpoint, which Copilot CLI signed in to GitHub takes only with its provider', () => {
    const github = { host: 'api.github.com', port: 443, count: 1, modelHost: true };
    expect(networkRefusedMessage('The agent', 'coder', github, 30)).toBe(
      "The agent was stopped: the sandbox refused api.github.com:443 (1 time), which is not in its network.allow, and it is the agent's model API. " +
        "To let it through, add api.github.com to `agents.coder.network.allow` (which replaces its preset's hosts), or point the agent with `agents.coder.endpoint` at an API it may reach.",
    );
    expect(networkRefusedMessage('The agent', 'coder', github, 30, true)).toContain(
      'or point the agent with `agents.coder.provider` and `agents.coder.endpoint` at an API it may reach.',
    );
    expect(networkRefusedMessage('The agent', 'coder', { ...github, host: 'telemetry.example.com', count: 4, modelHost: false }, 30, true)).toContain(
      'the agent kept asking for it with no other traffic for 30 s (a CLI retrying an API it cannot reach). To let it through, add telemetry.example.com to `agents.coder.network.allow` if the agent needs it (or set `agents.coder.provider` and `agents.coder.endpoint` if it is where its model is).',
    );
  });
});

describe('a vendor that is unavailable', () => {
  it('is a 429 or a 5xx that a later try may not meet; 501, 505 and 4xx are not', () => {
    expect([429, 500, 502, 503, 504, 529].every(vendorUnavailableStatus)).toBe(true);
    expect([400, 401, 403, 404, 501, 505, 200].some(vendorUnavailableStatus)).toBe(false);
  });

  it("reads the CLIs' own error events, and only error events", () => {
    const claude = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: true,
      result: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    });
    expect(vendorTroubleOfLine(claude)).toEqual({
      status: 529,
      said: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    });
    expect(
      vendorTroubleOfLine(JSON.stringify({ type: 'error', message: 'stream error: exceeded retry limit, last status: 429 Too Many Requests' })),
    ).toMatchObject({
      status: 429,
    });
    expect(
      vendorTroubleOfLine(
        JSON.stringify({ type: 'result', status: 'error', error: { type: 'api', message: 'Resource has been exhausted (e.g. check quota).' } }),
      ),
    ).toEqual({
      said: 'Resource has been exhausted (e.g. check quota).',
    });
    // Copilot CLI 1.0.102's, once its five retries are spent (its event, as it printed it against a 503): signed in to
    // GitHub, no forwarder sees its API's answers, so this is all there is.
    const copilot = (statusCode: number, last: string) =>
      JSON.stringify({
        type: 'session.error',
        data: {
          errorType: 'query',
          message: `Failed to get response from the AI model; retried 5 times (total retry wait time: 17.10 seconds) Last error: ${last}`,
          statusCode,
          originatingMessageId: 'ad1f3214-7784-44a0-b364-2cb5ffb5c0a4',
        },
        id: 'f3254980-6c03-4b2f-bea0-6b6a5e26c462',
      });
    expect(vendorTroubleOfLine(copilot(503, '503 The server is overloaded'))).toEqual({
      status: 503,
      said: 'Failed to get response from the AI model; retried 5 times (total retry wait time: 17.10 seconds) Last error: 503 The server is overloaded',
    });
    // Its status counts where its words would not; a refused sign-in is no outage.
    expect(vendorTroubleOfLine(copilot(529, 'upstream says no'))).toMatchObject({ status: 529 });
    expect(vendorTroubleOfLine(copilot(401, '401 Bad credentials'))).toBeUndefined();
    // What the agent's tools print, or a successful result that mentions a rate limit, never counts.
    expect(vendorTroubleOfLine('Error: 503 Service Unavailable')).toBeUndefined();
    expect(
      vendorTroubleOfLine(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'Added a rate limit of 429 per minute' })),
    ).toBeUndefined();
    expect(vendorTroubleOfLine(JSON.stringify({ type: 'error', message: 'cannot read src/app.ts' }))).toBeUndefined();
  });

  it("takes the API's last answer over the CLI's words, and a later success clears it", () => {
    const w = new VendorWatch();
    w.line(JSON.stringify({ type: 'turn.failed', error: { message: 'rate limit reached' } }));
    expect(w.trouble()).toEqual({ said: 'rate limit reached' });
    w.answered(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(w.trouble()).toEqual({ status: 529, said: 'Overloaded' });
    w.answered(200, '');
    expect(w.trouble()).toEqual({ said: 'rate limit reached' });
    const quiet = new VendorWatch();
    quiet.answered(503, '');
    expect(quiet.trouble()).toEqual({ status: 503, said: 'HTTP 503' });
  });

  it("counts Codex's answer that broke off (a stream that stalled past its idle timeout) as the vendor's, in the words the real Codex 0.171.0 printed", () => {
    const failed = JSON.stringify({ type: 'turn.failed', error: { message: 'stream disconnected before completion: idle timeout waiting for SSE' } });
    expect(vendorTroubleOfLine(failed)).toEqual({ said: 'stream disconnected before completion: idle timeout waiting for SSE' });
  });

  it("goes by the CLI's last error event: a retry it got past is not why a later error of its own failed it", () => {
    const w = new VendorWatch();
    w.line(JSON.stringify({ type: 'error', message: 'Reconnecting... 1/5 (stream disconnected before completion: idle timeout waiting for SSE)' }));
    expect(w.trouble()).toMatchObject({ said: expect.stringContaining('idle timeout') });
    // Its own work's events between are no error events and change nothing.
    w.line(JSON.stringify({ type: 'item.completed', item: { type: 'command_execution', aggregated_output: 'rate limit of 429 per minute' } }));
    expect(w.trouble()).toMatchObject({ said: expect.stringContaining('idle timeout') });
    w.line(JSON.stringify({ type: 'turn.failed', error: { message: 'cannot apply the patch to src/app.ts' } }));
    expect(w.trouble()).toBeUndefined();
  });

  it('backs off 30 s, 1 min, then 2 min each time', () => {
    expect([0, 1, 2, 3, 4].map(vendorBackoffMinutes)).toEqual([0.5, 1, 2, 2, 2]);
  });
});
