// Reading `.github/conveyor.yml` from disk for the commands: a missing or unreadable file is bad
// usage (exit 2) with a message that says what to do, not a stack trace.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Config } from '../core/config/schema.ts';
import { DEFAULT_PIPELINE } from '../core/config/defaults.ts';
import { suggest } from '../core/config/suggest.ts';
import { compilePlan, listPipelines, MissingRepoError } from '../core/plan/compile.ts';
import type { Plan } from '../core/plan/types.ts';
import { formatConfigError, loadConfig } from '../core/config/load.ts';
import type { ConfigError, LoadOptions } from '../core/config/load.ts';
import { UsageError } from '../core/errors.ts';
import { isRepoName } from '../core/repo-name.ts';
import { GitRepo } from '../lib/git.ts';

export const DEFAULT_CONFIG_PATH = '.github/conveyor.yml';

/** The file's text; a UsageError naming the path when it cannot be read. */
export function readConfigText(path: string): string {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UsageError(`no configuration file at ${path}; write a starter one with \`conveyor init\`, or pass --config PATH`);
    }
    throw new UsageError(`cannot read ${path}: ${(e as Error).message}`);
  }
  if (!isFile) throw new UsageError(`${path} is not a file; --config takes the path of a conveyor.yml file`);
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as Error).message}`);
  }
}

export type LoadedConfigFile = { ok: true; config: Config; warnings?: ConfigError[] } | { ok: false; errors: ConfigError[] };

/** Reads and validates a configuration file; errors carry `path` as the user wrote it. */
export function loadConfigFile(path: string, options: LoadOptions = {}): LoadedConfigFile {
  return loadConfig(readConfigText(path), path, options);
}

/** Each error as `PATH:LINE:COL key.path: message`, one per line. */
export function formatConfigErrors(errors: readonly ConfigError[]): string {
  return errors.map((e) => `${formatConfigError(e)}\n`).join('');
}

/**
 * `owner/name` of the git repository holding `path`, from its `origin` remote, or undefined.
 * Only the last two segments of the URL matter: https, ssh, scp-like and file URLs all end so.
 */
export async function detectRepository(path: string): Promise<string | undefined> {
  const folder = dirname(path);
  if (!existsSync(folder)) return undefined;
  const url = await new GitRepo(folder).remoteUrl('origin');
  return url === undefined ? undefined : repositoryOfUrl(url);
}

export function repositoryOfUrl(url: string): string | undefined {
  const m = /([A-Za-z0-9_.-]+)[/:]([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url);
  return m ? `${m[1]}/${m[2]}` : undefined;
}

/**
 * Reads, validates and compiles one pipeline of a configuration file. Services without `repo`
 * belong to the repository holding the file: `repo` if given, else its git remote `origin`.
 */
export async function compileConfigFile(
  path: string,
  pipeline: string | undefined,
  repo: string | undefined,
  options: { standIn?: boolean } = {},
): Promise<{ ok: true; plan: Plan; standIn?: string } | { ok: false; errors: ConfigError[] }> {
  // It names a folder under --remotes in the embedded mode: only owner/name, as a service's `repo`.
  if (repo !== undefined && !isRepoName(repo)) throw new UsageError(`--repo must be "owner/name", got "${repo}"`);
  const loaded = loadConfigFile(path);
  if (!loaded.ok) return loaded;
  const name = choosePipeline(loaded.config, pipeline, path);
  const primaryRepo = repo ?? (await detectRepository(path));
  try {
    return { ok: true, plan: compilePlan(loaded.config, name, primaryRepo === undefined ? {} : { primaryRepo }) };
  } catch (e) {
    // The only thing a valid file can lack: which repository holds it. Showing a plan needs no
    // real one: the file `conveyor init` writes into a folder not yet pushed anywhere still has a
    // plan, under a name that says it stands in for one.
    if (e instanceof MissingRepoError && options.standIn) {
      const standIn = standInRepository(path);
      return { ok: true, plan: compilePlan(loaded.config, name, { primaryRepo: standIn }), standIn };
    }
    if (e instanceof MissingRepoError) {
      throw new UsageError(`${e.message}: pass --repo owner/name (no git remote "origin" was found to infer it)`);
    }
    throw e;
  }
}

/** `local/<folder>`: the folder holding `.github/`, named as a repository would be. */
export function standInRepository(path: string): string {
  const folder = dirname(resolve(path));
  const root = basename(folder) === '.github' ? dirname(folder) : folder;
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^\.+$/, '') || 'repository';
  return `local/${name}`;
}

/** The pipeline asked for, or the one to use when none is named; a UsageError naming the known ones. */
export function choosePipeline(config: Config, asked: string | undefined, file: string): string {
  const known = listPipelines(config);
  if (asked !== undefined) {
    if (known.includes(asked)) return asked;
    const close = suggest(asked, known);
    throw new UsageError(`no pipeline "${asked}" in ${file}${close === undefined ? '' : `; did you mean "${close}"?`} Known pipelines: ${known.join(', ')}`);
  }
  if (known.includes(DEFAULT_PIPELINE)) return DEFAULT_PIPELINE;
  if (known.length === 1) return known[0]!;
  throw new UsageError(`${file} has no pipeline "${DEFAULT_PIPELINE}"; choose one with --pipeline: ${known.join(', ')}`);
}
