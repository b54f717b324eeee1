// GitHub Deployments for preview environments: each environment is a transient deployment of the
// commit it was deployed from, so its URL shows on the PR (in progress -> success/failure ->
// inactive on teardown). A forge without deployments (the local one) has none of this. A failing
// call to GitHub never fails a deploy or a teardown: it becomes a note in the summary.
import type { DeploymentState, Forge } from '../../../engine/ports/forge.ts';
import type { Environment } from '../../../core/contract/wire.ts';
import type { StepContext } from '../context.ts';

export interface Deployments {
  /** Creates the deployment in progress; undefined when GitHub refused (see notes). */
  start(target: { repo: string; ref: string; envId: string; service: string }): Promise<Environment['deployment']>;
  finish(deployment: Environment['deployment'], env: Environment): Promise<void>;
  deactivate(env: Environment): Promise<void>;
  /** What went wrong with GitHub, for the summary. */
  readonly notes: string[];
}

/** Deployments through the step's forge, when it has them. */
export async function deploymentsFor(ctx: StepContext): Promise<Deployments | undefined> {
  let forge: Forge;
  try {
    forge = await ctx.forge();
  } catch (e) {
    ctx.log.warn(`no forge for deployments: ${(e as Error).message}`);
    return undefined;
  }
  const create = forge.createDeployment?.bind(forge);
  const setStatus = forge.setDeploymentStatus?.bind(forge);
  if (!create || !setStatus) return undefined;
  const notes: string[] = [];
  const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (e) {
      const note = `GitHub deployment: ${what} failed: ${ctx.scrubber.scrub((e as Error).message)}`;
      notes.push(note);
      ctx.log.info(note);
      return undefined;
    }
  };
  const status = (repo: string, id: number, state: DeploymentState, extra: { environmentUrl?: string; description?: string }) =>
    attempt(`setting ${repo} deployment ${id} to ${state}`, () => setStatus(repo, id, { state, ...extra }));
  return {
    notes,
    async start(t) {
      const made = await attempt(`creating the deployment of ${t.service}`, () =>
        create({ repo: t.repo, ref: t.ref, environment: t.envId, description: `Conveyor preview of ${t.service}`, transient: true }),
      );
      if (!made) return undefined;
      await status(t.repo, made.id, 'in_progress', { description: `deploying ${t.service}` });
      return { repo: t.repo, id: made.id };
    },
    async finish(deployment, env) {
      if (!deployment) return;
      if (env.state === 'ready')
        await status(deployment.repo, deployment.id, 'success', { ...(env.url ? { environmentUrl: env.url } : {}), description: `${env.service} is up` });
      else await status(deployment.repo, deployment.id, 'failure', { description: env.error ?? `${env.service} failed` });
    },
    async deactivate(env) {
      if (!env.deployment) return;
      await status(env.deployment.repo, env.deployment.id, 'inactive', { description: `${env.service} was torn down` });
    },
  };
}

/** The summary section of what went wrong with GitHub's deployments: none when nothing did. */
export function deploymentNotes(deployments: Deployments | undefined): string[] {
  return deployments?.notes.length ? [`Notes:\n${deployments.notes.map((n) => `- ${n}`).join('\n')}`] : [];
}
