// Who may change a run from GitHub: a person with write, maintain or admin on the run's primary
// repository (its own service's, which holds its issue), read with the collaborator permission API
// (never author_association), wherever they wrote. A comment, a review or a close on a sibling
// repository's PR is judged on the primary repository: write on a sibling steers nothing. Where a
// run's issue is in another repository than its primary one, write is needed on both. Bots never decide.
import { primaryRepo } from '../core/run/payload.ts';
import type { Run } from '../core/run/types.ts';
import type { People } from '../adapters/github/forge/people.ts';
import { canWrite } from './deps.ts';

/** Bots never decide: GitHub's user type `Bot`, or a login ending in `[bot]`. */
export function isBot(actor: { login: string; type?: string | null }): boolean {
  return actor.type === 'Bot' || /\[bot\]$/i.test(actor.login);
}

/** Why someone may not change a run: the repository they lack write on, what they have there, and what that repository is to the run. */
export interface NotAWriter {
  repo: string;
  permission: string;
  role: string;
}

/** The repositories whose writers decide a run: the primary one, then its issue's when that is another. */
export function decidingRepos(run: Run): string[] {
  return [...new Set([primaryRepo(run.plan), run.issue.repo])];
}

/** Undefined when `login` may change the run; else where they may not (one permission call per deciding repository, stopping at the first refusal). */
export async function notAWriter(people: People, run: Run, login: string): Promise<NotAWriter | undefined> {
  const primary = primaryRepo(run.plan);
  for (const repo of decidingRepos(run)) {
    const permission = await people.permission(repo, login);
    if (!canWrite(permission)) return { repo, permission, role: repo === primary ? "the run's primary repository" : "the repository of the run's issue" };
  }
  return undefined;
}
