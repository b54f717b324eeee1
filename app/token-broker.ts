// The token broker (`POST /conveyor/token`): a step attempt's workflow job trades the OIDC token
// its runner gives it for an installation token scoped to that attempt, so no repository keeps the
// app's private key as an Actions secret. Only the workflow run the app itself dispatched for the
// attempt gets one. In order:
//   1. the request names an attempt (zod: a bad body is a 400 naming the field);
//   2. the OIDC token is GitHub's and valid (oidc.ts: signature, issuer, audience, lifetime) — 401;
//   3. the token's repository has not had too many requests refused lately (refusal-limit.ts) —
//      429, judged no further;
//   4. the run is one the app dispatched as it dispatches: `event_name` workflow_dispatch, started
//      by the app's bot (`actor`, and `triggering_actor` where the token has it), its first attempt
//      (`run_attempt` 1: a re-run is a person's) — 403; a writer's own dispatch of the workflow
//      stops here, before anything is looked up;
//   5. the app knows the attempt (404);
//   6. its `repository` is the one the attempt was dispatched to, its `workflow_ref` that
//      repository's conveyor.yml on the branch the dispatch ran (the default branch; a workflow from
//      any other branch gets nothing) — 403;
//   7. the attempt's workflow run is known and is the token's `run_id`: recorded from the
//      dispatch's answer, or, where the dispatch said none (GitHub Enterprise Server), found by the
//      marker in its name among the runs the app's bot started. While the dispatch is under way
//      (its link `creating-check`) or the run is not found yet: 425, ask again shortly; another run
//      — 403;
//   8. the attempt is still current (409: the request is genuine, but the app has moved on; the
//      action stops, as it would on finding its check run completed);
//   9. an installation token for the change set's repositories (one owner) with what the step
//      needs: contents, pull requests and checks write, actions read, deployments write for deploy
//      steps and their teardowns. A renewal is the same request.
// Never a token otherwise, never a stack trace: every refusal is `{ error, message }`, and logged.
import type { Probot } from 'probot';
import type { PlanStep } from '../core/plan/types.ts';
import { tokenRequestSchema, type TokenGrant, type TokenRefusal } from '../core/contract/token-exchange.ts';
import { describeAttempt, type AttemptRef } from '../core/contract/attempt-ref.ts';
import { describeIssues } from '../core/contract/wire.ts';
import { WORKFLOW_FILE } from '../adapters/dispatch/workflow/dispatcher.ts';
import type { DispatchState } from '../adapters/github/links.ts';
import { OidcRefusal, type GitHubOidcClaims, type OidcVerifier } from './oidc.ts';
import { createRefusalLimit, type RefusalLimitOptions } from './refusal-limit.ts';
import { attemptFields, silentLogger, type Logger } from '../lib/logger.ts';

/** What the app knows of one attempt, as the broker needs it. */
export interface AttemptFacts {
  /** Still the attempt the app waits for (a later attempt, a loss or a cancel retires it). */
  current: boolean;
  /** The repository the attempt's workflow was dispatched to (owner/name). */
  repo: string;
  /** The branch the dispatch ran the workflow from: the repository's default branch. */
  defaultBranch: string;
  /** How far the app's dispatch got: `creating-check` until the workflow was dispatched. */
  dispatch: DispatchState;
  /** The workflow run the dispatch created, when GitHub said (or a webhook, or the broker, found) which. */
  workflowRunId?: number;
  installationId: number;
  /** The change set's repositories (owner/name): what the token may reach. */
  repositories: string[];
  stepKind: PlanStep['kind'];
}

/** The broker's one question to the app's state. Async: the store behind it may be remote. */
export interface AttemptAuthority {
  lookup(ref: AttemptRef): Promise<AttemptFacts | undefined>;
  /**
   * The workflow run of a dispatched attempt whose dispatch did not say which it started (GitHub
   * Enterprise Server): the one whose name carries the attempt's marker among the runs the app's
   * bot started, recorded for the next request; undefined while there is none. Without this, such
   * an attempt gets no token.
   */
  findWorkflowRun?(ref: AttemptRef, facts: AttemptFacts): Promise<number | undefined>;
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
  /** The app's bot login (`<slug>[bot]`): the actor of every workflow run the app dispatches. */
  botLogin: () => Promise<string>;
  /** The workflow file the dispatcher starts (default conveyor.yml). */
  workflow?: string;
  /** How many refusals a repository's workflows get before they are answered 429 (tests shrink it). */
  refusals?: RefusalLimitOptions;
  now?: () => number;
  log?: Logger;
}

export type BrokerAnswer =
  | { status: 200; body: TokenGrant }
  | {
      status: 400 | 401 | 403 | 404 | 409 | 422 | 425 | 429 | 500 | 502 | 503;
      body: TokenRefusal;
      /** Seconds to wait before asking again (the Retry-After header) for a 425 or a 429. */
      retryAfterSec?: number;
    };

/** How long a job whose attempt is still being dispatched should wait before it asks again. */
const DISPATCH_RETRY_SEC = 2;

/** What a step's token may do: deploy steps (and their teardowns) also write deployments. */
export function permissionsFor(stepKind: PlanStep['kind']): TokenPermissions {
  return { contents: 'write', pull_requests: 'write', checks: 'write', actions: 'read', ...(stepKind === 'deploy' ? { deployments: 'write' as const } : {}) };
}

const refuse = (status: Exclude<BrokerAnswer['status'], 200>, error: string, message: string, retryAfterSec?: number): BrokerAnswer => ({
  status,
  body: { error, message },
  ...(retryAfterSec !== undefined ? { retryAfterSec } : {}),
});

/** Repository names and logins are case-insensitive on GitHub. */
const sameRepo = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const sameLogin = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Step 4: whether the token comes from a run the app's bot dispatched, as dispatched; else the refusal. */
export function starterMismatch(claims: GitHubOidcClaims, bot: string): BrokerAnswer | undefined {
  if (claims.event_name !== 'workflow_dispatch') {
    return refuse(
      403,
      'event-mismatch',
      `the OIDC token comes from a workflow run started by ${claims.event_name}, but Conveyor starts its attempts with workflow_dispatch`,
    );
  }
  // A login holding `[bot]` is an app's; no person and no other app can hold the app's own.
  const person = [claims.actor, claims.triggering_actor].find((login) => login !== undefined && !sameLogin(login, bot));
  if (person !== undefined) {
    return refuse(
      403,
      'actor-mismatch',
      `the OIDC token's workflow run ${claims.run_id} was started by ${person}, but the app's own runs are started by ${bot}: only a run the app dispatched for the attempt is given tokens`,
    );
  }
  if (claims.run_attempt !== '1') {
    return refuse(
      403,
      'run-attempt-mismatch',
      `the OIDC token comes from attempt ${claims.run_attempt} of workflow run ${claims.run_id}, a re-run; only its first attempt, the app's dispatch, is given tokens (\`/conveyor retry\` runs a step again)`,
    );
  }
  return undefined;
}

/** Step 6: whether the token comes from the repository and workflow the attempt was dispatched to; else the refusal. */
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

/** Refusals that say something is wrong with who asks; counted against the token's repository (a 409 or a 425 is a genuine job's). */
const COUNTED = new Set([403, 404]);

export function createTokenBroker(options: TokenBrokerOptions): { exchange(body: unknown): Promise<BrokerAnswer> } {
  const now = options.now ?? Date.now;
  const limit = createRefusalLimit(options.refusals);
  return {
    async exchange(body) {
      // 1. The request.
      const parsed = tokenRequestSchema.safeParse(body);
      if (!parsed.success) return refuse(400, 'bad-request', `the token request is not valid: ${describeIssues(parsed.error)}`);
      const { token, ...ref } = parsed.data;
      const who = describeAttempt(ref);
      // Every line of an exchange names the attempt that asked.
      const log = (options.log ?? silentLogger).child(attemptFields(ref));
      /** Logs a refusal, and counts it against the repository of a token GitHub signed. */
      const refusedFrom =
        (repository: string | undefined) =>
        (answer: BrokerAnswer): BrokerAnswer => {
          if (answer.status === 200) return answer;
          if (repository !== undefined && COUNTED.has(answer.status)) limit.refused(repository, now());
          const level = answer.status >= 500 ? 'error' : answer.status === 403 || answer.status === 429 ? 'warn' : 'info';
          const from = repository !== undefined ? ` from a workflow of ${repository}` : '';
          log[level](`token for ${who}${from} refused (${answer.status} ${answer.body.error}): ${answer.body.message}`, {
            status: answer.status,
            refusal: answer.body.error,
          });
          return answer;
        };
      let refused = refusedFrom(undefined);

      // 2. The OIDC token.
      let claims: GitHubOidcClaims;
      try {
        claims = await options.verifier.verify(token);
      } catch (e) {
        if (!(e instanceof OidcRefusal)) throw e;
        return refused(refuse(e.code === 'issuer-unavailable' ? 503 : 401, e.code, e.message));
      }
      // Only a token GitHub signed says which repository asks: a forged one cannot hold another repository up.
      const { repository } = claims;
      refused = refusedFrom(repository);

      // 3. Not too many refusals from its repository lately.
      const waitMs = limit.waitMs(repository, now());
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        return refused(
          refuse(
            429,
            'too-many-refusals',
            `${limit.capacity} token requests from workflows of ${repository} were refused lately (one is forgiven every ${Math.round(limit.refillMs / 1000)} s), so the app judges none from ${repository} for now; ask again in ${seconds} s, and see the app's log for why they were refused`,
            seconds,
          ),
        );
      }

      // 4. A run the app's bot dispatched, as dispatched.
      let bot: string;
      try {
        bot = await options.botLogin();
      } catch (e) {
        return refused(refuse(503, 'github-unavailable', `the app cannot tell its own bot's login from GitHub to judge the request: ${(e as Error).message}`));
      }
      const starter = starterMismatch(claims, bot);
      if (starter) return refused(starter);

      // 5. The attempt.
      let facts: AttemptFacts | undefined;
      try {
        facts = await options.attempts.lookup(ref);
      } catch (e) {
        return refused(refuse(503, 'state-unavailable', `the app cannot read its state to judge the request: ${(e as Error).message}`));
      }
      if (!facts) return refused(refuse(404, 'unknown-attempt', `the app dispatched no attempt ${who}`));

      // 6. Its repository and workflow, 7. its workflow run, 8. still current.
      const mismatch = claimsMismatch(claims, facts, options.workflow);
      if (mismatch) return refused(mismatch);
      const run = await runOf(options.attempts, ref, facts, bot);
      if ('refusal' in run) return refused(run.refusal);
      if (claims.run_id !== String(run.id)) {
        return refused(
          refuse(403, 'run-id-mismatch', `the OIDC token comes from workflow run ${claims.run_id}, but this attempt was dispatched as workflow run ${run.id}`),
        );
      }
      if (!facts.current)
        return refused(
          refuse(409, 'attempt-retired', `${who} is no longer current (a later attempt, a loss or a cancel retired it); it gets no token and should stop`),
        );

      // 9. The token.
      const repos = repositoryNames(facts);
      if ('refusal' in repos) return refused(repos.refusal);
      try {
        const grant = await options.mint({ installationId: facts.installationId, repositories: repos.names, permissions: permissionsFor(facts.stepKind) });
        log.info(`token for ${who} (${facts.repositories.join(', ')}) until ${grant.expires_at}`);
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

/** Step 7: the workflow run the attempt's dispatch started, as recorded or found; else why there is none to compare with. */
async function runOf(attempts: AttemptAuthority, ref: AttemptRef, facts: AttemptFacts, bot: string): Promise<{ id: number } | { refusal: BrokerAnswer }> {
  if (facts.dispatch === 'creating-check') {
    return {
      refusal: refuse(
        425,
        'dispatch-under-way',
        `the attempt is still being dispatched (its check run is being created, its workflow run not yet started by the app); ask again in ${DISPATCH_RETRY_SEC} s`,
        DISPATCH_RETRY_SEC,
      ),
    };
  }
  if (facts.workflowRunId !== undefined) return { id: facts.workflowRunId };
  if (!attempts.findWorkflowRun) {
    return {
      refusal: refuse(403, 'run-unknown', 'the app does not know which workflow run its dispatch of this attempt started, so it gives no token for it'),
    };
  }
  let found: number | undefined;
  try {
    found = await attempts.findWorkflowRun(ref, facts);
  } catch (e) {
    return { refusal: refuse(503, 'github-unavailable', `the app cannot list the workflow's runs to find this attempt's: ${(e as Error).message}`) };
  }
  if (found !== undefined) return { id: found };
  return {
    refusal: refuse(
      425,
      'run-not-found',
      `GitHub did not say which workflow run the dispatch started, and of the runs of ${facts.repo}'s ${WORKFLOW_FILE} none started by ${bot} names its check run yet; ask again in ${DISPATCH_RETRY_SEC} s`,
      DISPATCH_RETRY_SEC,
    ),
  };
}
