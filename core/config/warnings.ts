// What `conveyor validate` warns about without failing: a configuration that is valid but will
// likely not work where it runs. Pure: the caller says which variables its environment sets.
import type { ConfigProblem } from './issues.ts';
import { compareVersions, PRESETS } from './presets.ts';
import { isLoopbackHost, presetCredentials } from './model-api.ts';
import type { Config } from './schema.ts';

/**
 * Agents whose preset's CLI will find no credential: none of the variables it reads is listed in
 * the agent's `secrets` nor set here (`isSet`, the validating shell's environment).
 */
export function credentialWarnings(config: Config, isSet: (name: string) => boolean): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    if (!agent.preset) continue;
    const preset = PRESETS[agent.preset];
    const credentials = presetCredentials(agent.preset, agent.provider);
    const listed = new Set(agent.secrets ?? []);
    if (credentials.some((c) => listed.has(c) || isSet(c))) continue;
    // A model server on this machine usually takes no key.
    if (agent.endpoint !== undefined && isLoopbackHost(new URL(agent.endpoint).hostname)) continue;
    const first = credentials[0]!;
    const which = credentials.length === 1 ? first : `one of ${credentials.join(', ')}`;
    warnings.push({
      path: ['agents', name, 'preset'],
      message:
        `agent "${name}" (${preset.title}) will find no credential: its CLI reads ${which}, and none is listed in \`secrets\` or set in this shell. ` +
        `On GitHub, give it in the action step's \`env:\` (e.g. \`${first}: \${{ secrets.${first} }}\`, see the workflow template) and list it in \`secrets\`; ` +
        "ignore this if the agent signs in another way (e.g. a cloud provider's credentials listed in `secrets`)",
    });
  }
  return warnings;
}

/** Agents whose `endpoint` is plain http to another machine: their key (set by Conveyor's forwarder) would cross the network unencrypted. */
export function endpointWarnings(config: Config): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    if (agent.endpoint === undefined) continue;
    const url = new URL(agent.endpoint);
    if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) continue;
    warnings.push({
      path: ['agents', name, 'endpoint'],
      message: `agent "${name}" talks to ${url.host} over plain http: its key and every prompt cross the network unencrypted and unauthenticated; use https unless the network between them is yours alone`,
    });
  }
  return warnings;
}

/**
 * Agents that pin their preset's CLI to another version than the one its flags were checked
 * against: an older one may lack a flag the preset passes, a newer one may have dropped or renamed one.
 */
export function versionWarnings(config: Config): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    if (!agent.preset || agent.version === undefined) continue;
    const preset = PRESETS[agent.preset];
    const order = compareVersions(agent.version, preset.version);
    if (order === 0) continue;
    warnings.push({
      path: ['agents', name, 'version'],
      message:
        `agent "${name}" installs ${preset.title} ${agent.version}, ${order < 0 ? 'older' : 'newer'} than ${preset.version}, the version the preset's flags were checked against: ` +
        `${order < 0 ? 'it may lack a flag the preset passes' : 'a flag the preset passes may have been dropped or renamed'} (\`npm run check:presets\` checks them against the latest); leave \`version\` out to install ${preset.version}`,
    });
  }
  return warnings;
}
