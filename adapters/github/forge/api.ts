// What the concern modules of the GitHub forge share: GitHub's own types of the REST answers (from
// @octokit/rest, the version of the Octokit that makes the calls, so the types are those of the
// answers it hands back), and the `owner`/`repo` pair every repository route takes.
import type { RestEndpointMethodTypes } from '@octokit/rest';
import { splitRepo } from '../../../engine/ports/forge.ts';

/** GitHub's REST types, by API group and method: `Rest['pulls']['get']['response']['data']`. */
export type Rest = RestEndpointMethodTypes;

/** `owner/name` as the route parameters `owner` and `repo`. */
export function repoParams(repo: string): { owner: string; repo: string } {
  const { owner, name } = splitRepo(repo);
  return { owner, repo: name };
}
