// A small fleet for end-to-end runs of the embedded mode: a provider `acme/api` and its consumer
// `acme/web` as bare repositories, a configuration, and the scripted agent of
// test/fixtures/agents/scripted.mjs driven by a JSON script the test can rewrite between commands.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRemotes, tempDir, type Remotes } from './repos.ts';

export const SCRIPTED_AGENT = resolve(import.meta.dirname, '../fixtures/agents/scripted.mjs');

export interface AgentScript {
  attempts: Record<string, Record<string, Record<string, string>>>;
  sleep?: number;
  /** By attempt: repositories whose base the agent merges into the work branch first (a conflict repair). */
  mergeBase?: Record<string, string[]>;
  /** By attempt ("*": any other): what the agent writes to $CONVEYOR_USAGE_FILE (an object as JSON, a string as it is). */
  usage?: Record<string, object | string>;
  /** By attempt ("*": any other): the JSON the agent writes to $CONVEYOR_RESULT_FILE (a coder's `summary`, say). */
  result?: Record<string, object>;
}

export interface Fleet {
  dir: string;
  remotes: Remotes;
  config: string;
  state: string;
  script: string;
  setScript(script: AgentScript): void;
  writeConfig(yaml: string): void;
  /** Arguments of `conveyor run` for this fleet. */
  runArgs(...extra: string[]): string[];
  cleanup(): void;
}

/** The gate passes in a repository when its value.txt says "good". */
export const GATE = 'test "$(cat value.txt)" = good';

export function pipelineConfig(steps: string, options: { agentEnv?: Record<string, string> } = {}): string {
  const env = Object.entries(options.agentEnv ?? {})
    .map(([k, v]) => `\n      ${k}: ${JSON.stringify(v)}`)
    .join('');
  return `version: 1
agents:
  coder:
    run: node "$AGENT_JS"
    model: test/scripted-coder-1
    timeout-minutes: 5
    env:
      AGENT_JS: ${JSON.stringify(SCRIPTED_AGENT)}
      AGENT_SCRIPT: "{script}"${env}
services:
  web:
    repo: acme/web
    depends-on: [api]
  api:
    repo: acme/api
pipelines:
  default:
    service: web
    involves: [api]
    steps:
${steps}
`;
}

export const STANDARD_STEPS = `      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: '${GATE}', repair: { agent: coder, max-attempts: 2 } }
      - { id: approve, kind: approval }
      - { id: ship, kind: merge, method: squash }`;

export function createFleet(): Fleet {
  const dir = tempDir('conveyor-fleet-');
  const remotes = createRemotes(join(dir, 'remotes'));
  remotes.create('acme/api', { 'value.txt': 'good\n', 'README.md': '# api\n' });
  remotes.create('acme/web', { 'value.txt': 'good\n', 'README.md': '# web\n' });
  const fleet: Fleet = {
    dir,
    remotes,
    config: join(dir, 'conveyor.yml'),
    state: join(dir, 'state', 'state.db'),
    script: join(dir, 'agent-script.json'),
    setScript(script) {
      writeFileSync(fleet.script, JSON.stringify(script));
    },
    writeConfig(yaml) {
      writeFileSync(fleet.config, yaml.replaceAll('{script}', fleet.script));
    },
    runArgs(...extra) {
      return ['run', '--config', fleet.config, '--remotes', remotes.dir, '--state', fleet.state, ...extra];
    },
    cleanup() {
      remotes.cleanup();
    },
  };
  fleet.writeConfig(pipelineConfig(STANDARD_STEPS));
  return fleet;
}

/** An agent that gets the change right the first time: a new file in both repositories. */
export const RIGHT_FIRST_TIME: AgentScript = {
  attempts: {
    '1': { 'acme/api': { 'api-{issue}.txt': 'endpoint\n' }, 'acme/web': { 'web-{issue}.txt': 'call site\n' } },
  },
};

/** First attempt breaks the gate in acme/web; the repair (any later attempt) fixes it. */
export const REPAIRED_ON_SECOND: AgentScript = {
  attempts: {
    '1': { 'acme/api': { 'api-{issue}.txt': 'endpoint\n' }, 'acme/web': { 'web-{issue}.txt': 'call site\n', 'value.txt': 'bad\n' } },
    '*': { 'acme/web': { 'value.txt': 'good\n' } },
  },
};

/** Breaks the gate and never repairs it. */
export const NEVER_REPAIRED: AgentScript = {
  attempts: {
    '1': { 'acme/api': { 'api-{issue}.txt': 'endpoint\n' }, 'acme/web': { 'web-{issue}.txt': 'call site\n', 'value.txt': 'bad\n' } },
    '*': { 'acme/web': { 'value.txt': 'still bad\n' } },
  },
};
