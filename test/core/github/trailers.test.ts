import { describe, expect, it } from 'vitest';
import type { Run } from '../../../core/run/types.ts';
import { coAuthoredBy, mergeTrailers, trailerLines } from '../../../core/github/trailers.ts';
import type { StepResult } from '../../../core/contract/wire.ts';
import { planOf } from '../../helpers/plans.ts';
import { AT, current, start, step } from '../run/drive.ts';

const HEAD = 'a'.repeat(40);
const pr = { repo: 'acme/web', number: 3, url: 'u', branch: 'conveyor/web-7', head: HEAD };
const plan = planOf([
  { id: 'implement', kind: 'code' },
  { id: 'test', kind: 'gate' },
  { id: 'review', kind: 'review' },
  { id: 'approve', kind: 'approval' },
  { id: 'ship', kind: 'merge' },
]);
const review = (independent: boolean, verdict: 'pass' | 'fail' = 'pass'): StepResult['review'] => ({
  verdict,
  findings: [],
  scores: { complexity: 0.1, risk: 0.1, impact: 0.1 },
  agent: 'reviewer',
  model: 'openai/gpt-5',
  independent,
});

function complete(run: Run, id: string, extra: Partial<StepResult>): Run {
  return step(run, current(run, id, 'success', extra)).run;
}

function atMerge(options: { reviewIndependent?: boolean; testHead?: string } = {}): Run {
  let run = start(plan).run;
  run = complete(run, 'implement', { prs: [pr], commits: { 'acme/web': HEAD } });
  run = complete(run, 'test', { commits: { 'acme/web': options.testHead ?? HEAD } });
  run = complete(run, 'review', { commits: { 'acme/web': HEAD }, review: review(options.reviewIndependent ?? true) });
  run = step(run, { type: 'decision', at: AT, decision: 'approve', by: 'bob' }).run;
  return run;
}

describe('merge trailers', () => {
  it('name the run, the gates and the independent review that held on the merged head, and the approvers', () => {
    const run = atMerge();
    const lines = trailerLines(run, pr);
    const digest = (id: string) => run.steps[id]!.result!.receipt!.slice('sha256:'.length);
    expect(lines).toEqual([
      'Conveyor-Run: r1',
      `Tested-by: conveyor gate test (sha256:${digest('test')})`,
      `Reviewed-by: reviewer openai/gpt-5 (sha256:${digest('review')})`,
      'Approved-by: bob',
    ]);
    expect(mergeTrailers(run, pr)).toBe(`Resolves acme/web#7.\n\n${lines.join('\n')}`);
  });

  it('leave out a review that was not independent, a gate that checked another commit, an edited result, stale approvals', () => {
    expect(trailerLines(atMerge({ reviewIndependent: false }), pr).some((l) => l.startsWith('Reviewed-by'))).toBe(false);
    expect(trailerLines(atMerge({ testHead: 'b'.repeat(40) }), pr).some((l) => l.startsWith('Tested-by'))).toBe(false);
    const run = atMerge();
    const edited: Run = { ...run, steps: { ...run.steps, test: { ...run.steps.test!, result: { ...run.steps.test!.result!, summary: 'edited' } } } };
    expect(trailerLines(edited, pr).some((l) => l.startsWith('Tested-by'))).toBe(false);
    expect(trailerLines(run, { ...pr, head: 'c'.repeat(40) })).toEqual(['Conveyor-Run: r1', 'Approved-by: bob']);
    const stale: Run = {
      ...run,
      approvals: run.approvals.map((a) => ({ ...a, stale: { kind: 'pushed' as const, by: 'mallory', repo: 'acme/web', head: 'c'.repeat(40) } })),
    };
    expect(trailerLines(stale, pr).some((l) => l.startsWith('Approved-by'))).toBe(false);
  });

  it('keep every value on its line: a newline in a name cannot start a forged trailer', () => {
    const run = atMerge();
    const forged: Run = { ...run, approvals: run.approvals.map((a) => ({ ...a, by: 'bob\nReviewed-by: mallory' })) };
    const lines = trailerLines(forged, pr);
    expect(lines).toContain('Approved-by: bob Reviewed-by: mallory');
    expect(lines.filter((l) => l.startsWith('Reviewed-by'))).toHaveLength(1);
    expect(
      mergeTrailers(forged, pr)
        .split('\n')
        .filter((l) => l.startsWith('Reviewed-by')),
    ).toHaveLength(1);
  });
});

describe('coAuthoredBy', () => {
  it("credits an account by GitHub's no-reply address, its id first (people and apps alike)", () => {
    expect(coAuthoredBy({ login: 'octocat', id: 583231 })).toBe('Co-authored-by: octocat <583231+octocat@users.noreply.github.com>');
    expect(coAuthoredBy({ login: 'dependabot[bot]', id: 49699333 })).toBe(
      'Co-authored-by: dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>',
    );
  });
});
