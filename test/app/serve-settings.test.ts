// `conveyor serve`'s settings: each missing or wrong one is named with what to set (exit 2 comes
// from these, see test/e2e/serve), and Probot's conventions keep their meaning. The private key is
// checked as GitHub will use it (an RSA key that signs), and every problem is said at once.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GITHUB_OIDC_ISSUER, oidcIssuerOf } from '../../app/oidc.ts';
import { missingSettings, settingsOf } from '../../app/serve.ts';
import { removeDir, tempDir } from '../helpers/repos.ts';

const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const GOOD = { APP_ID: '12345', PRIVATE_KEY: rsa.privateKey, WEBHOOK_SECRET: 's' };
const dir = tempDir('conveyor-settings-');
afterAll(() => removeDir(dir));

/** The key's PEM lines: armour, body, armour. */
const lines = (pem: string) => pem.trim().split('\n');
/** A key as a careless copy leaves it: its body cut after a few lines, its END line kept. */
const truncated = (pem: string) => [...lines(pem).slice(0, 6), lines(pem).at(-1)!].join('\n') + '\n';

describe('serve settings', () => {
  it("takes Probot's variables with Probot's defaults", () => {
    expect(missingSettings(GOOD)).toEqual([]);
    expect(settingsOf(GOOD)).toEqual({ port: 3000, host: 'localhost', webhookPath: '/api/github/webhooks', oidcIssuer: GITHUB_OIDC_ISSUER });
    expect(settingsOf({ ...GOOD, PORT: '8080', HOST: '0.0.0.0', WEBHOOK_PATH: '/hooks', CONVEYOR_PUBLIC_URL: 'https://conveyor.example.com/' })).toEqual({
      port: 8080,
      host: '0.0.0.0',
      webhookPath: '/hooks',
      publicUrl: 'https://conveyor.example.com',
      oidcIssuer: GITHUB_OIDC_ISSUER,
    });
  });

  it('names each wrong setting with what would be right', () => {
    const problems = missingSettings({
      ...GOOD,
      PORT: 'eighty',
      WEBHOOK_PATH: 'hooks',
      CONVEYOR_PUBLIC_URL: 'http://conveyor.example.com',
      CONVEYOR_OIDC_ISSUER: 'not a url',
      // Typed by Probot as its levels and formats; the environment can hold anything.
      ...({ LOG_LEVEL: 'loud', LOG_FORMAT: 'xml' } as object),
    });
    expect(problems).toEqual([
      'PORT: the port to listen on (0-65535); got "eighty"',
      'WEBHOOK_PATH: the path GitHub delivers webhooks to, starting with / (default /api/github/webhooks); got "hooks"',
      'LOG_LEVEL: one of trace, debug, info, warn, error, fatal, silent (default info); got "loud"',
      'LOG_FORMAT: json (one JSON object a line, the default when NODE_ENV=production) or pretty (the default otherwise); got "xml"',
      'CONVEYOR_PUBLIC_URL: the URL where step runners reach this app; got "http://conveyor.example.com", which must use https (http only for localhost)',
      'CONVEYOR_OIDC_ISSUER: the OIDC issuer of your Actions runners\' tokens; got "not a url", which is not a URL',
    ]);
    expect(missingSettings({ APP_ID: '1', WEBHOOK_SECRET: 's', PRIVATE_KEY_PATH: '/nonexistent/app.pem' })).toEqual([
      "PRIVATE_KEY_PATH (/nonexistent/app.pem): does not exist; name the .pem file generated on the app's settings page",
    ]);
    // This machine's own URLs may be plain http (a local setup, tests).
    expect(missingSettings({ ...GOOD, CONVEYOR_PUBLIC_URL: 'http://127.0.0.1:3000', CONVEYOR_OIDC_ISSUER: 'http://localhost:8080' })).toEqual([]);
  });

  it('takes an app id that is a number, a webhook secret that is not blank and a public URL that is http(s)', () => {
    expect(missingSettings({ ...GOOD, APP_ID: '0' })).toEqual(['APP_ID: the numeric id of your GitHub App (its settings page, "App ID"); got "0"']);
    expect(missingSettings({ ...GOOD, APP_ID: 'my-app' })).toEqual(['APP_ID: the numeric id of your GitHub App (its settings page, "App ID"); got "my-app"']);
    expect(missingSettings({ ...GOOD, WEBHOOK_SECRET: '   ' })).toEqual(["WEBHOOK_SECRET: the webhook secret set on the app's settings page; it is blank"]);
    expect(missingSettings({ ...GOOD, CONVEYOR_PUBLIC_URL: 'ftp://conveyor.example.com' })).toEqual([
      'CONVEYOR_PUBLIC_URL: the URL where step runners reach this app; got "ftp://conveyor.example.com", which must use https (http only for localhost)',
    ]);
  });

  it('accepts the private key in every form Probot reads: PKCS#1 or PKCS#8, newlines escaped, base64, or a file', () => {
    const pkcs1 = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const file = join(dir, 'app.pem');
    writeFileSync(file, rsa.privateKey);
    const { PRIVATE_KEY: _key, ...rest } = GOOD;
    for (const env of [
      GOOD,
      { ...rest, PRIVATE_KEY: pkcs1.privateKey },
      { ...rest, PRIVATE_KEY: rsa.privateKey.trim().replace(/\n/g, '\\n') },
      { ...rest, PRIVATE_KEY: Buffer.from(rsa.privateKey).toString('base64') },
      { ...rest, PRIVATE_KEY_PATH: file },
    ])
      expect(missingSettings(env)).toEqual([]);
  });

  it('refuses a private key GitHub would not take, saying what is wrong and where it came from, never the key', () => {
    const { PRIVATE_KEY: _key, ...rest } = GOOD;
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const encrypted = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const problem = (key: string) => missingSettings({ ...rest, PRIVATE_KEY: key });
    expect(problem(rsa.publicKey)).toEqual([
      "PRIVATE_KEY: holds a public key (-----BEGIN PUBLIC KEY-----), not the app's private key; generate a private key on the app's settings page and give its .pem file",
    ]);
    // Cut in the middle, its END line lost.
    expect(problem(rsa.privateKey.slice(0, 900))).toEqual([
      'PRIVATE_KEY: is cut short: it has -----BEGIN PRIVATE KEY----- but no -----END PRIVATE KEY----- line; give the whole .pem file, both lines included',
    ]);
    // Lines lost from its body, both armour lines kept: the PEM reads but the key in it does not.
    expect(problem(truncated(rsa.privateKey))).toEqual([
      expect.stringMatching(
        /^PRIVATE_KEY: holds a PRIVATE KEY block that is not a readable key \(.+\): it is damaged or cut short; give the whole \.pem file as GitHub generated it$/,
      ),
    ]);
    expect(problem('-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5IGF0IGFsbA==\n-----END RSA PRIVATE KEY-----\n')).toEqual([
      expect.stringMatching(/^PRIVATE_KEY: holds a RSA PRIVATE KEY block that is not a readable key \(.+\): it is damaged or cut short/),
    ]);
    expect(problem('a key')).toEqual([
      "PRIVATE_KEY: holds no PEM private key (no -----BEGIN … PRIVATE KEY----- line); give the .pem file generated on the app's settings page, or its text",
    ]);
    expect(problem(ec.privateKey)).toEqual(["PRIVATE_KEY: holds an ec key; a GitHub App's private key is RSA: generate one on the app's settings page"]);
    expect(problem(encrypted.privateKey)).toEqual([
      'PRIVATE_KEY: holds a key encrypted with a passphrase; GitHub generates it unencrypted: give the .pem file as downloaded (or decrypt it: openssl pkey -in KEY.pem -out app.pem)',
    ]);
    // From a file: the variable and the file are named.
    const file = join(dir, 'truncated.pem');
    writeFileSync(file, truncated(rsa.privateKey));
    const fromFile = missingSettings({ ...rest, PRIVATE_KEY_PATH: file });
    expect(fromFile).toHaveLength(1);
    expect(fromFile[0]).toMatch(
      new RegExp(`^PRIVATE_KEY_PATH \\(${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\): holds a PRIVATE KEY block that is not a readable key`),
    );
    const folder = join(dir, 'keys');
    mkdirSync(folder);
    expect(missingSettings({ ...rest, PRIVATE_KEY_PATH: folder })).toEqual([
      `PRIVATE_KEY_PATH (${folder}): is a folder; name the .pem file generated on the app's settings page`,
    ]);
    // No line of the key's body is ever repeated in a message.
    const body = lines(rsa.privateKey).slice(1, -1);
    for (const said of [...problem(truncated(rsa.privateKey)), ...fromFile]) for (const line of body) expect(said).not.toContain(line);
  });

  it('names a database URL it cannot use, with the other problems, never its password', () => {
    const db = (url: string) => missingSettings({ ...GOOD, CONVEYOR_DATABASE_URL: url });
    expect(db('postgres://conveyor:p%zz@db.example:5432/conveyor')).toEqual([
      'CONVEYOR_DATABASE_URL: "postgres://conveyor:***@db.example:5432/conveyor" is not a URL PostgreSQL can take (a user or password with a stray %: percent-encode special characters, % as %25); give postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    ]);
    expect(db('postgres://conveyor:secret@db.example:99999/conveyor')).toEqual([
      'CONVEYOR_DATABASE_URL: "postgres://conveyor:***@db.example:99999/conveyor" is not a URL PostgreSQL can take; give postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    ]);
    expect(db('postgres://conveyor:secret@/conveyor')).toEqual([
      'CONVEYOR_DATABASE_URL: "postgres://conveyor:***@/conveyor" is not a URL PostgreSQL can take; give postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    ]);
    expect(db('sqlite:')).toEqual(['CONVEYOR_DATABASE_URL: "sqlite:" names no file; give sqlite:PATH, e.g. sqlite:/var/lib/conveyor/app.db']);
    expect(db('mysql://conveyor:secret@db.example/conveyor')).toEqual([
      'CONVEYOR_DATABASE_URL: "mysql://conveyor:***@db.example/conveyor" is not a database Conveyor knows; give a SQLite file path, sqlite:PATH or file:PATH (one replica), or postgres://USER:PASSWORD@HOST:PORT/DATABASE (any number of replicas)',
    ]);
    // A socket folder instead of a host is libpq's own form.
    expect(db('postgres:///conveyor?host=/var/run/postgresql')).toEqual([]);
    expect(db('postgres://conveyor:secret@db.example:5432/conveyor?sslmode=require')).toEqual([]);
    // Said with everything else, at once.
    expect(missingSettings({ ...GOOD, APP_ID: 'x', CONVEYOR_DATABASE_URL: 'sqlite:' })).toHaveLength(2);
  });

  it("trusts github.com's OIDC issuer, GitHub Enterprise Server's with GHE_HOST, or CONVEYOR_OIDC_ISSUER", () => {
    expect(oidcIssuerOf({})).toBe('https://token.actions.githubusercontent.com');
    expect(oidcIssuerOf({ GHE_HOST: 'github.acme.com' })).toBe('https://github.acme.com/_services/token');
    expect(oidcIssuerOf({ GHE_HOST: 'github.acme.com', GHE_PROTOCOL: 'http' })).toBe('http://github.acme.com/_services/token');
    expect(oidcIssuerOf({ GHE_HOST: 'github.acme.com', CONVEYOR_OIDC_ISSUER: 'https://issuer.acme.com/' })).toBe('https://issuer.acme.com');
  });
});
