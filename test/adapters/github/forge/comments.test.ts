// Comments on issues and PRs (adapters/github/forge/comments.ts) against GitHub's REST API, mocked
// with nock: lists read past their first page, and no further than the page that holds the marker.
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { API, onlyNock, quick } from './quick.ts';

onlyNock();

/** An issue comment as GitHub lists it. */
const comment = (id: number, body: string) => ({ id, body, html_url: `https://github.com/acme/web/issues/7#issuecomment-${id}` });
const PAGE_2 = `<${API}/repositories/1/issues/7/comments?per_page=100&page=2>; rel="next", <${API}/repositories/1/issues/7/comments?per_page=100&page=2>; rel="last"`;

describe('comments', () => {
  it('finds the tracking comment by its marker on the second page of a busy issue', async () => {
    const marker = '<!-- conveyor:run acme-web-7 -->';
    const first = Array.from({ length: 100 }, (_, i) => comment(1000 + i, `comment ${i}`));
    const scope = nock(API)
      .get('/repos/acme/web/issues/7/comments')
      .query({ per_page: '100' })
      .reply(200, first, { link: PAGE_2 })
      .get('/repositories/1/issues/7/comments')
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(2000, 'late'), comment(2001, `Conveyor run\n${marker}`)]);
    expect(await quick().comments.find('acme/web', 7, marker)).toEqual({ id: 2001, url: 'https://github.com/acme/web/issues/7#issuecomment-2001' });
    scope.done();
  });

  it('stops reading at the page that holds the marker, and reads every page when none does', async () => {
    const marker = '<!-- conveyor:run acme-web-7 -->';
    // The second page is not mocked: asking for it would fail the call.
    const found = nock(API)
      .get('/repos/acme/web/issues/7/comments')
      .query({ per_page: '100' })
      .reply(200, [comment(1, marker)], { link: PAGE_2 });
    expect((await quick().comments.find('acme/web', 7, marker))?.id).toBe(1);
    found.done();
    const none = nock(API)
      .get('/repos/acme/web/issues/7/comments')
      .query({ per_page: '100' })
      .reply(200, [comment(1, 'a')], { link: PAGE_2 })
      .get('/repositories/1/issues/7/comments')
      .query({ per_page: '100', page: '2' })
      .reply(200, [comment(2, 'b')]);
    expect(await quick().comments.find('acme/web', 7, marker)).toBeUndefined();
    none.done();
  });

  it('comments, edits and reacts', async () => {
    const scope = nock(API)
      .post('/repos/acme/web/issues/7/comments', { body: 'hi' })
      .reply(201, comment(9, 'hi'))
      .patch('/repos/acme/web/issues/comments/9', { body: 'edited' })
      .reply(200, comment(9, 'edited'))
      .post('/repos/acme/web/issues/comments/9/reactions', { content: 'rocket' })
      .reply(201, { id: 1, content: 'rocket' });
    const { comments } = quick();
    expect(await comments.create('acme/web', 7, 'hi')).toEqual({ id: 9, url: 'https://github.com/acme/web/issues/7#issuecomment-9' });
    await comments.update('acme/web', 9, 'edited');
    await comments.react('acme/web', 9, 'rocket');
    scope.done();
  });
});
