// The container image without Docker (it cannot run here): the Dockerfile read instruction by
// instruction, .dockerignore matched as Docker matches it, and the image's /app assembled in a
// folder exactly as the runtime stage's COPY lines would fill it from the build context, with the
// production dependencies of the lock file as its node_modules.
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { ROOT } from '../helpers/cli.ts';

export interface Instruction {
  keyword: string;
  args: string;
}

/** A Dockerfile's instructions: comments and parser directives dropped, `\` continuations joined. */
export function instructions(text: string): Instruction[] {
  const lines = text.split('\n').filter((l) => !/^\s*#/.test(l));
  const joined = lines.join('\n').replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [keyword = '', ...rest] = l.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

export interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

/** The build stages, each's base image with the Dockerfile's ARG defaults put in. */
export function stages(all: Instruction[]): Stage[] {
  const args = new Map<string, string>();
  const out: Stage[] = [];
  for (const i of all) {
    if (i.keyword === 'ARG' && out.length === 0) {
      const [name, value = ''] = i.args.split('=');
      args.set(name!, value);
    } else if (i.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(i.args)!;
      const from = m[1]!.replace(/\$\{(\w+)\}/g, (_s, n: string) => args.get(n) ?? '');
      out.push({ from, ...(m[2] ? { name: m[2] } : {}), body: [] });
    } else out.at(-1)?.body.push(i);
  }
  return out;
}

export const of = (stage: Stage, keyword: string) => stage.body.filter((i) => i.keyword === keyword);

/** The stage's ENV variables. */
export const envOf = (stage: Stage): Record<string, string> =>
  Object.fromEntries(of(stage, 'ENV').flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));

/** The exec form of CMD/ENTRYPOINT/HEALTHCHECK CMD as its argument list. */
export const execForm = (args: string) => JSON.parse(args.slice(args.indexOf('['))) as string[];

export const dockerfile = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
export const build = stages(dockerfile).at(0)!;
export const runtime = stages(dockerfile).at(-1)!;

/** A .dockerignore pattern as a regular expression over a context-relative path: `*` and `?` within one name, `**` across names. */
function patternRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Whether Docker leaves `path` (relative to the context) out of the build context: the last
 * pattern that matches it or one of its folders decides, a `!` pattern putting it back.
 */
export function dockerIgnores(path: string, ignoreFile = readFileSync(join(ROOT, '.dockerignore'), 'utf8')): boolean {
  const rules = ignoreFile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const keep = l.startsWith('!');
      const pattern = (keep ? l.slice(1) : l).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      return { keep, re: patternRegExp(pattern) };
    });
  const parts = path.split('/');
  const candidates = parts.map((_p, i) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const rule of rules) if (candidates.some((c) => rule.re.test(c))) ignored = !rule.keep;
  return ignored;
}

/** The sources and destination of each COPY from the build context (not `--from` another stage). */
export function contextCopies(stage: Stage = runtime): { sources: string[]; dest: string }[] {
  return of(stage, 'COPY')
    .filter((i) => !/--from=/.test(i.args))
    .map((i) => {
      const words = i.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const dest = words.pop()!;
      return { sources: words, dest };
    });
}

/** Top-level packages `npm ci --omit=dev` installs from the lock file (what the build stage copies in as node_modules). */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([key, info]) => /^node_modules\/(?:@[^/]+\/)?[^/]+$/.test(key) && !info.dev)
    .map(([key]) => key.slice('node_modules/'.length));
}

/**
 * The image's /app in `dir`: every COPY from the context, each file .dockerignore keeps, and the
 * production packages linked from this checkout's node_modules (their own dependencies resolve
 * where they really are, so what this checks is that Conveyor's sources import no development
 * package). Throws on a COPY form it does not model (wildcards), rather than guess.
 */
export function assembleImage(dir: string): string[] {
  const copied: string[] = [];
  // Docker walks into a folder it ignores only when a `!` pattern may put something in it back.
  const exceptions = /^\s*!/m.test(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));
  for (const { sources, dest } of contextCopies()) {
    for (const source of sources) {
      if (/[*?[]/.test(source)) throw new Error(`COPY ${source}: wildcards are not modelled here`);
      const from = join(ROOT, source);
      const isDir = statSync(from).isDirectory();
      const to = isDir ? join(dir, dest) : dest.endsWith('/') || sources.length > 1 ? join(dir, dest, basename(source)) : join(dir, dest);
      mkdirSync(isDir ? to : dirname(to), { recursive: true });
      cpSync(from, to, {
        recursive: true,
        filter: (file) => {
          const path = relative(ROOT, file);
          const keep = !dockerIgnores(path);
          if (statSync(file).isDirectory()) return keep || exceptions;
          if (keep) copied.push(path);
          return keep;
        },
      });
    }
  }
  const modules = realpathSync(join(ROOT, 'node_modules'));
  for (const name of productionPackages()) {
    const target = join(modules, name);
    if (!existsSync(target)) continue; // an optional package for another platform
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(dir, 'node_modules', name));
  }
  return copied;
}
