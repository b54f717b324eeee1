// Teardown (mode `teardown` of a deploy step): removes the environments the payload names, each
// with its service's `teardown` command and CONVEYOR_ENV_ID, consumers before their providers.
// A command that fails is tried again (up to MAX_TEARDOWN_RETRIES more times); what still fails is
// reported as a failure listing each environment, never hidden. The result's `environments` are
// the ones that are gone, which the engine then stops tracking.
import { planDeploy } from '../../../core/steps/deploy-plan.ts';
import { topologicalWaves } from '../../../core/graph.ts';
import { ConveyorError } from '../../../core/errors.ts';
import type { Environment, StepPayload, StepResult } from '../../../core/contract/wire.ts';
import { prepareStepWorkspace, removeStepWorkspace, runUserCommand, type StepContext } from '../context.ts';
import { baseResult } from '../result.ts';
import { fenced, tail } from '../summary.ts';
import type { Workspace } from '../workspace.ts';
import { reposOf, serviceDir, serviceEnvironment, serviceSetup } from './deploy.ts';
import { deploymentNotes, deploymentsFor, type Deployments } from './deployments.ts';
import { endMarked } from '../../../lib/sandbox.ts';
import { serviceIsolation } from '../sandbox.ts';

const MAX_TEARDOWN_RETRIES = 3;
/** Pause before the n-th retry: 250 ms, 500 ms, 1 s (a flaky API usually recovers that fast). */
const backoffMs = (retry: number) => 250 * 2 ** (retry - 1);

interface Removal {
  env: Environment;
  ok: boolean;
  tries: number;
  note: string;
  output?: string;
}

export async function runTeardown(ctx: StepContext, payload: StepPayload): Promise<StepResult> {
  const envs = payload.environments.filter((e) => e.state === 'ready');
  if (envs.length === 0) {
    return { ...baseResult(payload), conclusion: 'success', summary: 'Teardown: no ready environment to remove.' };
  }
  for (const e of envs) {
    if (!payload.services[e.service]) {
      throw new ConveyorError(
        'bad-payload',
        `environments: environment ${e.envId} belongs to service "${e.service}", which the payload's services do not describe`,
      );
    }
  }
  const needing = envs.filter((e) => payload.services[e.service]?.deploy?.teardown);
  const ws = needing.length
    ? await prepareStepWorkspace(
        ctx,
        reposOf(
          payload,
          needing.map((e) => e.service),
        ),
        'checkout',
      )
    : undefined;
  try {
    const deployments = await deploymentsFor(ctx);
    const removals: Removal[] = [];
    // Consumers go first, so nothing is left calling a provider that is already gone.
    for (const wave of teardownWaves(payload, envs)) {
      removals.push(...(await Promise.all(wave.map((e) => removeOne(ctx, payload, ws, e, deployments)))));
    }
    return teardownResult(payload, removals, deployments);
  } finally {
    // Unlike a deploy's, nothing runs from a teardown's checkout once it is done.
    if (ws) await removeStepWorkspace(ctx, ws);
  }
}

/** The environments in reverse deploy order: consumers in the first wave, providers last. */
function teardownWaves(payload: StepPayload, envs: Environment[]): Environment[][] {
  const names = envs.map((e) => e.service).sort();
  const plan = planDeploy({
    runId: payload.runId,
    services: payload.services,
    stepServices: names.filter((n) => payload.services[n]?.deploy),
    changeSetServices: [],
  });
  const providers = new Map(plan.targets.map((t) => [t.service, t.providers]));
  const waves = topologicalWaves(names, (n) => providers.get(n) ?? []).reverse();
  return waves.map((w) => w.map((n) => envs.find((e) => e.service === n)!));
}

async function removeOne(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace | undefined,
  e: Environment,
  deployments: Deployments | undefined,
): Promise<Removal> {
  const svc = payload.services[e.service]!;
  const deploy = svc.deploy;
  if (!deploy?.teardown || !ws) {
    if (e.processMark) endMarked(e.processMark);
    await deployments?.deactivate(e);
    return { env: e, ok: true, tries: 0, note: 'no `teardown` command: nothing to run' };
  }
  const { teardown, timeoutMinutes } = deploy;
  let dir: string;
  try {
    dir = serviceDir(ws, svc.repo, svc.path).dir;
  } catch (err) {
    return { env: e, ok: false, tries: 0, note: (err as Error).message };
  }
  const setupFailed = await serviceSetup(ctx, payload, ws, e.service, dir);
  if (setupFailed) return { env: e, ok: false, tries: 0, note: setupFailed };
  const env = serviceEnvironment(ctx, payload, ws, { repo: svc.repo, service: e.service, envId: e.envId }, e.url ? { CONVEYOR_ENV_URL: e.url } : {});
  for (let tries = 1; ; tries++) {
    if (tries > 1) await new Promise((r) => setTimeout(r, backoffMs(tries - 1)));
    ctx.log.info(`teardown ${e.service} (${e.envId}), try ${tries}: ${teardown}`);
    const r = await runUserCommand(ctx, {
      command: teardown,
      cwd: dir,
      env,
      timeoutMinutes,
      linePrefix: `  ${e.service} | `,
      sandbox: serviceIsolation(payload, ws, [e.service], { env: ctx.env }),
    });
    if (r.exitCode === 0 && !r.timedOut) {
      // Whatever its deploy left running on this runner ends with it, however the teardown command went about it.
      if (e.processMark) endMarked(e.processMark);
      await deployments?.deactivate(e);
      return { env: e, ok: true, tries, note: tries > 1 ? `removed on try ${tries}` : 'removed' };
    }
    if (tries > MAX_TEARDOWN_RETRIES) {
      const note = r.timedOut ? `timed out after ${timeoutMinutes} min` : `exited with ${r.exitCode ?? `signal ${r.signal ?? '?'}`}`;
      return { env: e, ok: false, tries, note, output: tail(r.output, 20, 2000) };
    }
  }
}

function teardownResult(payload: StepPayload, removals: Removal[], deployments: Deployments | undefined): StepResult {
  const rows = removals.map((r) => `| ${r.env.service} | \`${r.env.envId}\` | ${r.ok ? 'removed' : '**still up**'} | ${r.tries} | ${r.note} |`);
  const table = ['| service | environment | result | tries | note |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
  const failed = removals.filter((r) => !r.ok);
  const tails = failed.filter((r) => r.output).map((r) => `### ${r.env.service}: ${r.note}\n\n${fenced(r.output!)}`);
  const notes = deploymentNotes(deployments);
  const environments = removals.filter((r) => r.ok).map((r) => r.env);
  if (failed.length === 0) {
    return {
      ...baseResult(payload),
      conclusion: 'success',
      summary: [`Teardown: removed ${environments.length} environment${environments.length === 1 ? '' : 's'}.`, table, ...notes].join('\n\n'),
      environments,
    };
  }
  const message = `could not remove ${failed.map((r) => `${r.env.service} (${r.env.envId}: ${r.note})`).join(', ')}`;
  return {
    ...baseResult(payload),
    conclusion: 'failure',
    summary: [`**Teardown failed: ${message}.**`, table, ...tails, ...notes].join('\n\n'),
    environments,
    error: { code: 'teardown-failed', message },
  };
}
