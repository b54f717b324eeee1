// Rules that span the file: names that must refer to something, cycles, unique ids and labels,
// and combinations of keys. They read the data defensively, so they also run on a file that failed
// the schema and report its other mistakes in the same pass.
import { describeCycle, findCycle } from '../graph.ts';
import { CI_STEP_ID, labelOf, needsOf } from './defaults.ts';
import type { ConfigProblem } from './issues.ts';
import type { PathSegment } from './locate.ts';
import type { Config } from './schema.ts';
import type { Names, Obj } from './names.ts';
import { obj, relativePathProblem, str, strings, unknownName } from './names.ts';
import { validateSteps } from './validate-steps.ts';
import { validateAgents, validateSecrets } from './validate-agents.ts';

export type { ConfigProblem } from './issues.ts';

/**
 * Every cross-reference problem of a configuration, whether or not it passed the schema (loadConfig
 * gives them positions and sorts them into file order).
 */
export function validateConfig(config: Config | unknown): ConfigProblem[] {
  const root = obj(config);
  if (!root) return [];
  const problems: ConfigProblem[] = [];
  const agents = Object.keys(obj(root.agents) ?? {});
  const services = obj(root.services) ?? {};
  const serviceNames = Object.keys(services);
  const pipelines = obj(root.pipelines) ?? {};

  if (obj(root.services) && serviceNames.length === 0) {
    problems.push({ path: ['services'], message: 'no services: declare at least one service (the repository a pipeline works on)' });
  }
  if (obj(root.pipelines) && Object.keys(pipelines).length === 0) {
    problems.push({ path: ['pipelines'], message: 'no pipelines: declare at least one, e.g. `default`' });
  }
  validateAgents(obj(root.agents) ?? {}, problems);
  validateServices(services, serviceNames, problems);

  const stepsByPipeline = new Map<string, Set<string>>();
  for (const [name, p] of Object.entries(pipelines)) {
    const steps = Array.isArray(obj(p)?.steps) ? (obj(p)!.steps as unknown[]) : [];
    stepsByPipeline.set(name, new Set(steps.map((s) => str(obj(s)?.id)).filter((id): id is string => id !== undefined)));
  }
  const names: Names = { agents, agentSet: new Set(agents), services, serviceNames, stepsByPipeline };
  const labels = new Map<string, string>();
  for (const [name, raw] of Object.entries(pipelines)) {
    const pipeline = obj(raw);
    if (!pipeline) continue;
    const at: PathSegment[] = ['pipelines', name];
    const label = labelOf(name, str(pipeline.label));
    const first = labels.get(label);
    if (first === undefined) labels.set(label, name);
    else {
      const written = 'label' in pipeline;
      problems.push({
        path: written ? [...at, 'label'] : at,
        at: written ? 'value' : 'key',
        message: written
          ? `label "${label}" is already the label of pipeline "${first}"; each pipeline needs its own label`
          : `the default label of this pipeline, "${label}", is already the label of pipeline "${first}"; set a different label`,
      });
    }
    validatePipeline(name, pipeline, names, problems);
  }
  return problems;
}

function validateServices(services: Obj, serviceNames: string[], problems: ConfigProblem[]): void {
  for (const [name, raw] of Object.entries(services)) {
    const service = obj(raw);
    if (!service) continue;
    const at: PathSegment[] = ['services', name];
    const path = str(service.path);
    if (path !== undefined) {
      const bad = relativePathProblem(path);
      if (bad) problems.push({ path: [...at, 'path'], message: bad });
    }
    validateSecrets(service.secrets, [...at, 'secrets'], problems);
    const seen = new Set<string>();
    for (const [provider, i] of strings(service['depends-on'])) {
      const p: PathSegment[] = [...at, 'depends-on', i];
      if (!(provider in services)) problems.push({ path: p, message: unknownName('service', provider, serviceNames) });
      else if (seen.has(provider)) problems.push({ path: p, message: `"${provider}" is listed twice` });
      seen.add(provider);
    }
  }
  const dependsOn = (s: string): string[] => strings(obj(services[s])?.['depends-on']).map(([d]) => d);
  for (const cycle of cycles(serviceNames, dependsOn)) {
    const [from, to] = cycle as [string, string];
    const i = strings(obj(services[from])?.['depends-on']).find(([d]) => d === to)?.[1] ?? 0;
    problems.push({
      path: ['services', from, 'depends-on', i],
      message: `depends-on forms a cycle: ${describeCycle(cycle)}; a provider cannot consume its consumer`,
    });
  }
}

/**
 * Every independent cycle, not only the first: once a cycle is named, its first edge is set aside
 * and the search goes on, so two separate mistakes are two errors. Bounded, as a guard.
 */
export function cycles(nodes: readonly string[], deps: (node: string) => readonly string[], limit = 20): string[][] {
  const cut = new Set<string>();
  const found: string[][] = [];
  const remaining = (node: string): string[] => deps(node).filter((d) => !cut.has(`${node}\0${d}`));
  for (let cycle = findCycle(nodes, remaining); cycle && found.length < limit; cycle = findCycle(nodes, remaining)) {
    found.push(cycle);
    cut.add(`${cycle[0]}\0${cycle[1]}`);
  }
  return found;
}

function validatePipeline(name: string, pipeline: Obj, names: Names, problems: ConfigProblem[]): void {
  const at: PathSegment[] = ['pipelines', name];
  const { services, serviceNames } = names;
  let own = str(pipeline.service);
  if (own !== undefined && !(own in services)) {
    problems.push({ path: [...at, 'service'], message: unknownName('service', own, serviceNames) });
    own = undefined;
  } else if (own === undefined && !('service' in pipeline)) {
    if (serviceNames.length === 1) own = serviceNames[0];
    else if (serviceNames.length > 1) {
      problems.push({
        path: [...at, 'service'],
        message: `missing key "service": with ${serviceNames.length} services (${serviceNames.join(', ')}), name the pipeline's own service`,
      });
    }
  }
  const changeSet = new Set<string>(own === undefined ? [] : [own]);
  for (const [service, i] of strings(pipeline.involves)) {
    const p: PathSegment[] = [...at, 'involves', i];
    if (!(service in services)) problems.push({ path: p, message: unknownName('service', service, serviceNames) });
    else if (service === own) problems.push({ path: p, message: `"${service}" is the pipeline's own service already; remove it from involves` });
    else if (changeSet.has(service)) problems.push({ path: p, message: `"${service}" is listed twice` });
    changeSet.add(service);
  }
  validateCi(at, pipeline, names, problems);
  if (!Array.isArray(pipeline.steps)) return;
  const steps = pipeline.steps as unknown[];
  validateSteps({ name, steps, changeSet, ownKnown: own !== undefined }, names, problems);
  validateNeedsCycle(at, steps, problems);
}

/** `ci`: its repair agent exists, and no written step takes the id its step compiles to. */
function validateCi(at: PathSegment[], pipeline: Obj, names: Names, problems: ConfigProblem[]): void {
  const ci = obj(pipeline.ci);
  if (!ci) return;
  const agent = str(obj(ci.repair)?.agent);
  if (agent !== undefined && !names.agentSet.has(agent))
    problems.push({ path: [...at, 'ci', 'repair', 'agent'], message: unknownName('agent', agent, names.agents) });
  const steps = Array.isArray(pipeline.steps) ? (pipeline.steps as unknown[]) : [];
  const taken = steps.findIndex((s) => str(obj(s)?.id) === CI_STEP_ID);
  if (taken >= 0) {
    problems.push({
      path: [...at, 'steps', taken, 'id'],
      message: `step id "${CI_STEP_ID}" is the id of the step the pipeline's \`ci\` compiles to (it waits for the required checks); give this step another id`,
    });
  }
}

function validateNeedsCycle(at: PathSegment[], steps: unknown[], problems: ConfigProblem[]): void {
  // Steps as the defaults see them: a step without `needs` waits for the one before it.
  const shaped = steps.map((s, i) => {
    const step = obj(s);
    const needs = step && Array.isArray(step.needs) ? strings(step.needs).map(([n]) => n) : undefined;
    return { id: str(step?.id) ?? `#${i}`, needs };
  });
  const byId = new Map<string, number>();
  shaped.forEach((s, i) => {
    if (!byId.has(s.id)) byId.set(s.id, i);
  });
  const deps = (id: string): string[] => needsOf(shaped, byId.get(id)!);
  for (const found of cycles([...byId.keys()], deps)) {
    // Start the cycle at a step whose `needs` is written: that is where the user can break it.
    // There is always one, since implicit edges only point backwards.
    const ring = found.slice(0, -1);
    const k = Math.max(
      0,
      ring.findIndex((id) => shaped[byId.get(id)!]!.needs !== undefined),
    );
    const cycle = [...ring.slice(k), ...ring.slice(0, k), ring[k]!];
    const [from, to] = cycle as [string, string];
    const index = byId.get(from)!;
    const notes = ring.filter((id) => shaped[byId.get(id)!]!.needs === undefined).map((id) => `"${id}" has no needs, so it waits for the step before it`);
    const entry = strings(obj(steps[index])?.needs).find(([n]) => n === to)?.[1];
    problems.push({
      path: entry === undefined ? [...at, 'steps', index] : [...at, 'steps', index, 'needs', entry],
      message: `needs forms a cycle: ${describeCycle(cycle)}${notes.length ? ` (${notes.join('; ')})` : ''}`,
    });
  }
}
