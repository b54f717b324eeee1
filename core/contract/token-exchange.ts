// The token exchange between the action and the app (`POST /conveyor/token`): the action sends
// the runner's OIDC token with the identity of its attempt; the app answers with an installation
// token scoped to the attempt's change set, or refuses with a code and a message saying what did
// not match. Both sides parse with these schemas.
import { z } from 'zod';
import { attemptRefSchema } from './attempt-ref.ts';

/** The path the app serves the exchange on, below its public URL. */
export const TOKEN_EXCHANGE_PATH = '/conveyor/token';

/** The audience the action asks the runner's OIDC token for, and the only one the app accepts. */
export const OIDC_AUDIENCE = 'conveyor';

/** The runner's OIDC token and the attempt it asks for (core/contract/attempt-ref.ts). */
export const tokenRequestSchema = attemptRefSchema.extend({
  /** The runner's OIDC token (a JWT), audience `conveyor`. */
  token: z.string().min(1).max(16_384),
  runId: attemptRefSchema.shape.runId.max(200),
  /** The payload's mode: a teardown attempt is named apart from the step's own attempts. */
  mode: attemptRefSchema.shape.mode.default('run'),
});

export const tokenGrantSchema = z.object({
  token: z.string().min(1),
  /** When the installation token expires (ISO 8601, as GitHub says). */
  expires_at: z.string().refine((s) => !Number.isNaN(Date.parse(s)), { error: 'must be an ISO 8601 time' }),
});

export const tokenRefusalSchema = z.object({
  error: z.string(),
  message: z.string(),
});

export type TokenRequest = z.infer<typeof tokenRequestSchema>;
export type TokenRequestInput = z.input<typeof tokenRequestSchema>;
export type TokenGrant = z.infer<typeof tokenGrantSchema>;
export type TokenRefusal = z.infer<typeof tokenRefusalSchema>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a URL that tokens travel to (the app's public URL, an OIDC issuer) will not do, or
 * undefined: https, or plain http to this machine only, never tokens across a network in the clear.
 */
export function tokenUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return undefined;
  return 'must use https (http only for localhost)';
}
