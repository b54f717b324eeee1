// GitHub's Git data API (adapters/github/forge/git-data.ts), mocked with nock: a branch update
// GitHub refused counts as refused only when the branch is not at the commit after all (a call
// whose answer was lost and that was sent again finds its own update there), and a blob GitHub
// will not take for its size is `change-too-large`; any other failure stays GitHub's error.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { GitHubForge } from '../../../../adapters/github/forge/forge.ts';
import { octokitLog } from '../../../../adapters/github/octokit.ts';
import { silentLogger } from '../../../../lib/logger.ts';
import { GitHubApiError } from '../../../../adapters/github/errors.ts';
import { ConveyorError } from '../../../../core/errors.ts';
import { rejectionOf } from '../../../helpers/errors.ts';
import { API, onlyNock } from './quick.ts';

onlyNock();
const SHA = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const data = () => new GitHubForge({ token: 'ghs_test', baseUrl: API, msPerSecond: 1, paceWrites: false, log: octokitLog(silentLogger) }).gitData;
const refPath = (path: string) => decodeURIComponent(path) === '/repos/acme/web/git/refs/heads/conveyor/web-7';
const readPath = (path: string) => decodeURIComponent(path) === '/repos/acme/web/git/ref/heads/conveyor/web-7';

describe('GitHubGitData', () => {
  it('moves a branch without force, and takes a refusal where the branch is at the commit already as done', async () => {
    const scope = nock(API)
      .patch(refPath, { sha: SHA, force: false })
      .reply(422, { message: 'Update is not a fast forward' })
      .get(readPath)
      .reply(200, { ref: 'refs/heads/conveyor/web-7', object: { sha: SHA, type: 'commit' } });
    expect(await data().advanceBranch('acme/web', 'conveyor/web-7', SHA)).toEqual({ updated: true });
    scope.done();
  });

  it("says a refusal in GitHub's words, with where the branch is (or that it is gone)", async () => {
    const scope = nock(API)
      .post('/repos/acme/web/git/refs', { ref: 'refs/heads/conveyor/web-7', sha: SHA })
      .reply(422, { message: 'Reference already exists' })
      .get(readPath)
      .reply(200, { ref: 'refs/heads/conveyor/web-7', object: { sha: OTHER, type: 'commit' } })
      .patch(refPath)
      .reply(422, { message: 'Reference does not exist' })
      .get(readPath)
      .reply(404, { message: 'Not Found' });
    expect(await data().createBranch('acme/web', 'conveyor/web-7', SHA)).toEqual({
      updated: false,
      message: 'Reference already exists (HTTP 422; the branch is at bbbbbbbbbbbb)',
    });
    expect(await data().advanceBranch('acme/web', 'conveyor/web-7', SHA)).toEqual({
      updated: false,
      message: 'Reference does not exist (HTTP 422; the branch is gone)',
    });
    scope.done();
  });

  it('moves a branch with force only while it is at the commit expected (the lease), and reads a refused or lost update back', async () => {
    const START = 'c'.repeat(40);
    const at = (sha: string) => [200, { ref: 'refs/heads/conveyor/web-7', object: { sha, type: 'commit' } }] as const;
    const scope = nock(API)
      // At the start commit: moved with force.
      .get(readPath)
      .reply(...at(START))
      .patch(refPath, { sha: SHA, force: true })
      .reply(200, { ref: 'refs/heads/conveyor/web-7', object: { sha: SHA, type: 'commit' } })
      // Someone else's commit there: not moved.
      .get(readPath)
      .reply(...at(OTHER))
      // At the commit already (a retried call whose first answer was lost): done, not moved again.
      .get(readPath)
      .reply(...at(SHA))
      // Gone: not made again.
      .get(readPath)
      .reply(404, { message: 'Not Found' })
      // Moved between the read and the update, and GitHub refused it: read back once more.
      .get(readPath)
      .reply(...at(START))
      .patch(refPath, { sha: SHA, force: true })
      .reply(422, { message: 'Reference cannot be updated' })
      .get(readPath)
      .reply(...at(OTHER));
    const move = () => data().moveBranch('acme/web', 'conveyor/web-7', SHA, START);
    expect(await move()).toEqual({ updated: true });
    expect(await move()).toEqual({ updated: false, message: 'the branch is at bbbbbbbbbbbb, not at cccccccccccc' });
    expect(await move()).toEqual({ updated: true });
    expect(await move()).toEqual({ updated: false, message: 'the branch is gone, not at cccccccccccc' });
    expect(await move()).toEqual({ updated: false, message: 'Reference cannot be updated (HTTP 422; the branch is at bbbbbbbbbbbb)' });
    scope.done();
  });

  it('sends a blob as base64; one GitHub will not take for its size is change-too-large, any other refusal its own error', async () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    const scope = nock(API)
      .post('/repos/acme/web/git/blobs', { content: bytes.toString('base64'), encoding: 'base64' })
      .reply(201, { sha: SHA })
      .post('/repos/acme/web/git/blobs')
      .reply(413, { message: 'Payload Too Large' })
      .post('/repos/acme/web/git/blobs')
      .reply(403, { message: 'Resource not accessible by integration' });
    expect(await data().createBlob('acme/web', bytes)).toBe(SHA);
    expect(await rejectionOf(data().createBlob('acme/web', bytes), ConveyorError)).toMatchObject({
      code: 'change-too-large',
      message: 'GitHub refused a file of 4 bytes in acme/web (HTTP 413): Payload Too Large',
    });
    const other = await rejectionOf(data().createBlob('acme/web', bytes), GitHubApiError);
    expect(other).toMatchObject({ code: 'forge-failed', status: 403 });
    scope.done();
  });

  it('makes a commit with no author or committer, and says whether GitHub signed it', async () => {
    const scope = nock(API)
      .post('/repos/acme/web/git/commits', (b: Record<string, unknown>) => Object.keys(b).sort().join() === 'message,parents,tree')
      .reply(201, { sha: SHA, verification: { verified: false, reason: 'unsigned', signature: null, payload: null } });
    expect(await data().createCommit('acme/web', { message: 'm', tree: OTHER, parents: [OTHER] })).toEqual({ sha: SHA, verified: false, reason: 'unsigned' });
    scope.done();
  });
});
