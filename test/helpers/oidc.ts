// A GitHub Actions OIDC issuer on 127.0.0.1 for tests: real RS256 keys (jose), its OpenID
// configuration and JWKS served over HTTP (counting the JWKS fetches), tokens signed with the
// claims GitHub puts in a workflow job's token, and the runner's ID token endpoint
// (ACTIONS_ID_TOKEN_REQUEST_URL) handing out tokens the test decides.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface SignOptions {
  /** A published key's id (default the first), or `unpublished` to sign with a key the JWKS lacks. */
  kid?: string;
  /** Sign with this key while naming `kid` (a forged signature). */
  key?: CryptoKey;
  issuer?: string;
  audience?: string;
  /** Seconds from now. */
  expiresIn?: number;
  notBefore?: number;
}

export interface TestIssuer {
  /** The issuer's URL (http://127.0.0.1:port). */
  url: string;
  /** How many times the JWKS was fetched. */
  jwksFetches: number;
  /** The runner's ID token endpoint: ACTIONS_ID_TOKEN_REQUEST_URL (with its api-version query). */
  idTokenUrl: string;
  /** The bearer the ID token endpoint wants: ACTIONS_ID_TOKEN_REQUEST_TOKEN. */
  idTokenBearer: string;
  /** Audiences the runner's endpoint was asked for, in order. */
  idTokenAudiences: string[];
  /** What the runner's endpoint signs: claims for each request (default `claims`). */
  runnerClaims: () => Record<string, unknown>;
  /** Publishes a new key (a rotation); resolves with its id. */
  addKey(): Promise<string>;
  sign(claims: Record<string, unknown>, options?: SignOptions): Promise<string>;
  /** A key of the right kind that the issuer never published. */
  strayKey(): Promise<CryptoKey>;
  close(): Promise<void>;
}

/** The claims of a workflow_dispatch job of acme/web's conveyor.yml on main (GitHub's shape). */
export function jobClaims(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sub: 'repo:acme/web:ref:refs/heads/main',
    ref: 'refs/heads/main',
    repository: 'acme/web',
    repository_owner: 'acme',
    run_id: '9001',
    run_number: '12',
    run_attempt: '1',
    actor: 'conveyor-app[bot]',
    workflow: 'conveyor',
    event_name: 'workflow_dispatch',
    ref_type: 'branch',
    workflow_ref: 'acme/web/.github/workflows/conveyor.yml@refs/heads/main',
    job_workflow_ref: 'acme/web/.github/workflows/conveyor.yml@refs/heads/main',
    runner_environment: 'github-hosted',
    ...over,
  };
}

export async function startIssuer(): Promise<TestIssuer> {
  const keys: Array<{ kid: string; privateKey: CryptoKey; jwk: JWK }> = [];
  const addKey = async (): Promise<string> => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = `key-${keys.length + 1}`;
    keys.push({ kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } });
    return kid;
  };
  await addKey();
  const bearer = 'runner-request-token';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer.url);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') return json(200, { issuer: issuer.url, jwks_uri: `${issuer.url}/.well-known/jwks` });
    if (url.pathname === '/.well-known/jwks') {
      issuer.jwksFetches++;
      return json(200, { keys: keys.map((k) => k.jwk) });
    }
    if (url.pathname === '/runner/idtoken') {
      if (req.headers.authorization !== `Bearer ${bearer}`) return json(401, { message: 'bad bearer' });
      const audience = url.searchParams.get('audience') ?? '';
      issuer.idTokenAudiences.push(audience);
      void issuer.sign(issuer.runnerClaims(), { audience }).then((value) => json(200, { value }));
      return;
    }
    json(404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer: TestIssuer = {
    url: base,
    jwksFetches: 0,
    idTokenUrl: `${base}/runner/idtoken?api-version=2.0`,
    idTokenBearer: bearer,
    idTokenAudiences: [],
    runnerClaims: () => jobClaims(),
    addKey,
    async sign(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const kid = options.kid ?? keys[0]!.kid;
      const key = options.key ?? keys.find((k) => k.kid === kid)?.privateKey ?? (await issuer.strayKey());
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(options.issuer ?? base)
        .setAudience(options.audience ?? 'conveyor')
        .setIssuedAt(now - 5)
        .setNotBefore(now + (options.notBefore ?? -5))
        .setExpirationTime(now + (options.expiresIn ?? 300))
        .sign(key);
    },
    async strayKey() {
      return (await generateKeyPair('RS256')).privateKey;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return issuer;
}
