// The commit a run's check runs go on: its primary PR's head, which a run the app starts has from
// its start (the draft PR); there is no base head to ask GitHub for.
import { describe, expect, it } from 'vitest';
import { checkRunsHead } from '../../../adapters/github/heads.ts';
import { ConveyorError } from '../../../core/errors.ts';
import type { PayloadRepo } from '../../../core/contract/wire.ts';

const repos: PayloadRepo[] = [
  { repo: 'acme/api', role: 'sibling', services: ['api'], base: 'main', workBranch: 'conveyor/web-7' },
  { repo: 'acme/web', role: 'primary', services: ['web'], base: 'main', workBranch: 'conveyor/web-7' },
];
const pr = (repo: string, head: string) => ({ repo, number: 1, url: `https://github.com/${repo}/pull/1`, branch: 'conveyor/web-7', head });

describe('checkRunsHead', () => {
  it("is the head of the primary repository's PR, never a sibling's", () => {
    expect(checkRunsHead({ id: 'r', prs: [pr('acme/api', 'a'.repeat(40)), pr('acme/web', 'b'.repeat(40))] }, repos)).toEqual({
      repo: 'acme/web',
      head: 'b'.repeat(40),
    });
  });

  it("is its first PR's head for a run with none in its primary repository (a revert of what merged in the others)", () => {
    expect(checkRunsHead({ id: 'web-7-revert', prs: [pr('acme/api', 'a'.repeat(40))] }, repos)).toEqual({ repo: 'acme/api', head: 'a'.repeat(40) });
  });

  it('names a run without any PR as one to start again, instead of reading a base head', () => {
    const error = (() => {
      try {
        return checkRunsHead({ id: 'web-7', prs: [] }, repos);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConveyorError);
    expect(error).toMatchObject({ code: 'forge-failed', message: expect.stringContaining('run web-7 has no pull request in acme/web') });
  });
});
