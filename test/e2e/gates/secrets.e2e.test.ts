// Credentials by name, end to end through `conveyor run`: the agent gets the secret its agent lists,
// the deploy the one its service lists, and nothing else does; each value printed by the agent, by
// a gate (from a file the agent wrote it into) and by the deploy is found in no log, transcript,
// result, status, run state or output of the command. And the guards that are no judgment of the
// work end as their own reason with no repair spent: a failing setup, a crashing reviewer.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.ts';
import { createOrg, HELLO_CODER, statusOf, type Org } from './setup.ts';

const AGENT_KEY = 'agent-key-Q7f3ZK1mVb9';
const DEPLOY_TOKEN = 'deploy-token-Pp4Ld8Xs2Wn';
/** Listed nowhere: no command may get it. */
const UNLISTED = 'unlisted-password-Hh6Rt0Ya5';

function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    const s = statSync(p);
    return s.isDirectory() ? allFiles(p) : s.isFile() ? [p] : [];
  });
}

const reversed = (s: string) => [...s].reverse().join('');

describe('secrets by name, masked everywhere', () => {
  let org: Org;
  beforeEach(() => {
    org = createOrg();
  });
  afterEach(() => org.cleanup());

  it('reach only the commands that list them, and are printed nowhere', async () => {
    const coder = [
      'echo "agent has $DEMO_API_KEY, inside-${DEMO_API_KEY}-text"',
      // Into the repository, where a gate prints it back.
      'printf \'leaked: %s\\n\' "$DEMO_API_KEY" > leak.txt',
      // Reversed, to prove it arrived: no scrubber knows this form.
      'printf %s "$DEMO_API_KEY" | rev > received.txt',
      'echo "the agent sees [${DEPLOY_TOKEN:-}] [${DB_PASSWORD:-}]" > seen.txt',
    ].join('\n');
    const deploy = [
      'echo "deploying with $DEPLOY_TOKEN"',
      'echo "the deploy sees [${DEMO_API_KEY:-}] [${DB_PASSWORD:-}]"',
      'printf \'url=http://localhost/%s\\n\' "$(printf %s "$DEPLOY_TOKEN" | rev)" >> "$CONVEYOR_OUTPUT"',
    ].join('; ');
    org.writeConfig(`version: 1
agents:
  coder:
    run: |
${coder
  .split('\n')
  .map((l) => `      ${l}`)
  .join('\n')}
    secrets: [DEMO_API_KEY]
    timeout-minutes: 2
services:
  web:
    repo: acme/web
    secrets: [DEPLOY_TOKEN]
    deploy:
      run: ${JSON.stringify(deploy)}
pipelines:
  default:
    service: web
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: "cat leak.txt; echo gate sees [\${DEMO_API_KEY:-}]" }
      - { id: preview, kind: deploy }
      - { id: ship, kind: merge }
`);
    const r = await cli(
      ['run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Use the key', '--issue', '1', '--approve', '--keep-envs', '--state', org.state],
      {
        cwd: org.dir,
        env: { DEMO_API_KEY: AGENT_KEY, DEPLOY_TOKEN, DB_PASSWORD: UNLISTED },
      },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);

    // Each arrived where it is listed, and only there.
    expect(org.remotes.show('acme/web', 'main', 'received.txt')).toBe(reversed(AGENT_KEY));
    expect(org.remotes.show('acme/web', 'main', 'seen.txt')).toBe('the agent sees [] []');
    const s = await statusOf(org, 'web-1');
    expect(s.steps.ship?.status).toBe('succeeded');
    const status = await cli(['status', 'web-1', '--json', '--state', org.state], { cwd: org.dir });
    expect(status.stdout).toContain(`http://localhost/${reversed(DEPLOY_TOKEN)}`);

    // The attempt folders: logs, transcripts, payloads, results.
    const attempts = allFiles(join(org.dir, 'attempts')).filter((f) => !f.includes('/workspace/'));
    const logs = attempts.filter((f) => f.endsWith('output.log'));
    const transcript = attempts.find((f) => /implement\.run\.1\.0\/transcript\.log$/.test(f));
    expect(transcript).toBeDefined();
    const transcriptText = readFileSync(transcript!, 'utf8');
    expect(transcriptText).toContain('agent has ***, inside-***-text');
    const logText = logs.map((f) => readFileSync(f, 'utf8')).join('\n');
    expect(logText).toContain('leaked: ***');
    expect(logText).toContain('gate sees []');
    expect(logText).toContain('deploying with ***');
    expect(logText).toContain('the deploy sees [] []');
    // No masks file is left behind: the step process read and deleted it.
    expect(attempts.filter((f) => f.endsWith('masks.json'))).toEqual([]);

    const places: [string, string][] = [
      ['run stdout', r.stdout],
      ['run stderr', r.stderr],
      ['status', status.stdout],
      ...attempts.map((f): [string, string] => [f, readFileSync(f, 'latin1')]),
      ...allFiles(org.dir)
        .filter((f) => /state\.db/.test(f))
        .map((f): [string, string] => [f, readFileSync(f, 'latin1')]),
    ];
    expect(places.length).toBeGreaterThan(8);
    for (const [where, text] of places) {
      for (const secret of [AGENT_KEY, DEPLOY_TOKEN, UNLISTED]) expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
    }
  });
});

describe('no repair is spent on what judged nothing', () => {
  let org: Org;
  beforeEach(() => {
    org = createOrg();
    org.script('coder', HELLO_CODER);
  });
  afterEach(() => org.cleanup());

  const run = () => org.conveyor('run', '--config', org.config, '--remotes', org.remotes.dir, '--title', 'Say hello', '--issue', '2', '--approve');

  it('a service setup that fails ends the gate as setup-failed, without a repair', async () => {
    org.writeConfig(`version: 1
agents:
  coder: { run: ${JSON.stringify(org.agent('coder'))} }
services:
  web: { repo: acme/web, setup: "echo resolving; exit 9" }
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: node test/unit.js, repair: { agent: coder, max-attempts: 2 } }
`);
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('setup-failed: the setup of service "web", `echo resolving; exit 9`, exited with 9');
    const s = await statusOf(org, 'web-2');
    expect(s.steps.test?.attempts.map((a) => `${a.mode}:${a.conclusion}`)).toEqual(['run:failure']);
    expect(s.steps.test?.result?.error?.code).toBe('setup-failed');
  });

  it('a reviewer that crashes ends the review as reviewer-no-verdict, without a repair', async () => {
    org.script('reviewer', "console.error('reviewer: cannot reach the model'); process.exit(1);\n");
    org.writeConfig(`version: 1
agents:
  coder: { run: ${JSON.stringify(org.agent('coder'))} }
  reviewer: { run: ${JSON.stringify(org.agent('reviewer'))} }
services:
  web: { repo: acme/web }
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: review, kind: review, agent: reviewer, repair: { agent: coder, max-attempts: 2 } }
`);
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('reviewer-no-verdict: The reviewer exited with 1 before giving a verdict');
    const s = await statusOf(org, 'web-2');
    expect(s.steps.review?.attempts.map((a) => `${a.mode}:${a.conclusion}`)).toEqual(['run:failure']);
    expect(s.steps.implement?.attempts).toHaveLength(1);
  });
});
