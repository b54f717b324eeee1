// Bad step inputs caught before anything is cloned or run: each error names the field, the value
// and what would be right.
import { describe, expect, it } from 'vitest';
import { resolveAgent } from '../../action/src/agent.ts';
import { runEntry } from '../../action/src/entry.ts';
import { readPayload } from '../../action/src/payload.ts';
import { gatePath } from '../../action/src/steps/gate-author.ts';
import { gateRepos } from '../../action/src/steps/gate.ts';
import { ConveyorError } from '../../core/errors.ts';
import type { PlanStep } from '../../core/plan/types.ts';
import { codeStep, gateStep, makePayload } from '../helpers/payload.ts';

const REPOS = [{ repo: 'acme/web' }, { repo: 'acme/api' }];
const gate = (overrides: Parameters<typeof gateStep>[0] = {}) => {
  const step = gateStep(overrides);
  if (step.kind !== 'gate') throw new Error('gateStep made no gate');
  return step;
};

function thrown(fn: () => unknown): ConveyorError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConveyorError);
    return e as ConveyorError;
  }
  throw new Error('expected an error');
}

describe('gate file path (gate with an author)', () => {
  it('keeps a relative path inside the repository, normalized', () => {
    expect(gatePath('test/accept.test.js', 'accept')).toBe('test/accept.test.js');
    expect(gatePath('./test/../test/accept.js', 'accept')).toBe('test/accept.js');
  });

  it.each([
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['/etc/passwd', 'is absolute'],
    ['../other/accept.js', 'leaves the repository'],
    ['test/../../accept.js', 'leaves the repository'],
    ['.', 'leaves the repository'],
    ['.git/hooks/pre-push', 'points into .git'],
    ['sub/.git/config', 'points into .git'],
  ])('refuses %j: it %s', (path, why) => {
    const e = thrown(() => gatePath(path, 'accept'));
    expect(e.code).toBe('bad-payload');
    expect(e.message).toContain(`step.path: gate accept has path "${path}"`);
    expect(e.message).toContain(why);
    expect(e.message).toContain('relative to the repository');
  });

  it('refuses a missing path', () => {
    expect(thrown(() => gatePath(undefined, 'accept')).message).toContain('has path "", which is empty');
  });
});

describe('gate repositories (`in`)', () => {
  it('takes every repository without `in`, and only those holding an `in` service with it', () => {
    const payload = makePayload({ repos: REPOS });
    expect(gateRepos(payload, gate()).map((r) => r.repo)).toEqual(['acme/web', 'acme/api']);
    expect(gateRepos(payload, gate({ in: ['api'] })).map((r) => r.repo)).toEqual(['acme/api']);
  });

  it('names `in` services none of which is in the change set, and the services that are', () => {
    const payload = makePayload({ repos: REPOS });
    const e = thrown(() => gateRepos(payload, gate({ in: ['docs', 'wbe'] })));
    expect(e.code).toBe('bad-payload');
    expect(e.message).toBe('step.in: gate test runs in docs, wbe, none of which is in the change set (services: web, api)');
  });
});

describe('agents named by a step', () => {
  it('finds a defined agent', () => {
    expect(resolveAgent(makePayload({ repos: REPOS }), 'coder').name).toBe('coder');
  });

  it('names the missing agent, who uses it, and the known ones', () => {
    const payload = makePayload({ repos: REPOS, step: codeStep({ agent: 'codr' }) });
    const e = thrown(() => resolveAgent(payload, 'codr'));
    expect(e.code).toBe('bad-payload');
    expect(e.message).toBe('agents.codr: step implement uses agent "codr", which the payload does not define (known: coder)');
    expect(thrown(() => resolveAgent({ ...payload, agents: {} }, 'judge', 'review r uses agent')).message).toBe(
      'agents.judge: review r uses agent "judge", which the payload does not define (known: none)',
    );
  });
});

describe('steps the action cannot run', () => {
  /** Runs the entry on a payload given as the input; nothing is cloned (no server is set). */
  async function entry(payload: unknown) {
    const lines: string[] = [];
    const result = await runEntry({
      env: {},
      payload: await readPayload({ env: {}, getInput: (n) => (n === 'payload' ? JSON.stringify(payload) : '') }),
      setSecret: () => undefined,
      log: (l) => lines.push(l),
    });
    return { result, lines };
  }
  const merge: PlanStep = { id: 'ship', kind: 'merge', method: 'squash', needs: [], timeoutMinutes: 10 };
  const approval: PlanStep = { id: 'ok', kind: 'approval', approvers: ['lead'], minApprovals: 1, allowRequester: false, needs: [], timeoutMinutes: 30 };

  it.each([merge, approval])('refuses a dispatched $kind step as a bad payload, naming it', async (step) => {
    const { result } = await entry(makePayload({ repos: REPOS, step }));
    expect(result.conclusion).toBe('failure');
    expect(result.step).toBe(step.id);
    expect(result.error).toEqual({
      code: 'bad-payload',
      message: `step ${step.id} is a ${step.kind} step, which the Conveyor app carries out itself; it is never dispatched to the action`,
    });
  });

  it('refuses a repair of a step with no repair agent (and a merge repair without the coder), naming the step', async () => {
    const noRepair = await entry(makePayload({ repos: REPOS, step: gateStep({ run: 'true' }), mode: 'repair', findings: 'x' }));
    expect(noRepair.result.error).toEqual({ code: 'bad-payload', message: 'step test (gate) has no repair agent; a repair attempt cannot run' });
    const mergeRepair = await entry(makePayload({ repos: REPOS, step: merge, mode: 'repair' }));
    expect(mergeRepair.result.error).toEqual({ code: 'bad-payload', message: 'step ship (merge) has no repair agent; a repair attempt cannot run' });
  });
});
