// What the embedded mode's dispatcher hands a step process: of the secrets of whoever started
// `conveyor`, exactly those its attempt's commands list by name (never a GitHub token); the others'
// values only in a file to mask them by (mode 0600, for the step process to read and delete); and
// where to keep its agent's transcript. A stand-in entry records what it got. And a stop, from any
// `conveyor` process, ends that attempt's step process alone.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLocalDispatcher } from '../../../adapters/dispatch/local.ts';
import { attemptFolder, refOf } from '../../../core/contract/attempt-ref.ts';
import type { StepPayload } from '../../../core/contract/wire.ts';
import { codeStep, makePayload } from '../../helpers/payload.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';
import { processAlive } from '../../../lib/process.ts';

const ENTRY = `
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
const masks = process.env.CONVEYOR_MASKS_PATH;
writeFileSync(join(dirname(process.env.CONVEYOR_PAYLOAD_PATH), 'seen.json'), JSON.stringify({
  env: process.env,
  masks: masks ? JSON.parse(readFileSync(masks, 'utf8')) : null,
  mode: masks ? (statSync(masks).mode & 0o777).toString(8) : null,
}));
`;

let dir: string;
beforeEach(() => {
  dir = tempDir('conveyor-local-');
  mkdirSync(join(dir, 'state'));
  writeFileSync(join(dir, 'entry.mjs'), ENTRY);
  vi.stubEnv('AGENT_API_KEY', 'agent-key-111111');
  vi.stubEnv('DEPLOY_TOKEN', 'deploy-token-222222');
  vi.stubEnv('OTHER_ROUTE', 'other-route-333333');
  vi.stubEnv('GITHUB_TOKEN', 'ghs_notforanyone444444');
  vi.stubEnv('DB_PASSWORD', 'db-password-555555');
});
afterEach(() => {
  vi.unstubAllEnvs();
  removeDir(dir);
});

function payload(step: StepPayload['step']): StepPayload {
  const p = makePayload({ repos: [{ repo: 'acme/web', services: ['web'] }], step });
  return {
    ...p,
    agents: { coder: { ...p.agents.coder!, secrets: ['AGENT_API_KEY', 'GITHUB_TOKEN'] } },
    services: { web: { ...p.services.web!, secrets: ['DEPLOY_TOKEN'], deploy: { run: './preview.sh', timeoutMinutes: 5 } } },
    byName: ['AGENT_API_KEY', 'DEPLOY_TOKEN', 'OTHER_ROUTE'],
  };
}

async function dispatch(p: StepPayload): Promise<{ env: Record<string, string>; masks: string[] | null; mode: string | null }> {
  const dispatcher = createLocalDispatcher({ stateDir: join(dir, 'state'), remotes: join(dir, 'remotes'), actionEntry: join(dir, 'entry.mjs') });
  const outcome = await dispatcher.run(p);
  expect(outcome.kind).toBe('lost'); // the stand-in entry reports no result
  return JSON.parse(await readFile(join(dir, 'state', 'attempts', attemptFolder(refOf(p)), 'seen.json'), 'utf8')) as never;
}

describe('the local dispatcher', () => {
  it("passes a code attempt its agent's secrets only, the others to mask by, and where its transcript goes", async () => {
    const p = payload(codeStep());
    const seen = await dispatch(p);
    expect(seen.env.AGENT_API_KEY).toBe('agent-key-111111');
    for (const name of ['DEPLOY_TOKEN', 'OTHER_ROUTE', 'GITHUB_TOKEN', 'DB_PASSWORD']) expect(seen.env[name], name).toBeUndefined();
    expect(seen.masks?.sort()).toEqual(['deploy-token-222222', 'other-route-333333']);
    expect(seen.mode).toBe('600');
    expect(seen.env.CONVEYOR_TRANSCRIPT_PATH).toBe(join(dir, 'state', 'attempts', attemptFolder(refOf(p)), 'transcript.log'));
  });

  it("passes a deploy attempt its services' secrets only", async () => {
    const seen = await dispatch(payload({ id: 'preview', kind: 'deploy', services: ['web'], needs: [], timeoutMinutes: 5 }));
    expect(seen.env.DEPLOY_TOKEN).toBe('deploy-token-222222');
    for (const name of ['AGENT_API_KEY', 'OTHER_ROUTE', 'GITHUB_TOKEN', 'DB_PASSWORD']) expect(seen.env[name], name).toBeUndefined();
    expect(seen.masks?.sort()).toEqual(['agent-key-111111', 'other-route-333333']);
  });
});

describe('stopping an attempt', () => {
  /** A step process that runs until it is killed, and says so in its folder once it started. */
  const LINGER = `
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
writeFileSync(join(dirname(process.env.CONVEYOR_PAYLOAD_PATH), 'started'), String(process.pid));
setInterval(() => {}, 1000);
`;

  it('stops the step process of that attempt alone, by its folder, as another dispatcher (another `conveyor`) would', async () => {
    writeFileSync(join(dir, 'linger.mjs'), LINGER);
    const options = { stateDir: join(dir, 'state'), remotes: join(dir, 'remotes'), actionEntry: join(dir, 'linger.mjs') };
    const running = createLocalDispatcher(options);
    const a = payload(codeStep());
    const b = { ...a, step: { ...a.step, id: 'other' } };
    const started = (p: StepPayload) => join(dir, 'state', 'attempts', attemptFolder(refOf(p)), 'started');
    const ends = [running.run(a), running.run(b)];
    for (let i = 0; i < 200 && !(existsSync(started(a)) && existsSync(started(b))); i++) await new Promise((r) => setTimeout(r, 25));
    const pidOf = (p: StepPayload) => Number(readFileSync(started(p), 'utf8'));
    // The command that cancels is not the one that runs the attempts.
    await createLocalDispatcher(options).stop(refOf(a), 'cancelled by alice');
    expect(await ends[0]).toMatchObject({ kind: 'lost', reason: expect.stringMatching(/was killed without reporting a result/) });
    expect(processAlive(pidOf(a))).toBe(false);
    expect(processAlive(pidOf(b))).toBe(true);
    // Stopping again, or an attempt that never started, does nothing.
    await running.stop(refOf(a), 'again');
    await running.stop({ ...refOf(a), attempt: 9 }, 'never started');
    await running.stop(refOf(b), 'cancelled by alice');
    expect(await ends[1]).toMatchObject({ kind: 'lost' });
  });
});
