// The one answer to "the default branch of this run", and the origin schemas the store reads runs with.
import { describe, expect, it } from 'vitest';
import { defaultBranchOf, githubOriginOf, runOriginSchema, runSettingsSchema } from '../../../core/run/origin.ts';
import { planOf, TEST_ORIGIN } from '../../helpers/plans.ts';

const plan = planOf([{ id: 'implement', kind: 'code' }]);
const onBase = (base: string) => ({ ...plan, changeSet: plan.changeSet.map((r) => (r.role === 'primary' ? { ...r, base } : r)) });

describe('defaultBranchOf', () => {
  it("is the GitHub repository's default branch for a run the app started, whatever base the plan names", () => {
    const origin = { kind: 'github', installationId: 1, defaultBranch: 'trunk' } as const;
    expect(defaultBranchOf({ origin, plan: onBase('release') })).toBe('trunk');
    expect(githubOriginOf({ origin })).toBe(origin);
  });

  it("is the primary repository's base offline, where no forge knows a default branch", () => {
    expect(defaultBranchOf({ origin: TEST_ORIGIN, plan: onBase('develop') })).toBe('develop');
    expect(defaultBranchOf({ origin: TEST_ORIGIN, plan: { ...plan, changeSet: [] } })).toBe('main');
    expect(githubOriginOf({ origin: TEST_ORIGIN })).toBeUndefined();
  });
});

describe('the origin and settings schemas', () => {
  it("take each mode's own keys and nothing else", () => {
    expect(runOriginSchema.safeParse({ kind: 'github', installationId: 1, defaultBranch: 'main' }).success).toBe(true);
    expect(runOriginSchema.safeParse(TEST_ORIGIN).success).toBe(true);
    // A GitHub run's keys on an embedded run (and the other way) are a run of neither mode.
    expect(runOriginSchema.safeParse({ ...TEST_ORIGIN, installationId: 1 }).success).toBe(false);
    expect(runOriginSchema.safeParse({ kind: 'github', installationId: 1, defaultBranch: 'main', remotes: '/r' }).success).toBe(false);
    expect(runOriginSchema.safeParse({ kind: 'github', installationId: 1 }).success).toBe(false);
    expect(runSettingsSchema.safeParse({}).success).toBe(true);
    expect(runSettingsSchema.safeParse({ payloadLimit: 0 }).success).toBe(false);
    expect(runSettingsSchema.safeParse({ installationId: 1 }).success).toBe(false);
  });
});
