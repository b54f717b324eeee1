// A compiled plan as text a person reads: what runs in which order, where repairs loop back,
// which repositories change, what deploys first, and the hash a run is pinned to.
import type { Plan, PlanStep, ResolvedAgent } from './types.ts';
import { DEFAULT_RUNS_ON } from '../config/defaults.ts';
import { modelApiOf } from '../config/model-api.ts';
import { protectOf } from '../config/protect.ts';
import { deploysBefore, environmentsSeenBy } from './environments.ts';

export function formatPlan(plan: Plan): string {
  const out: string[] = [];
  const own = plan.services[plan.service];
  out.push(`Pipeline ${plan.pipeline}  (label "${plan.label}")`);
  out.push(`  service ${plan.service}${own ? ` in ${own.repo}` : ''}` + (plan.involves.length ? `, involves ${plan.involves.join(', ')}` : ''));
  out.push('');

  out.push('Waves  (a wave starts when every step of the waves before it has succeeded)');
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const idWidth = Math.max(...plan.steps.map((s) => s.id.length));
  const kindWidth = Math.max(...plan.steps.map((s) => s.kind.length));
  const numWidth = String(plan.waves.length).length;
  plan.waves.forEach((wave, i) => {
    wave.forEach((id, j) => {
      const step = byId.get(id);
      if (!step) return;
      const num = j === 0 ? String(i + 1).padStart(numWidth) : ' '.repeat(numWidth);
      out.push(`  ${num}  ${id.padEnd(idWidth)}  ${step.kind.padEnd(kindWidth)}  ${describeStep(step)}`);
    });
  });
  out.push('');

  const repairs = plan.steps.filter((s) => (s.kind === 'gate' || s.kind === 'review') && s.repair);
  out.push('Repair loops');
  if (repairs.length === 0) out.push('  none: a failing step waits for `/conveyor retry`');
  for (const s of repairs) {
    if ((s.kind !== 'gate' && s.kind !== 'review') || !s.repair) continue;
    const n = s.repair.maxAttempts;
    out.push(
      `  ${s.id.padEnd(idWidth)}  on ${s.kind === 'gate' ? 'failure' : 'a failing verdict'}: ${s.repair.agent} repairs, then ${s.id} runs again; ` +
        `${n} repair${n === 1 ? '' : 's'} at most, then it waits for \`/conveyor retry\``,
    );
  }
  out.push('');

  out.push('Change set');
  const repoWidth = Math.max(...plan.changeSet.map((r) => r.repo.length));
  for (const r of plan.changeSet) {
    out.push(`  ${r.repo.padEnd(repoWidth)}  ${r.role.padEnd(7)}  base ${r.base}  services ${r.services.join(', ')}`);
  }
  out.push('');

  out.push('Deploy waves  (providers first)');
  plan.deployWaves.forEach((wave, i) => {
    const names = wave.map((n) => (plan.services[n]?.deploy ? n : `${n} (nothing to deploy)`));
    out.push(`  ${i + 1}  ${names.join(', ')}`);
  });
  out.push('');

  out.push(...environmentLines(plan, idWidth));
  const agents = Object.values(plan.agents);
  if (agents.length) {
    out.push('Agents');
    const nameWidth = Math.max(...agents.map((a) => a.name.length));
    for (const a of agents) out.push(`  ${a.name.padEnd(nameWidth)}  ${describeAgent(a).join('; ')}`);
    out.push('');
  }

  out.push(
    `Sandbox  ${plan.sandbox === 'required' ? 'required: a step fails where none can be made' : 'best-effort: where none can be made, commands run without and say so'}`,
  );
  const docker = Object.entries(plan.services)
    .filter(([, s]) => s.docker)
    .map(([name]) => name);
  out.push(
    docker.length
      ? `  Docker  ${docker.join(', ')}: ${docker.length === 1 ? 'its' : 'their'} gates, deploys, teardowns and setups reach the runner's Docker daemon (root on the runner)`
      : "  Docker  none: no command reaches the runner's Docker daemon",
  );
  out.push('');

  out.push(
    `Commits  ${plan.commits === 'git' ? 'git: pushed as plain git commits' : 'verified: made by GitHub through its API, which signs them (git in the embedded mode)'}`,
  );
  const protect = protectOf(plan);
  out.push(
    `Protected paths  ${protect.length === 0 ? 'none (`protect: []`): a change merges without a person seeing it' : plan.protect === undefined ? 'the default' : 'as written'}`,
  );
  if (protect.length > 0) {
    const hasApproval = plan.steps.some((s) => s.kind === 'approval');
    out.push(
      hasApproval
        ? '  a change to one merges only after an approval of the heads that hold it'
        : '  no approval step: a change to one stops before the merge (protected-paths)',
    );
    for (let i = 0; i < protect.length; i += 6) out.push(`  ${protect.slice(i, i + 6).join('  ')}`);
  }
  out.push('');

  out.push(`Plan hash  ${plan.hash}`);
  return `${out.join('\n')}\n`;
}

/** Which steps run against which previews: those after a deploy, with the variables they get. */
function environmentLines(plan: Plan, idWidth: number): string[] {
  const seeing = plan.steps.flatMap((s) => {
    const services = environmentsSeenBy(plan, s.id);
    return services.length ? [{ step: s, services, from: deploysBefore(plan, s.id).map((d) => d.id) }] : [];
  });
  const out = ['Environments  (a step after a deploy runs against what it stood up: $CONVEYOR_ENV_URL, $CONVEYOR_ENV_<SERVICE>_URL, $CONVEYOR_ENV_URLS)'];
  if (seeing.length === 0) out.push('  none: no step with commands runs after a deploy');
  for (const { step, services, from } of seeing) {
    const own = services.includes(plan.service) ? `; CONVEYOR_ENV_URL is ${plan.service}'s` : '';
    // A merge runs no command of its own: only its conflict repairs (an agent) get them.
    const who = step.kind === 'merge' ? ' (its conflict repairs)' : '';
    out.push(`  ${step.id.padEnd(idWidth)}  ${services.join(', ')} (from ${from.join(', ')})${own}${who}`);
  }
  if (seeing.length > 0) out.push('  a repair or push that changes a repository they were deployed from deploys again first (its consumers too)');
  out.push('');
  return out;
}

function describeStep(step: PlanStep): string {
  const parts: string[] = [];
  switch (step.kind) {
    case 'code':
      parts.push(`agent ${step.agent}`);
      if (step.writes.length) parts.push(`writes only ${step.writes.join(', ')}`);
      break;
    case 'gate':
      if (step.author !== undefined) parts.push(`${step.author} writes ${step.path ?? 'the gate file'} first`);
      parts.push(step.run !== undefined ? `runs \`${step.run}\`` : "runs each service's gate command");
      parts.push(`in ${step.in.join(', ')}`);
      break;
    case 'review':
      parts.push(`agent ${step.agent}`);
      break;
    case 'deploy':
      parts.push(`previews of ${step.services.join(', ')}`);
      break;
    case 'approval': {
      const who = step.approvers.length ? step.approvers.join(', ') : 'anyone with write access';
      parts.push(`${step.minApprovals} approval${step.minApprovals === 1 ? '' : 's'} from ${who}`);
      if (step.allowRequester) parts.push('the requester may approve');
      break;
    }
    case 'merge':
      parts.push(`${step.method} merge, providers first`);
      break;
    case 'ci':
      parts.push("waits for the checks the base branches require (other apps' check runs and statuses) on the PRs' heads");
      parts.push(step.repair ? `a failing one is repaired by ${step.repair.agent} (max ${step.repair.maxAttempts})` : 'a failing one waits for a person');
      parts.push(`waits at most ${duration(step.timeoutMinutes)}`);
      break;
  }
  if (step.needs.length) parts.push(`needs ${step.needs.join(', ')}`);
  // Approvals wait for people and the app merges itself: neither is timed out.
  if (step.kind !== 'approval' && step.kind !== 'merge' && step.kind !== 'ci') parts.push(`timeout ${duration(step.timeoutMinutes)}`);
  // Where the step's workflow job runs; a merge runs in the app, and only its conflict repairs need a runner.
  const runner = step.runsOn === undefined ? DEFAULT_RUNS_ON : typeof step.runsOn === 'string' ? step.runsOn : `[${step.runsOn.join(', ')}]`;
  if (step.kind === 'merge' || step.kind === 'ci') {
    if (step.runsOn !== undefined) parts.push(`${step.kind === 'ci' ? 'its' : 'conflict'} repairs run on ${runner}`);
  } else if (step.kind !== 'approval') parts.push(`runs on ${runner}`);
  return parts.join('; ');
}

function duration(minutes: number): string {
  if (minutes < 60 || minutes % 60 !== 0) return `${minutes}m`;
  return `${minutes / 60}h`;
}

/**
 * An agent for people: what runs, its model, the model API it talks to and how its keys travel
 * (kept by Conveyor's forwarder, or passed by name), and the hosts its sandbox reaches.
 */
function describeAgent(a: ResolvedAgent): string[] {
  const parts = [a.preset ? `preset ${a.preset}${a.run !== undefined ? ' with its own `run`' : ''}` : 'its own `run`'];
  if (a.model) parts.push(`model ${a.model}`);
  if (a.provider) parts.push(`provider ${a.provider}${a.wireApi ? ` (${a.wireApi})` : ''}`);
  const api = modelApiOf(a);
  if (api) {
    parts.push(`endpoint ${api.endpoint}${a.endpoint === undefined ? " (its vendor's)" : ''}`);
    const kept = api.keys.map((k) => k.variable);
    const byName = (a.secrets ?? []).filter((s) => !kept.includes(s));
    parts.push(`${kept.join(', ')} kept by Conveyor's key forwarder (the agent holds a placeholder)`);
    if (byName.length) parts.push(`passed by name: ${byName.join(', ')}`);
  } else if (a.secrets?.length) parts.push(`passed by name: ${a.secrets.join(', ')}`);
  parts.push(a.network?.allow.length ? `network ${a.network.allow.join(', ')}` : 'no network');
  return parts;
}
