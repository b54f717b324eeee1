// The token broker on the app's own HTTP server module, on 127.0.0.1, for tests: a real OIDC
// verifier (no refetch cooldown) against a test issuer, the attempt authority a test gives, the
// app's bot `conveyor-app[bot]` (the actor of the runs it dispatches, as in jobClaims), and
// minting through a real Probot whose GitHub calls nock answers.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { Probot, ProbotOctokit } from 'probot';
import { expect } from 'vitest';
import { createAppHttpServer } from '../../app/http.ts';
import { createOidcVerifier } from '../../app/oidc.ts';
import { createTokenBroker, mintWithProbot, type AttemptAuthority, type TokenBrokerOptions } from '../../app/token-broker.ts';
import type { TestIssuer } from './oidc.ts';
import { API, APP_ID, BOT, INSTALLATION, privateKey } from '../app/harness.ts';
import { lineLogger } from '../../lib/logger.ts';

export const CODE_PERMISSIONS = { contents: 'write', pull_requests: 'write', checks: 'write', actions: 'read' };

/** The app's bot, which starts every workflow run the app dispatches (jobClaims' `actor`). */
export { BOT };

export interface Broker {
  /** The server's URL (the app's public URL in tests). */
  base: string;
  /** Lines the broker and the server logged, each with its level and fields (`warn: token for … (run=… step=…)`). */
  logged: string[];
  /** One request; `retryAfter` is the answer's Retry-After header, when it has one. */
  exchange(body: unknown): Promise<{ status: number; body: Record<string, unknown>; retryAfter?: string }>;
  close(): Promise<void>;
}

export async function startBroker(
  issuer: TestIssuer,
  attempts: AttemptAuthority,
  options: Partial<Pick<TokenBrokerOptions, 'refusals' | 'botLogin' | 'now'>> = {},
): Promise<Broker> {
  const logged: string[] = [];
  const log = lineLogger((level, line) => void logged.push(`${level}: ${line}`));
  const probot = new Probot({
    appId: APP_ID,
    privateKey,
    Octokit: ProbotOctokit.defaults((o: object) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })),
  });
  const tokens = createTokenBroker({
    // No cooldown: each test's unknown key id may fetch the keys again at once.
    verifier: createOidcVerifier({ issuer: issuer.url, refetchCooldownMs: 0 }),
    attempts,
    mint: mintWithProbot(probot),
    botLogin: async () => BOT,
    ...options,
    log,
  });
  const server: Server = createAppHttpServer({
    webhookPath: '/api/github/webhooks',
    webhooks: async () => false,
    ready: async () => ({ ok: true, checks: {} }),
    tokens,
    log,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    logged,
    async exchange(body) {
      const response = await fetch(`${base}/conveyor/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const retryAfter = response.headers.get('retry-after');
      return { status: response.status, body: (await response.json()) as Record<string, unknown>, ...(retryAfter ? { retryAfter } : {}) };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** GitHub's token endpoint, expecting exactly these repositories and permissions. */
export function tokenEndpoint(repositories: string[], permissions: Record<string, string>, reply: { token?: string; expires_at?: string } = {}): nock.Scope {
  const token = reply.token ?? 'ghs_scoped';
  return nock(API)
    .post(`/app/installations/${INSTALLATION}/access_tokens`, (body: unknown) => JSON.stringify(body) === JSON.stringify({ repositories, permissions }))
    .reply(201, { token, expires_at: reply.expires_at ?? '2099-01-01T00:00:00Z', permissions, repository_selection: 'selected' });
}

/** A refusal: its code and status, a message, and nothing else (no token, no stack trace). */
export function expectRefusal(r: { status: number; body: Record<string, unknown> }, status: number, error: string, says: RegExp): void {
  expect({ status: r.status, error: r.body.error }).toEqual({ status, error });
  expect(Object.keys(r.body).sort()).toEqual(['error', 'message']);
  expect(String(r.body.message)).toMatch(says);
  expect(String(r.body.message)).not.toMatch(/\n\s+at |\.ts:\d+/);
}
