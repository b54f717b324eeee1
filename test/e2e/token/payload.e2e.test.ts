// The real action (from source, in a child process, as GitHub's runner starts it) with payloads a
// writer could dispatch themselves: the runner's OIDC token goes only to the app the workflow names
// (CONVEYOR_PUBLIC_URL), never to a payload's `app.url`, and a payload that does not validate gets
// no OIDC token asked for at all. Where a token is given (the input `token`), a bad payload is
// still reported on its check run, as before.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeCheckRuns, runActionChild } from '../../app/harness.ts';
import { startIssuer, type TestIssuer } from '../../helpers/oidc.ts';
import { makePayload } from '../../helpers/payload.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';

let issuer: TestIssuer;
let app: { url: string; requests: string[]; close(): Promise<void> };
let work: string;

/** Anything listening on 127.0.0.1 that keeps what it is sent: where a token must (not) arrive. */
async function listener(): Promise<typeof app> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no', message: 'no' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

/** The environment of the template's step on a runner that hands out OIDC tokens. */
const runnerEnv = (payload: unknown, env: Record<string, string> = {}) => ({
  INPUT_PAYLOAD: typeof payload === 'string' ? payload : JSON.stringify(payload),
  CONVEYOR_CHECK_RUN_ID: '77',
  GITHUB_REPOSITORY: 'acme/web',
  GITHUB_RUN_ID: '9001',
  ACTIONS_ID_TOKEN_REQUEST_URL: issuer.idTokenUrl,
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: issuer.idTokenBearer,
  CONVEYOR_WORKSPACE_ROOT: work,
  ...env,
});

beforeEach(async () => {
  issuer = await startIssuer();
  app = await listener();
  work = tempDir('conveyor-payload-url-');
});
afterEach(async () => {
  await Promise.all([issuer.close(), app.close()]);
  removeDir(work);
});

describe("a payload a writer dispatched themselves, on the runner's OIDC", () => {
  it("naming its own app.url, with CONVEYOR_PUBLIC_URL unset: the runner's token is not even asked for, the job fails saying how to set it", async () => {
    const payload = { ...makePayload({ repos: [{ repo: 'acme/web' }] }), app: { url: app.url } };
    // An unset repository variable reaches the step as an empty string.
    const out = await runActionChild(runnerEnv(payload, { CONVEYOR_PUBLIC_URL: '' }));
    expect(out.code).toBe(1);
    expect(issuer.idTokenAudiences).toEqual([]);
    expect(app.requests).toEqual([]);
    expect(out.stdout).toContain('CONVEYOR_PUBLIC_URL is not set');
    expect(out.stdout).toContain('a repository or organisation variable CONVEYOR_PUBLIC_URL');
    expect(out.stdout).not.toContain('id-token: write');
  }, 60_000);

  it('that does not validate: no OIDC token is asked for, even with the app named, and the job says why', async () => {
    const payload = { ...makePayload({ repos: [{ repo: 'acme/web' }] }), version: 99 };
    const out = await runActionChild(runnerEnv(payload, { CONVEYOR_PUBLIC_URL: app.url }));
    expect(out.code).toBe(1);
    expect(issuer.idTokenAudiences).toEqual([]);
    expect(app.requests).toEqual([]);
    expect(out.stdout).toMatch(/the step payload is not valid \(version: .*\), so no OIDC token was asked for; cannot report to the check run \(77\)/);
  }, 60_000);

  it('that does not validate, with a token given: reported on its check run as before', async () => {
    const checks = await fakeCheckRuns();
    try {
      const payload = { ...makePayload({ repos: [{ repo: 'acme/web' }] }), version: 99 };
      checks.checks.set(77, { id: 77, name: 'conveyor / implement', status: 'queued', external_id: 'run-1:implement:1:0' });
      const out = await runActionChild(runnerEnv(payload, { INPUT_TOKEN: 'ghs_action', GITHUB_API_URL: checks.url }));
      expect(out.code, out.stdout + out.stderr).toBe(1);
      expect(issuer.idTokenAudiences).toEqual([]);
      expect(checks.checks.get(77)).toMatchObject({ status: 'completed', conclusion: 'failure' });
      expect(checks.checks.get(77)?.output?.text).toContain('bad-payload');
    } finally {
      await checks.close();
    }
  }, 60_000);
});
