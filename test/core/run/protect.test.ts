// Whether the protected paths a change holds were seen: approvals count only for the heads they saw.
import { describe, expect, it } from 'vitest';
import { protectedRefusal, recordProtected, unapprovedProtected } from '../../../core/run/protect.ts';
import { createRun } from '../../../core/run/reducer.ts';
import type { Approval, Run } from '../../../core/run/types.ts';
import { planOf, TEST_ORIGIN } from '../../helpers/plans.ts';

const HEAD = 'a'.repeat(40);
const NEWER = 'b'.repeat(40);

function runWith(approvals: Approval[], options: { protect?: string[]; head?: string; minApprovals?: number; approvalStep?: boolean } = {}): Run {
  const specs = [
    { id: 'implement', kind: 'code' as const },
    ...(options.approvalStep === false ? [] : [{ id: 'approve', kind: 'approval' as const }]),
    { id: 'ship', kind: 'merge' as const },
  ];
  const plan = planOf(specs);
  const withProtect = options.protect ? { ...plan, protect: options.protect } : plan;
  const steps = withProtect.steps.map((s) => (s.kind === 'approval' && options.minApprovals ? { ...s, minApprovals: options.minApprovals } : s));
  const run = createRun({
    id: 'r',
    plan: { ...withProtect, steps },
    issue: { repo: 'acme/web', number: 1, title: 't', body: '' },
    origin: TEST_ORIGIN,
    at: '2025-01-01T00:00:00Z',
  });
  run.prs = [{ repo: 'acme/web', number: 1, url: 'u', branch: 'b', head: options.head ?? HEAD }];
  run.protectedPaths = [{ repo: 'acme/web', head: HEAD, paths: ['.github/workflows/ci.yml'] }];
  if (run.steps.approve) run.steps.approve.status = 'succeeded';
  run.approvals = approvals;
  return run;
}
const approval = (by: string, head: string, stale = false): Approval => ({
  step: 'approve',
  by,
  at: '2025-01-01T00:00:00Z',
  heads: { 'acme/web': head },
  ...(stale ? { stale: { kind: 'pushed' as const, by: 'x', repo: 'acme/web', head: NEWER } } : {}),
});

describe('protected paths and approvals', () => {
  it('an approval of the head that holds them covers them', () => {
    expect(unapprovedProtected(runWith([approval('bob', HEAD)]))).toEqual([]);
    expect(protectedRefusal(runWith([approval('bob', HEAD)]))).toBeUndefined();
  });

  it('a stale approval, one of another head, or too few approvals do not', () => {
    expect(unapprovedProtected(runWith([approval('bob', HEAD, true)]))).toHaveLength(1);
    // Someone pushed after the approval: the PR's head is newer than anything approved.
    const moved = runWith([approval('bob', HEAD)], { head: NEWER });
    expect(unapprovedProtected(moved)).toMatchObject([{ stale: true }]);
    expect(protectedRefusal(moved)).toContain('`/conveyor retry` from the approval step');
    expect(unapprovedProtected(runWith([approval('bob', HEAD)], { minApprovals: 2 }))).toHaveLength(1);
    expect(unapprovedProtected(runWith([approval('bob', HEAD), approval('carol', HEAD)], { minApprovals: 2 }))).toEqual([]);
  });

  it('`protect: []` protects nothing; without an approval step the refusal says what to change', () => {
    expect(protectedRefusal(runWith([], { protect: [] }))).toBeUndefined();
    expect(protectedRefusal(runWith([], { approvalStep: false }))).toContain('has no approval step');
  });

  it('keeps the latest record per repository', () => {
    const first = [
      { repo: 'a/x', head: HEAD, paths: ['p'] },
      { repo: 'a/y', head: HEAD, paths: [] },
    ];
    expect(recordProtected(first, [{ repo: 'a/x', head: NEWER, paths: [] }])).toEqual([{ repo: 'a/x', head: NEWER, paths: [] }, first[1]]);
  });
});
