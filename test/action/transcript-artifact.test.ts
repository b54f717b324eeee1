// On GitHub, an agent attempt's transcript outlives the runner as a workflow artifact, linked from
// the step's check run. The REAL @actions/artifact runs against nock at the HTTP boundary: Twirp
// JSON to the results service (CreateArtifact, FinalizeArtifact) and the zip's upload to the signed
// blob URL; the check run is GitHub's API (nock). An upload that fails never fails the step: the
// check run says why the transcript was not uploaded. Off GitHub nothing changes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { artifactTranscriptStore } from '../../action/src/artifact-store.ts';
import { runEntry } from '../../action/src/entry.ts';
import { readPayload } from '../../action/src/payload.ts';
import { prepareCheckRun } from '../../action/src/report/check-run.ts';
import { fixedToken } from '../../action/src/token.ts';
import type { StepPayload } from '../../core/contract/wire.ts';
import { gateStep, makePayload } from '../helpers/payload.ts';
import { createRemotes, removeDir, tempDir, type Remotes } from '../helpers/repos.ts';
import { silentLogger } from '../../lib/logger.ts';

const API = 'https://api.github.com';
const RESULTS = 'https://results-receiver.actions.githubusercontent.com';
const TWIRP = '/twirp/github.actions.results.api.v1.ArtifactService';
const BLOB = 'https://productionresultssa1.blob.core.windows.net';
const BLOB_PATH = '/actions-results/run-backend-1/workflow-job-run-job-backend-2/artifacts/transcript.zip';
const SECRET = 'deploy-key-5f2c91a7e3';
const NAME = 'conveyor-transcript-acme-web-7-implement.run.1.0';

let remotes: Remotes;
let scratch: string;
/** The runner's environment as a JavaScript action sees it (the library reads it from process.env). */
let runner: Record<string, string>;

/** A runtime token shaped as the runner's: a JWT whose `scp` names the workflow run's and job's backend ids. */
async function runtimeToken(): Promise<string> {
  return new SignJWT({ scp: 'Actions.ExampleScope Actions.Results:run-backend-1:job-backend-2' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode('a-key-the-test-never-checks-32-bytes!'));
}

beforeEach(async () => {
  nock.disableNetConnect();
  remotes = createRemotes();
  scratch = tempDir('conveyor-transcript-artifact-');
  remotes.create('acme/web', { 'README.md': 'web\n' });
  runner = {
    GITHUB_ACTIONS: 'true',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/web',
    GITHUB_RUN_ID: '9001',
    ACTIONS_RUNTIME_TOKEN: await runtimeToken(),
    ACTIONS_RESULTS_URL: `${RESULTS}/`,
  };
  for (const [k, v] of Object.entries(runner)) vi.stubEnv(k, v);
});
afterEach(() => {
  vi.unstubAllEnvs();
  nock.cleanAll();
  nock.enableNetConnect();
  remotes.cleanup();
  removeDir(scratch);
});

/** A code step whose agent prints its secret, looks for the runtime token and leaves a change. */
function codePayload(): StepPayload {
  const payload = makePayload({
    runId: 'acme-web-7',
    repos: [{ repo: 'acme/web' }],
    agentRun: ['echo "agent has $DEPLOY_KEY"', 'echo "runtime token: ${ACTIONS_RUNTIME_TOKEN:-none}"', 'echo change > change.txt'].join('\n'),
  });
  payload.agents.coder = { ...payload.agents.coder!, secrets: ['DEPLOY_KEY'] };
  // The app's promise that the attempt is current: the check run is written once, not read first.
  return { ...payload, currentUntil: new Date(Date.now() + 30 * 60_000).toISOString() };
}

/**
 * Runs the step as the action does on GitHub: its check run completed through GitHub's API, its
 * transcript kept by the artifact store of this runner. The step's git goes to local bare
 * repositories (GITHUB_SERVER_URL of the step's own environment), as in the other action tests.
 */
async function runOnGitHub(payload: StepPayload, retention = '') {
  const payloadPath = join(scratch, 'payload.json');
  writeFileSync(payloadPath, JSON.stringify(payload));
  const checkRunEnv = { ...runner, CONVEYOR_CHECK_RUN_ID: '55', CONVEYOR_PAYLOAD_PATH: payloadPath };
  // Read once, as the step process does, for the check run and the step.
  const read = await readPayload({ env: checkRunEnv, getInput: () => '' });
  const gate = await prepareCheckRun({ env: checkRunEnv, payload: read, token: fixedToken('ghs_action'), log: silentLogger });
  if (!gate.proceed || !gate.client) throw new Error(`the check run would not proceed: ${JSON.stringify(gate)}`);
  const client = gate.client;
  const lines: string[] = [];
  const transcriptStore = artifactTranscriptStore(runner, retention);
  const result = await runEntry({
    env: {
      ...runner,
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GITHUB_SERVER_URL: remotes.url,
      RUNNER_TEMP: join(scratch, 'runner-temp'),
      CONVEYOR_PAYLOAD_PATH: payloadPath,
      CONVEYOR_WORKSPACE_ROOT: join(scratch, 'ws'),
      DEPLOY_KEY: SECRET,
    },
    payload: read,
    setSecret: () => undefined,
    log: (l) => lines.push(l),
    checkRunClient: () => client,
    ...(transcriptStore ? { transcriptStore } : {}),
  });
  return { result, log: lines.join('\n') };
}

/** The results service and the blob storage it signs an upload URL for, each request recorded. */
function artifactService() {
  const created: Array<Record<string, unknown>> = [];
  const finalized: Array<Record<string, unknown>> = [];
  const blocks: Buffer[] = [];
  const results = nock(RESULTS)
    .post(`${TWIRP}/CreateArtifact`, (b: Record<string, unknown>) => created.push(b) > 0)
    .reply(200, { ok: true, signed_upload_url: `${BLOB}${BLOB_PATH}?sig=upload-signature&sv=2024-08-04` })
    .post(`${TWIRP}/FinalizeArtifact`, (b: Record<string, unknown>) => finalized.push(b) > 0)
    .reply(200, { ok: true, artifact_id: '4242' });
  // Azure's block upload: the zip as a block, then the list that commits it.
  const blob = nock(BLOB)
    .put(BLOB_PATH, (body: string) => blocks.push(Buffer.from(body, 'hex')) > 0)
    .query((q) => q.comp === 'block' && typeof q.blockid === 'string' && q.sig === 'upload-signature')
    .reply(201)
    .put(BLOB_PATH)
    .query((q) => q.comp === 'blocklist' && q.sig === 'upload-signature')
    .reply(201, '', { ETag: '"0x1"', 'Last-Modified': new Date().toUTCString() });
  return {
    created,
    finalized,
    done() {
      expect(results.isDone()).toBe(true);
      expect(blob.isDone()).toBe(true);
    },
    /** The uploaded zip's one file, the transcript, as text. */
    uploaded(): string {
      const zip = join(scratch, 'uploaded.zip');
      writeFileSync(zip, Buffer.concat(blocks));
      const entries = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
      expect(entries).toEqual(['transcript-acme-web-7-implement.run.1.0.log']);
      return execFileSync('unzip', ['-p', zip, entries[0]!], { encoding: 'utf8' });
    },
  };
}

/** The check run's one write, recorded. */
function checkRunWrite(): { scope: nock.Scope; written: Array<{ conclusion: string; output: { summary: string } }> } {
  const written: Array<{ conclusion: string; output: { summary: string } }> = [];
  const scope = nock(API)
    .patch('/repos/acme/web/check-runs/55', (b: { conclusion: string; output: { summary: string } }) => written.push(b) > 0)
    .reply(200, { id: 55, status: 'completed' });
  return { scope, written };
}

describe("an agent's transcript on GitHub", () => {
  it('is uploaded as a workflow artifact (the masked transcript, zipped) and linked from the check run', async () => {
    const service = artifactService();
    const check = checkRunWrite();

    const before = Date.now();
    const { result, log } = await runOnGitHub(codePayload(), '7');

    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    service.done();
    expect(check.scope.isDone()).toBe(true);
    // One artifact, named for the run, step, mode, attempt and epoch, in this job's backend ids, kept 7 days.
    const { created, finalized } = service;
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ workflow_run_backend_id: 'run-backend-1', workflow_job_run_backend_id: 'job-backend-2', name: NAME });
    const expires = Date.parse(String(created[0]!.expires_at));
    expect(expires).toBeGreaterThanOrEqual(before + 7 * 86_400_000 - 60_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000 + 60_000);
    expect(finalized[0]).toMatchObject({ name: NAME });

    // What was uploaded is the zip of the transcript: the agent's lines, its secret masked, no runtime token.
    const transcript = service.uploaded();
    expect(transcript).toContain('agent has ***');
    expect(transcript).toContain('runtime token: none');
    expect(transcript).not.toContain(SECRET);
    expect(transcript).not.toContain(runner.ACTIONS_RUNTIME_TOKEN);

    // The check run (and the result) link it.
    const link = `https://github.com/acme/web/actions/runs/9001/artifacts/4242`;
    expect(check.written).toHaveLength(1);
    expect(check.written[0]!.conclusion).toBe('success');
    expect(check.written[0]!.output.summary).toContain(`Full transcript of the agent: [${NAME}](${link}) (workflow artifact)`);
    expect(result.summary).toContain(link);
    expect(log).toContain(`conveyor: transcript uploaded as workflow artifact ${NAME}: ${link}`);
  });

  it("is uploaded and linked when the agent fails too: the failure's check run links what it printed", async () => {
    const service = artifactService();
    const check = checkRunWrite();
    const payload = codePayload();
    payload.agents.coder = { ...payload.agents.coder!, run: 'echo "agent has $DEPLOY_KEY"; echo "giving up" >&2; exit 3' };

    const { result } = await runOnGitHub(payload);

    service.done();
    expect(check.scope.isDone()).toBe(true);
    expect(result.error?.code).toBe('agent-failed');
    expect(check.written[0]!.conclusion).toBe('failure');
    expect(check.written[0]!.output.summary).toContain(`[${NAME}](https://github.com/acme/web/actions/runs/9001/artifacts/4242)`);
    const transcript = service.uploaded();
    expect(transcript).toContain('agent has ***');
    expect(transcript).toContain('giving up');
    expect(transcript).not.toContain(SECRET);
  });

  it('that cannot be uploaded (the results service refuses it) leaves the step as it was, and the check run says why', async () => {
    const results = nock(RESULTS)
      .post(`${TWIRP}/CreateArtifact`)
      .reply(409, { code: 'already_exists', msg: 'an artifact with this name already exists on the workflow run' });
    const check = checkRunWrite();

    const { result, log } = await runOnGitHub(codePayload());

    expect(results.isDone()).toBe(true);
    expect(check.scope.isDone()).toBe(true);
    expect(result.conclusion, `${result.summary}\n${log}`).toBe('success');
    expect(remotes.show('acme/web', 'conveyor/web-7', 'change.txt')).toBe('change');
    const why =
      'Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run';
    expect(check.written[0]!.conclusion).toBe('success');
    expect(check.written[0]!.output.summary).toContain(`transcript not uploaded: ${why}`);
    expect(log).toContain(`conveyor: transcript not uploaded: ${why}`);
    // The transcript is still on the runner, as before.
    expect(existsSync(join(scratch, 'runner-temp', 'conveyor', 'transcript-acme-web-7-implement.run.1.0.log'))).toBe(true);
  });

  it('that the runner gives no artifact runtime for is not uploaded, and the check run says why', async () => {
    delete runner.ACTIONS_RUNTIME_TOKEN;
    vi.stubEnv('ACTIONS_RUNTIME_TOKEN', undefined);
    const check = checkRunWrite();

    const { result } = await runOnGitHub(codePayload());

    expect(check.scope.isDone()).toBe(true);
    expect(result.conclusion, result.summary).toBe('success');
    expect(check.written[0]!.output.summary).toContain(
      'transcript not uploaded: this runner gives the action no artifact runtime (ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL are not set)',
    );
  });

  it('is not uploaded with a bad `transcript-retention-days`, which the check run names', async () => {
    const check = checkRunWrite();
    const { result } = await runOnGitHub(codePayload(), 'a week');
    expect(check.scope.isDone()).toBe(true);
    expect(result.conclusion, result.summary).toBe('success');
    expect(check.written[0]!.output.summary).toContain(
      'transcript not uploaded: the action input `transcript-retention-days` must be a whole number of days, 1 or more, not "a week"',
    );
  });

  it('is not looked for in a step without an agent: a gate uploads nothing and says nothing of it', async () => {
    const check = checkRunWrite();
    const gate = { ...codePayload(), step: gateStep({ run: 'echo gate ran' }) };
    const { result } = await runOnGitHub(gate);
    expect(check.scope.isDone()).toBe(true);
    expect(result.conclusion, result.summary).toBe('success');
    expect(check.written[0]!.output.summary).not.toMatch(/transcript/i);
  });
});

describe('the artifact store', () => {
  it('exists only on GitHub: elsewhere the transcript stays a file, as in the embedded mode', () => {
    expect(artifactTranscriptStore({})).toBeUndefined();
    expect(artifactTranscriptStore({ ...runner, GITHUB_ACTIONS: 'false' })).toBeUndefined();
    expect(artifactTranscriptStore(runner)).toBeDefined();
  });

  it('says why when a name is refused by the library (nothing reaches GitHub)', async () => {
    const path = join(scratch, 'transcript.log');
    writeFileSync(path, 'line\n');
    const store = artifactTranscriptStore(runner)!;
    await expect(store.keep('bad/name', path)).rejects.toThrow(/The artifact name is not valid: bad\/name/);
    expect(readFileSync(path, 'utf8')).toBe('line\n');
  });
});
