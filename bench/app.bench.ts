// The GitHub app's cost: REST calls from a step's completion to the next step's dispatch, the
// calls of a whole 6-step run, and webhooks per second when 10,000 webhooks are replayed through
// the app (Probot's receive, the real engine and SQLite store) with GitHub answering instantly (a
// fake fetch at the HTTP layer), divided by the engine's own transitions per second measured in
// the same run (the floor: read + reduce + compare-and-swap commit). Target ratio >= 0.3. GitHub's
// own part of each answer is timed and left out of the app's time, as the floor leaves out its
// stand-in for the action. It also prints what bounds that ratio: Probot's receive, one transition
// and the REST calls each webhook needs, each timed through the app's own client in the same run.
//   npx tsx bench/app.bench.ts [webhooks]
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { Probot, ProbotOctokit } from 'probot';
import { withGitHubPolicy } from '../adapters/github/octokit.ts';
import { ConveyorApp } from '../app/app.ts';
import { openAppStores } from '../app/stores.ts';
import { Engine } from '../engine/engine.ts';
import { openSqliteStore } from '../adapters/store/sqlite.ts';
import { renderResultText } from '../core/github/check-run.ts';
import { parseStepPayload, WIRE_VERSION, type StepResult } from '../core/contract/wire.ts';
import { planOf, resultOf, successFor } from '../test/helpers/plans.ts';
import { removeDir, tempDir } from '../test/helpers/repos.ts';

const WEBHOOKS = Number(process.argv[2] ?? 10_000);
const CONFIG = `version: 1
agents:
  coder: { run: "true" }
  reviewer: { run: "true", model: other/model }
services:
  web: { repo: acme/web }
pipelines:
  default:
    steps:
      - { id: implement, kind: code, agent: coder }
      - { id: test, kind: gate, run: "true" }
      - { id: lint, kind: gate, run: "true" }
      - { id: review, kind: review, agent: reviewer }
      - { id: accept, kind: gate, run: "true" }
      - { id: ship, kind: merge }
`;

// GitHub, answering at once. Its own part of each answer (reading the request, building the
// answer's JSON) is timed and left out of the app's time, as the floor leaves out its stand-in
// for the action: GitHub answering instantly. The Response object is the app's part: a real fetch
// builds one from the bytes it receives.
let calls = 0;
let ids = 1000;
/** Time spent inside the fake GitHub below (building its answers), in ms. */
let githubMs = 0;
const dispatches: string[] = [];
type Answer = [status: number, body: unknown];
const headers = { 'content-type': 'application/json' };
async function github(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const t = performance.now();
  const [status, body] = answer(input, init);
  const text = status === 204 ? null : JSON.stringify(body);
  githubMs += performance.now() - t;
  return new Response(text, { status, headers });
}
function answer(input: string | URL | Request, init?: RequestInit): Answer {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const method = (init?.method ?? 'GET').toUpperCase();
  const path = decodeURIComponent(url.pathname);
  if (path.endsWith('/access_tokens')) return [201, { token: 'ghs_bench', expires_at: '2099-01-01T00:00:00Z' }];
  calls++;
  if (path.endsWith('/contents/.github/conveyor.yml')) return [200, { type: 'file', encoding: 'base64', content: Buffer.from(CONFIG).toString('base64') }];
  if (path.includes('/git/ref/')) return [200, { object: { sha: 'b'.repeat(40) } }];
  if (method === 'POST' && path.endsWith('/check-runs')) return [201, { id: ++ids, html_url: `https://github.com/acme/web/runs/${ids}`, status: 'queued', output: {} }];
  if (path.endsWith('/dispatches')) {
    const { inputs } = JSON.parse(String(init?.body)) as { inputs: { payload: string; 'check-run': string } };
    dispatches.push(`${inputs['check-run']}\u0000${inputs.payload}`);
    return [204, null];
  }
  if (method === 'POST' && path.endsWith('/comments')) return [201, { id: ++ids, html_url: 'c' }];
  if (method === 'GET' && /\/pulls\/\d+$/.test(path)) return [200, { state: 'open', merged: false, merge_commit_sha: null, mergeable: true, mergeable_state: 'clean', head: { sha: 'a'.repeat(40) }, base: { ref: 'main' } }];
  if (method === 'PUT' && path.endsWith('/merge')) return [200, { merged: true, sha: 'c'.repeat(40) }];
  return [200, {}];
}

const AppOctokit = withGitHubPolicy(ProbotOctokit, { paceWrites: false }).defaults((o: object) => ({ ...o, request: { fetch: github } }));
const dir = tempDir('conveyor-app-bench-');
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
function createApp(name: string) {
  const db = join(dir, `${name}.db`);
  const { store, links } = openAppStores({ CONVEYOR_DATABASE_URL: db });
  // The app's Octokit, writes not paced (a second between writes would be all the bench measured).
  const probot = new Probot({ appId: 1, privateKey, Octokit: AppOctokit });
  const app = new ConveyorApp(probot, { store, links, appId: 1, sweepEveryMs: false, botLogin: 'conveyor[bot]', log: () => undefined });
  return { store, links, probot, app, close: () => (app.close(), store.close(), links.close()) };
}
let current = createApp('record');

const repository = { id: 1, name: 'web', full_name: 'acme/web', default_branch: 'main', owner: { login: 'acme' } };
let delivery = 0;
let received = 0;
const recorded: Array<{ id: string; name: string; payload: unknown }> = [];
async function receive(name: string, payload: unknown): Promise<void> {
  const event = { id: `d-${++delivery}`, name, payload };
  recorded.push(event);
  await current.probot.receive(event as never);
  received++;
}
const pr = (issue: number) => ({ repo: 'acme/web', number: issue, url: `https://github.com/acme/web/pull/${issue}`, branch: `conveyor/web-${issue}`, head: 'a'.repeat(40) });

/** The action's part, instantly: a successful result in the completed check run. */
function completion(entry: string, issue: number) {
  const [checkRunId, text] = entry.split('\u0000') as [string, string];
  const parsed = parseStepPayload(text);
  if (!parsed.ok) throw new Error(parsed.message);
  const p = parsed.payload;
  const result: StepResult = {
    version: WIRE_VERSION, runId: p.runId, stepId: p.step.id, mode: p.mode, attempt: p.attempt, epoch: p.epoch, conclusion: 'success', summary: 'ok',
    prs: p.step.kind === 'code' ? [pr(issue)] : [], commits: {}, environments: [],
    ...(p.step.kind === 'review' ? { review: { verdict: 'pass' as const, findings: [], scores: { complexity: 0.1, risk: 0.1, impact: 0.1 }, agent: 'reviewer', independent: true } } : {}),
  };
  return {
    action: 'completed',
    check_run: { id: Number(checkRunId), name: `conveyor / ${p.step.id}`, external_id: `${p.runId}:${p.step.id}:${p.attempt}:${p.epoch}`, status: 'completed', conclusion: 'success', details_url: null, app: { id: 1 }, output: { summary: 'ok', text: renderResultText(result) } },
    repository,
    sender: { login: 'conveyor[bot]', type: 'Bot' },
    installation: { id: 2 },
  };
}

async function oneRun(issue: number, counts?: { between: number[] }): Promise<void> {
  await receive('issues', { action: 'labeled', issue: { number: issue, title: `Issue ${issue}`, body: 'Do it.', html_url: `https://github.com/acme/web/issues/${issue}` }, label: { name: 'conveyor' }, repository, sender: { login: 'alice', type: 'User' }, installation: { id: 2 } });
  await current.app.idle();
  for (;;) {
    const next = dispatches.shift();
    if (!next) break;
    const before = calls;
    await receive('check_run', completion(next, issue));
    await current.app.idle();
    counts?.between.push(calls - before);
  }
  const run = current.store.get(`acme-web-${issue}`);
  if (run?.status !== 'succeeded') throw new Error(`run ${issue} ended ${run?.status}: ${run?.waitingFor ?? ''}`);
}

// 1. Calls of one whole run, and between each completion and the next dispatch.
const counts = { between: [] as number[] };
const c0 = calls;
await oneRun(1, counts);
const wholeRun = calls - c0;

// 2. Record runs of 6 webhooks each (a label and 5 completions) until WEBHOOKS were received...
let issue = 1;
recorded.length = 0;
while (recorded.length < WEBHOOKS) await oneRun(++issue);
current.close();
// ...then replay them into a fresh app and store, GitHub answering the same way.
ids = 1000;
dispatches.length = 0;
current = createApp('replay');
const replayCalls0 = calls;
const github0 = githubMs;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
for (const event of recorded) {
  await current.probot.receive(event as never);
  await current.app.idle();
}
const wallMs = performance.now() - t0;
const githubUs = ((githubMs - github0) * 1000) / recorded.length;
// GitHub answering instantly: its own part of each answer is not the app's time.
const appMs = wallMs - (githubMs - github0);
const appCpu = process.cpuUsage(cpu0);
const callsPerWebhook = (calls - replayCalls0) / recorded.length;
received = recorded.length;
const appRate = (received / appMs) * 1000;
const replayed = current.store.list({ status: ['succeeded'] }).length;
if (replayed !== issue - 1) throw new Error(`replay: ${replayed} of ${issue - 1} runs succeeded`);

// 3. The floor: the engine's own transitions (read + reduce + verify + CAS commit with outbox +
// carry out + mark done), as bench/engine.bench.ts drives them: a dispatcher that answers at once
// with a successful result sealed against the payload, as the action seals it.
const floorStore = openSqliteStore(join(dir, 'floor.db'));
const plan = planOf([
  { id: 'implement', kind: 'code' }, { id: 'test', kind: 'gate' }, { id: 'lint', kind: 'gate' }, { id: 'review', kind: 'review' }, { id: 'accept', kind: 'gate' }, { id: 'ship', kind: 'merge' },
]);
let transitions = 0;
/** The time the dispatcher spends standing in for the action (making and sealing results): not the engine's, as in bench/engine.bench.ts. */
let standInMs = 0;
const engine = new Engine({
  store: floorStore,
  dispatcher: {
    run: async (p) => {
      const t = performance.now();
      const result = successFor(p, p.step.kind === 'code' ? { prs: [pr(1)] } : {});
      standInMs += performance.now() - t;
      return { kind: 'result', result };
    },
    recover: async () => undefined,
  },
  merge: async (run, e) => resultOf(run.id, e.step, e.attempt, e.epoch, 'success'),
  observe: () => void transitions++,
});
const f0 = performance.now();
const fcpu0 = process.cpuUsage();
for (let i = 0; transitions < received; i++) {
  await engine.start({ id: `floor-${i}`, plan, issue: { repo: 'acme/web', number: i + 1, title: 't', body: 'b' }, options: {} });
  await engine.idle();
  if (engine.get(`floor-${i}`).status !== 'succeeded') throw new Error(`floor run ${i} ended ${engine.get(`floor-${i}`).status}`);
}
const floorRate = (transitions / (performance.now() - f0 - standInMs)) * 1000;
const floorCpu = process.cpuUsage(fcpu0);

// 4. What every webhook costs before the app does anything of its own, timed in the same run:
// Probot receiving it (the same recorded webhooks, into a Probot whose handlers do nothing), one
// transition (whose commit also carries the app's records of the dispatches it makes) and its REST
// calls, each timed through the app's own client with GitHub answering at once (its own part of
// each answer left out, as for the app).
const client = await current.app.deps.github(2);
const output = { title: 'in_progress: 3 of 6 steps succeeded', summary: 'x'.repeat(700) };
for (let i = 0; i < 500; i++) await client.updateCheckRun('acme/web', 7, { status: 'in_progress', output });
const q0 = performance.now();
const qGithub0 = githubMs;
for (let i = 0; i < 3000; i++) await client.updateCheckRun('acme/web', 7, { status: 'in_progress', output });
const callUs = ((performance.now() - q0 - (githubMs - qGithub0)) * 1000) / 3000;
const transitionUs = 1e6 / floorRate;
const bare = new Probot({ appId: 1, privateKey, Octokit: AppOctokit });
bare.onAny(async () => undefined);
const b0 = performance.now();
for (const event of recorded) await bare.receive(event as never);
const receiveUs = ((performance.now() - b0) * 1000) / recorded.length;
const requiredUs = receiveUs + transitionUs + callsPerWebhook * callUs;

const us = (cpu: NodeJS.CpuUsage, n: number) => ((cpu.user + cpu.system) / n).toFixed(0);
const ratio = appRate / floorRate;
console.log(`REST calls from a step's completion to the next dispatch: max ${Math.max(...counts.between.slice(0, -1))} (each: ${counts.between.join(', ')}; target <= 6)`);
console.log(`REST calls of a whole 6-step run (label to merged): ${wholeRun}`);
console.log(`app: ${received} webhooks in ${appMs.toFixed(0)} ms = ${appRate.toFixed(0)}/s (${us(appCpu, received)} us CPU each); engine floor: ${floorRate.toFixed(0)} transitions/s (${us(floorCpu, transitions)} us CPU each)`);
console.log(`each webhook took ${((wallMs * 1000) / received).toFixed(0)} us, of which the fake GitHub building its answers took ${githubUs.toFixed(0)} us (left out of the app's time above)`);
console.log(
  `what every webhook needs before any work of the app's own: Probot's receive ${receiveUs.toFixed(0)} us + one transition ${transitionUs.toFixed(0)} us + ${callsPerWebhook.toFixed(2)} REST calls x ${callUs.toFixed(0)} us (the app's client, instant answer) = ${requiredUs.toFixed(0)} us: ratio <= ${(transitionUs / requiredUs).toFixed(2)}`,
);
console.log(`ratio app/engine: ${ratio.toFixed(2)} (target >= 0.3) ${ratio >= 0.3 ? 'OK' : 'BELOW TARGET'}; with the fake GitHub's own time counted as the app's: ${((received / wallMs) * 1000 / floorRate).toFixed(2)}`);
current.close();
floorStore.close();
removeDir(dir);
