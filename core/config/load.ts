// Reading `.github/conveyor.yml` text into a checked Config, or into every error it holds, each
// with file, line, column and key path, like a compiler. Pure: the caller reads the file.
import { LineCounter, parseDocument } from 'yaml';
import type { YAMLError } from 'yaml';
import { problemsFromZod } from './issues.ts';
import type { ConfigProblem } from './issues.ts';
import { formatPath, Locator } from './locate.ts';
import type { PathSegment } from './locate.ts';
import { configSchema } from './schema.ts';
import type { Config } from './schema.ts';
import { validateConfig } from './validate.ts';
import { credentialWarnings, endpointWarnings, versionWarnings } from './warnings.ts';

export type ConfigError = { file: string; line: number; column: number; path: string; message: string };

/** `warnings`: problems that do not make the file invalid (computed when `isSet` is given). */
export type LoadResult = { ok: true; config: Config; warnings?: ConfigError[] } | { ok: false; errors: ConfigError[] };

export interface LoadOptions {
  /** Whether a variable is set where the file is checked: turns on the credential warnings. */
  isSet?: (name: string) => boolean;
}

/** `FILE:LINE:COL key.path: message` (`FILE:LINE:COL: message` for the file as a whole). */
export function formatConfigError(e: ConfigError): string {
  return `${e.file}:${e.line}:${e.column}${e.path === '' ? ':' : ` ${e.path}:`} ${e.message}`;
}

const yamlMessage = (e: YAMLError, path: readonly PathSegment[]): string => {
  if (e.code === 'DUPLICATE_KEY') {
    const key = path[path.length - 1];
    return `duplicate key${typeof key === 'string' ? ` "${key}"` : ''}: a key may appear only once in a mapping; merge the two entries`;
  }
  if (e.code === 'MULTIPLE_DOCS') return 'the file holds several YAML documents (`---`); keep one';
  if (e.code === 'TAB_AS_INDENT') return 'invalid YAML: indent with spaces, not tabs';
  const text = `invalid YAML: ${e.message.replace(/\s+/g, ' ').trim()}`;
  if (e.code === 'UNEXPECTED_TOKEN' && /flow-(map|seq)|comma/.test(e.message)) {
    return `${text}; inside { … } or [ … ], quote a value that contains braces, brackets or commas, e.g. run: "npm test -- {path}"`;
  }
  if (e.code === 'BLOCK_AS_IMPLICIT_KEY') return `${text}; quote a value that contains ": "`;
  return text;
};

export function loadConfig(text: string, file: string, options: LoadOptions = {}): LoadResult {
  const lines = new LineCounter();
  // Merge keys (`<<: *base`) are a common way to share step settings; YAML 1.2 leaves them off.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true, uniqueKeys: true });
  const locator = new Locator(doc, lines);
  if (doc.errors.length > 0) {
    // The tree after a syntax error is a guess; checking it would report the guess's mistakes.
    // The first error of a line is the cause; the parser's later complaints there are echoes.
    const errors: ConfigError[] = [];
    const lineSeen = new Set<number>();
    for (const e of doc.errors) {
      const p = lines.linePos(e.pos[0]);
      if (lineSeen.has(p.line)) continue;
      lineSeen.add(p.line);
      const path = e.code === 'MULTIPLE_DOCS' ? [] : locator.pathAt(e.pos[0]);
      errors.push({ file, line: p.line, column: p.col, path: formatPath(path), message: yamlMessage(e, path) });
    }
    return { ok: false, errors: sortErrors(errors) };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    return { ok: false, errors: [{ file, line: 1, column: 1, path: '', message: `invalid YAML: ${(e as Error).message}` }] };
  }
  if (data === null || data === undefined) {
    return {
      ok: false,
      errors: [
        {
          file,
          line: 1,
          column: 1,
          path: '',
          message: 'the file is empty; it needs `version: 1`, services and pipelines (`conveyor init` writes a starter file)',
        },
      ],
    };
  }
  if (typeof data !== 'object' || Array.isArray(data)) {
    const { line, column } = locator.locate([]);
    return { ok: false, errors: [{ file, line, column, path: '', message: 'the file must be a mapping with version, agents, services and pipelines' }] };
  }
  const parsed = configSchema.safeParse(data);
  const problems: ConfigProblem[] = parsed.success ? [] : problemsFromZod(parsed.error.issues, data);
  problems.push(...validateConfig(parsed.success ? parsed.data : data));
  const positioned = (list: readonly ConfigProblem[]): ConfigError[] => {
    const seen = new Set<string>();
    const out: ConfigError[] = [];
    for (const problem of list) {
      const path = formatPath(problem.path);
      const id = `${path}\0${problem.message}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const { line, column } = locator.locate(problem.path, problem.at);
      out.push({ file, line, column, path, message: problem.message });
    }
    return sortErrors(out);
  };
  if (parsed.success && problems.length === 0) {
    if (!options.isSet) return { ok: true, config: parsed.data };
    return {
      ok: true,
      config: parsed.data,
      warnings: positioned([...credentialWarnings(parsed.data, options.isSet), ...endpointWarnings(parsed.data), ...versionWarnings(parsed.data)]),
    };
  }
  return { ok: false, errors: positioned(problems) };
}

// File order, as a compiler lists them; stable, so problems at one spot keep their order.
const sortErrors = (errors: ConfigError[]): ConfigError[] => errors.sort((a, b) => a.line - b.line || a.column - b.column);
