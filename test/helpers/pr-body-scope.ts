// The PR body a code step writes again once it pushed (what changed in it: core/github/pr-body.ts),
// mocked as GitHub answers it: the PR at its branch's head in the test's bare repository.
import nock from 'nock';

export interface PrBodyTarget {
  api: string;
  repo: string;
  number: number;
  branch: string;
  url: string;
  nodeId?: string;
  /** The branch's head as the remote has it when GitHub answers. */
  head: () => string | undefined;
  /** What a draft reads back (GitHub keeps `draft` as it was). */
  draft?: boolean;
}

/** One PATCH of the PR's body, which must say what changed in its repository. */
export function prBodyScope(t: PrBodyTarget): nock.Scope {
  return nock(t.api, { reqheaders: { authorization: 'token ghs_test' } })
    .patch(`/repos/${t.repo}/pulls/${t.number}`, (b: { body?: unknown }) => typeof b.body === 'string' && b.body.includes(`What changed in ${t.repo}`))
    .reply((_u, b) => [
      200,
      {
        number: t.number,
        html_url: t.url,
        state: 'open',
        draft: t.draft ?? false,
        body: (b as { body: string }).body,
        ...(t.nodeId ? { node_id: t.nodeId } : {}),
        merged_at: null,
        merge_commit_sha: null,
        head: { ref: t.branch, sha: t.head() },
        base: { ref: 'main' },
      },
    ]);
}
