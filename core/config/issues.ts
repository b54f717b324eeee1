// Turns zod's issues into problems a user can act on: what is wrong, where, and what would be
// right, in the words of the file (mapping, list) rather than of JavaScript (object, array).
import { z } from 'zod';
import type { PathSegment } from './locate.ts';
import { configSchema, STEP_KINDS, stepSchema } from './schema.ts';
import { didYouMean } from './suggest.ts';

/** A problem found in a configuration, before it is given a source position. */
export type ConfigProblem = {
  path: PathSegment[];
  message: string;
  /** `key`: point at the key itself (an unknown or misnamed key); default: at its value. */
  at?: 'key' | 'value';
};

type Issue = z.core.$ZodIssue;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let v = data;
  for (const seg of path) {
    if (Array.isArray(v) && typeof seg === 'number') v = v[seg];
    else if (isRecord(v) && typeof seg === 'string') v = v[seg];
    else return undefined;
  }
  return v;
}

/** `a list`, `a string ("x")`, `an empty value`: what the user wrote, in YAML's words. */
export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'an empty value';
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : 'a list';
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`;
  if (typeof v === 'number') return `a number (${v})`;
  if (typeof v === 'boolean') return `${v}`;
  return 'a mapping';
}

const EXPECTED: Record<string, string> = {
  object: 'a mapping (key: value)',
  array: 'a list',
  string: 'a string',
  int: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

// zod's own messages start like this; ours (written in schema.ts) do not, and are kept as they are.
const GENERIC = /^(Invalid|Too (big|small)|Unrecognized)/;

/** The schema that describes the value at `path`, following unions by the data's own shape. */
export function schemaAt(path: readonly PathSegment[], data: unknown): z.ZodType | undefined {
  let s: z.ZodType | undefined = configSchema;
  let d: unknown = data;
  for (const seg of path) {
    s = unwrap(s, d);
    if (s instanceof z.ZodObject) s = (s.shape as Record<string, z.ZodType>)[String(seg)];
    else if (s instanceof z.ZodRecord) s = s.valueType as z.ZodType;
    else if (s instanceof z.ZodArray) s = s.element as z.ZodType;
    else return undefined;
    d = valueAt(d, [seg]);
  }
  return unwrap(s, d);
}

function unwrap(s: z.ZodType | undefined, d: unknown): z.ZodType | undefined {
  for (let i = 0; i < 8 && s; i++) {
    if (s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodUnion) {
      const options = s.options as readonly z.ZodType[];
      const kind = isRecord(d) ? d.kind : undefined;
      s = options.find((o) => o instanceof z.ZodObject && literalOf(o.shape.kind) === kind) ?? options.find((o) => o instanceof z.ZodObject && isRecord(d));
    } else return s;
  }
  return s;
}

const literalOf = (s: unknown): unknown => (s instanceof z.ZodLiteral ? s.value : undefined);

const keysOf = (s: z.ZodType | undefined): string[] => (s instanceof z.ZodObject ? Object.keys(s.shape) : []);

// Which step kinds accept a key, to say `repair` belongs to gate and review steps.
const KEYS_BY_KIND = new Map<string, string[]>(
  (stepSchema.options as readonly z.ZodObject[]).map((o) => [String(literalOf(o.shape.kind)), Object.keys(o.shape)]),
);

const NO_AGENT: Record<string, string> = {
  approval: 'an approval step takes no agent: it waits for people to approve; remove "agent"',
  merge: 'a merge step takes no agent: Conveyor merges the pull requests itself; remove "agent"',
};

const NO_TIMEOUT: Record<string, string> = {
  approval: 'an approval step is not timed out: it waits for people as long as it takes; remove "timeout-minutes"',
  merge: 'a merge step is not timed out: Conveyor merges the pull requests itself, in seconds; remove "timeout-minutes"',
};

const NO_RUNNER: Record<string, string> = {
  approval: 'an approval step runs on no runner: it waits for people; remove "runs-on"',
};

const aStep = (kind: string): string => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} step`;

function unknownKey(key: string, objectPath: PathSegment[], data: unknown): string {
  const object = valueAt(data, objectPath);
  const known = keysOf(schemaAt(objectPath, data));
  const isStep = objectPath.length === 4 && objectPath[0] === 'pipelines' && objectPath[2] === 'steps';
  const kind = isStep && isRecord(object) && typeof object.kind === 'string' ? object.kind : undefined;
  if (kind !== undefined && KEYS_BY_KIND.has(kind)) {
    if (key === 'agent' && NO_AGENT[kind]) return NO_AGENT[kind];
    if (key === 'timeout-minutes' && NO_TIMEOUT[kind]) return NO_TIMEOUT[kind];
    if (key === 'runs-on' && NO_RUNNER[kind]) return NO_RUNNER[kind];
    const owners = [...KEYS_BY_KIND].filter(([, keys]) => keys.includes(key)).map(([k]) => k);
    if (owners.length > 0) {
      return `${aStep(kind)} has no "${key}"; "${key}" belongs to ${owners.join(' and ')} steps`;
    }
  }
  const hint = didYouMean(key, known);
  const where = kind ? ` in ${aStep(kind)}` : '';
  return hint ? `unknown key "${key}"${where}${hint}` : `unknown key "${key}"${where}; expected one of: ${known.join(', ')}`;
}

const NAME_OF: Record<string, string> = { agents: 'agent', services: 'service', pipelines: 'pipeline' };

function missingKey(path: PathSegment[], data: unknown): string {
  const key = String(path[path.length - 1]);
  const about = schemaAt(path, data)?.description;
  const agents = valueAt(data, ['agents']);
  if ((key === 'agent' || key === 'author') && isRecord(agents) && Object.keys(agents).length > 0) {
    return `missing key "${key}": name one of the agents: ${Object.keys(agents).join(', ')}`;
  }
  if (key === 'version') return 'missing key "version": write `version: 1` at the top of the file';
  return about ? `missing key "${key}": ${about.replace(/\.$/, '')}` : `missing key "${key}"`;
}

function typeMismatch(issue: Issue & { expected?: string }, path: PathSegment[], data: unknown): string {
  const got = valueAt(data, path);
  const expected = EXPECTED[issue.expected ?? ''] ?? `a ${issue.expected}`;
  const custom = GENERIC.test(issue.message) ? undefined : issue.message;
  if (issue.expected === 'array' && typeof got === 'string') {
    return `must be a list, got ${describeValue(got)}; write [${got}]`;
  }
  return `${custom ?? `must be ${expected}`}, got ${describeValue(got)}`;
}

const quoteAll = (values: readonly unknown[]): string => values.map((v) => JSON.stringify(v)).join(', ');

// A union that is not a step (`deploy: none | {…}`): when the value has the shape of one branch,
// that branch's complaints are the useful ones; else say which shapes would do.
function unionMismatch(issue: Extract<Issue, { code: 'invalid_union' }>, path: PathSegment[], data: unknown): ConfigProblem[] {
  const deeper = issue.errors.filter((branch) => branch.some((i) => i.path.length > 0 || i.code === 'unrecognized_keys'));
  if (deeper.length === 1) return deeper[0]!.flatMap((i) => fromIssue({ ...i, path: [...path, ...i.path] } as Issue, data));
  // A union that says in its own words what would do (`runs-on`) is clearer than a list of shapes.
  if (!GENERIC.test(issue.message)) return [{ path, message: `${issue.message}, got ${describeValue(valueAt(data, path))}` }];
  const shapes: string[] = [];
  const words: string[] = [];
  for (const branch of issue.errors) {
    for (const i of branch) {
      if (i.code === 'invalid_value') {
        shapes.push(quoteAll(i.values));
        words.push(...i.values.filter((v): v is string => typeof v === 'string'));
      } else if (i.code === 'invalid_type') shapes.push(EXPECTED[i.expected] ?? i.expected);
    }
  }
  const got = valueAt(data, path);
  const hint = typeof got === 'string' ? didYouMean(got, words) : '';
  return [{ path, message: `must be ${shapes.join(' or ')}, got ${describeValue(got)}${hint}` }];
}

function fromIssue(issue: Issue, data: unknown): ConfigProblem[] {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ path: [...path, key], at: 'key', message: unknownKey(key, path, data) }));
    case 'invalid_type': {
      const parent = valueAt(data, path.slice(0, -1));
      const last = path[path.length - 1];
      if (typeof last === 'string' && isRecord(parent) && !(last in parent)) {
        return [{ path, message: missingKey(path, data) }];
      }
      return [{ path, message: typeMismatch(issue, path, data) }];
    }
    case 'invalid_key': {
      const what = NAME_OF[String(path[0])] ?? 'key';
      const inner = issue.issues[0]?.message ?? 'is not a valid name';
      return [{ path, at: 'key', message: `${what} name "${String(path[path.length - 1])}" ${inner}` }];
    }
    case 'invalid_value': {
      const got = valueAt(data, path);
      const words = issue.values.filter((v): v is string => typeof v === 'string');
      const hint = typeof got === 'string' ? didYouMean(got, words) : '';
      if (path.length === 1 && path[0] === 'version') {
        return [{ path, message: `must be 1 (the only version of this file so far), got ${describeValue(got)}` }];
      }
      const expected = issue.values.length === 1 ? quoteAll(issue.values) : `one of ${quoteAll(issue.values)}`;
      return [{ path, message: `must be ${expected}, got ${describeValue(got)}${hint}` }];
    }
    case 'invalid_union': {
      if (issue.discriminator === 'kind') return [stepKind(path, data)];
      return unionMismatch(issue, path, data);
    }
    case 'too_big':
    case 'too_small':
    case 'invalid_format': {
      const got = valueAt(data, path);
      const message = GENERIC.test(issue.message) ? boundMessage(issue) : issue.message;
      return [{ path, message: `${message}, got ${describeValue(got)}` }];
    }
    default:
      return [{ path, message: issue.message }];
  }
}

// For bounds the schema gives no words of its own.
function boundMessage(issue: Issue): string {
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return issue.message;
  const small = issue.code === 'too_small';
  const n = Number(small ? issue.minimum : issue.maximum);
  const bound = small ? 'at least' : 'at most';
  if (issue.origin === 'string') return small && n === 1 ? 'must not be empty' : `must have ${bound} ${n} characters`;
  if (issue.origin === 'array') return `must have ${bound} ${n} entries`;
  return `must be ${bound} ${n}`;
}

function stepKind(path: PathSegment[], data: unknown): ConfigProblem {
  const kind = valueAt(data, path);
  const kinds = STEP_KINDS.join(', ');
  if (kind === undefined) return { path, message: `missing key "kind": every step needs a kind, one of: ${kinds}` };
  if (typeof kind !== 'string') return { path, message: `must be one of: ${kinds}, got ${describeValue(kind)}` };
  const hint = didYouMean(kind, STEP_KINDS);
  return { path, message: `unknown step kind "${kind}"${hint || `; expected one of: ${kinds}`}` };
}

/** Every issue of a failed parse, as problems with paths and actionable messages. */
export function problemsFromZod(issues: readonly Issue[], data: unknown): ConfigProblem[] {
  return issues.flatMap((issue) => fromIssue(issue, data));
}
