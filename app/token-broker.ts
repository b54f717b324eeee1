// The token broker (`POST /conveyor/token`): a step attempt's workflow job trades the OIDC token
// its runner gives it for an installation token scoped to that attempt, so no repository keeps the
// app's private key as an Actions secret. In order:
//   1. the request names an attempt (zod: a bad body is a 400 naming the field);
//   2. the OIDC token is GitHub's and valid (oidc.ts: signature, issuer, audience, lifetime) — 401;
//   3. the app knows the attempt (404);
//   4. the token comes from the job the app started for it: its `repository` is the repository the
//      attempt was dispatched to, its `workflow_ref` that repository's conveyor.yml on the branch
//      the dispatch ran (the default branch; a workflow from any other branch gets nothing), its
//      `event_name` workflow_dispatch, and its `run_id` the workflow run the dispatch created,
//      when the app knows it — 403 naming what did not match;
//   5. the attempt is still current (409: the request is genuine, but the app has moved on; the
//      action stops, as it would on finding its check run completed);
//   6. an installation token for the change set's repositories (one owner) with what the step
//      needs: contents, pull requests and checks write, actions read, deployments write for deploy
//      steps and their teardowns. A renewal is the same request.
// Never a token otherwise, never a stack trace: every refusal is `{ error, message }`.
import type { Probot } from 'probot';
import type { PlanStep } from '../core/plan/types.ts';
import { tokenRequestSchema, type TokenGrant, type TokenRefusal, type TokenRequest } from '../core/contract/token-exchange.ts';
import { describeIssues } from '../core/contract/wire.ts';
import { WORKFLOW_FILE } from '../adapters/dispatch/workflow.ts';
import { OidcRefusal, type GitHubOidcClaims, type OidcVerifier } from './oidc.ts';

/** What the app knows of one attempt, as the broker needs it. */
export interface AttemptFacts {
  /** Still the attempt the app waits for (a later attempt, a loss or a cancel retires it). */
  current: boolean;
  /** The repository the attempt's workflow was dispatched to (owner/name). */
  repo: string;
  /** The branch the dispatch ran the workflow from: the repository's default branch. */
  defaultBranch: string;
  /** The workflow run the dispatch created, when GitHub said (or a webhook told) which. */
  workflowRunId?: number;
  installationId: number;
  /** The change set's repositories (owner/name): what the token may reach. */
  repositories: string[];
  stepKind: PlanStep['kind'];
}

export interface AttemptIdentity {
  runId: string;
  step: string;
  attempt: number;
  epoch: number;
  mode: TokenRequest['mode'];
}

/** The broker's one question to the app's state. Async: the store behind it may be remote. */
export interface AttemptAuthority {
  lookup(id: AttemptIdentity): Promise<AttemptFacts | undefined>;
  /** The attempt got a token from the broker: its workflow is the current template (the old one passes a token itself). */
  exchanged?(id: AttemptIdentity): Promise<void>;
}

export type TokenPermissions = Partial<Record<'contents' | 'pull_requests' | 'checks' | 'actions' | 'deployments', 'read' | 'write'>>;

export interface MintRequest {
  installationId: number;
  /** Names without the owner, as GitHub's API takes them. */
  repositories: string[];
  permissions: TokenPermissions;
}

/** Creates an installation access token (GitHub: POST /app/installations/{id}/access_tokens). */
export type MintToken = (request: MintRequest) => Promise<TokenGrant>;

/** Mints with the app's own credentials (Probot's app-authenticated Octokit: a JWT signed with the private key). */
export function mintWithProbot(probot: Probot): MintToken {
  return async ({ installationId, repositories, permissions }) => {
    const octokit = await probot.auth();
    const { data } = await octokit.rest.apps.createInstallationAccessToken({ installation_id: installationId, repositories, permissions });
    return { token: data.token, expires_at: data.expires_at };
  };
}

export interface TokenBrokerOptions {
  verifier: OidcVerifier;
  attempts: AttemptAuthority;
  mint: MintToken;
  /** The workflow file the dispatcher starts (default conveyor.yml). */
  workflow?: string;
  log?: (level: 'info' | 'warn' | 'error', line: string) => void;
}

export type BrokerAnswer = { status: 200; body: TokenGrant } | { status: 400 | 401 | 403 | 404 | 409 | 422 | 500 | 502 | 503; body: TokenRefusal };

/** What a step's token may do: deploy steps (and their teardowns) also write deployments. */
export function permissionsFor(stepKind: PlanStep['kind']): TokenPermissions {
  return { contents: 'write', pull_requests: 'write', checks: 'write', actions: 'read', ...(stepKind === 'deploy' ? { deployments: 'write' as const } : {}) };
}

const refuse = (status: Exclude<BrokerAnswer['status'], 200>, error: string, message: string): BrokerAnswer => ({ status, body: { error, message } });

const sameRepo = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Step 4: whether the token comes from the job the app started for this attempt; else the refusal. */
export function claimsMismatch(claims: GitHubOidcClaims, facts: AttemptFacts, workflow = WORKFLOW_FILE): BrokerAnswer | undefined {
  if (!sameRepo(claims.repository, facts.repo)) {
    return refuse(403, 'repository-mismatch', `the OIDC token comes from a workflow of ${claims.repository}, but this attempt was dispatched to ${facts.repo}`);
  }
  const expected = `${facts.repo}/.github/workflows/${workflow}@refs/heads/${facts.defaultBranch}`;
  const at = claims.workflow_ref.lastIndexOf('@');
  const [path, ref] = at < 0 ? [claims.workflow_ref, ''] : [claims.workflow_ref.slice(0, at), claims.workflow_ref.slice(at + 1)];
  // Repository names are case-insensitive on GitHub; file paths and branch names are not.
  const repoPart = path.slice(0, facts.repo.length);
  if (!sameRepo(repoPart, facts.repo) || path.slice(facts.repo.length) !== `/.github/workflows/${workflow}` || ref !== `refs/heads/${facts.defaultBranch}`) {
    return refuse(
      403,
      'workflow-mismatch',
      `the OIDC token comes from the workflow ${claims.workflow_ref}, but only ${expected} (the default branch's) is given tokens`,
    );
  }
  if (claims.event_name !== 'workflow_dispatch') {
    return refuse(
      403,
      'event-mismatch',
      `the OIDC token comes from a workflow run started by ${claims.event_name}, but Conveyor starts its attempts with workflow_dispatch`,
    );
  }
  if (facts.workflowRunId !== undefined && claims.run_id !== String(facts.workflowRunId)) {
    return refuse(
      403,
      'run-id-mismatch',
      `the OIDC token comes from workflow run ${claims.run_id}, but this attempt was dispatched as workflow run ${facts.workflowRunId}`,
    );
  }
  return undefined;
}

/** The change set's repository names for the token: an installation token reaches one owner's repositories. */
function repositoryNames(facts: AttemptFacts): { names: string[] } | { refusal: BrokerAnswer } {
  const owners = [...new Set(facts.repositories.map((r) => r.split('/')[0]!.toLowerCase()))];
  if (owners.length !== 1) {
    return {
      refusal: refuse(
        422,
        'change-set-owners',
        `the change set spans repositories of ${owners.length} owners (${facts.repositories.join(', ')}); one installation token reaches one owner's repositories, so keep a pipeline's repositories under one owner`,
      ),
    };
  }
  return { names: facts.repositories.map((r) => r.split('/')[1]!) };
}

export function createTokenBroker(options: TokenBrokerOptions): { exchange(body: unknown): Promise<BrokerAnswer> } {
  const log = options.log ?? (() => undefined);
  return {
    async exchange(body) {
      // 1. The request.
      const parsed = tokenRequestSchema.safeParse(body);
      if (!parsed.success) return refuse(400, 'bad-request', `the token request is not valid: ${describeIssues(parsed.error)}`);
      const { token, ...id } = parsed.data;
      const who = `run ${id.runId} step ${id.step} attempt ${id.attempt} dispatch ${id.epoch + 1}${id.mode === 'teardown' ? ' (teardown)' : ''}`;
      const refused = (answer: BrokerAnswer): BrokerAnswer => {
        if (answer.status !== 200)
          log(answer.status >= 500 ? 'error' : 'info', `conveyor: token for ${who} refused (${answer.status} ${answer.body.error}): ${answer.body.message}`);
        return answer;
      };

      // 2. The OIDC token.
      let claims: GitHubOidcClaims;
      try {
        claims = await options.verifier.verify(token);
      } catch (e) {
        if (!(e instanceof OidcRefusal)) throw e;
        return refused(refuse(e.code === 'issuer-unavailable' ? 503 : 401, e.code, e.message));
      }

      // 3. The attempt.
      let facts: AttemptFacts | undefined;
      try {
        facts = await options.attempts.lookup(id);
      } catch (e) {
        return refused(refuse(503, 'state-unavailable', `the app cannot read its state to judge the request: ${(e as Error).message}`));
      }
      if (!facts) return refused(refuse(404, 'unknown-attempt', `the app dispatched no attempt ${who}`));

      // 4. Its job, 5. still current.
      const mismatch = claimsMismatch(claims, facts, options.workflow);
      if (mismatch) return refused(mismatch);
      if (!facts.current)
        return refused(
          refuse(409, 'attempt-retired', `${who} is no longer current (a later attempt, a loss or a cancel retired it); it gets no token and should stop`),
        );

      // 6. The token.
      const repos = repositoryNames(facts);
      if ('refusal' in repos) return refused(repos.refusal);
      try {
        const grant = await options.mint({ installationId: facts.installationId, repositories: repos.names, permissions: permissionsFor(facts.stepKind) });
        log('info', `conveyor: token for ${who} (${facts.repositories.join(', ')}) until ${grant.expires_at}`);
        await options.attempts
          .exchanged?.(id)
          .catch((e: unknown) => log('warn', `conveyor: could not record that ${who} exchanged its token: ${(e as Error).message}`));
        return { status: 200, body: grant };
      } catch (e) {
        const status = (e as { status?: number }).status;
        return refused(
          refuse(502, 'github-refused', `GitHub did not create the installation token${status ? ` (HTTP ${status})` : ''}: ${(e as Error).message}`),
        );
      }
    },
  };
}
