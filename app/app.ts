// The Conveyor GitHub App (Probot): webhook handlers that start runs and steer them, and hand the
// workflow dispatcher's word on how an attempt ended (its check run or workflow run completed, the
// sweeper's judgement) to the engine's one entry for it (Engine.settle); the engine with the
// workflow dispatcher, the GitHub forge for merges, and the reporter of the tracking comment and
// summary check run. `conveyor serve` builds it over its store (app/server.ts, the one root).
// Any number of replicas may share one store: each carries out the effects it claimed, and the
// replica holding the `sweeper` lease sweeps and takes the effects of replicas that died.
import type { Context, Probot } from 'probot';
import { parseAttemptKey } from '../core/contract/attempt-ref.ts';
import type { Run } from '../core/run/types.ts';
import { Engine, holderName } from '../engine/engine.ts';
import {
  createWorkflowDispatcher,
  QUEUED_MINUTES,
  sweepMemory,
  type SweepMemory,
  type SweepOptions,
  type SweepReport,
  type WorkflowDispatcher,
} from '../adapters/dispatch/workflow/dispatcher.ts';
import type { RunStore } from '../engine/ports/store.ts';
import { gitHub, type GitHub } from '../adapters/github/forge/github.ts';
import { ApprovalChecks } from './approval-check.ts';
import { onChangesRequested, onCommandText, onRequestedAction, onRerunRequested, type CommandSource } from './commands.ts';
import { installationOf, type AppDeps } from './deps.ts';
import { dequeueRun, mergeRun, type MergePolicy } from '../engine/merge.ts';
import { judgeCi } from '../engine/ci.ts';
import { CiJudgements, onCommitChecks, registerCiWebhooks, sweepCi } from './ci.ts';
import { onPullRequestClosed, onPullRequestDequeued, onPullRequestSynchronize } from './pulls.ts';
import type { LinkStore } from '../adapters/github/links.ts';
import { RunReporter, type RunReporterOptions } from './report.ts';
import { meteredWebhooks, type AppMetrics } from './metrics.ts';
import { authorOf, startFromLabel } from './start.ts';
import { webhookPayload, type WebhookActor } from './webhooks.ts';
import { onInstallationGone } from './installations.ts';
import { DISPATCH_INPUTS_LIMIT, payloadLimitOf } from '../core/contract/payload-fit.ts';
import type { Logger } from '../lib/logger.ts';
import { pinoLogger } from './logger.ts';
import { queueLookDue } from '../core/run/queue.ts';

export interface ConveyorAppOptions {
  store: RunStore;
  links: LinkStore;
  /** This app's id: only its own check runs count. */
  appId: number;
  now?: () => string;
  /** How often the sweeper runs (default every minute); false: never by itself (tests call sweep()). */
  sweepEveryMs?: number | false;
  sweep?: SweepOptions;
  workflow?: string;
  inputsLimit?: number;
  /** How the merge step waits for GitHub to compute mergeability (tests shrink the waits). */
  merge?: MergePolicy;
  /** Login of this app's bot user (`<slug>[bot]`), whose pushes never make approvals stale (default: asked of GitHub once). */
  botLogin?: string;
  /** Where the app logs (default: Probot's pino logger, `app.log`). */
  log?: Logger;
  /** How the tracking comment and summary check run coalesce their writes (tests shrink the window). */
  reports?: Pick<RunReporterOptions, 'coalesceMs' | 'sleep' | 'refreshMs'>;
  /** Where webhooks, transitions and attempts are counted (`GET /metrics`); none without. */
  metrics?: AppMetrics;
  /** How long a `ci` judgement a webhook asked for waits for the rest of its burst (default CI_COALESCE_MS; tests shrink it). */
  ciCoalesceMs?: number;
  /** This replica's name among those sharing the store: its claims and the sweeper lease are held in it (default: host, pid and a random part). */
  replica?: string;
  /** How long this replica's claims on effects last unrenewed (default the engine's CLAIM_TTL_MS; tests shorten it). */
  claimTtlMs?: number;
}

/** The lease of the one replica that sweeps. */
export const SWEEPER_LEASE = 'sweeper';
/** A merge step that heard nothing from its merge queue this long looks again (a webhook may have been lost). */
export const QUEUE_LOOK_MINUTES = 10;

export class ConveyorApp {
  readonly engine: Engine;
  readonly dispatcher: WorkflowDispatcher;
  readonly deps: AppDeps;
  private readonly installations = new Map<number, Promise<GitHub>>();
  private readonly inflight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private botLogin: Promise<string> | undefined;
  /** Attempts the sweeper saw running, and when each is next worth a look. */
  private readonly sweepMemory: SweepMemory = sweepMemory();
  /** When each waiting `ci` step is next judged by the sweeper. */
  private readonly ciMemory = new Map<string, number>();
  /** Kept by its holder from sweep to sweep; another replica takes it once its holder stops sweeping this long. */
  private readonly sweeperLeaseMs: number;

  constructor(
    private readonly probot: Probot,
    private readonly options: ConveyorAppOptions,
  ) {
    const now = options.now ?? (() => new Date().toISOString());
    const log = options.log ?? pinoLogger(() => probot.log);
    const github = (installationId: number) => this.github(installationId);
    const githubOf = (run: Run) => this.github(installationOf(run));
    const approvals = new ApprovalChecks(options.links, now);
    const reporter = new RunReporter({ store: options.store, links: options.links, github: githubOf, now, approvals, log, ...options.reports });
    this.dispatcher = createWorkflowDispatcher({
      store: options.store,
      links: options.links,
      github: githubOf,
      botLogin: () => this.ownLogin(),
      appId: options.appId,
      now,
      log,
      ...(options.workflow ? { workflow: options.workflow } : {}),
      // The sweeper judges a queued attempt lost only after this window: until then it is current.
      keepsCurrentMs: (options.sweep?.queuedMinutes ?? QUEUED_MINUTES) * 60_000,
    });
    this.engine = new Engine({
      store: options.store,
      holder: options.replica ?? holderName(),
      ...(options.claimTtlMs !== undefined ? { claimTtlMs: options.claimTtlMs } : {}),
      now,
      dispatcher: this.dispatcher,
      merge: async (run, effect) => mergeRun((await githubOf(run)).forge, run, effect, { ...options.merge, ownAppId: options.appId }),
      dequeue: async (run, ref) => dequeueRun((await githubOf(run)).forge, run, ref),
      ci: async (run, ref) => judgeCi((await githubOf(run)).forge, run, ref, { ownAppId: options.appId, now: now(), log }),
      reply: async (run, text) => {
        await (await githubOf(run)).comments.create(run.issue.repo, run.issue.number, text);
      },
      report: (run) => reporter.report(run.id),
      ...(options.metrics ? { observe: options.metrics.observe } : {}),
      log,
    });
    const isSelf = async (actor: WebhookActor) => actor.type === 'Bot' && actor.login === (await this.ownLogin());
    // The one fit of a payload is the reducer's, to this; the dispatcher's routing (the public URL) has the rest.
    const payloadLimit = payloadLimitOf(options.inputsLimit ?? DISPATCH_INPUTS_LIMIT);
    const ci = new CiJudgements(this.engine, options.ciCoalesceMs);
    this.deps = {
      appId: options.appId,
      store: options.store,
      links: options.links,
      engine: this.engine,
      dispatcher: this.dispatcher,
      reporter,
      github,
      githubOf,
      isSelf,
      botLogin: () => this.ownLogin(),
      payloadLimit,
      judgeCi: (runId) => ci.judge(runId),
      now,
      log,
    };
    this.register();
    this.sweeperLeaseMs = 3 * Math.max(options.sweepEveryMs || 60_000, 60_000);
    if (options.sweepEveryMs !== false) {
      this.timer = setInterval(() => this.track(this.sweep()), options.sweepEveryMs ?? 60_000);
      this.timer.unref();
    }
  }

  /** GitHub as an installation sees it, on Probot's installation Octokit (its token renewed by its auth). */
  private github(installationId: number): Promise<GitHub> {
    let github = this.installations.get(installationId);
    if (!github) {
      github = this.probot.auth(installationId).then((octokit) => gitHub({ octokit }));
      this.installations.set(installationId, github);
      github.catch(() => this.installations.delete(installationId));
    }
    return github;
  }

  /**
   * Handles a delivery once: an id recorded as handled changes nothing. It is recorded only once
   * its handler succeeded, so that GitHub's redelivery of one that failed (GitHub down for a
   * moment, the store busy) runs it again; what the first try did counts once all the same, since
   * every handler acts through the reducer, which takes an event that already counted as nothing (a
   * second start finds the active run, an approval, feedback or a push the same twice), and replies
   * are keyed by their event. A completed step check run or workflow run is not recorded: it acts
   * only on its attempt while current, and acting retires it (the reducer ignores the result of an
   * attempt that is not current, and records only environments it does not know: it is
   * property-tested with exact duplicates), so a redelivery finds nothing to do, and the record
   * (a read and a write on every step's completion) would add nothing.
   */
  private async once(id: string, handle: () => Promise<unknown>): Promise<void> {
    if (await this.options.store.deliveryHandled(id)) return;
    await handle();
    await this.options.store.recordDelivery(id);
  }

  private register(): void {
    // Each handler timed and counted for /metrics (Probot's own `on` without metrics).
    const probot = meteredWebhooks(this.probot, this.options.metrics);
    probot.on('issues.labeled', async (context) => {
      const deps = this.delivery(context);
      const { issue, label, repository, installation, sender } = webhookPayload('issues.labeled', context);
      if (!label || !installation) return;
      await this.once(context.id, () =>
        startFromLabel(
          deps,
          {
            installationId: installation.id,
            repo: repository.full_name,
            defaultBranch: repository.default_branch,
            issue: { number: issue.number, title: issue.title, body: issue.body ?? '', url: issue.html_url, ...authorOf(issue.user) },
            requester: sender.login,
            trigger: { kind: 'label', label: label.name },
          },
          { login: sender.login, type: sender.type ?? null },
        ),
      );
    });

    probot.on('issue_comment.created', async (context) => {
      const deps = this.delivery(context);
      const { issue, comment, repository, installation } = webhookPayload('issue_comment.created', context);
      if (!installation || !/\/conveyor\b/i.test(comment.body ?? '')) return;
      const actor = { login: comment.user?.login ?? '', type: comment.user?.type ?? null };
      await this.once(context.id, async () => {
        if (await this.deps.isSelf(actor)) return; // our own replies quote commands
        await onCommandText(
          deps,
          {
            kind: 'comment',
            installationId: installation.id,
            repo: repository.full_name,
            number: issue.number,
            pullRequest: !!issue.pull_request,
            commentId: comment.id,
            url: comment.html_url,
            actor,
            issue: { title: issue.title, body: issue.body ?? '', url: issue.html_url, defaultBranch: repository.default_branch, ...authorOf(issue.user) },
          },
          comment.body ?? '',
        );
      });
    });

    probot.on('pull_request_review.submitted', async (context) => {
      const deps = this.delivery(context);
      const { review, pull_request: pr, repository, installation } = webhookPayload('pull_request_review.submitted', context);
      const changesRequested = review.state === 'changes_requested';
      const commands = /\/conveyor\b/i.test(review.body ?? '');
      if (!installation || !(changesRequested || commands)) return;
      const actor = { login: review.user?.login ?? '', type: review.user?.type ?? null };
      const source: CommandSource = {
        kind: 'review',
        installationId: installation.id,
        repo: repository.full_name,
        number: pr.number,
        pullRequest: true,
        actor,
        reviewId: review.id,
        url: review.html_url,
        // A review requesting changes goes to the coder whole, its `/conveyor fix` included.
        feedbackTaken: changesRequested,
      };
      await this.once(context.id, async () => {
        if (changesRequested) await onChangesRequested(deps, source, review.body ?? '');
        if (commands) await onCommandText(deps, source, review.body ?? '');
      });
    });

    probot.on('check_run.requested_action', async (context) => {
      const deps = this.delivery(context);
      const { check_run: check, requested_action: action, sender, repository } = webhookPayload('check_run.requested_action', context);
      await this.once(context.id, async () => {
        // Only the approval check run the app made for that run, in that repository.
        const found = await this.dispatcher.attemptOfCheckRun(repository.full_name, check);
        if (!found) return;
        // The head that check run is on is what the person pressing its button saw.
        const { link, ref, run } = found;
        const shown = link.head ? { repo: link.repo, head: link.head } : undefined;
        await onRequestedAction(deps, run, ref.step, action?.identifier ?? '', { login: sender.login, type: sender.type ?? null }, shown);
      });
    });

    probot.on('check_run.completed', async (context) => {
      const deps = this.delivery(context);
      const { check_run: check, repository } = webhookPayload('check_run.completed', context);
      if (check.app?.id !== deps.appId) {
        const prs = check.pull_requests?.map((p) => p.number);
        const what = `check run "${check.name}" completed`;
        if (check.head_sha) await onCommitChecks(deps, { repo: repository.full_name, sha: check.head_sha, ...(prs ? { prs } : {}), what });
        return;
      }
      const settle = async () => {
        const ended = await this.dispatcher.checkRunCompleted(repository.full_name, check);
        if (ended) await this.engine.settle(ended.ref, ended.outcome);
      };
      // A teardown's result has no attempt to retire: its delivery is recorded (see once).
      await (parseAttemptKey(check.external_id)?.mode === 'teardown' ? this.once(context.id, settle) : settle());
    });

    probot.on('check_run.rerequested', async (context) => {
      const deps = this.delivery(context);
      const { check_run: check, repository, sender } = webhookPayload('check_run.rerequested', context);
      if (check.app?.id !== deps.appId) return;
      await this.once(context.id, () => onRerunRequested(deps, repository.full_name, check, sender));
    });

    probot.on('workflow_run.completed', async (context) => {
      // Acts only on a current attempt, and retires it (see once).
      const { workflow_run: run, repository } = webhookPayload('workflow_run.completed', context);
      const ended = await this.dispatcher.workflowRunCompleted(repository.full_name, run);
      if (ended) await this.engine.settle(ended.ref, ended.outcome);
    });

    registerCiWebhooks(probot, this.deps);

    probot.on('pull_request.synchronize', async (context) => {
      const deps = this.delivery(context);
      const { pull_request: pr, repository, sender } = webhookPayload('pull_request.synchronize', context);
      await this.once(context.id, () => onPullRequestSynchronize(deps, repository.full_name, pr, sender));
    });

    probot.on('pull_request.closed', async (context) => {
      const deps = this.delivery(context);
      const { pull_request: pr, repository, sender } = webhookPayload('pull_request.closed', context);
      await this.once(context.id, () => onPullRequestClosed(deps, repository.full_name, pr, sender));
    });

    probot.on('pull_request.dequeued', async (context) => {
      const deps = this.delivery(context);
      const { pull_request: pr, repository, reason } = webhookPayload('pull_request.dequeued', context);
      await this.once(context.id, () => onPullRequestDequeued(deps, repository.full_name, pr, reason));
    });

    // A body someone else edited is read again before the status section is next written into it
    // (app/pr-status.ts), so their words stay; the app's own edits (its bot's) it knows already.
    probot.on('pull_request.edited', async (context) => {
      const { pull_request: pr, repository, sender } = webhookPayload('pull_request.edited', context);
      if (sender?.login !== (await this.ownLogin())) this.deps.reporter.pullRequestEdited(repository.full_name, pr.number);
    });

    // The app lost its access: runs there can do nothing more, and say why.
    probot.on('installation.deleted', async (context) => {
      const deps = this.delivery(context);
      const { installation } = webhookPayload('installation.deleted', context);
      const owner = installation.account?.login ?? 'its account';
      await this.once(context.id, () => onInstallationGone(deps, installation.id, undefined, `the Conveyor app was uninstalled from ${owner}`));
    });
    probot.on('installation_repositories.removed', async (context) => {
      const deps = this.delivery(context);
      const { installation, repositories_removed } = webhookPayload('installation_repositories.removed', context);
      const removed = repositories_removed.map((r) => r.full_name);
      await this.once(context.id, () => onInstallationGone(deps, installation.id, removed, `the Conveyor app's access to ${removed.join(', ')} was removed`));
    });
  }

  /** What a delivery's handler works with: the app's deps, its log lines naming the delivery. */
  private delivery(context: Pick<Context, 'id' | 'name'>): AppDeps {
    return { ...this.deps, log: this.deps.log.child({ delivery: context.id, event: context.name }) };
  }

  /** This app's bot login (`<slug>[bot]`): the author of its pushes and comments, the actor of the workflow runs it dispatches. */
  ownLogin(): Promise<string> {
    if (this.options.botLogin) return Promise.resolve(this.options.botLogin);
    if (!this.botLogin) {
      const asked = (async () => {
        const { data } = await (await this.probot.auth()).rest.apps.getAuthenticated();
        return `${data?.slug ?? 'conveyor'}[bot]`;
      })();
      this.botLogin = asked;
      // A failed ask is not kept (else every later push would fail with it): the next push asks again.
      asked.catch(() => {
        if (this.botLogin === asked) this.botLogin = undefined;
      });
    }
    return this.botLogin;
  }

  /**
   * On one replica at a time (the holder of the sweeper lease): 1. takes and carries out the
   * effects whose holder died mid-effect (their claims ran out), 2. judges old attempts (lost,
   * timed out, or completed with a missed webhook). Another replica's sweep does nothing and
   * says who holds the lease.
   */
  async sweep(): Promise<SweepReport> {
    const { holder } = this.engine.claim;
    const lease = await this.options.store.acquireLease(SWEEPER_LEASE, holder, this.sweeperLeaseMs);
    if (lease.holder !== holder) return { judged: 0, lost: [], completed: [], heldBy: lease.holder };
    const taken = await this.engine.carryOutAbandoned();
    const report = await this.dispatcher.sweep((ref, outcome) => this.engine.settle(ref, outcome), this.options.sweep, this.sweepMemory);
    await sweepCi(this.deps, this.ciMemory);
    const looked = await this.lookAtQueues();
    return { ...report, ...(taken.length > 0 ? { taken } : {}), ...(looked.length > 0 ? { looked } : {}) };
  }

  /** Has each merge step that waits for a merge queue and heard nothing for a while look again; returns their runs. */
  private async lookAtQueues(): Promise<string[]> {
    const now = this.deps.now();
    const due = (await this.options.store.list({ status: ['running'] })).filter((run) => queueLookDue(run, now, QUEUE_LOOK_MINUTES));
    for (const run of due) await this.engine.apply(run.id, { type: 'merge-queue', at: now, change: 'look' });
    return due.map((run) => run.id);
  }

  /**
   * After a start: settles what a previous process left for each active run, and carries out
   * the effects no one holds (of ended runs too). Effects another live replica holds stay its own.
   */
  async recover(): Promise<void> {
    for (const run of await this.options.store.list({ status: ['running', 'waiting'] })) await this.engine.recover(run.id);
    await this.engine.carryOutAbandoned();
  }

  /** Resolves when no effect, report (its coalesced write included) or sweep is in flight. */
  async idle(): Promise<void> {
    for (;;) {
      await this.engine.idle();
      await this.deps.reporter.idle();
      if (this.inflight.size === 0) return;
      await Promise.race(this.inflight);
    }
  }

  /**
   * Stops the sweeper and the renewal of this replica's claims: call before closing the store.
   * What it was still carrying out is taken by another replica once the claims run out.
   */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.engine.close();
    this.deps.reporter.close();
  }

  private track(work: Promise<unknown>): void {
    const p: Promise<unknown> = work.catch((e: unknown) => this.deps.log.error((e as Error).message)).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
  }
}
