// Who may do what on GitHub: a person's permission on a repository (the collaborator permission
// API, never a webhook's author_association) and their membership of an organisation's team (an
// approval step's `@org/team` approvers). A 404 is no permission, no membership.
import { unlessAbsent } from '../errors.ts';
import type { GitHubOctokit } from '../octokit.ts';
import { repoParams } from './api.ts';

export class People {
  constructor(private readonly octokit: GitHubOctokit) {}

  /** admin, maintain, write, triage, read or none. */
  async permission(repo: string, user: string): Promise<string> {
    const answer = await unlessAbsent(this.octokit.rest.repos.getCollaboratorPermissionLevel({ ...repoParams(repo), username: user }));
    return answer?.data.permission ?? 'none';
  }

  /** active, pending or none: the user's membership of an organisation's team. */
  async teamMembership(org: string, team: string, user: string): Promise<string> {
    const answer = await unlessAbsent(this.octokit.rest.teams.getMembershipForUserInOrg({ org, team_slug: team, username: user }));
    return answer?.data.state ?? 'none';
  }
}
