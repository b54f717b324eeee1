// Step payloads for action tests: a valid payload with sensible defaults, adjusted per test.
import type { PlanStep } from '../../core/plan/types.ts';
import { WIRE_VERSION, type StepPayload } from '../../core/contract/wire.ts';

export interface TestRepo {
  repo: string;
  role?: 'primary' | 'sibling';
  services?: string[];
  base?: string;
}

export interface PayloadOptions {
  repos: TestRepo[];
  step?: PlanStep;
  agentRun?: string;
  agentTimeoutMinutes?: number;
  agentEnv?: Record<string, string>;
  mode?: StepPayload['mode'];
  findings?: string;
  issue?: Partial<StepPayload['issue']>;
  runId?: string;
  /** Extra service fields by service name (e.g. gate, path, docker). */
  services?: Record<string, Partial<StepPayload['services'][string]>>;
}

export function codeStep(overrides: Partial<Extract<PlanStep, { kind: 'code' }>> = {}): PlanStep {
  return { id: 'implement', kind: 'code', agent: 'coder', writes: [], needs: [], timeoutMinutes: 30, ...overrides };
}

export function gateStep(overrides: Partial<Extract<PlanStep, { kind: 'gate' }>> = {}): PlanStep {
  return { id: 'test', kind: 'gate', in: [], needs: [], timeoutMinutes: 30, ...overrides };
}

export function makePayload(options: PayloadOptions): StepPayload {
  const issue = { repo: options.repos[0]?.repo ?? 'acme/web', number: 7, title: 'Add a greeting', body: 'Please add a greeting.', ...options.issue };
  const services: StepPayload['services'] = {};
  const repos = options.repos.map((r, i) => {
    const name = r.repo.split('/')[1] ?? 'svc';
    const svcNames = r.services ?? [name];
    for (const s of svcNames) {
      services[s] = { name: s, repo: r.repo, base: r.base ?? 'main', dependsOn: [], deploy: null, ...options.services?.[s] };
    }
    return {
      repo: r.repo,
      role: r.role ?? (i === 0 ? 'primary' : 'sibling'),
      services: svcNames,
      base: r.base ?? 'main',
      workBranch: `conveyor/${name}-${issue.number}`,
    } as const;
  });
  return {
    version: WIRE_VERSION,
    runId: options.runId ?? 'run-1',
    pipeline: 'default',
    planHash: 'hash',
    issue,
    mode: options.mode ?? 'run',
    step: options.step ?? codeStep(),
    attempt: 1,
    epoch: 0,
    agents: {
      coder: { name: 'coder', run: options.agentRun ?? 'true', timeoutMinutes: options.agentTimeoutMinutes ?? 5, env: options.agentEnv ?? {} },
    },
    services,
    repos,
    ...(options.findings ? { findings: options.findings } : {}),
    environments: [],
  };
}
