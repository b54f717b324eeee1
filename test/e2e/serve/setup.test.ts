// Registering the app as Probot apps are registered: `conveyor serve` started on a developer's
// machine with no credentials shows Probot's setup page, whose button posts app.yml's manifest
// (its webhook URL filled in from CONVEYOR_PUBLIC_URL) to GitHub; GitHub sends the browser back
// with a code, which Probot trades for the new app's id, key and secret (POST
// /app-manifests/{code}/conversions, played here by a GitHub Enterprise Server on a loopback port).
// They land in `.env`, readable by its owner only, and the next `conveyor serve` in that folder
// starts with them. In production, or with no public URL to give GitHub, it refuses instead.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../../app/manifest.ts';
import { ROOT, waitForOutput } from '../../helpers/cli.ts';
import { removeDir, tempDir } from '../../helpers/repos.ts';
import { startServe, type Served } from '../../helpers/serve.ts';

const PUBLIC_URL = 'https://conveyor.example.com';
const { privateKey: pem } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

/** GitHub's manifest conversion, and the codes it was asked to convert. */
async function fakeGitHub(): Promise<{ host: string; codes: string[]; htmlUrl: string }> {
  const codes: string[] = [];
  let htmlUrl = '';
  const server: Server = createServer((req, res) => {
    const m = /^\/api\/v3\/app-manifests\/([^/]+)\/conversions$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) return void res.writeHead(404).end();
    codes.push(m[1]!);
    res.writeHead(201, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 4242,
        slug: 'conveyor-acme',
        name: 'Conveyor',
        client_id: 'Iv1.0123456789abcdef',
        client_secret: 'client-secret',
        webhook_secret: 'the-webhook-secret',
        pem,
        html_url: htmlUrl,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address();
  const host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  htmlUrl = `http://${host}/apps/conveyor-acme`;
  return { host, codes, htmlUrl };
}

async function serveIn(cwd: string, env: Record<string, string>): Promise<Served> {
  const served = await startServe(env, { cwd });
  cleanups.push(() => served.stop());
  return served;
}

describe("registering the app through Probot's setup", () => {
  it('shows the setup page with app.yml, turns the code GitHub sends back into .env, and the next start serves with it', async () => {
    const github = await fakeGitHub();
    const cwd = tempDir('conveyor-setup-');
    cleanups.push(() => removeDir(cwd));
    // What the folder's .env held before is kept.
    writeFileSync(join(cwd, '.env'), 'KEPT=yes\n');
    const setup = await serveIn(cwd, { CONVEYOR_PUBLIC_URL: PUBLIC_URL, GHE_HOST: github.host, GHE_PROTOCOL: 'http', LOG_LEVEL: 'info' });
    expect(setup.listening, setup.output()).toBe(true);
    const base = `http://127.0.0.1:${setup.port}`;
    // Said once it listens (Probot's own log lines may come before or after it).
    await waitForOutput(setup.output, (t) => t.includes(`conveyor: no credentials yet: open ${base}/probot to register the GitHub App`));

    // The page's button posts the manifest to GitHub's "new app" page.
    const page = await (await fetch(`${base}/probot`)).text();
    const form = /<form action="([^"]+)"[\s\S]*?name="manifest" id="manifest" value='([^']*)'/.exec(page);
    expect(form, page).not.toBeNull();
    expect(form![1]).toBe(`http://${github.host}/settings/apps/new`);
    expect(JSON.parse(form![2]!)).toEqual({
      ...readManifest(),
      url: PUBLIC_URL,
      hook_attributes: { url: `${PUBLIC_URL}/api/github/webhooks` },
      redirect_url: `${base}/probot/setup`,
      version: 'v1',
    });
    // Probot's page for an app registered before names the same webhook URL.
    expect(await (await fetch(`${base}/probot/import`)).text()).toContain(`<b>${PUBLIC_URL}/api/github/webhooks</b>`);

    // GitHub sends the browser back with a code; Probot trades it and sends the browser on to install the app.
    const back = await fetch(`${base}/probot/setup?code=c0de`, { redirect: 'manual' });
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(`${github.htmlUrl}/installations/new`);
    expect(github.codes).toEqual(['c0de']);
    const file = join(cwd, '.env');
    expect(parseEnv(readFileSync(file, 'utf8'))).toMatchObject({
      KEPT: 'yes',
      APP_ID: '4242',
      PRIVATE_KEY: pem,
      WEBHOOK_SECRET: 'the-webhook-secret',
      CONVEYOR_PUBLIC_URL: PUBLIC_URL,
    });
    // The private key is no one else's to read.
    expect(statSync(file).mode & 0o077).toBe(0);
    await waitForOutput(setup.output, (t) =>
      t.includes(`conveyor: the GitHub App 4242 is registered; its credentials are in ${file}: stop this process and run conveyor serve again here`),
    );
    expect(await setup.stop()).toBe(0);

    // Started again in that folder, with nothing set but where to keep its state: it serves.
    const next = await serveIn(cwd, { CONVEYOR_DATABASE_URL: `sqlite:${join(cwd, 'app.db')}` });
    expect(next.listening, next.output()).toBe(true);
    expect((await fetch(`http://127.0.0.1:${next.port}/healthz`)).status).toBe(200);
    expect(next.output()).not.toContain('/probot');
  });

  it("registers the app for an organisation with Probot's GH_ORG, and keeps .env out of the clone's commits", async () => {
    const cwd = tempDir('conveyor-setup-');
    cleanups.push(() => removeDir(cwd));
    const setup = await serveIn(cwd, { CONVEYOR_PUBLIC_URL: PUBLIC_URL, GH_ORG: 'acme' });
    expect(setup.listening, setup.output()).toBe(true);
    const page = await (await fetch(`http://127.0.0.1:${setup.port}/probot`)).text();
    expect(page).toContain('<form action="https://github.com/organizations/acme/settings/apps/new"');
    // The setup writes .env, with the private key, where it was started: a clone's root, often.
    const ignored = readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['.env', '*.pem']));
  });

  it('set variables win over .env', async () => {
    const cwd = tempDir('conveyor-setup-');
    cleanups.push(() => removeDir(cwd));
    writeFileSync(join(cwd, '.env'), `APP_ID=4242\nPRIVATE_KEY="${pem.trim().replace(/\n/g, '\\n')}"\nWEBHOOK_SECRET=s\nPORT=1\n`);
    // .env's PORT=1 would be refused; the variable set names a free port.
    const served = await serveIn(cwd, { CONVEYOR_DATABASE_URL: `sqlite:${join(cwd, 'app.db')}` });
    expect(served.listening, served.output()).toBe(true);
    const wrong = await serveIn(cwd, { APP_ID: 'not-a-number' });
    expect(await wrong.stop()).toBe(2);
    expect(wrong.output()).toContain('APP_ID: the numeric id of your GitHub App (its settings page, "App ID"); got "not-a-number"');
  });

  it('refuses instead, saying what to set, in production or without a public URL for GitHub to deliver to', async () => {
    const cwd = tempDir('conveyor-setup-');
    cleanups.push(() => removeDir(cwd));
    const production = await serveIn(cwd, { NODE_ENV: 'production', CONVEYOR_PUBLIC_URL: PUBLIC_URL });
    expect(await production.stop()).toBe(2);
    for (const name of ['APP_ID', 'PRIVATE_KEY', 'WEBHOOK_SECRET']) expect(production.output()).toContain(name);
    expect(production.output()).not.toContain('/probot');

    const noUrl = await serveIn(cwd, {});
    expect(await noUrl.stop()).toBe(2);
    expect(noUrl.output()).toContain(
      'CONVEYOR_PUBLIC_URL: the https URL GitHub will deliver webhooks to (a tunnel to this machine will do); conveyor serve registers the app with it',
    );
    for (const name of ['APP_ID', 'PRIVATE_KEY', 'WEBHOOK_SECRET']) expect(noUrl.output()).toContain(name);
  });
});
