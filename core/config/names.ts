// Reading a configuration that may not have passed the schema: guards that take only what has
// the right shape, and the messages for names that refer to nothing.
import { didYouMean } from './suggest.ts';

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** The string entries of a list with their indexes (other entries are the schema's business). */
export const strings = (v: unknown): [string, number][] =>
  Array.isArray(v) ? v.flatMap((x, i): [string, number][] => (typeof x === 'string' ? [[x, i]] : [])) : [];

/** What the rules of one pipeline need to know about the whole file. */
export type Names = {
  agents: string[];
  agentSet: Set<string>;
  services: Obj;
  serviceNames: string[];
  /** Step ids of every pipeline, to tell "in another pipeline" from "nowhere". */
  stepsByPipeline: Map<string, Set<string>>;
};

/** `refers to nothing` with a suggestion and the names that would do. */
export function unknownName(what: string, name: string, known: readonly string[]): string {
  const hint = didYouMean(name, known);
  if (hint) return `unknown ${what} "${name}"${hint}`;
  return known.length === 0 ? `unknown ${what} "${name}": no ${what} is defined` : `unknown ${what} "${name}"; known: ${known.join(', ')}`;
}

/** Why a repository-relative path is not one, or undefined when it is fine. */
export function relativePathProblem(p: string): string | undefined {
  if (/^([/\\~]|[A-Za-z]:)/.test(p)) return `must be relative to the repository root, got "${p}"; remove the leading "${p[0]}"`;
  let depth = 0;
  for (const seg of p.split(/[/\\]/)) {
    if (seg === '..') depth--;
    else if (seg !== '' && seg !== '.') depth++;
    if (depth < 0) return `must stay inside the repository, but "${p}" climbs out of it with ".."`;
  }
  return undefined;
}
