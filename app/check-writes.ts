// Writing a check run the app keeps (the summary `conveyor`, an approval step's) to a new state.
// GitHub never changes a completed check run's status or conclusion again: a summary that was
// `action_required` while the run waited cannot go back to in progress when someone approves, and
// an approval's `action_required` cannot become `success`. Such a change is a new check run of the
// same name on the same head, which GitHub then shows (the newest of a name counts).
import { updatable, type CheckState } from '../core/github/check-run.ts';
import { GitHubApiError } from '../adapters/github/errors.ts';
import type { CheckRuns, CheckRunWrite } from '../adapters/github/forge/checks.ts';

export type CheckWrite = CheckRunWrite & { status: NonNullable<CheckRunWrite['status']> };

/** The check run as it is now: its id, and its state when known (a record from an earlier process has none). */
export interface CurrentCheck {
  id: number;
  state?: CheckState;
}

export interface WrittenCheck {
  id: number;
  url?: string;
  /** A new check run was made (none was there, or the one there could not take the state). */
  created: boolean;
}

const took = (answer: { status?: string; conclusion?: string | null }, want: CheckWrite): boolean =>
  // An answer without a status says nothing either way.
  !answer.status || (answer.status === want.status && (want.status !== 'completed' || answer.conclusion === want.conclusion));

/**
 * Writes `want` over `current` where GitHub lets it, else makes a new check run (`identity`: its
 * name, head and external id). A current check run of unknown state is updated, and GitHub's
 * answer (or its refusal, 422) says whether it took.
 */
export async function writeCheck(
  checks: Pick<CheckRuns, 'create' | 'update'>,
  repo: string,
  current: CurrentCheck | undefined,
  want: CheckWrite,
  identity: { name: string; head_sha: string; external_id: string },
): Promise<WrittenCheck> {
  if (current && (!current.state || updatable(current.state, want))) {
    try {
      const answer = await checks.update(repo, current.id, want);
      if (current.state || took(answer, want)) return { id: current.id, ...(answer.url ? { url: answer.url } : {}), created: false };
    } catch (e) {
      if (current.state || !(e instanceof GitHubApiError && e.status === 422)) throw e;
    }
  }
  const made = await checks.create(repo, { ...identity, ...want });
  return { id: made.id, url: made.url, created: true };
}
