// Rules that hold across the modules of the GitHub forge (adapters/github/forge/github.ts), against
// GitHub's REST API mocked with nock: a 404 that means "not there", and GitHub's limits on what
// Conveyor writes, each fitted on the way out.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { GitHubApiError } from '../../../../adapters/github/errors.ts';
import { rejectionOf } from '../../../helpers/errors.ts';
import { API, onlyNock, quick } from './quick.ts';

onlyNock();

describe('what is not there', () => {
  it('a 404 is "none" or undefined where the caller asks whether it exists; elsewhere it is the typed error', async () => {
    const scope = nock(API)
      .get('/repos/acme/web/collaborators/stranger/permission')
      .reply(404, { message: 'Not Found' })
      .get('/orgs/acme/teams/reviewers/memberships/stranger')
      .reply(404, { message: 'Not Found' })
      .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
      .query({ ref: 'main' })
      .reply(404, { message: 'Not Found' })
      .get('/repos/acme/web/check-runs/8')
      .reply(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    const github = quick();
    expect(await github.people.permission('acme/web', 'stranger')).toBe('none');
    expect(await github.people.teamMembership('acme', 'reviewers', 'stranger')).toBe('none');
    expect(await github.repos.readFile('acme/web', '.github/conveyor.yml', 'main')).toBeUndefined();
    const e = await rejectionOf(github.checks.get('acme/web', 8), GitHubApiError);
    expect(e.message).toBe('GitHub GET /repos/{owner}/{repo}/check-runs/{check_run_id} failed (HTTP 404): Not Found');
    expect(e.absent).toBe(true);
    scope.done();
  });

  it('reads a file, a permission, a membership and a branch head', async () => {
    const scope = nock(API)
      .get('/repos/acme/web/contents/.github%2Fconveyor.yml')
      .query({ ref: 'main' })
      .reply(200, { type: 'file', encoding: 'base64', content: Buffer.from('version: 1\n').toString('base64') })
      .get('/repos/acme/web/collaborators/bob/permission')
      .reply(200, { permission: 'write' })
      .get('/orgs/acme/teams/reviewers/memberships/bob')
      .reply(200, { state: 'active' })
      .get('/repos/acme/web/git/ref/heads%2Frelease%2F1.0')
      .reply(200, { object: { sha: 'c'.repeat(40) } });
    const github = quick();
    expect(await github.repos.readFile('acme/web', '.github/conveyor.yml', 'main')).toBe('version: 1\n');
    expect(await github.people.permission('acme/web', 'bob')).toBe('write');
    expect(await github.people.teamMembership('acme', 'reviewers', 'bob')).toBe('active');
    expect(await github.repos.branchHead('acme/web', 'release/1.0')).toBe('c'.repeat(40));
    scope.done();
  });
});

describe("GitHub's limits on what Conveyor writes", () => {
  it('cuts a comment over 65,536 characters and a check run output over 65,535, each with a note saying where the rest is', async () => {
    const sent: { comment?: string; edit?: string; body?: string; check?: { title: string; summary: string; text: string } } = {};
    const scopes = [
      nock(API)
        .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => ((sent.comment = b.body), true))
        .reply(201, { id: 1, html_url: 'c' }),
      nock(API)
        .patch('/repos/acme/web/issues/comments/1', (b: { body: string }) => ((sent.edit = b.body), true))
        .reply(200, {}),
      nock(API)
        .post('/repos/acme/web/check-runs', (b: { output: { title: string; summary: string; text: string } }) => ((sent.check = b.output), true))
        .reply(201, { id: 5, html_url: 'x', status: 'completed', output: {} }),
      nock(API)
        .post('/repos/acme/web/pulls', (b: { body: string }) => ((sent.body = b.body), true))
        .reply(201, { number: 3, html_url: 'p', title: 't', body: '', state: 'open', head: { ref: 'conveyor/web-7', sha: 'a' }, base: { ref: 'main' } }),
    ];
    const github = quick();
    // The sizes the review reproduced: a /conveyor status reply, a writes-violation check run.
    await github.comments.create('acme/web', 7, 's'.repeat(122_631));
    await github.comments.update('acme/web', 1, 'e'.repeat(70_000));
    await github.checks.create('acme/web', {
      name: 'conveyor / implement',
      head_sha: 'a',
      output: { title: 't'.repeat(2_000), summary: 'x'.repeat(80_000), text: 'y'.repeat(128_228) },
    });
    await github.forge.openPullRequest({ repo: 'acme/web', branch: 'conveyor/web-7', base: 'main', title: 'A change', body: 'b'.repeat(66_000) });
    for (const s of scopes) expect(s.isDone(), String(s.pendingMocks())).toBe(true);
    expect(sent.comment).toHaveLength(65_536);
    expect(sent.comment).toMatch(/…\(cut to fit GitHub's limit of 65536 characters; the whole text is in the run .*\)$/);
    expect(sent.edit).toHaveLength(65_536);
    expect(sent.body).toHaveLength(65_536);
    expect(sent.check?.summary).toHaveLength(65_535);
    expect(sent.check?.text).toHaveLength(65_535);
    expect(sent.check?.text).toMatch(/the whole output is in the step's log \(its workflow run\)\)$/);
    expect(sent.check?.title.length).toBeLessThanOrEqual(1_000);
    // Text that fits is sent as it is.
    nock(API)
      .post('/repos/acme/web/issues/7/comments', (b: { body: string }) => b.body === 'short')
      .reply(201, { id: 2, html_url: 'c' });
    await github.comments.create('acme/web', 7, 'short');
  });
});
