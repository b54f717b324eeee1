// The webhook payloads the app acts on, as far as it reads them: each event's fields that Conveyor
// relies on, checked with zod where a delivery comes in (Probot verified its signature; that says
// who sent it, not that it holds what the handlers read). A delivery that lacks one is refused with
// the field named, before anything is done. The schemas are tied to GitHub's own types of the
// payloads (@octokit/webhooks): each accepts every payload those types describe (checked below, at
// compile time), and is as lenient as the handlers are where GitHub's types are stricter than what
// GitHub sends (a check run's `details_url` may be null).
import type { EmitterWebhookEvent, EmitterWebhookEventName } from '@octokit/webhooks';
import { z } from 'zod';
import { ConveyorError } from '../core/errors.ts';

const repository = z.object({ full_name: z.string() });
/** Where a run may start: its configuration is read from the default branch. */
const startingRepository = repository.extend({ default_branch: z.string() });
const installation = z.object({ id: z.number() });
/** A person or bot: who sent an event, wrote a comment, started a workflow run. */
const actor = z.object({ login: z.string(), type: z.string().nullish(), id: z.number().optional() });
const app = z.object({ id: z.number() }).nullish();
/** The open PRs whose head is a check's commit (none for a fork's): the runs it concerns are found by them. */
const pullRequests = z.array(z.object({ number: z.number() })).optional();

const checkRun = z.object({
  id: z.number(),
  name: z.string(),
  /** The commit it reports on (a required check of another app, for a run's `ci` step). */
  head_sha: z.string().optional(),
  pull_requests: pullRequests,
  external_id: z.string().nullable(),
  details_url: z.string().nullish(),
  conclusion: z.string().nullish(),
  app,
  output: z.object({ summary: z.string().nullish(), text: z.string().nullish() }).nullish(),
});

const workflowRun = z.object({
  id: z.number(),
  html_url: z.string(),
  conclusion: z.string().nullable(),
  /** The workflow file, `.github/workflows/conveyor.yml`. */
  path: z.string().nullish(),
  event: z.string().nullish(),
  display_title: z.string().nullish(),
  run_number: z.number().optional(),
  /** Who started the run: the app's bot for its own dispatches. */
  actor: actor.nullish(),
});

const pullRequest = z.object({ number: z.number(), merged: z.boolean().nullish(), head: z.object({ sha: z.string() }) });

// `user`: who opened it, the co-author of the run's commits (optional: a run starts without one).
const issue = z.object({ number: z.number(), title: z.string(), body: z.string().nullish(), html_url: z.string(), user: actor.nullish() });

const pullRequestEvent = z.object({ pull_request: pullRequest, repository, sender: actor });
const checkRunEvent = z.object({ check_run: checkRun, repository });

/** Per event: the fields of its payload that the app reads. */
const schemas = {
  'issues.labeled': z.object({
    issue,
    label: z.object({ name: z.string() }).optional(),
    repository: startingRepository,
    installation: installation.optional(),
    sender: actor,
  }),
  'issue_comment.created': z.object({
    // Only whether it is there: a comment on a PR is an issue comment with `pull_request`.
    issue: issue.extend({ pull_request: z.unknown().optional() }),
    comment: z.object({ id: z.number(), body: z.string().nullish(), html_url: z.string(), user: actor.nullish() }),
    repository: startingRepository,
    installation: installation.optional(),
  }),
  'pull_request_review.submitted': z.object({
    review: z.object({ id: z.number(), state: z.string(), body: z.string().nullish(), html_url: z.string(), user: actor.nullish() }),
    pull_request: z.object({ number: z.number() }),
    repository,
    installation: installation.optional(),
  }),
  'check_run.requested_action': checkRunEvent.extend({ requested_action: z.object({ identifier: z.string().optional() }).nullish(), sender: actor }),
  'check_run.completed': checkRunEvent,
  'check_run.rerequested': checkRunEvent.extend({ sender: actor }),
  'workflow_run.completed': z.object({ workflow_run: workflowRun, repository }),
  // Another app's CI on a commit: a `ci` step waiting on it judges its required checks again.
  'check_suite.completed': z.object({
    check_suite: z.object({ head_sha: z.string(), app: z.object({ id: z.number().nullable() }).nullish(), pull_requests: pullRequests }),
    repository,
  }),
  status: z.object({ sha: z.string(), context: z.string(), state: z.string(), repository }),
  'pull_request.synchronize': pullRequestEvent,
  'pull_request.closed': pullRequestEvent,
  // A merge queue removed the PR: `reason` says why (CI_FAILURE, MERGE_CONFLICT, MERGE when it merged...).
  'pull_request.dequeued': pullRequestEvent.extend({ reason: z.string() }),
  // Only which PR and who: its body is read again before Conveyor next writes into it.
  'pull_request.edited': z.object({ pull_request: z.object({ number: z.number() }), repository, sender: actor.optional() }),
  'installation.deleted': z.object({ installation: installation.extend({ account: z.looseObject({ login: z.string().optional() }).nullish() }) }),
  'installation_repositories.removed': z.object({ installation, repositories_removed: z.array(z.object({ full_name: z.string() })) }),
} satisfies { [E in EmitterWebhookEventName]?: z.ZodType };

export type WebhookEvent = keyof typeof schemas;
/** What the app reads of an event's payload. */
export type WebhookPayload<E extends WebhookEvent> = z.infer<(typeof schemas)[E]>;
export type WebhookCheckRun = z.infer<typeof checkRun>;
export type WebhookWorkflowRun = z.infer<typeof workflowRun>;
export type WebhookPullRequest = z.infer<typeof pullRequest>;
export type WebhookActor = z.infer<typeof actor>;

/**
 * Compile-time: every payload GitHub's types describe for an event passes its schema, so a schema
 * never refuses what GitHub documents (an error here names the event whose schema disagrees).
 */
type Accepts<E extends WebhookEvent> = EmitterWebhookEvent<E>['payload'] extends z.input<(typeof schemas)[E]> ? true : E;
const accepted: { [E in WebhookEvent]: Accepts<E> } = {
  'issues.labeled': true,
  'issue_comment.created': true,
  'pull_request_review.submitted': true,
  'check_run.requested_action': true,
  'check_run.completed': true,
  'check_run.rerequested': true,
  'workflow_run.completed': true,
  'check_suite.completed': true,
  status: true,
  'pull_request.synchronize': true,
  'pull_request.closed': true,
  'pull_request.dequeued': true,
  'pull_request.edited': true,
  'installation.deleted': true,
  'installation_repositories.removed': true,
};
void accepted;

/** A delivery's payload as the app reads it; refused (`bad-input`, naming the fields) when it lacks what the app relies on. */
export function webhookPayload<E extends WebhookEvent>(event: E, delivery: { id: string; payload: unknown }): WebhookPayload<E> {
  const parsed = schemas[event].safeParse(delivery.payload);
  if (parsed.success) return parsed.data as WebhookPayload<E>;
  const fields = parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
  throw new ConveyorError(
    'bad-input',
    `GitHub's ${event} webhook (delivery ${delivery.id}) does not hold what Conveyor reads of it (${fields}); nothing was done with it`,
  );
}
