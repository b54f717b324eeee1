import { describe, expect, it } from 'vitest';
import { ciFindings, judgeRequiredChecks, type ObservedCheckRun, type PullChecks } from '../../../core/steps/ci-checks.ts';

const OWN = 1;
const run = (id: number, name: string, conclusion: string | null, appId = 15368, extra: Partial<ObservedCheckRun> = {}): ObservedCheckRun => ({
  id,
  name,
  status: conclusion === null ? 'queued' : 'completed',
  conclusion,
  appId,
  ...extra,
});
const pull = (p: Partial<PullChecks>): PullChecks => ({ repo: 'acme/web', number: 1, head: 'a'.repeat(40), required: [], checkRuns: [], statuses: [], ...p });

describe('judgeRequiredChecks', () => {
  it('judges the newest check run of each required name, never counting Conveyor’s own, nor its names as required', () => {
    const j = judgeRequiredChecks(
      [
        pull({
          required: [{ context: 'build' }, { context: 'conveyor' }, { context: 'conveyor / test' }],
          checkRuns: [run(10, 'build', 'failure'), run(11, 'build', 'success'), run(12, 'build', 'failure', OWN)],
        }),
      ],
      OWN,
    );
    expect(j).toEqual({ state: 'success', checks: [expect.objectContaining({ context: 'build', state: 'success', conclusion: 'success' })] });
  });

  it('is pending while a required check is not reported or still runs, and failed only once none is pending', () => {
    const required = [{ context: 'build' }, { context: 'e2e' }];
    expect(judgeRequiredChecks([pull({ required, checkRuns: [run(1, 'build', 'failure'), run(2, 'e2e', 'success', OWN)] })], OWN).state).toBe('pending');
    expect(judgeRequiredChecks([pull({ required, checkRuns: [run(1, 'build', 'failure'), run(2, 'e2e', null)] })], OWN).state).toBe('pending');
    expect(judgeRequiredChecks([pull({ required, checkRuns: [run(1, 'build', 'failure'), run(2, 'e2e', 'skipped')] })], OWN).state).toBe('failure');
  });

  it('counts commit statuses, takes a required app at its word, and passes when nothing is required', () => {
    const statuses = [{ context: 'deploy/ci', state: 'failure', description: 'tests failed' }];
    expect(judgeRequiredChecks([pull({ required: [{ context: 'deploy/ci' }], statuses })], OWN).checks[0]).toMatchObject({
      state: 'failure',
      summary: 'tests failed',
    });
    // Required from app 15368 only: another app's check run of that name is not it.
    expect(judgeRequiredChecks([pull({ required: [{ context: 'build', appId: 15368 }], checkRuns: [run(1, 'build', 'success', 77)] })], OWN).state).toBe(
      'pending',
    );
    expect(judgeRequiredChecks([pull({})], OWN)).toEqual({ state: 'success', checks: [] });
  });
});

describe('ciFindings', () => {
  it("names each failed check, its conclusion and summary, and its job's failing lines in blocks its text cannot close", () => {
    const j = judgeRequiredChecks(
      [pull({ required: [{ context: 'build' }], checkRuns: [run(7, 'build', 'timed_out', 15368, { appSlug: 'github-actions', summary: 'see ``` here' })] })],
      OWN,
    );
    const out = ciFindings(j.checks, new Map([[7, 'ok 1\nok 2\nError: boom at step 3\nlast line']]));
    expect(out).toContain('### acme/web#1: required check `build` (timed\\_out)');
    expect(out).toContain('````text\nsee ``` here\n````');
    expect(out).toContain('Failing lines of its log (GitHub Actions job 7):');
    expect(out).toContain('Error: boom at step 3');
  });
});
