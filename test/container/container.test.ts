// The container image and the compose example, checked without Docker (it cannot run here): the
// Dockerfile is read instruction by instruction and the compose file with the `yaml` package, and
// what they say is checked against the app itself — the sources `conveyor serve` loads are in the
// image, the settings the compose file gives pass `conveyor serve`'s own checks, the database URL
// names the database service, the port and health check are the app's.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { missingSettings, settingsOf } from '../../app/serve.ts';
import { ROOT } from '../helpers/cli.ts';

interface Instruction {
  keyword: string;
  args: string;
}

/** A Dockerfile's instructions: comments and parser directives dropped, `\` continuations joined. */
function instructions(text: string): Instruction[] {
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

interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

/** The build stages, each's base image with the Dockerfile's ARG defaults put in. */
function stages(all: Instruction[]): Stage[] {
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

/** The exec form of CMD/ENTRYPOINT/HEALTHCHECK CMD as its argument list. */
const execForm = (args: string) => JSON.parse(args.slice(args.indexOf('['))) as string[];

/** Every source file `conveyor serve` loads: the relative imports from bin/conveyor.js's `serve` entry on. */
function serveSources(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), m[1]!);
      if (existsSync(target)) visit(target);
    }
  };
  // bin/conveyor.js chooses by argument: `serve` is app/main.ts (the command line is not in the image).
  const bin = readFileSync(join(ROOT, 'bin/conveyor.js'), 'utf8');
  const entry = /'serve' \? '(\.\.\/[^']+)'/.exec(bin)?.[1];
  expect(entry).toBe('../app/main.ts');
  seen.add(join(ROOT, 'bin/conveyor.js'));
  visit(resolve(ROOT, 'bin', entry!));
  return [...seen].map((f) => relative(ROOT, f));
}

const dockerfile = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const [build, runtime] = [stages(dockerfile).at(0)!, stages(dockerfile).at(-1)!];
const of = (stage: Stage, keyword: string) => stage.body.filter((i) => i.keyword === keyword);
const env = (stage: Stage): Record<string, string> =>
  Object.fromEntries(of(stage, 'ENV').flatMap((i) => [...i.args.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));

describe('the Dockerfile', () => {
  it('builds in one stage (npm ci with the tools better-sqlite3 compiles with) and runs in another on the same Node.js 20 base', () => {
    expect(stages(dockerfile).length).toBeGreaterThanOrEqual(2);
    expect(build.name).toBeDefined();
    expect(build.from).toBe(runtime.from);
    // better-sqlite3 12 on Node.js 20 (13 needs 22): the image's Node is the one the lock file's native module is for.
    expect(runtime.from).toMatch(/^node:20(\b|-)/);
    const installs = of(build, 'RUN')
      .map((i) => i.args)
      .join('\n');
    for (const tool of ['python3', 'make', 'g++']) expect(installs).toMatch(new RegExp(`apt-get install[^\\n]*\\s${tool.replace('+', '\\+')}(\\s|$)`));
    expect(installs).toMatch(/npm ci --omit=dev/);
    // The runtime stage takes the dependencies built above and installs nothing itself, no compiler.
    expect(of(runtime, 'COPY').map((i) => i.args)).toContain(`--from=${build.name} /app/node_modules ./node_modules`);
    expect(
      of(runtime, 'RUN')
        .map((i) => i.args)
        .join('\n'),
    ).not.toMatch(/npm (ci|install)|apt-get install/);
  });

  it('holds every source file `conveyor serve` loads, none of them left out by .dockerignore', () => {
    const copied = of(runtime, 'COPY')
      .filter((i) => !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const sources = serveSources();
    expect(sources).toContain('app/main.ts');
    expect(sources).toContain('adapters/store/sqlite.ts');
    for (const file of sources) {
      const top = file.split('/')[0]!;
      expect(copied, file).toContain(top);
      expect(ignored, file).not.toContain(top);
    }
    // The host's node_modules (native modules built for the host) never reach the image.
    expect(ignored).toContain('node_modules');
  });

  it('runs `conveyor serve` as an unprivileged user, on every interface at the port it exposes, with JSON logs', () => {
    const users = of(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
    const cmd = [...of(runtime, 'ENTRYPOINT'), ...of(runtime, 'CMD')].flatMap((i) => execForm(i.args));
    expect(cmd).toEqual(['node', 'bin/conveyor.js', 'serve']);
    const vars = env(runtime);
    // The app's own reading of these variables: what it will listen on.
    expect(settingsOf(vars)).toMatchObject({ host: '0.0.0.0', port: 3000 });
    expect(of(runtime, 'EXPOSE').map((i) => i.args)).toEqual([String(settingsOf(vars).port)]);
    expect(vars.NODE_ENV).toBe('production');
    expect(vars.CONVEYOR_DATABASE_URL).toMatch(/^sqlite:\/var\/lib\/conveyor\//);
    expect(of(runtime, 'VOLUME').map((i) => i.args)).toEqual(['/var/lib/conveyor']);
  });

  it('checks its health on /healthz at the port the app listens on', () => {
    const checks = of(runtime, 'HEALTHCHECK');
    expect(checks).toHaveLength(1);
    const [command, ...rest] = execForm(checks[0]!.args.slice(checks[0]!.args.indexOf('CMD')));
    expect(command).toBe('node');
    expect(rest.join(' ')).toMatch(/fetch\('http:\/\/127\.0\.0\.1:' \+ \(process\.env\.PORT \|\| 3000\) \+ '\/healthz'\)/);
    expect(checks[0]!.args).toMatch(/--interval=\d+s/);
  });
});

describe('the compose example', () => {
  const file = join(ROOT, 'examples/compose.yml');
  const compose = parse(readFileSync(file, 'utf8')) as {
    services: Record<
      string,
      {
        image?: string;
        build?: { context: string; dockerfile: string };
        environment: Record<string, string>;
        depends_on?: Record<string, { condition: string }>;
        healthcheck?: { test: string[] };
        secrets?: string[];
        ports?: string[];
      }
    >;
    secrets: Record<string, { file: string }>;
    volumes: Record<string, unknown>;
  };
  const { db, app } = compose.services;
  /** `${VAR:?message}` and `${VAR:-default}` as compose substitutes them, from `values`. */
  const substitute = (text: string, values: Record<string, string>) =>
    text.replace(/\$\{(\w+)(?::[?-][^}]*)?\}/g, (_m, name: string) => values[name] ?? /:-([^}]*)\}/.exec(_m)?.[1] ?? '');
  const values = { POSTGRES_PASSWORD: 's3cret', APP_ID: '12345', WEBHOOK_SECRET: 'hook', CONVEYOR_PUBLIC_URL: 'https://conveyor.example.com' };

  it('runs PostgreSQL 15 with a health check, and the app after it is healthy', () => {
    expect(db!.image).toMatch(/^postgres:15(\b|-|\.)/);
    expect(db!.healthcheck!.test.join(' ')).toMatch(/pg_isready -U conveyor -d conveyor/);
    expect(app!.depends_on).toEqual({ db: { condition: 'service_healthy' } });
    // Built from this repository's Dockerfile.
    expect(existsSync(join(resolve(dirname(file), app!.build!.context), app!.build!.dockerfile))).toBe(true);
    expect(app!.ports).toEqual([String(settingsOf(env(runtime)).port)]);
  });

  it("points the app's database URL at the db service, with its user, password and database", () => {
    const url = new URL(substitute(app!.environment.CONVEYOR_DATABASE_URL!, values));
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('db');
    expect(url.port).toBe('5432');
    expect(url.username).toBe(db!.environment.POSTGRES_USER);
    expect(url.password).toBe(substitute(db!.environment.POSTGRES_PASSWORD!, values));
    expect(url.pathname).toBe(`/${db!.environment.POSTGRES_DB}`);
  });

  it('gives the app every setting `conveyor serve` needs, the private key as a secret file', () => {
    const environment = Object.fromEntries(Object.entries(app!.environment).map(([k, v]) => [k, substitute(String(v), values)]));
    const [secret] = app!.secrets!;
    expect(environment.PRIVATE_KEY_PATH).toBe(`/run/secrets/${secret}`);
    expect(compose.secrets[secret!]).toBeDefined();
    // The key file lives only in the container; everything else passes serve's own checks.
    expect(missingSettings({ ...environment, PRIVATE_KEY_PATH: undefined, PRIVATE_KEY: 'the PEM text' })).toEqual([]);
    // A variable left unset stops compose with the message given, naming it.
    expect(app!.environment.APP_ID).toMatch(/^\$\{APP_ID:\?set APP_ID/);
  });
});
