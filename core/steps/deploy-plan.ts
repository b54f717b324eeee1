// The deploy step's plan, pure: which services get an environment, which providers each waits
// for, what a re-dispatch keeps, and the names and variables each deploy command gets. The action
// runs it (action/src/steps/deploy.ts); keeping it here makes every rule testable without a process.
import { ConveyorError } from '../errors.ts';
import { sha256 } from '../canonical.ts';
import { topologicalWaves } from '../graph.ts';
import type { ResolvedDeploy, ResolvedService } from '../plan/types.ts';
import type { Environment } from '../contract/wire.ts';

export interface DeployTarget {
  service: string;
  repo: string;
  /** Monorepo folder of the service inside its repository. */
  path?: string;
  deploy: ResolvedDeploy;
  /** Targets this one waits for: its `depends-on` among the targets, also through services that
   * stand up nothing (web -> gateway (none) -> api makes web wait for api). */
  providers: string[];
  envId: string;
}

export interface DeployPlan {
  /** The task's own service: its failure fails the step. */
  own: string | undefined;
  /** Services with `deploy`, providers before consumers. */
  targets: DeployTarget[];
  /** Services without `deploy` (`deploy: none`): recorded as skipped. */
  skipped: string[];
  /** Topological levels of the targets (for people: the scheduler starts each target as soon as
   * its own providers have settled, not when a whole wave has). */
  waves: string[][];
}

export interface DeployPlanInput {
  runId: string;
  services: Record<string, ResolvedService>;
  /** The step's `services` (compiled: the change set's services that deploy, unless named). */
  stepServices: readonly string[];
  /** Services of the change set: those without `deploy` among them are recorded as skipped. */
  changeSetServices: readonly string[];
  own?: string;
}

export function planDeploy(input: DeployPlanInput): DeployPlan {
  const { services } = input;
  const names = [...new Set([...input.stepServices, ...input.changeSetServices.filter((s) => services[s]?.deploy === null)])].sort();
  for (const name of names) {
    if (!services[name]) {
      const known = Object.keys(services).sort().join(', ') || 'none';
      throw new ConveyorError('bad-payload', `step.services: service "${name}" is not in the payload's services (known: ${known})`);
    }
  }
  const deploying = names.filter((n) => services[n]?.deploy);
  const skipped = names.filter((n) => !services[n]?.deploy);
  const targetSet = new Set(deploying);
  const providersOf = (name: string): string[] => {
    // Walk `depends-on` through services that stand up nothing, stopping at the first targets.
    const found = new Set<string>();
    const seen = new Set<string>([name]);
    const stack = [...(services[name]?.dependsOn ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      if (targetSet.has(next)) found.add(next);
      else stack.push(...(services[next]?.dependsOn ?? []));
    }
    return [...found].sort();
  };
  const providers = new Map(deploying.map((n) => [n, providersOf(n)]));
  let waves: string[][];
  try {
    waves = topologicalWaves(deploying, (n) => providers.get(n) ?? []);
  } catch (e) {
    throw new ConveyorError('bad-payload', `services: the depends-on graph of the deploy targets has a ${(e as Error).message}`);
  }
  const targets = waves.flat().map((service): DeployTarget => {
    const s = services[service]!;
    return {
      service,
      repo: s.repo,
      ...(s.path ? { path: s.path } : {}),
      deploy: s.deploy!,
      providers: providers.get(service) ?? [],
      envId: envIdFor(input.runId, service),
    };
  });
  return { own: input.own, targets, skipped, waves };
}

/** Lower-case letters, digits and single dashes, trimmed of dashes. */
export function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The environment's name: stable for a run and service, a DNS label (at most 63 of [a-z0-9-],
 * starting and ending with a letter or digit). When the slug loses something (`api_v1` and
 * `api-v1` both slug to `api-v1`) or would be too long, it ends with a hash of the exact
 * (run, service), so two services of a run never share an environment.
 */
export function envIdFor(runId: string, service: string): string {
  const plain = `${runId}-${service}`;
  const full = slugOf(plain) || 'env';
  if (full === plain && full.length <= 63) return full;
  const hash = sha256(`${runId}\u0000${service}`).slice(0, 8);
  return `${full.slice(0, 63 - hash.length - 1).replace(/-+$/, '')}-${hash}`;
}

/** Idempotency key for the deploy command: run, service and the dispatch (attempt and epoch). */
export function deployKey(runId: string, service: string, attempt: number, epoch: number): string {
  return `${runId}/${service}/${attempt}.${epoch}`;
}

/**
 * CONVEYOR_PEER_URLS and CONVEYOR_PEER_<SERVICE>_URL for the ready providers, in the order given
 * (callers sort by service). Two providers whose slug (or variable name) collides are told apart
 * by -2, -3… (_2, _3… in variable names) in that order.
 */
export function peerVariables(ready: ReadonlyArray<{ service: string; url: string }>): Record<string, string> {
  return urlVariables(ready, 'CONVEYOR_PEER');
}

/**
 * What a step after a deploy is told of the environments it stood up (the ready ones with a URL):
 * CONVEYOR_ENV_URL (the task's own service), CONVEYOR_ENV_<SERVICE>_URL for each and
 * CONVEYOR_ENV_URLS (`slug=url` pairs, comma-joined), named as the peers' variables are. Nothing
 * when there is none: a step before any deploy has no such variable at all.
 */
export function environmentVariables(envs: readonly Environment[], own: string | undefined): Record<string, string> {
  const ready = envs
    .flatMap((e) => (e.state === 'ready' && e.url ? [{ service: e.service, url: e.url }] : []))
    .sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
  if (ready.length === 0) return {};
  const ownUrl = ready.find((e) => e.service === own)?.url;
  return { ...(ownUrl ? { CONVEYOR_ENV_URL: ownUrl } : {}), ...urlVariables(ready, 'CONVEYOR_ENV') };
}

/** `<prefix>_URLS` and `<prefix>_<SERVICE>_URL`, collisions told apart in the order given. */
function urlVariables(ready: ReadonlyArray<{ service: string; url: string }>, prefix: string): Record<string, string> {
  const slugs = new Set<string>();
  const vars: Record<string, string> = {};
  const pairs: string[] = [];
  for (const { service, url } of ready) {
    const slug = unique(slugOf(service) || 'service', slugs, '-');
    pairs.push(`${slug}=${url}`);
    const base = service.toUpperCase().replace(/[^A-Z0-9]/g, '_');
    let name = `${prefix}_${base}_URL`;
    for (let n = 2; name in vars; n++) name = `${prefix}_${base}_${n}_URL`;
    vars[name] = url;
  }
  return { [`${prefix}_URLS`]: pairs.join(','), ...vars };
}

function unique(name: string, taken: Set<string>, sep: string): string {
  let out = name;
  for (let n = 2; taken.has(out); n++) out = `${name}${sep}${n}`;
  taken.add(out);
  return out;
}

/**
 * What a dispatch keeps from the outcomes the payload carries. A re-dispatch of the same attempt
 * (epoch > 0, after a lost runner) keeps every settled outcome. A fresh attempt (a retry) keeps
 * only what still stands for the same source: a ready environment deployed from the commit the
 * service's checkout has now whose providers are kept too, and skips; failures are tried again.
 */
export function keptOutcomes(
  plan: DeployPlan,
  given: readonly Environment[],
  options: { epoch: number; headOf: (service: string) => string | undefined },
): Map<string, Environment> {
  const kept = new Map<string, Environment>();
  const names = new Set([...plan.targets.map((t) => t.service), ...plan.skipped]);
  for (const env of given) {
    if (!names.has(env.service)) continue;
    const target = plan.targets.find((t) => t.service === env.service);
    if (target && env.envId !== target.envId) continue;
    if (options.epoch > 0) kept.set(env.service, env);
    else if (env.state === 'skipped') kept.set(env.service, env);
    else if (env.state === 'ready' && env.commit !== undefined && env.commit === options.headOf(env.service)) kept.set(env.service, env);
  }
  if (options.epoch > 0) return kept;
  // A consumer was told its providers' URLs when it was deployed: one whose provider deploys again
  // (its code changed) deploys again too, after it. Targets come providers first.
  for (const t of plan.targets) {
    if (kept.has(t.service) && t.providers.some((p) => !kept.has(p))) kept.delete(t.service);
  }
  return kept;
}

/**
 * Targets that may start now: not started, not settled, and every provider settled. Nothing starts
 * once the own service has failed (`stopped`).
 */
export function startable(plan: DeployPlan, settled: ReadonlyMap<string, Environment>, started: ReadonlySet<string>, stopped: boolean): DeployTarget[] {
  if (stopped) return [];
  return plan.targets.filter((t) => !started.has(t.service) && !settled.has(t.service) && t.providers.every((p) => settled.has(p)));
}

/** The longest chain of durations along the providers (the floor of a parallel fan-out). */
export function criticalPath(plan: DeployPlan, durationOf: (service: string) => number): number {
  const finish = new Map<string, number>();
  for (const t of plan.targets) {
    const start = Math.max(0, ...t.providers.map((p) => finish.get(p) ?? 0));
    finish.set(t.service, start + durationOf(t.service));
  }
  return Math.max(0, ...finish.values());
}
