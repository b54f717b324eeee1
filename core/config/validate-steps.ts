// Rules of a pipeline's steps: unique ids, `needs` inside the pipeline, agents and services that
// exist and belong to the change set, and the key combinations each kind requires.
import type { ConfigProblem } from './issues.ts';
import type { PathSegment } from './locate.ts';
import type { Names, Obj } from './names.ts';
import { obj, relativePathProblem, str, strings, unknownName } from './names.ts';

export type PipelineSteps = {
  name: string;
  steps: unknown[];
  /** The own service and the involved services that exist. */
  changeSet: Set<string>;
  /** False when the own service could not be determined: change-set rules are then skipped. */
  ownKnown: boolean;
};

export function validateSteps(ctx: PipelineSteps, names: Names, problems: ConfigProblem[]): void {
  const firstIndex = new Map<string, number>();
  ctx.steps.forEach((raw, i) => {
    const step = obj(raw);
    if (!step) return;
    const at: PathSegment[] = ['pipelines', ctx.name, 'steps', i];
    const id = str(step.id);
    if (id !== undefined) {
      const first = firstIndex.get(id);
      if (first === undefined) firstIndex.set(id, i);
      else problems.push({ path: [...at, 'id'], message: `duplicate step id "${id}": steps[${first}] has it already; step ids must be unique in a pipeline` });
    }
    checkNeeds(ctx, names, step, at, problems);
    const agentRef = (key: PathSegment[], value: unknown): void => {
      const agent = str(value);
      if (agent !== undefined && !names.agentSet.has(agent)) problems.push({ path: [...at, ...key], message: unknownName('agent', agent, names.agents) });
    };
    agentRef(['repair', 'agent'], obj(step.repair)?.agent);
    switch (step.kind) {
      case 'code':
        agentRef(['agent'], step.agent);
        for (const [prefix, j] of strings(step.writes)) {
          const bad = relativePathProblem(prefix);
          if (bad) problems.push({ path: [...at, 'writes', j], message: bad });
        }
        break;
      case 'review':
        agentRef(['agent'], step.agent);
        break;
      case 'gate':
        agentRef(['author'], step.author);
        checkServiceList(ctx, names, step.in, [...at, 'in'], problems);
        checkGate(ctx, names, step, at, problems);
        break;
      case 'deploy':
        checkServiceList(ctx, names, step.services, [...at, 'services'], problems, (service) => {
          const deploy = obj(names.services[service])?.deploy;
          if (obj(deploy)) return undefined;
          return `service "${service}" has nothing to deploy (${deploy === 'none' ? 'deploy: none' : 'no deploy'}); give it a deploy command or remove it here`;
        });
        break;
    }
  });
}

function checkNeeds(ctx: PipelineSteps, names: Names, step: Obj, at: PathSegment[], problems: ConfigProblem[]): void {
  const own = names.stepsByPipeline.get(ctx.name) ?? new Set<string>();
  const seen = new Set<string>();
  for (const [need, j] of strings(step.needs)) {
    const path = [...at, 'needs', j];
    if (own.has(need)) {
      if (seen.has(need)) problems.push({ path, message: `"${need}" is listed twice` });
      seen.add(need);
      continue;
    }
    const elsewhere = [...names.stepsByPipeline].filter(([p, ids]) => p !== ctx.name && ids.has(need)).map(([p]) => p);
    problems.push({
      path,
      message:
        elsewhere.length > 0
          ? `step "${need}" belongs to pipeline "${elsewhere[0]}"; needs may only name steps of the same pipeline ("${ctx.name}")`
          : unknownName('step', need, [...own]),
    });
  }
}

function checkServiceList(
  ctx: PipelineSteps,
  names: Names,
  list: unknown,
  at: PathSegment[],
  problems: ConfigProblem[],
  extra?: (service: string) => string | undefined,
): void {
  const seen = new Set<string>();
  for (const [service, j] of strings(list)) {
    const path = [...at, j];
    if (!(service in names.services)) problems.push({ path, message: unknownName('service', service, names.serviceNames) });
    else if (seen.has(service)) problems.push({ path, message: `"${service}" is listed twice` });
    else if (ctx.ownKnown && ctx.changeSet.size > 0 && !ctx.changeSet.has(service)) {
      problems.push({
        path,
        message: `service "${service}" is not in this pipeline's change set (${[...ctx.changeSet].join(', ')}); add it to the pipeline's involves`,
      });
    } else {
      const bad = extra?.(service);
      if (bad) problems.push({ path, message: bad });
    }
    seen.add(service);
  }
}

function checkGate(ctx: PipelineSteps, names: Names, step: Obj, at: PathSegment[], problems: ConfigProblem[]): void {
  const run = str(step.run);
  const author = step.author;
  const path = str(step.path);
  if (path !== undefined) {
    const bad = relativePathProblem(path);
    if (bad) problems.push({ path: [...at, 'path'], message: bad });
  }
  if (author !== undefined) {
    if (!('path' in step)) {
      problems.push({ path: [...at, 'path'], message: 'missing key "path": a gate with an author needs the path of the gate file the author writes' });
    }
    if (!('run' in step)) {
      problems.push({ path: [...at, 'run'], message: 'missing key "run": a gate with an author needs a run that uses {path}, e.g. `npx vitest run {path}`' });
    } else if (run !== undefined && !run.includes('{path}')) {
      problems.push({
        path: [...at, 'run'],
        message: 'must use {path} (the gate file the author writes), e.g. `npx vitest run {path}`, so the gate runs that file',
      });
    }
    return;
  }
  if ('path' in step) {
    problems.push({ path: [...at, 'path'], message: 'path is only used with author (the agent that writes the gate file); add author or remove path' });
  }
  if ('run' in step) return;
  // Without `run`, each service runs its own `gate` command.
  const fleet = Array.isArray(step.in)
    ? strings(step.in)
        .map(([s]) => s)
        .filter((s) => s in names.services)
    : [...ctx.changeSet];
  const lacking = fleet.filter((s) => str(obj(names.services[s])?.gate) === undefined);
  if (lacking.length > 0) {
    problems.push({
      path: [...at, 'run'],
      message: `missing key "run": without it the gate runs each service's own gate command, and ${lacking.map((s) => `"${s}"`).join(', ')} ${lacking.length === 1 ? 'has' : 'have'} none; add run here or gate to ${lacking.length === 1 ? 'that service' : 'those services'}`,
    });
  }
}
