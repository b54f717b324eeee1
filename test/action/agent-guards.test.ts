// What stops an agent, or keeps a step from judging the work, each ending as its own reason: a
// setup that fails (`setup-failed`, naming the command; the step's own command never runs), an
// agent that goes silent (`agent-stalled`: no output and no workspace change for its stall
// minutes, shrunk here with `minuteMs`), a reviewer that crashes (`reviewer-no-verdict`), and a
// secret whose value is a GitHub token (refused before the agent starts).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEntry } from '../../action/src/entry.ts';
import { readPayload } from '../../action/src/payload.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import { gateStep, makePayload } from '../helpers/payload.ts';
import { pathWithoutBubblewrap, processesWith } from '../helpers/processes.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';

let remotes: Remotes;
let scratch: string;

beforeEach(() => {
  remotes = createRemotes();
  scratch = tempDir('conveyor-guards-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
});
afterEach(() => {
  remotes.cleanup();
  removeDir(scratch);
});

function withCoder(payload: StepPayload, agent: Partial<ResolvedAgent>): StepPayload {
  return { ...payload, agents: { coder: { ...payload.agents.coder!, ...agent } } };
}

async function run(payload: StepPayload, options: { ws: string; env?: Record<string, string>; sandboxed?: boolean; minuteMs?: number }) {
  const payloadPath = join(scratch, 'payload.json');
  writeFileSync(payloadPath, JSON.stringify(payload));
  const lines: string[] = [];
  const result = await runEntry({
    env: {
      PATH: options.sandboxed === false ? pathWithoutBubblewrap() : process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_SERVER_URL: remotes.url,
      CONVEYOR_PAYLOAD_PATH: payloadPath,
      CONVEYOR_WORKSPACE_ROOT: options.ws,
      // Its own tools folder and caches, not the user's.
      CONVEYOR_CACHE_DIR: join(scratch, 'cache'),
      ...options.env,
    },
    payload: await readPayload({ env: { CONVEYOR_PAYLOAD_PATH: payloadPath }, getInput: () => '' }),
    setSecret: () => undefined,
    log: (l) => lines.push(l),
    ...(options.minuteMs ? { minuteMs: options.minuteMs } : {}),
    killGraceMs: 300,
  });
  return { result, log: lines.join('\n') };
}

describe('setup', () => {
  it("an agent's failing setup fails the step as setup-failed, naming the command; the agent never runs", async () => {
    const ws = join(scratch, 'ws');
    const payload = withCoder(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: 'echo ran > "$CONVEYOR_WORKSPACE/agent-ran"' }), {
      setup: 'echo installing the cli; exit 3',
    });
    const { result, log } = await run(payload, { ws });
    expect(result.conclusion).toBe('failure');
    expect(result.error?.code).toBe('setup-failed');
    expect(result.error?.message).toMatch(
      /^the setup of agent "coder", `echo installing the cli; exit 3`, exited with 3 \(last lines: "installing the cli"\); the step's own command did not run$/,
    );
    expect(log).toContain('conveyor: setup of agent "coder" in');
    expect(log).toContain('  setup | installing the cli');
    expect(existsSync(join(ws, 'agent-ran'))).toBe(false);
    expect(remotes.branches('acme/web')).toEqual(['main']);
  });

  it("an agent's setup runs before it, with its own timeout", async () => {
    const ws = join(scratch, 'ws');
    // What it installs in its install folder (where it runs) is on the agent's PATH.
    const payload = withCoder(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: 'the-tool > change.txt' }), {
      setup: "printf '#!/bin/sh\\necho tool-v1\\n' > bin/the-tool; chmod +x bin/the-tool",
    });
    const { result, log } = await run(payload, { ws });
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(remotes.show('acme/web', 'conveyor/web-7', 'change.txt')).toBe('tool-v1');

    const slow = withCoder(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: 'echo change > change.txt' }), { setup: 'sleep 30', setupTimeoutMinutes: 1 });
    const timedOut = await run(slow, { ws: join(scratch, 'ws2'), minuteMs: 400 });
    expect(timedOut.result.error?.code).toBe('setup-failed');
    expect(timedOut.result.error?.message).toContain('`sleep 30`, ran out of its 1 minute(s) (setup-timeout-minutes) and was stopped');
  });

  it("a service's failing setup fails a gate as setup-failed before the gate runs; a passing one runs first, in the service's folder", async () => {
    const ws = join(scratch, 'ws');
    const step = gateStep({ run: 'test -f deps-installed && echo gate ran > "$CONVEYOR_WORKSPACE/gate-ran"' });
    const ok = makePayload({ repos: [{ repo: 'acme/web' }], step });
    ok.services.web = { ...ok.services.web!, setup: 'pwd > "$CONVEYOR_WORKSPACE/setup-cwd"; touch deps-installed' };
    const passed = await run(ok, { ws });
    expect(passed.result.conclusion, passed.result.summary).toBe('success');
    expect(readFileSync(join(ws, 'setup-cwd'), 'utf8').trim()).toBe(join(ws, 'acme__web'));

    const bad = makePayload({ repos: [{ repo: 'acme/web' }], step });
    bad.services.web = { ...bad.services.web!, setup: 'npm ci --no-such-flag-here || exit 7' };
    const ws2 = join(scratch, 'ws2');
    const failed = await run(bad, { ws: ws2 });
    expect(failed.result.error?.code).toBe('setup-failed');
    expect(failed.result.error?.message).toContain('the setup of service "web", `npm ci --no-such-flag-here || exit 7`, exited with 7');
    expect(existsSync(join(ws2, 'gate-ran'))).toBe(false);
  });
});

describe('the stall guard', () => {
  for (const sandboxed of [true, false]) {
    it(`stops an agent that prints nothing and changes nothing, with every process it started, as agent-stalled (${sandboxed ? 'in the sandbox' : 'without a sandbox'})`, async () => {
      const mark = randomUUID();
      const ws = join(scratch, 'ws');
      const agent = ['echo thinking', 'sleep 300 &', '(trap "" TERM; sleep 300) &', 'wait'].join('\n');
      const payload = withCoder(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent, agentEnv: { STALL_MARK: mark } }), {
        timeoutMinutes: 30,
        stallMinutes: 1,
      });
      const { result } = await run(payload, { ws, sandboxed, minuteMs: 500 });
      expect(result.conclusion).toBe('failure');
      expect(result.error?.code).toBe('agent-stalled');
      expect(result.error?.message).toBe(
        'The agent printed nothing and changed nothing in the workspace for 1 minute(s) (stall-minutes) and was stopped; the attempt runs again. Nothing was pushed.',
      );
      expect(result.summary).toContain('thinking');
      expect(processesWith('STALL_MARK', mark)).toEqual([]);
      expect(remotes.branches('acme/web')).toEqual(['main']);
    });
  }

  it('leaves alone an agent that prints nothing but keeps changing its workspace', async () => {
    const ws = join(scratch, 'ws');
    // Silent for three stall periods, writing a file every 100 ms.
    const agent = 'for i in $(seq 1 15); do sleep 0.1; date +%s%N > progress.txt; done; echo done > change.txt';
    const payload = withCoder(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: agent }), { timeoutMinutes: 30, stallMinutes: 1 });
    const { result } = await run(payload, { ws, minuteMs: 500 });
    expect(result.conclusion, result.summary).toBe('success');
    expect(remotes.show('acme/web', 'conveyor/web-7', 'change.txt')).toBe('done');
  });
});

describe('a reviewer that cannot be confused with a failing review', () => {
  const reviewPayload = (run: string): StepPayload => {
    const payload = makePayload({
      repos: [{ repo: 'acme/web' }],
      step: { id: 'review', kind: 'review', agent: 'reviewer', needs: [], timeoutMinutes: 30, repair: { agent: 'coder', maxAttempts: 2 } },
    });
    return { ...payload, agents: { ...payload.agents, reviewer: { name: 'reviewer', run, timeoutMinutes: 5, env: {} } } };
  };

  it('a reviewer that crashes gives no verdict, even when it left one: reviewer-no-verdict', async () => {
    git(remotes.bare('acme/web'), 'branch', 'conveyor/web-7', 'main');
    remotes.commit('acme/web', 'conveyor/web-7', { 'greet.js': 'hello\n' });
    const verdict = JSON.stringify({ verdict: 'pass', findings: [], scores: { complexity: 0, risk: 0, impact: 0 } });
    const { result } = await run(
      reviewPayload(`printf '%s' '${verdict}' > "$CONVEYOR_RESULT_FILE"; pwd; git rev-parse --show-toplevel; echo boom >&2; exit 2`),
      { ws: join(scratch, 'ws') },
    );
    expect(result.conclusion).toBe('failure');
    expect(result.error?.code).toBe('reviewer-no-verdict');
    expect(result.error?.message).toBe('The reviewer exited with 2 before giving a verdict; the change was not judged, and no repair runs.');
    expect(result.review).toBeUndefined();
    // It ran inside the primary repository: `git rev-parse` found it.
    expect(result.summary).toContain(`${join(scratch, 'ws', 'acme__web')}\n${join(scratch, 'ws', 'acme__web')}\nboom`);
  });
});

describe('a GitHub token is never passed', () => {
  it('refuses a listed secret whose value is a GitHub token, by value, before the agent runs', async () => {
    for (const [name, value, env] of [
      ['MY_KEY', 'ghs_installationtoken0000000000', {}],
      ['MY_OTHER_KEY', 'plain-looking-value-1234', { GITHUB_TOKEN: 'plain-looking-value-1234' }],
    ] as const) {
      const ws = join(scratch, `ws-${name}`);
      const payload = withCoder(makePayload({ repos: [{ repo: 'acme/web' }], agentRun: 'echo ran > "$CONVEYOR_WORKSPACE/agent-ran"' }), { secrets: [name] });
      const { result } = await run(payload, { ws, env: { [name]: value, ...env } });
      expect(result.error?.code).toBe('bad-input');
      expect(result.error?.message).toBe(
        `agent "coder" lists ${name} in its secrets, and its value is a GitHub token (an installation or workflow token); Conveyor never gives a command a GitHub token. Give ${name} a credential of its own.`,
      );
      expect(existsSync(join(ws, 'agent-ran'))).toBe(false);
      expect(JSON.stringify(result)).not.toContain(value);
    }
  });
});
