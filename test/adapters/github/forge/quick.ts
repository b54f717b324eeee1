// What the tests of the GitHub forge's modules share: GitHub's REST API mocked with nock (no other
// connection), and GitHub as a token sees it, as the action's.
import nock from 'nock';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { gitHub, type GitHub } from '../../../../adapters/github/forge/github.ts';
import { octokitLog } from '../../../../adapters/github/octokit.ts';
import { silentLogger } from '../../../../lib/logger.ts';

export const API = 'https://api.github.com';

/** The action's GitHub, its waits a thousand times shorter and writes not paced (real time here). */
export const quick = (options: { baseUrl?: string } = {}): GitHub =>
  gitHub({ token: 'ghs_test', msPerSecond: 1, paceWrites: false, log: octokitLog(silentLogger), ...options });

/** The hooks of a test file: only nock answers, and no mock outlives its test. */
export function onlyNock(): void {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => nock.cleanAll());
}
