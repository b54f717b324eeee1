// GitHub as one installation (the app) or one token (the action) sees it: a module per concern,
// all over one Octokit of adapters/github/octokit.ts (retries, rate limits and pacing are its
// plugins' job, and every failure arrives as a GitHubApiError), and the Forge port over the same
// modules. A 404 that means "not there" is `undefined` (or `none`) where callers ask whether
// something exists.
import { CheckRuns } from './checks.ts';
import { Comments } from './comments.ts';
import { GitHubForge, octokitOf, type GitHubSource } from './forge.ts';
import { People } from './people.ts';
import type { Pulls } from './pulls.ts';
import type { Deployments } from './deployments.ts';
import { Repos } from './repos.ts';
import { Workflows } from './workflows.ts';

export interface GitHub {
  /** The Forge port: what the merge policy takes. */
  readonly forge: GitHubForge;
  readonly pulls: Pulls;
  readonly deployments: Deployments;
  readonly checks: CheckRuns;
  readonly workflows: Workflows;
  readonly comments: Comments;
  readonly people: People;
  readonly repos: Repos;
}

export function gitHub(source: GitHubSource): GitHub {
  const octokit = octokitOf(source);
  const forge = new GitHubForge({ octokit });
  return {
    forge,
    pulls: forge.pulls,
    deployments: forge.deployments,
    checks: new CheckRuns(octokit),
    workflows: new Workflows(octokit),
    comments: new Comments(octokit),
    people: new People(octokit),
    repos: new Repos(octokit),
  };
}
