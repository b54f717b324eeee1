// The payload of a repair carries exactly the findings the reducer dispatched it with (the one
// rendering of them, kept on the attempt), also after a loss re-dispatches it; other attempts none.
import { describe, expect, it } from 'vitest';
import { buildPayload } from '../../../core/run/payload.ts';
import { stepPayloadSchema } from '../../../core/contract/wire.ts';
import type { RunEffect } from '../../../core/run/types.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, step, succeed } from './drive.ts';

const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'review', kind: 'review', repair: 1 },
]);
const review = {
  verdict: 'fail' as const,
  findings: [{ file: 'a.ts', line: 3, message: 'null deref' }],
  scores: { complexity: 0.1, risk: 0.2, impact: 0.3 },
  agent: 'reviewer',
  independent: true,
};
const dispatched = (effects: RunEffect[]) => {
  const e = effects[0];
  if (e?.type !== 'dispatch') throw new Error(`expected a dispatch first, got ${e?.type ?? 'nothing'}`);
  return e;
};

describe('buildPayload', () => {
  it('a repair carries the findings it was dispatched with, again after a loss; the next run carries none', () => {
    let run = succeed(start(plan).run, 'implement');
    const failed = step(run, current(run, 'review', 'failure', { review }));
    const effect = dispatched(failed.effects);
    const payload = buildPayload(failed.run, effect.ref);
    expect(payload.mode).toBe('repair');
    expect(payload.findings).toBe('- a.ts:3: null deref');
    expect(payload.findings).toBe(effect.findings);
    // Agents of the repair: the review's own and its repair agent.
    expect(Object.keys(payload.agents).sort()).toEqual(['coder', 'reviewer']);

    const lost = step(failed.run, { type: 'step-lost', at: AT, step: 'review', attempt: effect.ref.attempt, epoch: effect.ref.epoch, reason: 'gone' });
    const again = dispatched(lost.effects);
    expect(again.ref.epoch).toBe(1);
    expect(buildPayload(lost.run, again.ref).findings).toBe('- a.ts:3: null deref');

    run = succeed(lost.run, 'review'); // the repair finished: the review runs again
    const next = run.steps.review!;
    expect(next.mode).toBe('run');
    expect(buildPayload(run, { step: 'review', attempt: next.attempt, epoch: next.epoch, mode: next.mode })).not.toHaveProperty('findings');
  });

  it("a merge step's payload carries the coder, who repairs a conflict with the base, and no other agent", () => {
    const withMerge = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'review', kind: 'review' },
      { id: 'ship', kind: 'merge' },
    ]);
    const payload = buildPayload(start(withMerge).run, { step: 'ship', attempt: 1, epoch: 0, mode: 'repair' });
    expect(Object.keys(payload.agents)).toEqual(['coder']);
    expect(payload.coder).toEqual({ agent: 'coder', model: 'anthropic/claude' });
    expect(buildPayload(start(withMerge).run, { step: 'review', attempt: 1, epoch: 0, mode: 'run' }).agents).not.toHaveProperty('coder');
  });

  it("carries the models the code step's attempts reported using, for the review's independence", () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'review', kind: 'review' },
    ]);
    let run = start(plan).run;
    expect(buildPayload(run, { step: 'review', attempt: 1, epoch: 0, mode: 'run' }).coder).toEqual({ agent: 'coder', model: 'anthropic/claude' });
    run = step(run, current(run, 'implement', 'success', { usage: { inputTokens: 5, models: ['claude-opus-4-8', 'claude-haiku-4-5'] } })).run;
    expect(buildPayload(run, { step: 'review', attempt: 1, epoch: 0, mode: 'run' }).coder).toEqual({
      agent: 'coder',
      model: 'anthropic/claude',
      models: ['claude-opus-4-8', 'claude-haiku-4-5'],
    });
  });

  it('names the run and the step it does not know', () => {
    const run = start(plan).run;
    expect(() => buildPayload(run, { step: 'nope', attempt: 1, epoch: 0, mode: 'run' })).toThrow('run r1 has no step nope');
  });
});

describe('buildPayload: the sandbox', () => {
  it("carries the pipeline's `sandbox: required`, and nothing when it is best-effort", () => {
    const run = start(plan).run;
    const request = { step: 'implement', attempt: 1, epoch: 0, mode: 'run' as const };
    expect(buildPayload(run, request)).not.toHaveProperty('sandbox');
    expect(buildPayload({ ...run, plan: { ...run.plan, sandbox: 'required' } }, request).sandbox).toBe('required');
  });
});

describe("buildPayload: commits and the issue's author", () => {
  it("carries the pipeline's `commits: git` (nothing for verified, the default) and the issue's author", () => {
    const run = start(plan).run;
    const request = { step: 'implement', attempt: 1, epoch: 0, mode: 'run' as const };
    expect(buildPayload(run, request)).not.toHaveProperty('commits');
    expect(buildPayload({ ...run, plan: { ...run.plan, commits: 'git' } }, request).commits).toBe('git');
    const author = { login: 'octocat', id: 583231 };
    const payload = buildPayload({ ...run, issue: { ...run.issue, author } }, request);
    expect(payload.issue.author).toEqual(author);
    // What the action parses: the author survives the wire; a login that is not one does not pass.
    expect(stepPayloadSchema.parse(JSON.parse(JSON.stringify(payload))).issue.author).toEqual(author);
    expect(stepPayloadSchema.safeParse({ ...payload, issue: { ...payload.issue, author: { login: 'x>\nCo-authored-by: y', id: 1 } } }).success).toBe(false);
  });
});
