// The way back from a partial merge, as pure rules: which runs have something to revert and what,
// the revert run's plan, its merge order (consumers first) and its merge commits' trailers.
import { describe, expect, it } from 'vitest';
import { createRun, reduce } from '../../../core/run/reducer.ts';
import { partialMerge, revertPlan } from '../../../core/run/revert.ts';
import type { Run } from '../../../core/run/types.ts';
import { mergeTrailers } from '../../../core/github/trailers.ts';
import { mergeOrder } from '../../../core/run/queue.ts';
import { completionOf, planOf, TEST_ORIGIN } from '../../helpers/plans.ts';
import { FLEET_PRS, fleetPlan } from '../../app/decisions-setup.ts';

const AT = '2025-03-01T09:00:00.000Z';

/** The fleet's run at its merge, every step before it succeeded and approved by bob. */
function atMerge(): Run {
  let run = createRun({ id: 'r1', plan: fleetPlan(), issue: { repo: 'acme/web', number: 7, title: 'T', body: '' }, origin: TEST_ORIGIN, at: AT });
  run = reduce(run, { type: 'started', at: AT }).run;
  run = reduce(run, { ...completionOf(run, 'implement', 'success', { prs: FLEET_PRS }), at: AT }).run;
  run = reduce(run, { ...completionOf(run, 'preview', 'success'), at: AT }).run;
  run = reduce(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' }).run;
  expect(run.steps.ship?.status).toBe('queued');
  return run;
}

/** The merge step's result: `commits` of what merged. */
function merged(run: Run, commits: Record<string, string>, conclusion: 'success' | 'failure' = 'failure'): Run {
  return reduce(run, {
    ...completionOf(run, 'ship', conclusion, { commits, ...(conclusion === 'failure' ? { error: { code: 'merge-failed', message: 'stopped' } } : {}) }),
    at: AT,
  }).run;
}

describe('partialMerge', () => {
  it('names what a merge that stopped part-way merged and what it did not', () => {
    const run = merged(atMerge(), { 'acme/lib': 'm1', 'acme/api': 'm2' });
    const partial = partialMerge(run);
    expect('merged' in partial && partial.merged.map((p) => p.repo)).toEqual(['acme/api', 'acme/lib']);
    expect('merged' in partial && partial.notMerged.map((p) => p.repo)).toEqual(['acme/web']);
  });

  it('has nothing to revert when nothing merged, when everything merged, and in a revert run', () => {
    expect(partialMerge(atMerge())).toEqual({
      refused: "run `r1`'s merge step (`ship`) has not merged any pull request (it is queued), so there is nothing to revert.",
    });
    expect(partialMerge(merged(atMerge(), {}))).toMatchObject({ refused: expect.stringContaining('has not merged any pull request (it is failed)') });
    expect(partialMerge(merged(atMerge(), { 'acme/lib': 'm1', 'acme/api': 'm2', 'acme/web': 'm3' }, 'success'))).toMatchObject({
      refused: expect.stringContaining('merged all its pull requests'),
    });
    const noMerge = createRun({
      id: 'r2',
      plan: planOf([{ id: 'implement', kind: 'code' }]),
      issue: { repo: 'acme/web', number: 7, title: 'T', body: '' },
      origin: TEST_ORIGIN,
      at: AT,
    });
    expect(partialMerge(noMerge)).toMatchObject({ refused: expect.stringContaining('has no merge step') });
    expect(partialMerge({ ...merged(atMerge(), { 'acme/lib': 'm1' }), revertOf: 'r0' })).toMatchObject({
      refused: expect.stringContaining('is itself the revert of run `r0`'),
    });
  });
});

describe('the revert run', () => {
  it("keeps the original's approvals (waiting at once) and merge step, and its hash", () => {
    const plan = planOf([
      { id: 'implement', kind: 'code' },
      { id: 'test', kind: 'gate' },
      { id: 'security', kind: 'approval', approvers: ['@acme/security'] },
      { id: 'approve', kind: 'approval', minApprovals: 2 },
      { id: 'ship', kind: 'merge' },
    ]);
    const revert = revertPlan(plan);
    expect(revert.steps.map((s) => [s.id, s.needs])).toEqual([
      ['security', []],
      ['approve', []],
      ['ship', ['security', 'approve']],
    ]);
    expect(revert.steps[0]).toMatchObject({ approvers: ['@acme/security'] });
    expect(revert.steps[1]).toMatchObject({ minApprovals: 2 });
    expect(revert.waves).toEqual([['security', 'approve'], ['ship']]);
    expect(revert.hash).toBe(plan.hash);
  });

  it('has an approval of its own where the pipeline has none: a person sees every revert', () => {
    const revert = revertPlan(
      planOf([
        { id: 'implement', kind: 'code' },
        { id: 'ship', kind: 'merge' },
      ]),
    );
    expect(revert.steps).toMatchObject([
      { id: 'approve', kind: 'approval', needs: [], minApprovals: 1, approvers: [], allowRequester: false },
      { id: 'ship', kind: 'merge', needs: ['approve'] },
    ]);
  });

  it('merges consumers first, and its merge commits say what they revert', () => {
    const run = atMerge();
    expect(mergeOrder(run).map((p) => p.repo)).toEqual(['acme/lib', 'acme/api', 'acme/web']);
    const revert: Run = { ...run, revertOf: 'r0' };
    expect(mergeOrder(revert).map((p) => p.repo)).toEqual(['acme/web', 'acme/api', 'acme/lib']);
    expect(mergeTrailers(revert, revert.prs[0]!)).toMatch(/^Reverts what Conveyor run r0 merged for acme\/web#7\.\n\nConveyor-Run: r1\nConveyor-Reverts: r0\n/);
    expect(mergeTrailers(run, run.prs[0]!)).toMatch(/^Resolves acme\/web#7\.\n\nConveyor-Run: r1\n/);
  });
});
