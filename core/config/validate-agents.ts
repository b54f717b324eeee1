// Rules of agents and of what a command may be given by name: an agent needs a command (its own
// `run` or a preset's), and `secrets` lists each variable once and never a GitHub token.
import type { ConfigProblem } from './issues.ts';
import type { PathSegment } from './locate.ts';
import type { Obj } from './names.ts';
import { obj, str, strings } from './names.ts';
import { isPresetName, PRESET_NAMES } from './presets.ts';
import { COPILOT_PROVIDERS, endpointProblem, WIRE_APIS, type CopilotProvider } from './model-api.ts';
import { secretNameProblem } from './secret-names.ts';

export function validateAgents(agents: Obj, problems: ConfigProblem[]): void {
  for (const [name, raw] of Object.entries(agents)) {
    const agent = obj(raw);
    if (!agent) continue;
    const at: PathSegment[] = ['agents', name];
    if (!('run' in agent) && !('preset' in agent)) {
      problems.push({
        path: at,
        at: 'key',
        message: `agent "${name}" has no command: give it \`preset\` (one of: ${PRESET_NAMES.join(', ')}) or \`run\` (a shell command that reads its prompt from $CONVEYOR_PROMPT_FILE)`,
      });
    }
    if ('version' in agent && !('preset' in agent)) {
      problems.push({
        path: [...at, 'version'],
        at: 'key',
        message: "`version` pins a preset's CLI; this agent has no `preset` (its own `setup` installs what it runs)",
      });
    }
    validateSecrets(agent.secrets, [...at, 'secrets'], problems);
    validateModelApi(agent, at, problems);
  }
}

/** `endpoint`, `provider` and `wire-api`: what the agent's preset can be pointed with. Wrong types are the schema's business. */
function validateModelApi(agent: Obj, at: PathSegment[], problems: ConfigProblem[]): void {
  const preset = isPresetName(agent.preset) ? agent.preset : undefined;
  const provider = (COPILOT_PROVIDERS as readonly unknown[]).includes(agent.provider) ? (agent.provider as CopilotProvider) : undefined;
  const wire = (WIRE_APIS as readonly unknown[]).includes(agent['wire-api']);
  if ('provider' in agent && preset !== 'copilot') {
    problems.push({
      path: [...at, 'provider'],
      at: 'key',
      message: "`provider` chooses Copilot CLI's bring-your-own-key mode; this agent's preset is not `copilot`",
    });
  }
  if ('wire-api' in agent && wire) {
    if (!provider)
      problems.push({ path: [...at, 'wire-api'], at: 'key', message: '`wire-api` is the wire API of a Copilot CLI `provider`: set `provider` too' });
    else if (provider === 'anthropic') {
      problems.push({
        path: [...at, 'wire-api'],
        at: 'key',
        message: 'the anthropic provider speaks the Messages API only; `wire-api` is for openai and azure',
      });
    }
  }
  if (preset === 'copilot' && provider === 'azure' && !('endpoint' in agent)) {
    problems.push({
      path: [...at, 'provider'],
      message: 'the azure provider has no endpoint of its own: set `endpoint` to your Azure OpenAI resource (https://<name>.openai.azure.com)',
    });
  }
  const endpoint = str(agent.endpoint);
  if (endpoint !== undefined) {
    const problem = endpointProblem({ preset, model: str(agent.model), endpoint, provider });
    if (problem) problems.push({ path: [...at, 'endpoint'], at: 'key', message: problem });
  }
}

/** Each entry of a `secrets` list: passable, and listed once. */
export function validateSecrets(list: unknown, at: PathSegment[], problems: ConfigProblem[]): void {
  const seen = new Set<string>();
  for (const [name, i] of strings(list)) {
    const path = [...at, i];
    const problem = secretNameProblem(name);
    if (problem) problems.push({ path, message: problem });
    else if (seen.has(name)) problems.push({ path, message: `"${name}" is listed twice` });
    seen.add(name);
  }
}
