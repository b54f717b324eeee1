// The `deploy` step: preview environments for the own service and the involved services, each
// started as soon as its own providers have settled (so the fan-out takes the time of its longest
// provider chain), each told the URLs of its ready providers. Every outcome is appended to
// $CONVEYOR_PROGRESS_PATH as it settles, so a re-dispatch after a lost runner deploys only what
// had not settled.
import { safeLinkTarget } from '../../../core/text.ts';
import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  deployKey,
  envIdFor,
  keptOutcomes,
  peerVariables,
  planDeploy,
  startable,
  type DeployPlan,
  type DeployTarget,
} from '../../../core/steps/deploy-plan.ts';
import { ConveyorError } from '../../../core/errors.ts';
import type { Environment, PayloadRepo, StepPayload, StepResult } from '../../../core/contract/wire.ts';
import { identityVariables } from '../variables.ts';
import { openExchange, type Exchange } from '../exchange.ts';
import { prepareStepWorkspace, runUserCommand, safeEnvironment, secretsFor, type StepContext } from '../context.ts';
import { trySetup } from '../setup.ts';
import { baseResult } from '../result.ts';
import { fenced, tail } from '../summary.ts';
import type { Workspace, WorkspaceRepo } from '../workspace.ts';
import { deploymentsFor, deploymentNotes, type Deployments } from './deployments.ts';
import { endMarked } from '../../../lib/sandbox.ts';
import { serviceIsolation } from '../sandbox.ts';

/** The repositories holding `services`: the change set's entries, or the service's base for one outside it. */
export function reposOf(payload: StepPayload, services: readonly string[]): PayloadRepo[] {
  const out: PayloadRepo[] = [];
  const workBranch = payload.repos[0]!.workBranch;
  for (const name of services) {
    const svc = payload.services[name];
    if (!svc) throw new ConveyorError('bad-payload', `services.${name}: the payload does not describe service "${name}"`);
    if (out.some((r) => r.repo === svc.repo)) continue;
    out.push(payload.repos.find((r) => r.repo === svc.repo) ?? { repo: svc.repo, role: 'sibling', services: [name], base: svc.base, workBranch });
  }
  return out;
}

/** The own service: the payload names it; older payloads leave it to the primary repository's only service. */
function ownService(payload: StepPayload): string | undefined {
  if (payload.service) return payload.service;
  const primary = payload.repos.find((r) => r.role === 'primary');
  return primary?.services.length === 1 ? primary.services[0] : undefined;
}

/** The folder a service's commands run in: its checkout, or its `path` inside it. */
export function serviceDir(ws: Workspace, repo: string, path: string | undefined): { repo: WorkspaceRepo; dir: string } {
  const r = ws.repos.find((x) => x.repo === repo);
  if (!r) throw new ConveyorError('internal', `repository ${repo} was not checked out`);
  const dir = path ? join(r.dir, path) : r.dir;
  if (!existsSync(dir)) throw new ConveyorError('bad-input', `path "${path}" does not exist in ${repo} (branch ${r.checkedOut})`);
  return { repo: r, dir };
}

/**
 * The environment of a service's deploy or teardown command: the identity and the service's
 * environment, plus `extra` (the deploy's key, output and peers; the URL for a teardown).
 */
export function serviceEnvironment(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  target: { repo: string; service: string; envId: string },
  extra: Record<string, string>,
): Record<string, string> {
  return safeEnvironment(ctx, {
    ...secretsFor(ctx, payload.services[target.service]?.secrets ?? [], `service "${target.service}"`),
    ...identityVariables(payload),
    CONVEYOR_WORKSPACE: ws.root,
    CONVEYOR_REPO: target.repo,
    CONVEYOR_SERVICE: target.service,
    CONVEYOR_ENV_ID: target.envId,
    ...extra,
  });
}

/** The service's `setup` before its deploy or teardown; why it failed, or undefined. */
export function serviceSetup(ctx: StepContext, payload: StepPayload, ws: Workspace, service: string, cwd: string): Promise<string | undefined> {
  const svc = payload.services[service];
  if (!svc?.setup) return Promise.resolve(undefined);
  return trySetup(ctx, payload, {
    who: `service "${service}"`,
    command: svc.setup,
    timeoutMinutes: svc.setupTimeoutMinutes,
    cwd,
    workspace: ws.root,
    isolation: serviceIsolation(payload, ws, [service], { env: ctx.env }),
    extra: { CONVEYOR_REPO: svc.repo, CONVEYOR_SERVICE: service },
  });
}

interface Settled {
  env: Environment;
  kept: boolean;
  startedAt?: number;
  durationMs?: number;
  /** Providers it started without (they failed or stood up nothing). */
  without: string[];
  /** Its setup failed: its deploy never ran. */
  setupFailed?: boolean;
}

export async function runDeploy(ctx: StepContext, payload: StepPayload): Promise<StepResult> {
  const step = payload.step;
  if (step.kind !== 'deploy') throw new ConveyorError('internal', `runDeploy got a ${step.kind} step`);
  const own = ownService(payload);
  const plan = planDeploy({
    runId: payload.runId,
    services: payload.services,
    stepServices: step.services,
    changeSetServices: payload.repos.flatMap((r) => r.services),
    ...(own ? { own } : {}),
  });
  if (plan.targets.length === 0 && plan.skipped.length === 0) {
    return {
      ...baseResult(payload),
      conclusion: 'success',
      summary: `Deploy \`${step.id}\`: no service of the change set declares \`deploy\`; nothing to stand up.`,
    };
  }
  // The workspace stays: a preview may run from its checkout after this process ends.
  const ws = await prepareStepWorkspace(
    ctx,
    reposOf(
      payload,
      plan.targets.map((t) => t.service),
    ),
    'checkout',
  );
  const headOf = (service: string) => ws.repos.find((r) => r.repo === payload.services[service]?.repo)?.preparedHead;
  const settled = new Map<string, Settled>();
  for (const [service, env] of keptOutcomes(plan, payload.environments, { epoch: payload.epoch, headOf })) {
    settled.set(service, { env, kept: true, without: [] });
  }
  const record = progressRecorder(ctx, payload);
  for (const service of plan.skipped) {
    if (settled.has(service)) continue;
    const env: Environment = { service, envId: envIdFor(payload.runId, service), state: 'skipped' };
    settled.set(service, { env, kept: false, without: [] });
    await record(env);
  }
  const deployments = await deploymentsFor(ctx);
  const ownFailed = () => plan.own !== undefined && settled.get(plan.own)?.env.state === 'failed';

  const started = new Set<string>();
  const running = new Map<string, Promise<void>>();
  for (;;) {
    const envs = new Map([...settled].map(([k, v]) => [k, v.env]));
    for (const t of startable(plan, envs, started, ownFailed())) {
      started.add(t.service);
      running.set(
        t.service,
        deployOne(ctx, payload, ws, t, settled, deployments).then(async (s) => {
          settled.set(t.service, s);
          running.delete(t.service);
          await record(s.env);
        }),
      );
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  return deployResult(payload, plan, settled, deployments);
}

async function deployOne(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  t: DeployTarget,
  settled: ReadonlyMap<string, Settled>,
  deployments: Deployments | undefined,
): Promise<Settled> {
  const startedAt = Date.now();
  const ready = t.providers.flatMap((p) => {
    const env = settled.get(p)?.env;
    return env?.state === 'ready' && env.url ? [{ service: p, url: env.url }] : [];
  });
  const without = t.providers.filter((p) => !ready.some((r) => r.service === p));
  let where: { repo: WorkspaceRepo; dir: string };
  try {
    where = serviceDir(ws, t.repo, t.path);
  } catch (e) {
    return { env: { service: t.service, envId: t.envId, state: 'failed', error: (e as Error).message }, kept: false, startedAt, durationMs: 0, without };
  }
  const commit = where.repo.preparedHead;
  const setupFailed = await serviceSetup(ctx, payload, ws, t.service, where.dir);
  if (setupFailed) {
    ctx.log.warn(`${t.service}: failed (${setupFailed})`);
    return {
      env: { service: t.service, envId: t.envId, state: 'failed', error: setupFailed, commit },
      kept: false,
      startedAt,
      durationMs: Date.now() - startedAt,
      without,
      setupFailed: true,
    };
  }
  // Its output file in a folder of its own: read back as data, a link there refused.
  const exchange = await openExchange(`deploy-${t.service}`);
  try {
    return await deployIn(ctx, payload, ws, t, { where, commit, ready, without, startedAt, deployments, exchange });
  } finally {
    await exchange.remove();
  }
}

async function deployIn(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  t: DeployTarget,
  o: {
    where: { repo: WorkspaceRepo; dir: string };
    commit: string;
    ready: { service: string; url: string }[];
    without: string[];
    startedAt: number;
    deployments: Deployments | undefined;
    exchange: Exchange;
  },
): Promise<Settled> {
  const { where, commit, ready, without, startedAt, deployments } = o;
  const output = await o.exchange.write('output', '');
  const deployment = await deployments?.start({ repo: t.repo, ref: commit, envId: t.envId, service: t.service });
  const env = serviceEnvironment(ctx, payload, ws, t, {
    CONVEYOR_DEPLOY_KEY: deployKey(payload.runId, t.service, payload.attempt, payload.epoch),
    CONVEYOR_OUTPUT: output,
    ...peerVariables(ready),
  });
  ctx.log.info(`deploy ${t.service} (${t.envId}) in ${where.dir}${without.length ? `, without ${without.join(', ')}` : ''}: ${t.deploy.run}`);
  // Deployed again, the environment's earlier processes (on this runner) make way for the new ones.
  const earlier = payload.environments.find((e) => e.service === t.service)?.processMark;
  if (earlier) endMarked(earlier);
  const r = await runUserCommand(ctx, {
    command: t.deploy.run,
    cwd: where.dir,
    env,
    timeoutMinutes: t.deploy.timeoutMinutes,
    linePrefix: `  ${t.service} | `,
    sandbox: serviceIsolation(payload, ws, [t.service], { keep: true, also: [o.exchange.dir], env: ctx.env }),
  });
  const base = { service: t.service, envId: t.envId, commit, ...(deployment ? { deployment } : {}) };
  const outputTail = tail(r.output, 20, 2000);
  let outcome: Environment;
  if (r.timedOut) outcome = { ...base, state: 'failed', error: `timed out after ${t.deploy.timeoutMinutes} min`, outputTail };
  else if (r.exitCode !== 0) outcome = { ...base, state: 'failed', error: `exited with ${r.exitCode ?? `signal ${r.signal ?? '?'}`}`, outputTail };
  else outcome = await reportedOutcome(ctx, o.exchange, t.service, base, outputTail);
  // What a deploy leaves running is its environment's, ended by its teardown; a failed one has none.
  if (outcome.state === 'ready') outcome.processMark = r.mark;
  else endMarked(r.mark);
  await deployments?.finish(deployment, outcome);
  ctx.log.info(`${t.service}: ${outcome.state}${outcome.url ? ` ${outcome.url}` : ''}${outcome.error ? ` (${outcome.error})` : ''}`);
  return { env: outcome, kept: false, startedAt, durationMs: r.durationMs, without };
}

/** What a deploy that exited 0 reported: ready at the URL it wrote to $CONVEYOR_OUTPUT, or failed saying what is wrong with it. */
async function reportedOutcome(
  ctx: StepContext,
  exchange: Exchange,
  service: string,
  base: Pick<Environment, 'service' | 'envId' | 'commit' | 'deployment'>,
  outputTail: string,
): Promise<Environment> {
  let written: string | undefined;
  try {
    written = await exchange.read('output', `what the deploy of ${service} wrote to $CONVEYOR_OUTPUT`);
  } catch (e) {
    if (e instanceof ConveyorError) return { ...base, state: 'failed', error: e.message, outputTail };
    throw e;
  }
  const url = written === undefined ? undefined : reportedUrl(written);
  if (!url) return { ...base, state: 'failed', error: 'no url reported (write url=... to $CONVEYOR_OUTPUT)', outputTail };
  if (!safeLinkTarget(url)) {
    return {
      ...base,
      state: 'failed',
      error: `reported url ${JSON.stringify(url.slice(0, 200))} is not an http(s) URL (write url=https://... to $CONVEYOR_OUTPUT)`,
      outputTail,
    };
  }
  // Kept as the command wrote it (peers receive it so); rendered only through safeLinkTarget.
  return { ...base, state: 'ready', url: ctx.scrubber.scrub(url) };
}

/** The last `url=` line of the output file, as with $GITHUB_OUTPUT. */
function reportedUrl(text: string): string | undefined {
  let url: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^\s*url\s*=\s*(.*?)\s*$/.exec(line);
    if (m && m[1]) url = m[1];
  }
  return url;
}

/** Appends each settled outcome to $CONVEYOR_PROGRESS_PATH (one JSON line), when it is set. */
function progressRecorder(ctx: StepContext, payload: StepPayload): (env: Environment) => Promise<void> {
  const path = ctx.env.CONVEYOR_PROGRESS_PATH;
  return async (env) => {
    if (!path) return;
    const line = { runId: payload.runId, step: payload.step.id, attempt: payload.attempt, epoch: payload.epoch, environment: env };
    await appendFile(path, `${JSON.stringify(line)}\n`);
  };
}

function deployResult(payload: StepPayload, plan: DeployPlan, settled: Map<string, Settled>, deployments: Deployments | undefined): StepResult {
  const order = [...plan.targets.map((t) => t.service), ...plan.skipped];
  const environments = order.flatMap((s) => (settled.has(s) ? [settled.get(s)!.env] : []));
  const first = Math.min(...[...settled.values()].flatMap((s) => (s.startedAt !== undefined ? [s.startedAt] : [])));
  const rows = order.map((s) => {
    const x = settled.get(s);
    const ownMark = s === plan.own ? ' (own)' : '';
    if (!x) return `| ${s}${ownMark} | | **not started** | the own service failed first | | |`;
    const e = x.env;
    const what = e.state === 'ready' ? (e.url ?? '') : e.state === 'failed' ? `**${e.error ?? 'failed'}**` : 'nothing to stand up (`deploy: none`)';
    const time =
      x.durationMs !== undefined && x.startedAt !== undefined ? `+${((x.startedAt - first) / 1000).toFixed(1)} s, ${(x.durationMs / 1000).toFixed(1)} s` : '';
    const notes = [x.kept ? 'kept from an earlier dispatch' : '', x.without.length ? `started without the URL of ${x.without.join(', ')}` : '']
      .filter(Boolean)
      .join('; ');
    return `| ${s}${ownMark} | \`${e.envId}\` | ${e.state} | ${what} | ${time} | ${notes} |`;
  });
  const table = ['| service | environment | state | URL or error | started, took | note |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
  const failed = environments.filter((e) => e.state === 'failed');
  const tails = failed.filter((e) => e.outputTail).map((e) => `### ${e.service}: ${e.error}\n\n${fenced(e.outputTail!)}`);
  const notes = deploymentNotes(deployments);
  const ownEnv = plan.own ? settled.get(plan.own)?.env : undefined;
  const ready = environments.filter((e) => e.state === 'ready').length;
  if (ownEnv?.state === 'failed') {
    const message = `the own service ${plan.own} failed to deploy: ${ownEnv.error ?? 'failed'}`;
    return {
      ...baseResult(payload),
      conclusion: 'failure',
      summary: [`**Deploy \`${payload.step.id}\` failed: ${message}.**`, table, ...tails, ...notes].join('\n\n'),
      environments,
      // Its setup failing is not its deploy failing: the deploy command never ran.
      error: { code: settled.get(plan.own!)?.setupFailed ? 'setup-failed' : 'deploy-failed', message },
    };
  }
  const peers = failed.length
    ? ` ${failed.length} peer${failed.length === 1 ? '' : 's'} failed (${failed.map((e) => e.service).join(', ')}); the step goes on without ${failed.length === 1 ? 'it' : 'them'}.`
    : '';
  return {
    ...baseResult(payload),
    conclusion: 'success',
    summary: [`Deploy \`${payload.step.id}\`: ${ready} environment${ready === 1 ? '' : 's'} ready.${peers}`, table, ...tails, ...notes].join('\n\n'),
    environments,
  };
}
