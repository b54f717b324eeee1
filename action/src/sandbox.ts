// How a step isolates its commands (lib/sandbox.ts does the isolating): the policy of each kind of
// command, whether a sandbox can be made on this runner and what the pipeline's `sandbox` says
// when it cannot, and what the sandbox blocked, for the step's log, summary and result.
import { ConveyorError } from '../../core/errors.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import type { SandboxReport, StepPayload, StepResult } from '../../core/contract/wire.ts';
import { detectSandbox, type Blocked, type NetworkPolicy, type SandboxAvailability, type SandboxPolicy } from '../../lib/sandbox.ts';

export interface StepSandbox {
  availability: SandboxAvailability;
  /** The pipeline's `sandbox: required`. */
  required: boolean;
  /** A command of the step ran (so the step reports how it was isolated). */
  used: boolean;
  /** The step said, once, that it runs without a sandbox. */
  warned: boolean;
  blocked: Map<string, Blocked>;
}

/** How one command is isolated. */
export interface Isolation {
  /** The folder it works in (the step's workspace root). */
  workspace: string;
  policy: SandboxPolicy;
  /** A deploy: what it leaves running is its environment, ended by its teardown. */
  keep?: boolean;
}

export function createStepSandbox(env: NodeJS.ProcessEnv, mode: StepPayload['sandbox']): StepSandbox {
  return { availability: detectSandbox(env), required: mode === 'required', used: false, warned: false, blocked: new Map() };
}

/** An agent writes only in the workspace (and its own HOME and TMPDIR) and reaches only its allowed hosts. */
export function agentIsolation(workspace: string, agent: ResolvedAgent): Isolation {
  return { workspace, policy: { network: { allow: agent.network?.allow ?? [] }, writable: [workspace] } };
}

/**
 * An agent's setup (installing its CLI): a command of the pipeline's author, not of the agent, so
 * it keeps the runner's file system (a global install) and network, its secrets still hidden.
 */
export function setupIsolation(workspace: string): Isolation {
  return { workspace, policy: { network: 'open', writable: 'everywhere' } };
}

/**
 * A gate, deploy or teardown command of `services`: the runner's file system but its secrets, and
 * the services' network: open when any of them leaves `network` out (one command serves them
 * all: a gate in a monorepo), else the hosts any of them allows.
 */
export function serviceIsolation(payload: StepPayload, workspace: string, services: readonly string[], keep = false): Isolation {
  const policies = services.map((s) => payload.services[s]?.network);
  const network: NetworkPolicy =
    policies.length === 0 || policies.some((p) => !p) ? 'open' : { allow: [...new Set(policies.flatMap((p) => p?.allow ?? []))].sort() };
  return { workspace, policy: { network, writable: 'everywhere' }, ...(keep ? { keep } : {}) };
}

/** The line a step without a sandbox says once: what it means and what is still done. */
export function noSandboxNote(reason: string): string {
  return (
    `no sandbox: ${reason}; agents can read this runner's files and reach any host, and commands can read the environment of the processes above them. ` +
    'Processes a command leaves behind are still ended with it (by a mark in their environment), except any started with a cleared environment.'
  );
}

/** Fails the step when the pipeline requires a sandbox this runner cannot make. */
export function requireSandbox(s: StepSandbox): void {
  if (s.required && !s.availability.available) {
    throw new ConveyorError(
      'sandbox-unavailable',
      `the pipeline requires a sandbox (\`sandbox: required\`), and ${s.availability.reason}: install bubblewrap and socat on the runner (the workflow template does: \`sudo apt-get install -y bubblewrap socat\`), or set \`sandbox: best-effort\``,
    );
  }
}

export function recordBlocked(s: StepSandbox, blocked: readonly Blocked[]): void {
  for (const b of blocked) {
    const key = `${b.host}:${b.port}`;
    const known = s.blocked.get(key);
    if (known) known.count += b.count;
    else s.blocked.set(key, { ...b });
  }
}

/** A blocked host is whatever a command asked for: it is scrubbed like any other text from a command. */
export function sandboxReport(s: StepSandbox, scrub: (text: string) => string = (t) => t): SandboxReport {
  return { mode: s.availability.available ? 'bubblewrap' : 'none', blocked: [...s.blocked.values()].map((b) => ({ ...b, host: scrub(b.host) })) };
}

/** The step's result with how its commands were isolated, in its `sandbox` field and its summary. */
export function withSandboxReport(result: StepResult, s: StepSandbox, scrub?: (text: string) => string): StepResult {
  if (!s.used) return result;
  const report = sandboxReport(s, scrub);
  const lines: string[] = [];
  if (!s.availability.available) lines.push(`**${noSandboxNote(s.availability.reason)}**`);
  if (report.blocked.length) {
    lines.push(
      `The sandbox blocked ${report.blocked.length === 1 ? 'a connection' : 'connections'} to hosts not in \`network.allow\`:`,
      ['| host | port | attempts |', '| --- | --- | --- |', ...report.blocked.map((b) => `| \`${b.host}\` | ${b.port} | ${b.count} |`)].join('\n'),
    );
  }
  const summary = lines.length ? [result.summary, '### Sandbox', ...lines].join('\n\n') : result.summary;
  return { ...result, summary, sandbox: report };
}
