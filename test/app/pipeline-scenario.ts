// One whole pipeline on a fake GitHub (test/helpers/fake-github.ts), for counting what it costs in
// REST calls: a four-step pipeline over two repositories — code, a gate that fails and is repaired
// once, an approval, the merge — driven the way GitHub drives it. The app is the real one (Probot,
// the real SQLite store) talking to the fake's REST API; every workflow dispatch is run by the real
// action (from source, a child process) against the same fake, cloning and pushing over its smart
// HTTP; the webhooks GitHub would send for what happened (check runs completed, PRs pushed and
// merged, workflow runs ended, comments made) are delivered one at a time, each handled before the
// next (minutes apart on GitHub, so the reporter's coalescing window never spans two of them).
// Used by bench/api-calls.bench.ts (prints the calls) and test/app/api-calls.test.ts (bounds them).
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { Probot, ProbotOctokit } from 'probot';
import { withGitHubPolicy } from '../../adapters/github/octokit.ts';
import { ConveyorApp, type ConveyorAppOptions } from '../../app/app.ts';
import { openAppStore } from '../../app/stores.ts';
import type { Run } from '../../core/run/types.ts';
import { runActionChild } from '../helpers/action.ts';
import { ACTION_TOKEN, startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.ts';
import { createRemotes, removeDir, tempDir } from '../helpers/repos.ts';
import { fixture } from '../helpers/webhook-fixtures.ts';
import { silentLogger } from '../../lib/logger.ts';

export const SCENARIO_CONFIG = `version: 1
agents:
  coder:
    # The first attempt leaves a draft the gate refuses; the repair (of step test) fixes it.
    run: 'for d in acme__web acme__api; do if [ "$CONVEYOR_STEP" = implement ]; then echo draft > "$d/feature.txt"; else echo fixed > "$d/feature.txt"; fi; done'
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
      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: grep -q fixed feature.txt, repair: { agent: coder, max-attempts: 1 } }
      - { id: approve, kind: approval }
      - { id: ship, kind: merge }
`;

const APP_ID = 1;
const INSTALLATION = 2;
const BOT = 'conveyor-app[bot]';
export const RUN_ID = 'acme-web-7';

export interface ScenarioOutcome {
  fake: FakeGitHub;
  run: Run;
  /** The action's runs, in order: step label and exit code. */
  attempts: Array<{ step: string; code: number | null; output: string }>;
  /** Webhooks delivered to the app, by event name and action. */
  delivered: string[];
  close(): Promise<void>;
}

/** Runs the scenario to its end; `app` overrides options of the ConveyorApp (its reporter's wait). */
export async function runPipelineScenario(app: Partial<ConveyorAppOptions> = {}): Promise<ScenarioOutcome> {
  const dir = tempDir('conveyor-scenario-');
  const remotes = createRemotes(join(dir, 'remotes'));
  remotes.create('acme/web', { 'README.md': 'web\n', '.github/conveyor.yml': SCENARIO_CONFIG });
  remotes.create('acme/api', { 'README.md': 'api\n' });
  const fake = await startFakeGitHub({
    remotes,
    appId: APP_ID,
    installation: INSTALLATION,
    people: { alice: 'write', bob: 'write' },
    botLogin: BOT,
    issues: { 'acme/web#7': { title: 'Add a feature file', body: 'Please add feature.txt to web and api.' } },
  });
  const store = await openAppStore({ CONVEYOR_DATABASE_URL: join(dir, 'app.db') });
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  // The app's own Octokit policy; its waits shortened and writes not paced (pacing changes when, not how many).
  const probot = new Probot({
    appId: APP_ID,
    privateKey,
    baseUrl: fake.apiUrl,
    Octokit: withGitHubPolicy(ProbotOctokit, { msPerSecond: 1, paceWrites: false }),
    logLevel: 'warn',
  });
  const conveyor = new ConveyorApp(probot, {
    store,
    links: store.links,
    appId: APP_ID,
    botLogin: BOT,
    sweepEveryMs: false,
    merge: { baseMs: 10 },
    log: silentLogger,
    ...app,
  });
  const close = async () => {
    conveyor.close();
    await store.close();
    await fake.close();
    removeDir(dir);
  };

  const attempts: ScenarioOutcome['attempts'] = [];
  const delivered: string[] = [];
  let deliveries = 0;
  const deliverAll = async () => {
    for (let w = fake.webhooks.shift(); w; w = fake.webhooks.shift()) {
      delivered.push(`${w.name}.${String(w.payload.action)}`);
      await probot.receive({ id: `delivery-${++deliveries}`, name: w.name, payload: w.payload } as never);
      await conveyor.idle();
    }
  };
  try {
    // 1. alice labels the issue.
    const labeled = fixture('issues.labeled');
    fake.webhooks.push({
      name: 'issues',
      payload: {
        ...labeled,
        issue: {
          ...(labeled.issue as object),
          number: 7,
          title: 'Add a feature file',
          body: 'Please add feature.txt to web and api.',
          html_url: `${fake.url}/acme/web/issues/7`,
        },
        label: { ...(labeled.label as object), name: 'conveyor' },
        repository: {
          ...(labeled.repository as object),
          full_name: 'acme/web',
          name: 'web',
          owner: { login: 'acme', type: 'Organization' },
          default_branch: 'main',
        },
        sender: { login: 'alice', type: 'User' },
        installation: { id: INSTALLATION },
      },
    });
    let approved = false;
    for (let round = 0; round < 20; round++) {
      await deliverAll();
      // 2. A runner takes each dispatched workflow run: the real action against the fake.
      const d = fake.dispatches.shift();
      if (d) {
        const out = await runActionChild({
          INPUT_PAYLOAD: d.inputs.payload!,
          INPUT_TOKEN: ACTION_TOKEN,
          CONVEYOR_CHECK_RUN_ID: d.inputs['check-run']!,
          GITHUB_REPOSITORY: d.repo,
          GITHUB_API_URL: fake.apiUrl,
          GITHUB_SERVER_URL: fake.url,
          GITHUB_RUN_ID: String(d.runId),
          CONVEYOR_WORKSPACE_ROOT: join(dir, `ws-${d.runId}`),
        });
        attempts.push({ step: d.inputs.step ?? '?', code: out.code, output: out.stdout + out.stderr });
        fake.workflowRunEnded(d, out.code === 0 ? 'success' : 'failure');
        continue;
      }
      // 3. The approval waits for a person: bob approves on the issue.
      const run = await conveyor.engine.get(RUN_ID);
      if (run.status === 'waiting' && !approved && run.steps.approve?.status === 'waiting') {
        approved = true;
        fake.personComments('acme/web', 7, 'bob', '/conveyor approve');
        continue;
      }
      if (fake.webhooks.length === 0) break;
    }
    const run = await conveyor.engine.get(RUN_ID);
    return { fake, run, attempts, delivered, close };
  } catch (e) {
    await close();
    throw e;
  }
}
