// `conveyor serve`'s settings: each missing or wrong one is named with what to set (exit 2 comes
// from these, see test/e2e/serve), and Probot's conventions keep their meaning.
import { describe, expect, it } from 'vitest';
import { GITHUB_OIDC_ISSUER, oidcIssuerOf } from '../../app/oidc.ts';
import { missingSettings, settingsOf } from '../../app/serve.ts';

const GOOD = { APP_ID: '12345', PRIVATE_KEY: 'pem', WEBHOOK_SECRET: 's' };

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
      "PRIVATE_KEY_PATH: /nonexistent/app.pem does not exist; name the .pem file generated on the app's settings page",
    ]);
    // This machine's own URLs may be plain http (a local setup, tests).
    expect(missingSettings({ ...GOOD, CONVEYOR_PUBLIC_URL: 'http://127.0.0.1:3000', CONVEYOR_OIDC_ISSUER: 'http://localhost:8080' })).toEqual([]);
  });

  it("trusts github.com's OIDC issuer, GitHub Enterprise Server's with GHE_HOST, or CONVEYOR_OIDC_ISSUER", () => {
    expect(oidcIssuerOf({})).toBe('https://token.actions.githubusercontent.com');
    expect(oidcIssuerOf({ GHE_HOST: 'github.acme.com' })).toBe('https://github.acme.com/_services/token');
    expect(oidcIssuerOf({ GHE_HOST: 'github.acme.com', GHE_PROTOCOL: 'http' })).toBe('http://github.acme.com/_services/token');
    expect(oidcIssuerOf({ GHE_HOST: 'github.acme.com', CONVEYOR_OIDC_ISSUER: 'https://issuer.acme.com/' })).toBe('https://issuer.acme.com');
  });
});
