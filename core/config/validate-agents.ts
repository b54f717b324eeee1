// Rules of agents and of what a command may be given by name: an agent needs a command (its own
// `run` or a preset's), and `secrets` lists each variable once and never a GitHub token.
import type { ConfigProblem } from './issues.ts';
import type { PathSegment } from './locate.ts';
import type { Obj } from './names.ts';
import { obj, strings } from './names.ts';
import { PRESET_NAMES } from './presets.ts';
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
    validateSecrets(agent.secrets, [...at, 'secrets'], problems);
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
