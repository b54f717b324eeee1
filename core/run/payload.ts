// What the app sends to the action for one step attempt, derived from the run alone, so that a
// re-dispatch after a crash sends exactly what the first dispatch would have sent.
import type { Plan } from '../plan/types.ts';
import type { Run } from './types.ts';
import type { AttemptRef } from '../contract/attempt-ref.ts';
import { findRecord } from './draft.ts';
import { stepUsage, usageSoFar } from './usage.ts';
import { protectOf } from '../config/protect.ts';
import { WIRE_VERSION, type Environment, type PayloadRepo, type StepPayload } from '../contract/wire.ts';
import { environmentsSeenBy } from '../plan/environments.ts';

/** The branch the run works on in every repository of its change set. */
export function workBranch(primaryRepo: string, issue: number): string {
  const name = primaryRepo.split('/')[1] ?? primaryRepo;
  return `conveyor/${name}-${issue}`;
}

/** Agents a step may run: its own, its repair agent and a gate author. */
function agentsOf(plan: Plan, stepId: string): string[] {
  const step = plan.steps.find((s) => s.id === stepId);
  if (!step) return [];
  const names: string[] = [];
  if ('agent' in step) names.push(step.agent);
  if ('repair' in step && step.repair) names.push(step.repair.agent);
  if (step.kind === 'gate' && step.author) names.push(step.author);
  // A merge step's repair (resolving a conflict with the base) is the coder's work.
  const coder = step.kind === 'merge' ? coderOf(plan) : undefined;
  if (coder) names.push(coder.agent);
  return names;
}

/**
 * The code step's agent (the first code step in plan order): review independence judges against it
 * (its configured model and, with a run, the models its attempts reported using), and it repairs a
 * merge conflict.
 */
function coderOf(plan: Plan, run?: Run): StepPayload['coder'] {
  const code = plan.steps.find((s) => s.kind === 'code');
  if (!code || code.kind !== 'code') return undefined;
  const models = run ? stepUsage(run.steps[code.id])?.models : undefined;
  return {
    agent: code.agent,
    model: plan.agents[code.agent]?.model,
    ...(models?.length ? { models } : {}),
    ...(code.writes.length > 0 ? { writes: code.writes } : {}),
  };
}

export function payloadRepos(run: Run): PayloadRepo[] {
  const branch = workBranch(primaryRepo(run.plan), run.issue.number);
  return run.plan.changeSet.map((r) => {
    const pr = run.prs.find((p) => p.repo === r.repo);
    return { repo: r.repo, role: r.role, services: r.services, base: r.base, workBranch: branch, ...(pr ? { pr } : {}) };
  });
}

export function primaryRepo(plan: Plan): string {
  const primary = plan.changeSet.find((r) => r.role === 'primary');
  if (!primary) throw new Error(`plan of pipeline ${plan.pipeline} has no primary repository`);
  return primary.repo;
}

/** The attempt (its run is the one the payload is built from), and for a teardown the environments to remove. */
export type PayloadRequest = Omit<AttemptRef, 'runId'> & { environments?: Environment[] };

export function buildPayload(run: Run, request: PayloadRequest): StepPayload {
  const plan = run.plan;
  const step = plan.steps.find((s) => s.id === request.step);
  if (!step) throw new Error(`run ${run.id} has no step ${request.step}`);
  const names = new Set(agentsOf(plan, step.id));
  const agents = Object.fromEntries(Object.entries(plan.agents).filter(([n]) => names.has(n)));
  // The reducer decided what a repair addresses when it dispatched it, and kept it on the attempt
  // (a re-dispatch after a loss carries it on): read it back rather than deriving it again.
  const findings = request.mode === 'repair' ? findingsOfAttempt(run, step.id, request.attempt, request.epoch) : undefined;
  return {
    version: WIRE_VERSION,
    runId: run.id,
    pipeline: plan.pipeline,
    planHash: plan.hash,
    issue: run.issue,
    ...(run.requester ? { requester: run.requester } : {}),
    service: plan.service,
    mode: request.mode,
    step,
    attempt: request.attempt,
    epoch: request.epoch,
    agents,
    services: plan.services,
    repos: payloadRepos(run),
    ...(findings ? { findings } : {}),
    // A deploy resumes from the outcomes already settled; a teardown names what to remove; a step
    // after a deploy runs against what it stood up.
    environments: request.environments ?? (step.kind === 'deploy' ? run.environments : seenEnvironments(run, step.id)),
    coder: coderOf(plan, run),
    ...(plan.sandbox ? { sandbox: plan.sandbox } : {}),
    ...(plan.commits ? { commits: plan.commits } : {}),
    ...byNameOf(plan),
    // For its check run to show beside its own usage (a teardown runs no agent).
    ...(request.mode === 'teardown' ? {} : usageSoFar(run, step.id)),
    ...protectOfAttempt(run, step.kind, request.mode),
  };
}

/** The attempts that may push (a code step's, every repair) report what they leave in protected paths. */
function protectOfAttempt(run: Run, kind: string, mode: string): Pick<StepPayload, 'protect'> {
  if (kind !== 'code' && mode !== 'repair') return {};
  const patterns = protectOf(run.plan);
  if (patterns.length === 0) return {};
  const known = Object.fromEntries((run.protectedPaths ?? []).map((r) => [r.repo, r.paths]));
  return { protect: { patterns: [...patterns], known } };
}

/** The variables any command of the plan is given by name; written only when there are some. */
function byNameOf(plan: Plan): { byName?: string[] } {
  const names = [...new Set([...Object.values(plan.agents), ...Object.values(plan.services)].flatMap((x) => x.secrets ?? []))].sort();
  return names.length ? { byName: names } : {};
}

/** What the reducer asked this attempt of a repair to address (see Draft.dispatch). */
function findingsOfAttempt(run: Run, stepId: string, attempt: number, epoch: number): string | undefined {
  const s = run.steps[stepId];
  return s ? findRecord(s, attempt, epoch)?.findings : undefined;
}

/**
 * The ready environments of the deploys a step needs (core/plan/environments.ts), as much of each
 * as its commands are told: where it is and what it was deployed from, not the deploy's
 * bookkeeping (its output, processes, GitHub Deployment).
 */
function seenEnvironments(run: Run, stepId: string): Environment[] {
  const services = environmentsSeenBy(run.plan, stepId);
  return services.flatMap((service) => {
    const e = run.environments.find((x) => x.service === service);
    if (e?.state !== 'ready' || !e.url) return [];
    return [{ service: e.service, envId: e.envId, state: e.state, url: e.url, ...(e.commit ? { commit: e.commit } : {}) }];
  });
}
