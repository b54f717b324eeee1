// Verifying the OIDC tokens GitHub Actions gives a workflow job (`id-token: write`), with jose: the
// signature against the issuer's published keys (JWKS, found through its OpenID configuration,
// cached, fetched again when a token names a key id it does not hold), then `iss`, `aud`, `exp`
// and `nbf` with a small clock skew. What the claims must say about the attempt is the token
// broker's business (token-broker.ts); this only says whether the token is GitHub's and valid.
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { OIDC_AUDIENCE } from '../core/contract/token-exchange.ts';

export const GITHUB_OIDC_ISSUER = 'https://token.actions.githubusercontent.com';

/** The issuer the app trusts: CONVEYOR_OIDC_ISSUER, else GitHub Enterprise Server's (GHE_HOST), else github.com's. */
export function oidcIssuerOf(env: NodeJS.ProcessEnv): string {
  const given = env.CONVEYOR_OIDC_ISSUER?.trim();
  if (given) return given.replace(/\/+$/, '');
  if (env.GHE_HOST) return `${env.GHE_PROTOCOL || 'https'}://${env.GHE_HOST}/_services/token`;
  return GITHUB_OIDC_ISSUER;
}

/** The claims of GitHub's token the broker judges (GitHub sends more; they are kept). */
export const githubClaimsSchema = z.looseObject({
  repository: z.string(),
  workflow_ref: z.string(),
  event_name: z.string(),
  run_id: z.string(),
  /** 1 for the run as dispatched; each re-run (always by a person or their token) counts up. */
  run_attempt: z.string(),
  /** Who started the workflow run: for a dispatch with an installation token, the app's bot. */
  actor: z.string(),
  /** Who started this attempt of the run, where GitHub says (the run context has it; tokens may not). */
  triggering_actor: z.string().optional(),
});
export type GitHubOidcClaims = z.infer<typeof githubClaimsSchema>;

/**
 * Why a token was not accepted. `code` is stable (the broker's `error`); `unavailable` means the
 * issuer's keys could not be read, which says nothing about the token (a 503, not a 401).
 */
export class OidcRefusal extends Error {
  constructor(
    readonly code:
      | 'token-malformed'
      | 'token-signature'
      | 'token-unknown-key'
      | 'token-expired'
      | 'token-not-yet-valid'
      | 'token-audience'
      | 'token-issuer'
      | 'token-claims'
      | 'issuer-unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'OidcRefusal';
  }
}

export interface OidcVerifier {
  readonly issuer: string;
  /** The token's claims when it is valid; else throws an OidcRefusal. */
  verify(jwt: string): Promise<GitHubOidcClaims>;
}

export interface OidcVerifierOptions {
  issuer: string;
  audience?: string;
  /** Seconds of clock skew allowed on `exp`, `nbf` and `iat` (default 60). */
  clockToleranceSec?: number;
  /**
   * After fetching the keys, how long (ms) a token with an unknown key id is refused without
   * fetching them again (default 30 s: a flood of made-up key ids cannot make the app flood the
   * issuer). Tests set 0.
   */
  refetchCooldownMs?: number;
}

const discoverySchema = z.looseObject({ issuer: z.string(), jwks_uri: z.url({ protocol: /^https?$/ }) });

/** The JWKS address: the issuer's OpenID configuration names it; an issuer without one publishes it at /.well-known/jwks. */
async function jwksUrlOf(issuer: string): Promise<URL> {
  let response: Response;
  try {
    response = await fetch(`${issuer}/.well-known/openid-configuration`, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    throw new OidcRefusal('issuer-unavailable', `cannot reach the OIDC issuer ${issuer} for its configuration: ${(e as Error).message}`);
  }
  if (!response.ok) return new URL(`${issuer}/.well-known/jwks`);
  const parsed = discoverySchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) return new URL(`${issuer}/.well-known/jwks`);
  // The configuration must be the issuer's own (OpenID Connect Discovery 1.0, section 4.3).
  if (parsed.data.issuer.replace(/\/+$/, '') !== issuer) {
    throw new OidcRefusal(
      'issuer-unavailable',
      `the OpenID configuration at ${issuer} names another issuer (${parsed.data.issuer}); check CONVEYOR_OIDC_ISSUER`,
    );
  }
  return new URL(parsed.data.jwks_uri);
}

/** What a jose error says about the token, in the broker's words. */
function refusalOf(e: unknown, issuer: string, audience: string): OidcRefusal {
  if (e instanceof OidcRefusal) return e;
  const err = e as { code?: string; claim?: string; message?: string; name?: string };
  switch (err.code) {
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new OidcRefusal('token-signature', `the OIDC token's signature does not verify with the key ${issuer} published under its key id`);
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return new OidcRefusal('token-unknown-key', `the OIDC token is signed with a key id ${issuer} does not publish`);
    case 'ERR_JWT_EXPIRED':
      return new OidcRefusal('token-expired', 'the OIDC token has expired: ask the runner for a new one');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (err.claim === 'aud')
        return new OidcRefusal('token-audience', `the OIDC token is not meant for Conveyor: its audience must be "${audience}" (getIDToken('${audience}'))`);
      if (err.claim === 'iss')
        return new OidcRefusal('token-issuer', `the OIDC token was not issued by ${issuer}, the issuer this app trusts (CONVEYOR_OIDC_ISSUER)`);
      if (err.claim === 'nbf' || err.claim === 'iat')
        return new OidcRefusal('token-not-yet-valid', `the OIDC token is not valid yet (its "${err.claim}" is in the future)`);
      return new OidcRefusal('token-claims', `the OIDC token's "${err.claim}" claim is not valid: ${err.message}`);
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new OidcRefusal('token-malformed', `the OIDC token is not a JWT GitHub signs (RS256 with a key id): ${err.message}`);
    default:
      // Reading the keys failed (network, timeout, not JSON): nothing is known of the token.
      return new OidcRefusal('issuer-unavailable', `cannot read the signing keys of ${issuer}: ${err.message ?? String(e)}`);
  }
}

export function createOidcVerifier(options: OidcVerifierOptions): OidcVerifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  const audience = options.audience ?? OIDC_AUDIENCE;
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = (): Promise<JWTVerifyGetKey> => {
    if (!keys) {
      const found = jwksUrlOf(issuer).then((url) => createRemoteJWKSet(url, { cooldownDuration: options.refetchCooldownMs ?? 30_000 }));
      keys = found;
      // An issuer that could not be reached is asked again by the next token.
      found.catch(() => {
        if (keys === found) keys = undefined;
      });
    }
    return keys;
  };
  return {
    issuer,
    async verify(jwt) {
      let payload: unknown;
      try {
        ({ payload } = await jwtVerify(jwt, await keySet(), {
          issuer,
          audience,
          algorithms: ['RS256'],
          clockTolerance: options.clockToleranceSec ?? 60,
          requiredClaims: ['exp', 'iat'],
        }));
      } catch (e) {
        throw refusalOf(e, issuer, audience);
      }
      const claims = githubClaimsSchema.safeParse(payload);
      if (!claims.success) {
        const missing = claims.error.issues.map((i) => i.path.join('.')).join(', ');
        throw new OidcRefusal('token-claims', `the OIDC token lacks what a GitHub Actions token carries: ${missing}`);
      }
      return claims.data;
    },
  };
}
