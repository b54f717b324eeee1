// The contract variables every user command of a step shares (agents, setups, gates, deploys).
import type { StepPayload } from '../../core/contract/wire.ts';
import type { Workspace } from './workspace.ts';
import { environmentVariables } from '../../core/steps/deploy-plan.ts';

/** $CONVEYOR_REPOS: what each folder is. */
export function reposVariable(payload: StepPayload, ws: Workspace): string {
  return JSON.stringify(
    ws.repos.map((r) => {
      const paths = Object.fromEntries(
        r.services.flatMap((s) => {
          const p = payload.services[s]?.path;
          return p ? [[s, p]] : [];
        }),
      );
      return {
        repo: r.repo,
        dir: r.dir,
        folder: r.folder,
        role: r.role,
        service: r.services[0] ?? null,
        services: r.services,
        ...(Object.keys(paths).length ? { paths } : {}),
        base: r.base,
        branch: r.checkedOut,
      };
    }),
  );
}

/** The contract variables every user command of a step gets (agents, gates). */
export function identityVariables(payload: StepPayload): Record<string, string> {
  return {
    CONVEYOR_STEP: payload.step.id,
    CONVEYOR_ATTEMPT: String(payload.attempt),
    CONVEYOR_RUN_ID: payload.runId,
  };
}

/**
 * CONVEYOR_ENV_URL, CONVEYOR_ENV_<SERVICE>_URL and CONVEYOR_ENV_URLS for the commands of a step
 * after a deploy (its gates and agents): the environments the payload carries. A deploy's payload
 * carries the outcomes it resumes from and a teardown's what it removes: neither is "the
 * environments to test against", so their commands get none of these.
 */
export function environmentsVariables(payload: StepPayload): Record<string, string> {
  if (payload.step.kind === 'deploy' || payload.mode === 'teardown') return {};
  return environmentVariables(payload.environments, payload.service);
}
