// Where a run came from and the settings it keeps for its whole life, typed per mode: a run the
// GitHub App started knows its installation and the primary repository's default branch; a run
// the command line started knows its configuration file and remotes folder, so that a later
// `conveyor retry` or `approve` continues it the same way. The store parses both when it reads a
// run (adapters/store), so a run that reaches the engine has them as typed here.
import { z } from 'zod';
import type { Plan } from '../plan/types.ts';

export const githubOriginSchema = z
  .object({
    kind: z.literal('github'),
    installationId: z.number().int().positive(),
    /** The primary repository's default branch: the workflow is dispatched on it, and the token broker checks it. */
    defaultBranch: z.string().min(1),
  })
  .strict();

export const embeddedOriginSchema = z
  .object({
    kind: z.literal('embedded'),
    /** Absolute: a retry may come from another folder. */
    configPath: z.string(),
    /** The folder of bare repositories, absolute (the merge pushes by file:// URL). */
    remotes: z.string(),
    /** `--approve`: approval steps are approved as soon as they wait. */
    approve: z.boolean(),
    /** `--json`: the command prints its final state as JSON. */
    json: z.boolean(),
    /** `--repo`: retry and restart compile the configuration again exactly as it was compiled at the start. */
    repo: z.string().min(1).optional(),
  })
  .strict();

export const runOriginSchema = z.discriminatedUnion('kind', [githubOriginSchema, embeddedOriginSchema]);

/** What holds for the whole run, whichever mode started it. */
export const runSettingsSchema = z
  .object({
    /** What a step payload may take of its dispatch's inputs (GitHub: the workflow inputs' limit less the routing's room). */
    payloadLimit: z.number().int().positive().optional(),
    /** Preview environments stay up when the run ends (`--keep-envs`): no teardown effect. */
    keepEnvs: z.boolean().optional(),
  })
  .strict();

export type GitHubOrigin = z.infer<typeof githubOriginSchema>;
export type EmbeddedOrigin = z.infer<typeof embeddedOriginSchema>;
export type RunOrigin = z.infer<typeof runOriginSchema>;
export type RunSettings = z.infer<typeof runSettingsSchema>;

/** The fallback where a repository names no branch: what a new repository gets, and the local forge's. */
const FALLBACK_BRANCH = 'main';

/**
 * The branch the run's configuration and workflow are read from: the primary repository's default
 * branch on GitHub; offline, where no forge knows one, the primary repository's base in the plan.
 */
export function defaultBranchOf(run: { origin: RunOrigin; plan: Pick<Plan, 'changeSet'> }): string {
  if (run.origin.kind === 'github') return run.origin.defaultBranch;
  return run.plan.changeSet.find((r) => r.role === 'primary')?.base ?? FALLBACK_BRANCH;
}

/** The GitHub origin of a run, or undefined for a run the command line started. */
export function githubOriginOf(run: { origin: RunOrigin }): GitHubOrigin | undefined {
  return run.origin.kind === 'github' ? run.origin : undefined;
}
