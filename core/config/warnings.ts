// What `conveyor validate` warns about without failing: a configuration that is valid but will
// likely not work where it runs. Pure: the caller says which variables its environment sets.
import type { ConfigProblem } from './issues.ts';
import { PRESETS } from './presets.ts';
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
    const listed = new Set(agent.secrets ?? []);
    if (preset.credentials.some((c) => listed.has(c) || isSet(c))) continue;
    const first = preset.credentials[0]!;
    const which = preset.credentials.length === 1 ? first : `one of ${preset.credentials.join(', ')}`;
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
