// Keys the agent never holds: for an agent whose preset's CLI reaches its model with an API key
// (core/config/model-api.ts), the step process starts Conveyor's key forwarder
// (lib/sandbox/forwarder.ts) for that one run, gives the CLI a placeholder in the key's variable
// and points it at the forwarder (a base URL variable, a settings file seeded into its private
// HOME). The forwarder sends every request to the endpoint and sets the real key, so the key is
// in no variable, file, transcript or request the agent sees. An agent given an `endpoint` but no
// key that Conveyor can keep (a local model server, a credential that passes by name) is pointed
// at the forwarder too, which then passes its requests on as they are.
//
// Inside the sandbox the forwarder listens on a unix socket that only this command's sandbox has
// (bridged to 127.0.0.1:FORWARDER_PORT there); without a sandbox it listens on a loopback port,
// and then forwards only requests that carry the placeholder, which only the agent was given.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { modelApiOf, presetCredentials } from '../../core/config/model-api.ts';
import type { ResolvedAgent } from '../../core/plan/types.ts';
import { socketFolder } from '../../lib/private-temp.ts';
import { FORWARDER_PORT, type SandboxPolicy } from '../../lib/sandbox.ts';
import { basePath, startForwarder } from '../../lib/sandbox/forwarder.ts';
import type { StepContext } from './context.ts';

export interface ModelRoute {
  /** Variables over the agent's own: the placeholders of the kept keys, and where its CLI finds the forwarder. */
  env: Record<string, string>;
  /** What the agent's sandbox adds: the bridge to the forwarder, the files seeded into its HOME. */
  policy: Pick<SandboxPolicy, 'homeFiles' | 'homeVariables' | 'bridges'>;
  close(): Promise<void>;
}

/**
 * The route of one agent run to its model, or undefined when its CLI goes its own way (no preset
 * Conveyor can point, no key to keep and no `endpoint`). `secrets`: what the agent lists, with
 * the values this runner has; `label` names the agent in the log.
 */
export async function openModelRoute(
  ctx: StepContext,
  agent: ResolvedAgent,
  secrets: Readonly<Record<string, string>>,
  label: string,
  /** Told of each answer of the endpoint (its status, an error's words): how the agent's vendor is doing. */
  onAnswer?: (status: number, body: string) => void,
): Promise<ModelRoute | undefined> {
  const api = modelApiOf(agent);
  if (!api) return undefined;
  const kept = api.keys.filter((k) => secrets[k.variable] !== undefined);
  const real = kept[0];
  if (!real && !api.pointAlways) return undefined;
  const placeholder = `conveyor-placeholder-${randomBytes(16).toString('hex')}`;
  const sandboxed = ctx.sandbox.availability.available;
  // Short: a unix socket's path holds at most 107 bytes.
  const socket = sandboxed ? join(socketFolder(), `f-${randomBytes(6).toString('hex')}.sock`) : undefined;
  const forwarder = await startForwarder({
    listen: socket ? { socketPath: socket } : { loopback: true },
    upstream: api.endpoint,
    ...(real ? { credential: { header: real.header, value: secrets[real.variable]! } } : {}),
    ...(real && !socket ? { placeholder } : {}),
    onProblem: (message) => ctx.log.warn(`${label}: Conveyor's key forwarder: ${message}`),
    ...(onAnswer ? { onAnswer } : {}),
  });
  const port = socket ? FORWARDER_PORT : forwarder.port!;
  const url = `http://127.0.0.1:${port}${basePath(new URL(api.endpoint))}`;
  const pointing = api.point(url);
  // Every kept key the runner set holds the placeholder. With no credential of the CLI's set at
  // all, its first key does too: a CLI that will not start without a key, before a server that takes none.
  const anyCredential = agent.preset ? presetCredentials(agent.preset, agent.provider).some((c) => secrets[c] !== undefined) : false;
  const placeholders = (kept.length ? kept : anyCredential ? [] : api.keys.slice(0, 1)).flatMap((k) =>
    [k.variable, ...(k.readAs ? [k.readAs] : [])].map((v) => [v, placeholder] as const),
  );
  ctx.log.info(
    `${label} talks to ${api.endpoint} through Conveyor's key forwarder` +
      (real
        ? `: ${real.variable} stays in the step process, and the agent holds a placeholder`
        : ": no key of its that Conveyor can keep is set, so the agent's requests go through as they are"),
  );
  return {
    env: { ...Object.fromEntries(placeholders), ...pointing.env },
    policy: {
      homeFiles: pointing.homeFiles,
      homeVariables: pointing.homeVariables,
      ...(socket ? { bridges: [{ port: FORWARDER_PORT, socket }] } : {}),
    },
    close: () => forwarder.close(),
  };
}
