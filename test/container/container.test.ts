// The container image and the compose example, checked without Docker (it cannot run here): the
// Dockerfile is read instruction by instruction and the compose file with the `yaml` package, and
// what they say is checked against the app itself. The image's /app is assembled in a folder from
// the Dockerfile's COPY lines and .dockerignore (image.ts), and the command line and `conveyor
// serve` are run in it with this machine's Node: what the image lacks fails here.
import { generateKeyPairSync } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { missingSettings, settingsOf } from '../../app/serve.ts';
import { cli, ROOT } from '../helpers/cli.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';
import { startServe } from '../helpers/serve.ts';
import { assembleImage, build, contextCopies, dockerIgnores, envOf, execForm, of, runtime, stages, dockerfile } from './image.ts';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

/** The runtime stage's RUN lines, joined. */
const runs = (stage = runtime) =>
  of(stage, 'RUN')
    .map((i) => i.args)
    .join('\n');

describe('the Dockerfile', () => {
  it('builds in one stage (npm ci with the tools better-sqlite3 compiles with) and runs in another on the same Node.js 24 base', () => {
    expect(stages(dockerfile).length).toBeGreaterThanOrEqual(2);
    expect(build.name).toBeDefined();
    expect(build.from).toBe(runtime.from);
    // The current Node.js LTS (20 ended in April 2026), one the lock file's better-sqlite3 supports.
    const major = /^node:(\d+)(\b|-)/.exec(runtime.from)?.[1];
    expect(major).toBe('24');
    const sqlite = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { engines: { node: string } };
    expect(sqlite.engines.node.split('||').map((r) => r.trim())).toContain(`${major}.x`);
    const installs = runs(build);
    for (const tool of ['python3', 'make', 'g++']) expect(installs).toMatch(new RegExp(`apt-get install[^\\n]*\\s${tool.replace('+', '\\+')}(\\s|$)`));
    expect(installs).toMatch(/npm ci --omit=dev/);
    // The runtime stage takes the dependencies built above and installs no package of npm's and no compiler.
    expect(of(runtime, 'COPY').map((i) => i.args)).toContain(`--from=${build.name} /app/node_modules ./node_modules`);
    expect(runs()).not.toMatch(/npm (ci|install)/);
    expect(runs()).not.toMatch(/apt-get install[^\n]*\s(python3|make|g\+\+)(\s|$)/);
    // git, which the command line's embedded mode (conveyor run, demo) works with.
    expect(runs()).toMatch(/apt-get install[^\n]*\sgit(\s|$)/);
  });

  it('leaves out of the build context what must not reach an image: the host node_modules, state, .env and keys', () => {
    for (const path of [
      'node_modules/probot/package.json',
      '.conveyor/app.db',
      '.env',
      'sub/.env',
      'github-app.pem',
      'keys/app.private-key.pem',
      'test/app/x.test.ts',
      '.git/HEAD',
    ])
      expect(dockerIgnores(path), path).toBe(true);
    for (const path of ['cli/main.ts', 'action/dist/index.js', 'examples/demo/conveyor.yml', 'workflows/conveyor.yml', 'app.yml'])
      expect(dockerIgnores(path), path).toBe(false);
    // The matcher is Docker's: the last pattern that matches wins, `**` crosses folders, `!` puts back.
    expect(dockerIgnores('a/b/c.txt', 'a\n')).toBe(true);
    expect(dockerIgnores('a/b/c.txt', 'a\n!a/b\n')).toBe(false);
    expect(dockerIgnores('x/y/z.pem', '*.pem\n')).toBe(false);
    expect(dockerIgnores('x/y/z.pem', '**/*.pem\n')).toBe(true);
  });

  it('runs `conveyor serve` as an unprivileged user, on every interface at the port it exposes, with JSON logs', () => {
    const users = of(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
    const cmd = [...of(runtime, 'ENTRYPOINT'), ...of(runtime, 'CMD')].flatMap((i) => execForm(i.args));
    expect(cmd).toEqual(['node', 'bin/conveyor.js', 'serve']);
    const vars = envOf(runtime);
    // The app's own reading of these variables: what it will listen on.
    expect(settingsOf(vars)).toMatchObject({ host: '0.0.0.0', port: 3000 });
    expect(of(runtime, 'EXPOSE').map((i) => i.args)).toEqual([String(settingsOf(vars).port)]);
    expect(vars.NODE_ENV).toBe('production');
    expect(vars.CONVEYOR_DATABASE_URL).toMatch(/^sqlite:\/var\/lib\/conveyor\//);
    expect(of(runtime, 'VOLUME').map((i) => i.args)).toEqual(['/var/lib/conveyor']);
    // `conveyor` is on the image's PATH.
    expect(runs()).toMatch(/ln -s \/app\/bin\/conveyor\.js \/usr\/local\/bin\/conveyor(\s|$)/);
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

describe("the image's files, assembled as its COPY lines and .dockerignore make them", () => {
  let image: string;
  let copied: string[];
  let scratch: string;
  beforeAll(() => {
    image = tempDir('conveyor-image-');
    scratch = tempDir('conveyor-image-use-');
    copied = assembleImage(image);
  });
  afterAll(() => {
    removeDir(image);
    removeDir(scratch);
  });
  const bin = () => join(image, 'bin/conveyor.js');

  it('holds the command line, the app, the bundled action and the files they read, and no test, key or state', () => {
    for (const file of [
      'bin/conveyor.js',
      'cli/main.ts',
      'app/main.ts',
      'app.yml',
      'action/dist/index.js',
      'examples/demo/conveyor.yml',
      'examples/starter/conveyor.yml',
      'workflows/conveyor.yml',
    ])
      expect(copied, file).toContain(file);
    expect(copied.filter((f) => /^(test|bench|\.git|\.conveyor|node_modules)\/|\.pem$|(^|\/)\.env$/.test(f))).toEqual([]);
    expect(contextCopies().length).toBeGreaterThan(0);
  });

  it('runs `conveyor --help` and `conveyor init`', async () => {
    const help = await cli(['--help'], { bin: bin(), cwd: image });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: conveyor /);
    for (const command of ['run', 'demo', 'serve', 'init', 'validate']) expect(help.stdout).toContain(`  ${command}`);
    const target = join(scratch, 'repo');
    mkdirSync(target);
    const init = await cli(['init', '--dir', target], { bin: bin(), cwd: image });
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(target, '.github/workflows/conveyor.yml'), 'utf8')).toBe(readFileSync(join(ROOT, 'workflows/conveyor.yml'), 'utf8'));
    const validate = await cli(['validate', '--config', join(target, '.github/conveyor.yml')], { bin: bin(), cwd: image });
    expect(validate.code, validate.stderr).toBe(0);
  });

  it('runs `conveyor demo` (the embedded mode: the demo organisation, the bundled action, git) to its end', async () => {
    const demo = await cli(['demo', '--dir', join(scratch, 'demo')], { bin: bin(), cwd: image });
    expect(demo.code, demo.stdout + demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/succeeded/);
  });

  it('runs `conveyor` linked onto PATH, as the image links it and as `npm link` or `npm install -g .` does from a clone', () => {
    // The image: /usr/local/bin/conveyor -> /app/bin/conveyor.js. npm: PREFIX/bin/conveyor ->
    // ../lib/node_modules/conveyor/bin/conveyor.js, and that package folder -> the clone.
    const prefix = join(scratch, 'prefix');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(prefix, 'lib/node_modules'), { recursive: true });
    symlinkSync(image, join(prefix, 'lib/node_modules/conveyor'));
    symlinkSync('../lib/node_modules/conveyor/bin/conveyor.js', join(prefix, 'bin/conveyor'));
    const imageBin = join(scratch, 'usr-local-bin');
    mkdirSync(imageBin);
    symlinkSync(bin(), join(imageBin, 'conveyor'));
    for (const dir of [join(prefix, 'bin'), imageBin]) {
      // By name, from PATH, in a folder of no project, with node found on PATH as the script's #! line asks.
      const r = spawnSync('conveyor', ['--help'], {
        cwd: scratch,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${dir}:${dirname(process.execPath)}:/usr/bin:/bin` },
      });
      expect(r.status, `${dir}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^Usage: conveyor /);
    }
  });

  it("starts `conveyor serve` with the image's settings, until it listens and answers /healthz", async () => {
    const settings = {
      ...envOf(runtime),
      APP_ID: '12345',
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: 'hook',
      CONVEYOR_PUBLIC_URL: 'https://conveyor.example.com',
    };
    // The port is any free one here, and the state file is in the test's folder rather than the volume.
    const { PORT: _port, ...env }: Record<string, string> = { ...settings, CONVEYOR_DATABASE_URL: `sqlite:${join(scratch, 'app.db')}` };
    const served = await startServe(env, { bin: bin(), cwd: image });
    try {
      expect(served.listening, served.output()).toBe(true);
      expect((await fetch(`http://127.0.0.1:${served.port}/healthz`)).status).toBe(200);
      // JSON log lines, as the image's NODE_ENV says.
      expect(() =>
        JSON.parse(
          served
            .output()
            .split('\n')
            .find((l) => l.includes('Listening on'))!,
        ),
      ).not.toThrow();
    } finally {
      expect(await served.stop()).toBe(0);
    }
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
  });

  it("publishes the app on a fixed port of this machine's loopback (a reverse proxy in front), the one the app listens on inside", () => {
    const ports = (app!.ports ?? []).map((p) => substitute(String(p), {}));
    expect(ports).toEqual([`127.0.0.1:3000:${settingsOf(envOf(runtime)).port}`]);
    // CONVEYOR_PORT moves it.
    expect((app!.ports ?? []).map((p) => substitute(String(p), { CONVEYOR_PORT: '8080' }))).toEqual([`127.0.0.1:8080:${settingsOf(envOf(runtime)).port}`]);
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
    expect(missingSettings({ ...environment, PRIVATE_KEY_PATH: undefined, PRIVATE_KEY: privateKey })).toEqual([]);
    // A variable left unset stops compose with the message given, naming it.
    expect(app!.environment.APP_ID).toMatch(/^\$\{APP_ID:\?set APP_ID/);
  });
});
