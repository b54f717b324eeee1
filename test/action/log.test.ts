// The action's log: one `conveyor: ` prefix, fields rendered once after the message, the whole
// line (its fields too) scrubbed of the step's secrets, written through @actions/core at its level.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createContext } from '../../action/src/context.ts';
import { runEntry } from '../../action/src/entry.ts';
import { actionLogger, coreSink } from '../../action/src/log.ts';
import { readPayload } from '../../action/src/payload.ts';
import type { PlanStep } from '../../core/plan/types.ts';
import { Scrubber } from '../../lib/secrets.ts';
import { makePayload } from '../helpers/payload.ts';

const SECRET = 'sk-live-0123456789abcdef';

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the step's logger", () => {
  it('writes `conveyor: message (fields)` once per line, and scrubs the message, the fields and raw lines alike', () => {
    const lines: [string, string][] = [];
    const ctx = createContext({
      env: { DEPLOY_TOKEN: SECRET },
      log: (line, level) => void lines.push([level, line]),
    });
    const log = ctx.log.child({ service: 'web' });
    log.info(`deploying with ${SECRET}`, { try: 1 });
    log.warn('deploy refused', { why: `bad key ${SECRET}`, service: 'api' });
    ctx.write(`  | echo ${SECRET}`);
    expect(lines).toEqual([
      ['info', 'conveyor: deploying with *** (service=web try=1)'],
      ['warn', 'conveyor: deploy refused (service=api why="bad key ***")'],
      ['info', '  | echo ***'],
    ]);
  });

  it('scrubs a secret learned after the logger was made (a token that arrives later)', () => {
    const lines: string[] = [];
    const scrubber = new Scrubber([]);
    const log = actionLogger(
      (line) => void lines.push(line),
      (t) => scrubber.scrub(t),
    );
    scrubber.add(SECRET);
    log.error('failed', { token: SECRET });
    expect(lines).toEqual(['conveyor: failed (token=***)']);
  });
});

describe('coreSink', () => {
  function written(env: NodeJS.ProcessEnv, level: 'info' | 'warn' | 'error'): string {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => void out.push(String(chunk))) as never);
    coreSink(env)('conveyor: x (run=r)', level);
    vi.restoreAllMocks();
    return out.join('');
  }

  it("on GitHub's runners, writes a warning or an error as one (an annotation of the workflow run), info as a plain line", () => {
    const github = { GITHUB_ACTIONS: 'true' };
    expect(written(github, 'info')).toMatch(/^conveyor: x \(run=r\)\r?\n$/);
    expect(written(github, 'warn')).toMatch(/^::warning::conveyor: x \(run=r\)\r?\n$/);
    expect(written(github, 'error')).toMatch(/^::error::conveyor: x \(run=r\)\r?\n$/);
  });

  it("elsewhere (the embedded mode's output.log), writes every line plain: workflow commands mean nothing there", () => {
    expect(written({}, 'warn')).toMatch(/^conveyor: x \(run=r\)\r?\n$/);
    expect(written({}, 'error')).toMatch(/^conveyor: x \(run=r\)\r?\n$/);
  });
});

describe("the entry's lines", () => {
  it('name the attempt as fields where a line is about it: the first line and the result', async () => {
    const lines: [string, string][] = [];
    const step: PlanStep = { id: 'ship', kind: 'merge', method: 'squash', needs: [], timeoutMinutes: 10 };
    const payload = { ...makePayload({ repos: [{ repo: 'acme/web' }], step }), attempt: 2, epoch: 1 };
    await runEntry({
      env: {},
      payload: await readPayload({ env: {}, getInput: (n) => (n === 'payload' ? JSON.stringify(payload) : '') }),
      setSecret: () => undefined,
      log: (line, level) => void lines.push([level, line]),
    });
    const fields = `(run=${payload.runId} step=ship attempt=2 epoch=1 mode=run)`;
    expect(lines).toEqual([
      ['info', `conveyor: run ${payload.runId}, step ship (merge, run), attempt 2 ${fields}`],
      ['error', expect.stringMatching(new RegExp(`^conveyor: step ship attempt 2: failure \\[bad-payload\\] .* ${fields.replace(/[()]/g, '\\$&')}$`))],
    ]);
  });
});
