// The plain `gate` step: the step's `run` (or each service's own `gate`) in every repository of
// the change set, on the work branch when it exists remotely, else the base. It passes when every
// command passes; a failure carries the failing lines of each repository for the repair agent.
import { join } from 'node:path';
import { gateFindings, type GateOutcome } from '../../../core/steps/failing-lines.ts';
import { ConveyorError } from '../../../core/errors.ts';
import { code } from '../../../core/text.ts';
import { formatDuration } from '../../../core/time.ts';
import type { PlanStep } from '../../../core/plan/types.ts';
import type { StepPayload, StepResult } from '../../../core/contract/wire.ts';
import { environmentsVariables, identityVariables, reposVariable } from '../variables.ts';
import { prepareStepWorkspace, removeStepWorkspace, runUserCommand, safeEnvironment, type StepContext } from '../context.ts';
import { serviceIsolation } from '../sandbox.ts';
import { runSetup } from '../setup.ts';
import { baseResult } from '../result.ts';
import { workspaceTable } from '../summary.ts';
import type { Workspace, WorkspaceRepo } from '../workspace.ts';

type GateStep = Extract<PlanStep, { kind: 'gate' }>;

interface GateCommand {
  repo: WorkspaceRepo;
  label: string;
  command: string;
  cwd: string;
  service?: string;
}

/** The repositories a gate runs in: those holding an `in` service, or all. */
export function gateRepos(payload: StepPayload, step: GateStep): StepPayload['repos'] {
  if (step.in.length === 0) return payload.repos;
  const picked = payload.repos.filter((r) => r.services.some((s) => step.in.includes(s)));
  if (picked.length === 0) {
    const present = payload.repos.flatMap((r) => r.services).join(', ') || 'none';
    throw new ConveyorError('bad-payload', `step.in: gate ${step.id} runs in ${step.in.join(', ')}, none of which is in the change set (services: ${present})`);
  }
  return picked;
}

/** The environment of a gate command run in `repo` (for `service`'s own gate, when it is one). */
export function gateEnvironment(ctx: StepContext, payload: StepPayload, ws: Workspace, repo: string, service?: string): Record<string, string> {
  return safeEnvironment(ctx, {
    ...identityVariables(payload),
    CONVEYOR_WORKSPACE: ws.root,
    CONVEYOR_REPOS: reposVariable(payload, ws),
    CONVEYOR_REPO: repo,
    ...(service ? { CONVEYOR_SERVICE: service } : {}),
    ...environmentsVariables(payload),
  });
}

function commandsFor(payload: StepPayload, step: GateStep, repo: WorkspaceRepo): GateCommand[] {
  if (step.run) return [{ repo, label: repo.repo, command: step.run, cwd: repo.dir }];
  const services = step.in.length ? repo.services.filter((s) => step.in.includes(s)) : repo.services;
  return services.flatMap((s) => {
    const svc = payload.services[s];
    if (!svc?.gate) return [];
    return [{ repo, label: `${repo.repo} (${s})`, command: svc.gate, cwd: svc.path ? join(repo.dir, svc.path) : repo.dir, service: s }];
  });
}

/** The services of the fleet that declare `setup`, each with the folder it runs in. */
function servicesToSetUp(
  payload: StepPayload,
  step: GateStep,
  repos: readonly { repo: string; dir: string; services: string[] }[],
): { service: string; repo: string; cwd: string; setup: string; timeoutMinutes: number | undefined }[] {
  return repos.flatMap((r) =>
    (step.in.length ? r.services.filter((s) => step.in.includes(s)) : r.services).flatMap((service) => {
      const svc = payload.services[service];
      if (!svc?.setup) return [];
      return [{ service, repo: r.repo, cwd: svc.path ? join(r.dir, svc.path) : r.dir, setup: svc.setup, timeoutMinutes: svc.setupTimeoutMinutes }];
    }),
  );
}

/** Runs the `setup` of each service of `repos` the gate covers, in its folder (`where` says which checkout, for the log). */
export async function setUpServices(
  ctx: StepContext,
  payload: StepPayload,
  step: GateStep,
  workspace: Workspace,
  repos: readonly { repo: string; dir: string; services: string[] }[],
  where = '',
  /** Folders besides the workspace the setup may write (an author gate's checkout of the base). */
  extraWritable: readonly string[] = [],
): Promise<void> {
  for (const x of servicesToSetUp(payload, step, repos)) {
    await runSetup(ctx, payload, {
      who: `service "${x.service}"${where}`,
      command: x.setup,
      timeoutMinutes: x.timeoutMinutes,
      cwd: x.cwd,
      workspace: workspace.root,
      isolation: serviceIsolation(payload, workspace, [x.service], { env: ctx.env, also: extraWritable }),
      extra: { CONVEYOR_REPO: x.repo, CONVEYOR_SERVICE: x.service },
    });
  }
}

export async function runGate(ctx: StepContext, payload: StepPayload): Promise<StepResult> {
  const step = payload.step;
  if (step.kind !== 'gate') throw new ConveyorError('internal', `runGate got a ${step.kind} step`);
  const repos = gateRepos(payload, step);
  const ws = await prepareStepWorkspace(ctx, repos, 'checkout');
  try {
    const commands = ws.repos.flatMap((r) => commandsFor(payload, step, r));
    if (commands.length === 0) {
      throw new ConveyorError(
        'bad-payload',
        `step.run: gate ${step.id} has no \`run\` and no service of ${ws.repos.map((r) => r.repo).join(', ')} declares \`gate\``,
      );
    }
    // Each service's setup (e.g. `npm ci`) in its folder, once, before any gate runs there.
    await setUpServices(ctx, payload, step, ws, ws.repos);
    const outcomes: (GateOutcome & { durationMs: number })[] = [];
    for (const c of commands) {
      const env = gateEnvironment(ctx, payload, ws, c.repo.repo, c.service);
      ctx.log.info(`gate ${step.id} in ${c.label}: ${c.command}`);
      const r = await runUserCommand(ctx, {
        command: c.command,
        cwd: c.cwd,
        env,
        timeoutMinutes: step.timeoutMinutes,
        sandbox: serviceIsolation(payload, ws, c.service ? [c.service] : c.repo.services, { env: ctx.env }),
      });
      outcomes.push({
        repo: c.label,
        command: c.command,
        exitCode: r.timedOut ? null : r.exitCode,
        timedOut: r.timedOut,
        output: r.output,
        durationMs: r.durationMs,
      });
    }
    // What was checked out when the step started: the gates ran on it, whatever they did to the checkout since.
    const commits = Object.fromEntries(ws.repos.map((r) => [r.repo, r.preparedHead] as const));
    const failed = outcomes.filter((o) => o.exitCode !== 0);
    const rows = outcomes.map((o) => {
      const verdict = o.exitCode === 0 ? 'passed' : o.timedOut ? '**timed out**' : `**failed** (exit ${o.exitCode ?? 'signal'})`;
      return `| ${o.repo} | ${code(o.command.split('\n')[0] ?? '', { table: true })} | ${verdict} | ${formatDuration(o.durationMs)} |`;
    });
    const table = ['| repository | command | result | time |', '| --- | --- | --- | --- |', ...rows].join('\n');
    if (failed.length === 0) {
      return {
        ...baseResult(payload),
        conclusion: 'success',
        summary: [`Gate \`${step.id}\` passed in ${outcomes.length} of ${outcomes.length}.`, workspaceTable(ws), table].join('\n\n'),
        commits,
      };
    }
    const findings = ctx.scrubber.scrub(gateFindings(failed));
    const message = `gate ${step.id} failed in ${failed.map((f) => f.repo).join(', ')}`;
    return {
      ...baseResult(payload),
      conclusion: 'failure',
      summary: [
        `**Gate \`${step.id}\` failed in ${failed.length} of ${outcomes.length}.**`,
        workspaceTable(ws),
        table,
        '### Failing lines',
        findings || 'The failing commands printed nothing.',
      ].join('\n\n'),
      commits,
      findings,
      error: { code: 'gate-failed', message },
    };
  } finally {
    await removeStepWorkspace(ctx, ws);
  }
}
