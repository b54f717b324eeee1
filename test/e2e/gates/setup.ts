// A small organisation for the trustworthy-gates end-to-end tests: one repository `acme/web` with a
// greeting module and its own test, a configuration file, and scripted agents (real node scripts)
// written per test. The `conveyor` command runs as a child process against it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, type CliResult } from '../../helpers/cli.ts';
import { createRemotes, git, removeDir, tempDir, type Remotes } from '../../helpers/repos.ts';

export interface Org {
  dir: string;
  remotes: Remotes;
  config: string;
  state: string;
  /** Writes an agent script `agents/<name>.mjs`; use `agent(name)` as its `run`. */
  script(name: string, source: string): void;
  agent(name: string): string;
  writeConfig(yaml: string): void;
  conveyor(...args: string[]): Promise<CliResult>;
  /** `git interpret-trailers --parse` of the last commit message on main. */
  trailers(): string[];
  cleanup(): void;
}

export const BASE_FILES = {
  'lib.js': "export function greet() {\n  return 'hi';\n}\n",
  'test/unit.js': "import { greet } from '../lib.js';\nif (typeof greet() !== 'string') process.exit(1);\n",
  'package.json': '{ "type": "module" }\n',
};

export function createOrg(): Org {
  const dir = tempDir('conveyor-gates-');
  const remotes = createRemotes(join(dir, 'remotes'));
  remotes.create('acme/web', BASE_FILES);
  const config = join(dir, 'conveyor.yml');
  const state = join(dir, 'state.db');
  const org: Org = {
    dir,
    remotes,
    config,
    state,
    script(name, source) {
      writeFileSync(join(dir, `${name}.mjs`), source);
    },
    agent(name) {
      return `node ${join(dir, `${name}.mjs`)}`;
    },
    writeConfig(yaml) {
      writeFileSync(config, yaml);
    },
    conveyor(...args) {
      return cli([...args, '--state', state], { cwd: dir });
    },
    trailers() {
      return interpret(dir, git(remotes.bare('acme/web'), 'log', '-1', '--format=%B', 'main'));
    },
    cleanup() {
      removeDir(dir);
    },
  };
  return org;
}

function interpret(cwd: string, message: string): string[] {
  const file = join(cwd, 'message.txt');
  writeFileSync(file, message);
  const out = git(cwd, 'interpret-trailers', '--parse', file);
  return out ? out.split('\n') : [];
}

/** The configuration with services and agents; `steps` is the YAML list of the pipeline's steps. */
export function configOf(org: Org, options: { agents: Record<string, string | { model?: string }>; steps: string }): string {
  const agents = Object.entries(options.agents)
    .map(([name, v]) => {
      const model = typeof v === 'object' && v.model ? `\n    model: ${v.model}` : '';
      return `  ${name}:\n    run: ${org.agent(name)}${model}\n    timeout-minutes: 2`;
    })
    .join('\n');
  return `version: 1\nagents:\n${agents}\nservices:\n  web:\n    repo: acme/web\npipelines:\n  default:\n    label: conveyor\n    service: web\n    steps:\n${options.steps}\n`;
}

/** A coder that makes greet() say hello, and writes which run and attempt it was. */
export const HELLO_CODER = `
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
const lib = readFileSync('lib.js', 'utf8').replace("'hi'", "'hello'");
writeFileSync('lib.js', lib);
writeFileSync('work.txt', process.env.CONVEYOR_RUN_ID + ' attempt ' + process.env.CONVEYOR_ATTEMPT + '\\n');
console.log('coder: saw acceptance test: ' + existsSync('test/accept.js'));
`;

export interface StatusJson {
  id: string;
  status: string;
  steps: Record<
    string,
    {
      status: string;
      attempts: Array<{ mode: string; attempt: number; epoch: number; conclusion?: string; receipt?: string }>;
      result?: { receipt?: string; review?: { independent: boolean; verdict: string }; error?: { code: string } };
    }
  >;
}

export async function statusOf(org: Org, runId: string): Promise<StatusJson> {
  const r = await org.conveyor('status', runId, '--json');
  if (r.code !== 0) throw new Error(`status failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as StatusJson;
}
