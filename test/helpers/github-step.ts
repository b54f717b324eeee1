// A step run in-process against GitHub mocked with nock: git clones from the test's bare
// repositories (the local remotes), and the forge is the real GitHub adapter, whose Git data calls
// are answered from the bare repository (git-data.ts), so what the branch holds afterwards is what
// GitHub would hold.
import nock from 'nock';
import { createContext, type StepContext } from '../../action/src/context.ts';
import { GitHubForge } from '../../adapters/github/forge/forge.ts';
import { octokitLog } from '../../adapters/github/octokit.ts';
import { silentLogger } from '../../lib/logger.ts';
import type { GitDataOnBare } from './git-data.ts';
import type { Remotes } from './repos.ts';

export const GITHUB_API = 'https://api.github.com';

/** A step context that clones from `remotes` into a workspace at `root` and talks to (mocked) GitHub as its forge. */
export function githubStepContext(remotes: Remotes, root: string, lines: string[] = []): StepContext {
  const ctx = createContext({
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_SERVER_URL: remotes.url, CONVEYOR_WORKSPACE_ROOT: root },
    log: (line) => void lines.push(line),
  });
  const forge = new GitHubForge({ token: 'ghs_test', baseUrl: GITHUB_API, msPerSecond: 1, paceWrites: false, log: octokitLog(silentLogger) });
  return { ...ctx, forge: async () => forge };
}

/** Whether a request path is the REST path of `branch`'s ref (`git/refs/heads/…` to move it, `git/ref/heads/…` to read it). */
export const refPath =
  (repo: string, branch: string, how: 'refs' | 'ref' = 'refs') =>
  (path: string) =>
    decodeURIComponent(path) === `/repos/${repo}/git/${how}/heads/${branch}`;

type Body = Record<string, unknown>;

/** Answers a branch's PATCH from the bare repository (the route's `ref` is `heads/<branch>`). */
export const updateRefReply = (gh: GitDataOnBare) => (uri: string, body: nock.Body) =>
  gh.updateRef(decodeURIComponent(uri).split('/git/refs/')[1]!, body as Body);

/** A branch read from the bare repository, as GitHub answers `GET git/ref/heads/<branch>`. */
export const getRefReply = (gh: GitDataOnBare, branch: string) => (): [number, Body] => {
  const sha = gh.head(branch);
  return sha ? [200, { ref: `refs/heads/${branch}`, object: { sha, type: 'commit' } }] : [404, { message: 'Not Found' }];
};

/**
 * GitHub's Git data API on `repo`, each route answered from the bare repository: `times` calls of
 * each expected (a tree and a commit unless told; `update`: the branch's PATCH, once unless 0).
 */
export function gitDataScope(
  gh: GitDataOnBare,
  target: { repo: string; branch: string },
  times: { blobs?: number; trees?: number; commits?: number; update?: number } = {},
): nock.Scope {
  const scope = nock(GITHUB_API, { reqheaders: { authorization: 'token ghs_test' } });
  if (times.blobs)
    scope
      .post(`/repos/${target.repo}/git/blobs`)
      .times(times.blobs)
      .reply((_u, b) => gh.blob(b as Body));
  if (times.trees !== 0)
    scope
      .post(`/repos/${target.repo}/git/trees`)
      .times(times.trees ?? 1)
      .reply((_u, b) => gh.tree(b as Body));
  if (times.commits !== 0)
    scope
      .post(`/repos/${target.repo}/git/commits`)
      .times(times.commits ?? 1)
      .reply((_u, b) => gh.commit(b as Body));
  if (times.update !== 0) scope.patch(refPath(target.repo, target.branch)).reply(updateRefReply(gh));
  return scope;
}
