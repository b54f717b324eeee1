// The plan compiler: one pipeline of a validated configuration becomes the plan the engine runs.
// Every default is written out and every set-like list is put in one canonical order, so two
// files that mean the same thing compile to the same plan and therefore the same hash.
import type { CiConfig, Config, PipelineConfig, ServiceConfig, StepConfig } from '../config/schema.ts';
import { ConveyorError } from '../errors.ts';
import { hashPlan } from './hash.ts';
import { topologicalWaves } from '../graph.ts';
import { agentsOfStep, servicesOfStep } from './steps.ts';
import { PRESETS, presetSetup } from '../config/presets.ts';
import { endpointHost, isLoopbackHost, presetCredentials } from '../config/model-api.ts';
import { DEFAULT_PROTECT } from '../config/protect.ts';
import { CI_STEP_ID, type ChangeSetRepo, type Plan, type PlanStep, type ResolvedAgent, type ResolvedService } from './types.ts';
import {
  DEFAULT_AGENT_TIMEOUT_MINUTES,
  DEFAULT_ALLOW_REQUESTER,
  DEFAULT_BASE,
  DEFAULT_CI_WAIT_MINUTES,
  DEFAULT_DEPLOY_TIMEOUT_MINUTES,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MERGE_METHOD,
  DEFAULT_MIN_APPROVALS,
  DEFAULT_RUNS_ON,
  DEFAULT_SETUP_TIMEOUT_MINUTES,
  DEFAULT_STALL_MINUTES,
  DEFAULT_VENDOR_RETRIES,
  DEFAULT_STEP_TIMEOUT_MINUTES,
  defaultAgentHosts,
  labelOf,
  needsOf,
} from '../config/defaults.ts';

export interface CompileOptions {
  /** The repository holding the configuration: the default `repo` of a service. */
  primaryRepo?: string;
  /**
   * Repositories' default branches, where the caller knows them (GitHub mode reads them): the
   * `base` of a service that names none. A repository not here gets DEFAULT_BASE.
   */
  defaultBranches?: Readonly<Record<string, string>>;
}

/**
 * The repositories whose default branch the plan of `pipelineName` takes as a base: those of the
 * services it acts on that name no `base`. In file order, once each.
 */
export function reposWithoutBase(config: Config, pipelineName: string, primaryRepo: string): string[] {
  const pipeline = config.pipelines[pipelineName];
  if (!pipeline) return [];
  // As compilePlan resolves them: the change set's services, and any a gate or deploy step names.
  const named = pipeline.steps.flatMap((s) => ('services' in s ? (s.services ?? []) : 'in' in s ? (s.in ?? []) : []));
  const names = [ownServiceOf(config, pipeline), ...(pipeline.involves ?? []), ...named];
  const repos = names.flatMap((n) => {
    const service = config.services[n];
    return service && service.base === undefined ? [service.repo ?? primaryRepo] : [];
  });
  return [...new Set(repos)];
}

/** A service without `repo` and no primary repository given: only the caller knows which it is. */
export class MissingRepoError extends ConveyorError {
  readonly service: string;
  constructor(service: string) {
    super('bad-input', `service "${service}" has no \`repo\`, so it lives in the repository holding the configuration, and that repository was not given`);
    this.name = 'MissingRepoError';
    this.service = service;
  }
}

/** The pipelines of a configuration in the order written. */
export function listPipelines(config: Config): string[] {
  return Object.keys(config.pipelines);
}

/** The pipeline's own service: written, or the only service there is. */
export function ownServiceOf(config: Config, pipeline: PipelineConfig): string {
  if (pipeline.service !== undefined) return pipeline.service;
  const names = Object.keys(config.services);
  if (names.length === 1) return names[0]!;
  // Validation rejects this; reaching it means the config skipped validation.
  throw new ConveyorError('bad-input', `pipeline has no \`service\` and the configuration has ${names.length} services`);
}

/**
 * Compiles one pipeline of a validated configuration. Pure; throws a ConveyorError only for what
 * validation cannot know: a service without `repo` when the primary repository is not given.
 */
export function compilePlan(config: Config, pipelineName: string, options: CompileOptions = {}): Plan {
  const pipeline = config.pipelines[pipelineName];
  if (!pipeline) {
    throw new ConveyorError('bad-input', `no pipeline "${pipelineName}"; known: ${listPipelines(config).join(', ') || '(none)'}`);
  }
  const service = ownServiceOf(config, pipeline);
  const involves = sortedSet(pipeline.involves ?? []).filter((s) => s !== service);
  const changeSetServices = [service, ...involves];

  const deployable = changeSetServices.filter((name) => {
    const deploy = config.services[name]?.deploy;
    return deploy !== undefined && deploy !== 'none';
  });
  const written = pipeline.steps.map((s, i) => compileStep(s, needsOf(pipeline.steps, i), changeSetServices, deployable, pipeline['runs-on']));
  const steps = pipeline.ci ? withCiStep(written, pipeline.ci, pipeline['runs-on']) : written;
  const stepIds = steps.map((s) => s.id);
  const needsById = new Map(steps.map((s) => [s.id, s.needs]));
  const waves = topologicalWaves(stepIds, (id) => needsById.get(id) ?? []);

  const agents: Record<string, ResolvedAgent> = {};
  for (const name of sortedSet(steps.flatMap(agentsOfStep))) agents[name] = resolveAgent(config, name);

  // Services the plan acts on: the change set, plus any a gate or deploy step names outside it.
  const serviceNames = sortedSet([...changeSetServices, ...steps.flatMap(servicesOfStep)]);
  const services: Record<string, ResolvedService> = {};
  for (const name of serviceNames) services[name] = resolveService(config, name, options.primaryRepo, options.defaultBranches);

  const plan: Omit<Plan, 'hash'> = {
    pipeline: pipelineName,
    label: labelOf(pipelineName, pipeline.label),
    service,
    involves,
    steps,
    waves,
    agents,
    services,
    changeSet: changeSetOf(service, involves, services),
    deployWaves: deployWavesOf(changeSetServices, services),
    // Written only when required, so that plans (and their hashes) from before the key stay the same.
    ...(pipeline.sandbox === 'required' && { sandbox: 'required' as const }),
    ...(pipeline.commits === 'git' && { commits: 'git' as const }),
    ...(pipeline['budget-usd'] !== undefined && { budgetUsd: pipeline['budget-usd'] }),
    ...protectKey(pipeline.protect),
  };
  return { ...plan, hash: hashPlan(plan) };
}

/** `protect` as the plan keeps it: in written order (the first match names a file's pattern), and only when it is not the default. */
function protectKey(written: readonly string[] | undefined): { protect?: string[] } {
  if (written === undefined) return {};
  const list = [...new Set(written.map((p) => p.trim()))];
  const isDefault = list.length === DEFAULT_PROTECT.length && list.every((p, i) => p === DEFAULT_PROTECT[i]);
  return isDefault ? {} : { protect: list };
}

function compileStep(
  step: StepConfig,
  written: readonly string[],
  changeSet: readonly string[],
  deployable: readonly string[],
  pipelineRunsOn: string | string[] | undefined,
): PlanStep {
  const runsOn = step.kind === 'approval' ? undefined : runsOnOf(step['runs-on'] ?? pipelineRunsOn);
  const common = {
    id: step.id,
    // A set: `needs: [a, b]` and `needs: [b, a]` run the same.
    needs: sortedSet(written),
    timeoutMinutes: ('timeout-minutes' in step ? step['timeout-minutes'] : undefined) ?? DEFAULT_STEP_TIMEOUT_MINUTES[step.kind],
    // Part of the plan, hence of its hash, on purpose: a runner is where a gate's verdict and a
    // deploy were obtained (its OS, architecture, tools, network), so "passed on ubuntu-latest" is
    // not "passed on [self-hosted, arm64]"; a retry after `runs-on` changed shows the step as
    // changed and `/conveyor restart` reruns it there. Written only when it is not the default,
    // so plans (and hashes) from before the key, or spelling the default out, stay the same.
    ...(runsOn !== undefined && { runsOn }),
  };
  switch (step.kind) {
    case 'code':
      return { ...common, kind: 'code', agent: step.agent, writes: sortedSet(step.writes ?? []) };
    case 'gate':
      return {
        ...common,
        kind: 'gate',
        ...(step.run !== undefined && { run: step.run }),
        in: sortedSet(step.in ?? changeSet),
        ...(step.repair && { repair: resolveRepair(step.repair) }),
        ...(step.author !== undefined && { author: step.author }),
        ...(step.path !== undefined && { path: step.path }),
      };
    case 'review':
      return { ...common, kind: 'review', agent: step.agent, ...(step.repair && { repair: resolveRepair(step.repair) }) };
    case 'deploy':
      // Default: every service of the change set that has something to stand up.
      return { ...common, kind: 'deploy', services: sortedSet(step.services ?? deployable) };
    case 'approval':
      return {
        ...common,
        kind: 'approval',
        approvers: sortedSet(step.approvers ?? []),
        minApprovals: step['min-approvals'] ?? DEFAULT_MIN_APPROVALS,
        allowRequester: step['allow-requester'] ?? DEFAULT_ALLOW_REQUESTER,
      };
    case 'merge':
      return { ...common, kind: 'merge', method: step.method ?? DEFAULT_MERGE_METHOD };
  }
}

/**
 * The pipeline's `ci` as a step of its own, just before the first approval or merge, taking over
 * what that step needed (which then needs it). There, every step that writes or judges code has
 * run, so the PRs have the heads people will approve and Conveyor will merge: the required checks
 * are judged on those, and people approve only heads whose CI passed (a repair after an approval
 * would make it stale). Without an approval or merge it comes last, after every step nothing else
 * needs.
 */
function withCiStep(steps: readonly PlanStep[], ci: CiConfig, pipelineRunsOn: string | string[] | undefined): PlanStep[] {
  const at = steps.findIndex((s) => s.kind === 'approval' || s.kind === 'merge');
  const sinks = steps.filter((s) => !steps.some((o) => o.needs.includes(s.id))).map((s) => s.id);
  const runsOn = runsOnOf(pipelineRunsOn);
  const step: PlanStep = {
    id: CI_STEP_ID,
    needs: at >= 0 ? steps[at]!.needs : sortedSet(sinks),
    timeoutMinutes: ci['wait-minutes'] ?? DEFAULT_CI_WAIT_MINUTES,
    // Its repairs run on a runner, as a merge's conflict repairs do.
    ...(runsOn !== undefined && { runsOn }),
    kind: 'ci',
    ...(ci.repair && { repair: resolveRepair(ci.repair) }),
  };
  if (at < 0) return [...steps, step];
  const gated = { ...steps[at]!, needs: [CI_STEP_ID] };
  return [...steps.slice(0, at), step, gated, ...steps.slice(at + 1)];
}

/**
 * Runner labels in one form: a runner must have all of them, so a list is a set (sorted, once
 * each), and a list of one is that label.
 */
function runsOnOf(runsOn: string | string[] | undefined): string | string[] | undefined {
  if (runsOn === undefined) return undefined;
  const labels = typeof runsOn === 'string' ? [runsOn] : sortedSet(runsOn);
  if (labels.length === 1) return labels[0] === DEFAULT_RUNS_ON ? undefined : labels[0];
  return labels;
}

function resolveRepair(repair: { agent: string; 'max-attempts'?: number | undefined }): { agent: string; maxAttempts: number } {
  return { agent: repair.agent, maxAttempts: repair['max-attempts'] ?? DEFAULT_MAX_ATTEMPTS };
}

function resolveAgent(config: Config, name: string): ResolvedAgent {
  const agent = config.agents?.[name];
  if (!agent) throw new ConveyorError('bad-input', `unknown agent "${name}"`);
  const preset = agent.preset ? PRESETS[agent.preset] : undefined;
  // The agent's own setup replaces its preset's install, which installs its pinned version.
  const version = preset ? (agent.version ?? preset.version) : undefined;
  const setup = agent.setup ?? (preset ? presetSetup(preset, version) : undefined);
  const stall = agent['stall-minutes'] ?? DEFAULT_STALL_MINUTES;
  const endpoint = endpointHost({ preset: agent.preset, model: agent.model, endpoint: agent.endpoint, provider: agent.provider });
  // Never a loopback host: the proxy would open every port of the runner's loopback to the agent,
  // and the key forwarder (in the step process) is what reaches a model server there.
  const host = endpoint !== undefined && !isLoopbackHost(endpoint) ? endpoint : undefined;
  return {
    name,
    ...(agent.run !== undefined && { run: agent.run }),
    ...(agent.preset !== undefined && { preset: agent.preset }),
    ...(agent.model !== undefined && { model: agent.model }),
    // Written only when given: plans (and hashes) from before these keys stay the same.
    ...(agent.endpoint !== undefined && { endpoint: agent.endpoint }),
    ...(agent.provider !== undefined && { provider: agent.provider }),
    ...(agent['wire-api'] !== undefined && { wireApi: agent['wire-api'] }),
    timeoutMinutes: agent['timeout-minutes'] ?? DEFAULT_AGENT_TIMEOUT_MINUTES,
    ...(stall !== DEFAULT_STALL_MINUTES && { stallMinutes: stall }),
    env: sortedRecord(agent.env ?? {}),
    ...secretsOf([...(agent.secrets ?? []), ...(preset ? presetCredentials(preset.name, agent.provider) : [])]),
    ...setupOf(setup, agent['setup-timeout-minutes']),
    // The endpoint's host joins whatever the agent may reach, as its vendor's host does by default:
    // the preset points its CLI at the key forwarder, but an own `run` may call the CLI with
    // settings of its own that go there directly.
    ...networkOf([...(agent.network?.allow ?? defaultAgentHosts(agent)), ...(host ? [host] : [])]),
    ...(agent['max-usd'] !== undefined && { maxUsd: agent['max-usd'] }),
    ...(agent['vendor-retries'] !== undefined && agent['vendor-retries'] !== DEFAULT_VENDOR_RETRIES && { vendorRetries: agent['vendor-retries'] }),
    ...(version !== undefined && { version }),
  };
}

/** A setup and its timeout, each written only when there is a setup and the timeout is not the default. */
function setupOf(setup: string | undefined, timeout: number | undefined): { setup?: string; setupTimeoutMinutes?: number } {
  if (setup === undefined) return {};
  const minutes = timeout ?? DEFAULT_SETUP_TIMEOUT_MINUTES;
  return { setup, ...(minutes !== DEFAULT_SETUP_TIMEOUT_MINUTES && { setupTimeoutMinutes: minutes }) };
}

function secretsOf(names: readonly string[]): { secrets?: string[] } {
  return names.length ? { secrets: sortedSet(names) } : {};
}

function resolveService(config: Config, name: string, primaryRepo: string | undefined, defaultBranches: CompileOptions['defaultBranches']): ResolvedService {
  const service: ServiceConfig | undefined = config.services[name];
  if (!service) throw new ConveyorError('bad-input', `unknown service "${name}"`);
  const repo = service.repo ?? primaryRepo;
  if (repo === undefined) throw new MissingRepoError(name);
  const deploy = service.deploy;
  return {
    name,
    repo,
    ...(service.path !== undefined && { path: normalizePath(service.path) }),
    base: service.base ?? defaultBranches?.[repo] ?? DEFAULT_BASE,
    dependsOn: sortedSet(service['depends-on'] ?? []),
    deploy:
      deploy === undefined || deploy === 'none'
        ? null
        : {
            run: deploy.run,
            ...(deploy.teardown !== undefined && { teardown: deploy.teardown }),
            timeoutMinutes: deploy['timeout-minutes'] ?? DEFAULT_DEPLOY_TIMEOUT_MINUTES,
          },
    ...(service.gate !== undefined && { gate: service.gate }),
    ...setupOf(service.setup, service['setup-timeout-minutes']),
    ...secretsOf(service.secrets ?? []),
    // Absent is the runner's whole network; an empty list is none.
    ...(service.network && { network: { allow: sortedSet(service.network.allow.map((h) => h.toLowerCase())) } }),
    ...(service.docker === true && { docker: true as const }),
  };
}

/** An agent's allowed hosts, written only when there are some (none is the default). */
function networkOf(allow: readonly string[]): { network?: { allow: string[] } } {
  return allow.length ? { network: { allow: sortedSet(allow.map((h) => h.toLowerCase())) } } : {};
}

/** One entry per repository: the own service's is primary, the others sibling, alphabetical. */
function changeSetOf(service: string, involves: readonly string[], services: Record<string, ResolvedService>): ChangeSetRepo[] {
  const own = services[service]!;
  const byRepo = new Map<string, ChangeSetRepo>();
  byRepo.set(own.repo, { repo: own.repo, base: own.base, role: 'primary', services: [service] });
  for (const name of involves) {
    const s = services[name]!;
    const entry = byRepo.get(s.repo);
    if (entry) entry.services.push(name);
    else byRepo.set(s.repo, { repo: s.repo, base: s.base, role: 'sibling', services: [name] });
  }
  const [primary, ...siblings] = [...byRepo.values()];
  siblings.sort((a, b) => compare(a.repo, b.repo));
  return [primary!, ...siblings].map((r) => ({ ...r, services: sortedSet(r.services) }));
}

/** `depends-on` restricted to the change set: providers first, alphabetical inside a wave. */
function deployWavesOf(changeSet: readonly string[], services: Record<string, ResolvedService>): string[][] {
  return topologicalWaves(sortedSet(changeSet), (name) => services[name]?.dependsOn ?? []);
}

/** `./a/b/` and `a/b` name the same folder. */
function normalizePath(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  return parts.length === 0 ? '.' : parts.join('/');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedSet(items: readonly string[]): string[] {
  return [...new Set(items)].sort(compare);
}

function sortedRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}
