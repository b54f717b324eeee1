// People steering runs from GitHub: `/conveyor …` commands in issue comments, PR comments and PR
// review bodies, reviews requesting changes, the Approve / Reject buttons of an approval step's
// check run, and the Checks tab's Re-run of a step's check run (a retry of that step). Every command passes the same checks before it becomes an event (or, for
// `status`, an answer): not a bot; `write` or higher on the run's primary repository, wherever it
// was given (deciders.ts); for approvals, one of the step's approvers (users, or active members of
// `@org/team`s), and only while an approval waits, for the heads shown then. The event is then
// tried on the pure reducer first: what it would refuse gets a reply where the command was given
// and changes nothing; what it accepts is applied and acknowledged with a reaction.
import { code } from '../core/text.ts';
import { commandHelp, parseCommands, type Command } from '../core/github/commands.ts';
import { primaryRepo } from '../core/run/payload.ts';
import { dueApproval, isApprover, prHeads } from '../core/run/approvals.ts';
import { reduce, validApprovals } from '../core/run/reducer.ts';
import type { Run, RunEvent } from '../core/run/types.ts';
import type { IssueAuthor } from '../core/contract/wire.ts';
import { defaultBranchOf } from '../core/run/origin.ts';
import { shortUsage } from '../core/contract/usage.ts';
import { stepUsage } from '../core/run/usage.ts';
import { nextSteps } from '../core/github/next-steps.ts';
import { usageLine } from '../core/github/tracking.ts';
import { formatMoment } from '../core/time.ts';
import type { PlanStep } from '../core/plan/types.ts';
import { splitRepo } from '../engine/ports/forge.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import type { People } from '../adapters/github/forge/people.ts';
import { installationOf, type AppDeps } from './deps.ts';
import { isBot, notAWriter } from './deciders.ts';
import { leaveOpen, runsOf } from './pulls.ts';
import { currentBudget, startRun } from './start.ts';
import { revertRun } from './revert.ts';
import type { WebhookActor, WebhookCheckRun } from './webhooks.ts';

export interface CommandSource {
  kind: 'comment' | 'review' | 'button';
  installationId: number;
  /** Where the command was given: an issue or a PR (comment, review), or the run's thread (button). */
  repo: string;
  number: number;
  pullRequest: boolean;
  /** An issue or PR comment's id: accepted commands get a reaction on it. */
  commentId?: number;
  /** A review's id, and where the comment or review is (feedback says where it came from). */
  reviewId?: number;
  url?: string;
  /** A review requesting changes was sent to the coder whole: a `/conveyor fix` in its body is part of it. */
  feedbackTaken?: boolean;
  actor: { login: string; type?: string | null };
  /** Only for `run` on an issue. */
  issue?: { title: string; body: string; url: string; defaultBranch: string; author?: IssueAuthor };
}

type ApprovalStep = Extract<PlanStep, { kind: 'approval' }>;

/** A comment where the command was given, addressed to whoever gave it. */
function replyTo(github: GitHub, source: CommandSource, text: string): Promise<unknown> {
  return github.comments.create(source.repo, source.number, `@${source.actor.login} ${text}`);
}

/** Handles the commands of a comment or review body (nothing at all when it holds none). */
export async function onCommandText(deps: AppDeps, source: CommandSource, body: string): Promise<void> {
  const parsed = parseCommands(body);
  if (parsed.commands.length === 0 && parsed.unknown.length === 0 && parsed.quoted.length === 0) return;
  const github = await deps.github(source.installationId);
  if (parsed.commands.length === 0 && parsed.unknown.length === 0) {
    const lines = parsed.quoted.join(', ');
    await replyTo(
      github,
      source,
      `a command inside a quote (line${parsed.quoted.length > 1 ? 's' : ''} ${lines}) does not count: write it on a line of its own, outside quotes and code blocks. Nothing changed.`,
    );
    return;
  }
  if (parsed.unknown.length > 0) {
    const what = parsed.unknown.map((u) => `- line ${u.line}: ${u.message}`).join('\n');
    await replyTo(github, source, `Conveyor did not understand:\n${what}\n\nThe commands are:\n${commandHelp()}`);
  }
  for (const command of parsed.commands) await handle(deps, github, source, command);
}

/**
 * An Approve or Reject button of an approval step's check run (`check_run.requested_action`);
 * `shown`: the head that check run is on (what the person saw in the primary repository).
 */
export async function onRequestedAction(
  deps: AppDeps,
  run: Run,
  step: string,
  identifier: string,
  actor: CommandSource['actor'],
  shown?: { repo: string; head: string },
): Promise<void> {
  const github = await deps.githubOf(run);
  const primary = primaryRepo(run.plan);
  const pr = run.prs.find((p) => p.repo === primary);
  const source: CommandSource = {
    kind: 'button',
    installationId: installationOf(run),
    repo: pr ? pr.repo : run.issue.repo,
    number: pr ? pr.number : run.issue.number,
    pullRequest: !!pr,
    actor,
  };
  if (identifier !== 'approve' && identifier !== 'reject') {
    await replyTo(github, source, `the button ${code(identifier)} is not one Conveyor offers (Approve, Reject). Nothing changed.`);
    return;
  }
  await decideOn(deps, github, source, run, { name: identifier }, step, shown);
}

/** The Checks tab's Re-run of a step's check run: a retry of that step, by a person with write permission. */
export async function onRerunRequested(deps: AppDeps, repo: string, check: WebhookCheckRun, sender: WebhookActor): Promise<void> {
  const found = await deps.dispatcher.attemptOfCheckRun(repo, check);
  if (!found || isBot(sender)) return;
  const { ref, run } = found;
  const github = await deps.githubOf(run);
  const denied = await notAWriter(github.people, run, sender.login);
  if (denied) {
    await github.comments.create(
      run.issue.repo,
      run.issue.number,
      `@${sender.login} asked to re-run step \`${ref.step}\` of run \`${run.id}\`, but only people with write permission on ${denied.repo} can (they have ${denied.permission}). Nothing changed.`,
    );
    return;
  }
  await deps.engine.apply(run.id, { type: 'retry', at: deps.now(), step: ref.step, by: sender.login, ...(await currentBudget(github.repos, run)) });
}

async function handle(deps: AppDeps, github: GitHub, source: CommandSource, command: Command): Promise<void> {
  const reply = (text: string) => replyTo(github, source, text);
  if (isBot(source.actor)) return void (await reply(`bots cannot give Conveyor commands (\`/conveyor ${command.name}\`). Nothing changed.`));

  if (command.name === 'run') {
    if (source.pullRequest || !source.issue)
      return void (await reply('`/conveyor run` starts a run for an issue: comment it on the issue. Nothing was started.'));
    // startRun checks who may start a run, for labels and commands alike.
    const outcome = await startRun(deps, {
      installationId: source.installationId,
      repo: source.repo,
      defaultBranch: source.issue.defaultBranch,
      issue: {
        number: source.number,
        title: source.issue.title,
        body: source.issue.body,
        url: source.issue.url,
        ...(source.issue.author ? { author: source.issue.author } : {}),
      },
      requester: source.actor.login,
      sender: source.actor,
      trigger: { kind: 'command', ...(command.pipeline ? { pipeline: command.pipeline } : {}) },
    });
    if (outcome.started) await react(deps, github, source, 'rocket');
    return;
  }

  if (command.name === 'fix' && source.feedbackTaken) return;
  const run = await runFor(deps, source);
  if (!run)
    return void (await reply(
      `there is no Conveyor run on this ${source.pullRequest ? 'pull request' : 'issue'}; \`/conveyor ${command.name}\` changed nothing.`,
    ));
  await decideOn(deps, github, source, run, command);
}

/** The run a command is for: the newest active run of the issue, or of which the PR is one of the PRs (else the newest ended one). */
async function runFor(deps: AppDeps, source: Pick<CommandSource, 'repo' | 'number' | 'pullRequest'>): Promise<Run | undefined> {
  if (source.pullRequest) return (await runsOf(deps, source.repo, source.number)).at(-1) ?? (await runsOf(deps, source.repo, source.number, 'all')).at(-1);
  const issue = { repo: source.repo, number: source.number };
  return (await deps.store.list({ status: ['running', 'waiting'], issue })).at(-1) ?? (await deps.store.list({ issue })).at(-1);
}

/** Permission, bots and approvers, then the reducer: refused with a reply, or applied with a reaction. */
async function decideOn(
  deps: AppDeps,
  github: GitHub,
  source: CommandSource,
  run: Run,
  command: Exclude<Command, { name: 'run' }>,
  step?: string,
  shown?: { repo: string; head: string },
): Promise<void> {
  const reply = (text: string) => replyTo(github, source, text);
  const login = source.actor.login;
  if (isBot(source.actor)) return void (await reply(`bots cannot decide Conveyor steps (\`${command.name}\`). Nothing changed.`));
  // Every command, feedback and status included, from any of the run's PRs or its issue: write on
  // the run's primary repository. A status carries the steps' reasons and cost, which a sibling's
  // PR may show to people who cannot see the primary repository; the tracking comment is where
  // everyone who can see the issue looks.
  const denied = await notAWriter(github.people, run, login);
  if (denied && command.name === 'status') {
    return void (await reply(
      `only people with write permission on ${denied.repo} can ask for the status of Conveyor run \`${run.id}\` (you have ${denied.permission} there): ${denied.repo} is ${denied.role}, wherever the command is given. The run's tracking comment on ${run.issue.repo}#${run.issue.number} shows where it stands.`,
    ));
  }
  if (denied) {
    return void (await reply(
      `only people with write permission on ${denied.repo} can \`${command.name}\` Conveyor run \`${run.id}\` (you have ${denied.permission} there): ${denied.repo} is ${denied.role}, wherever the command is given. Nothing changed.`,
    ));
  }
  const at = deps.now();
  let event: RunEvent;
  switch (command.name) {
    case 'status':
      await reply(statusText(run, (await deps.links.comment(run.id))?.url));
      return;
    case 'approve':
    case 'reject': {
      const target = approvalTarget(run, step);
      let team: string | undefined;
      if (target && !isApprover(target.approvers, login, undefined)) {
        team = await teamOf(github.people, target.approvers, login);
        if (!team) {
          return void (await reply(
            `you are not an approver of step \`${target.id}\` (approvers: ${target.approvers.join(', ')}; a team counts when your membership is active). Nothing changed.`,
          ));
        }
      }
      event = {
        type: 'decision',
        at,
        decision: command.name,
        by: login,
        // What the person was shown: the run's heads as read for this command, and a button's own check run's head.
        heads: { ...prHeads(run), ...(shown ? { [shown.repo]: shown.head } : {}) },
        ...(step ? { step } : {}),
        ...(command.name === 'reject' && command.reason ? { reason: command.reason } : {}),
        ...(team ? { team } : {}),
      };
      break;
    }
    case 'retry':
      // With the configuration's budget as it is now (raised, a run stopped by it goes on).
      event = { type: 'retry', at, by: login, ...(command.step ? { step: command.step } : {}), ...(await currentBudget(github.repos, run)) };
      break;
    case 'cancel':
      event = { type: 'cancel', at, by: login, ...(command.reason ? { reason: command.reason } : {}) };
      break;
    case 'restart':
      return restart(deps, github, source, run);
    case 'revert':
      return revert(deps, github, source, run);
    case 'fix':
      event = feedbackEvent(source, at, command.text);
      break;
  }
  // The reducer is pure: trying the event first tells a refusal (answered here, where it was
  // asked) from a change, without storing anything.
  const trial = reduce(run, event);
  if (trial.run === run) {
    const refusal = trial.effects.find((e) => e.type === 'reply');
    await reply(`${refusal && 'text' in refusal ? refusal.text : unchangedText(run, event)} Nothing changed.`);
    return;
  }
  // A cancel stops what is under way by its own effects (the reducer's `stop`), whatever follows here.
  const after = await deps.engine.apply(run.id, event);
  await react(deps, github, source, command.name === 'retry' ? 'rocket' : '+1');
  if (command.name === 'cancel' && after.status === 'cancelled' && run.status !== 'cancelled') {
    await leaveOpen(deps, after, undefined, `Conveyor run \`${run.id}\` was cancelled by @${login}${command.reason ? `: ${command.reason}` : ''}.`);
  }
}

/** People's feedback as the run records it: once per comment or review, saying where it came from. */
function feedbackEvent(
  source: CommandSource,
  at: string,
  text: string,
  comments?: Array<{ path: string; line?: number; body: string }>,
): Extract<RunEvent, { type: 'feedback' }> {
  const id = source.reviewId !== undefined ? `review:${source.repo}:${source.reviewId}` : `comment:${source.repo}:${source.commentId ?? at}`;
  return {
    type: 'feedback',
    at,
    id,
    by: source.actor.login,
    source: source.kind === 'review' ? 'review' : 'comment',
    text,
    ...(source.url ? { url: source.url } : {}),
    ...(comments && comments.length > 0 ? { comments } : {}),
  };
}

/**
 * A pull request review requesting changes, on a PR of an active run: its body and inline
 * comments go to the coder as feedback, from a person with write permission on the run's primary
 * repository (whichever of the run's PRs it is on). Reviews on other PRs, and bots' reviews, are
 * none of Conveyor's business: nothing is said.
 */
export async function onChangesRequested(deps: AppDeps, source: CommandSource, body: string): Promise<void> {
  if (isBot(source.actor) || source.reviewId === undefined) return;
  const run = (await runsOf(deps, source.repo, source.number)).at(-1);
  if (!run) return;
  const github = await deps.github(source.installationId);
  const login = source.actor.login;
  const denied = await notAWriter(github.people, run, login);
  if (denied) {
    return void (await replyTo(
      github,
      source,
      `your review was not sent to Conveyor's coder: only people with write permission on ${denied.repo} can ask it for changes (you have ${denied.permission} there): ${denied.repo} is ${denied.role}, wherever the review is. Nothing changed.`,
    ));
  }
  const comments = await github.pulls.reviewComments(source.repo, source.number, source.reviewId);
  const event = feedbackEvent(source, deps.now(), body, comments);
  const trial = reduce(run, event);
  if (trial.run === run) {
    const refusal = trial.effects.find((e) => e.type === 'reply');
    if (refusal && 'text' in refusal) await replyTo(github, source, `${refusal.text} Your review was not sent to the coder.`);
    return;
  }
  const after = await deps.engine.apply(run.id, event);
  const code = run.plan.steps.find((p) => p.kind === 'code')?.id ?? 'code';
  if (after.feedback?.find((f) => f.id === event.id)?.taken) {
    const what = comments.length > 0 ? ` and its ${comments.length} comment${comments.length === 1 ? '' : 's'}` : '';
    await replyTo(github, source, `Conveyor sent your review${what} to the coder (step \`${code}\`); the steps after it run again.`);
  }
}

/** The approval step a decision is for, while it waits (else the reducer refuses, naming where the run stands). */
function approvalTarget(run: Run, step: string | undefined): ApprovalStep | undefined {
  const due = dueApproval(run, step);
  return 'step' in due ? due.step : undefined;
}

/** The first of the approvers' `@org/team`s the user is an active member of. */
async function teamOf(people: People, approvers: readonly string[], login: string): Promise<string | undefined> {
  for (const a of approvers) {
    if (!a.includes('/')) continue;
    const { owner: org, name: team } = splitRepo(a.replace(/^@/, ''));
    const state = await people.teamMembership(org, team, login);
    if (state === 'active') return `@${org}/${team}`;
  }
  return undefined;
}

/** Why an accepted-looking command changed nothing (the reducer stays silent on these). */
function unchangedText(run: Run, event: RunEvent): string {
  if (event.type === 'decision') {
    const target = approvalTarget(run, event.step);
    const have = target ? validApprovals(run, target.id).length : 0;
    return `your approval of step \`${target?.id ?? '?'}\` is already recorded: \`min-approvals\` counts distinct people (${have} of ${target?.minApprovals ?? '?'}).`;
  }
  if (event.type === 'retry') return `run \`${run.id}\` has nothing to retry: every step succeeded.`;
  return `run \`${run.id}\` is ${run.status}.`;
}

export function statusText(run: Run, trackingUrl: string | undefined): string {
  const lines = [
    `Conveyor run \`${run.id}\` (pipeline \`${run.plan.pipeline}\`, started ${formatMoment(run.createdAt, run.updatedAt)}) is **${run.status}**${run.waitingFor ? `: ${run.waitingFor}` : run.reason ? `: ${run.reason}` : ''}.`,
    '',
    // What it waits for and the command that continues it, as the tracking comment says it.
    ...(run.status === 'waiting' ? [...nextSteps(run), ''] : []),
  ];
  for (const p of run.plan.steps) {
    const s = run.steps[p.id];
    const used = shortUsage(stepUsage(s));
    lines.push(
      `- \`${p.id}\` (${p.kind}): ${s?.status ?? 'unknown'}${s && s.attempt > 0 ? `, attempt ${s.attempt}` : ''}${used ? `, ${used}` : ''}${s?.reason ? ` — ${s.reason}` : ''}`,
    );
  }
  const total = usageLine(run);
  if (total) lines.push('', `Usage: ${total}`);
  if (run.prs.length > 0) lines.push('', `PRs: ${run.prs.map((p) => `${p.repo}#${p.number}`).join(', ')}`);
  if (trackingUrl) lines.push('', `Details: ${trackingUrl}`);
  return lines.join('\n');
}

/** Cancels the run and starts the pipeline over on the configuration of the default branch (a new run id). */
async function restart(deps: AppDeps, github: GitHub, source: CommandSource, run: Run): Promise<void> {
  const login = source.actor.login;
  if (run.status === 'running' || run.status === 'waiting') {
    await deps.engine.apply(run.id, { type: 'cancel', at: deps.now(), by: login, reason: 'restarted' });
  }
  const outcome = await startRun(deps, {
    installationId: installationOf(run),
    repo: run.issue.repo,
    defaultBranch: defaultBranchOf(run),
    issue: {
      number: run.issue.number,
      title: run.issue.title,
      body: run.issue.body,
      url: run.issue.url ?? '',
      ...(run.issue.author ? { author: run.issue.author } : {}),
    },
    requester: login,
    trigger: { kind: 'command', pipeline: run.plan.pipeline },
  });
  if (outcome.started) await react(deps, github, source, 'rocket');
  else await replyTo(github, source, `run \`${run.id}\` was cancelled, but a new one did not start: ${outcome.message}`);
}

/** `/conveyor revert` (app/revert.ts): refused with why, or acknowledged. */
async function revert(deps: AppDeps, github: GitHub, source: CommandSource, run: Run): Promise<void> {
  const outcome = await revertRun(deps, github, run, source.actor.login);
  if ('refused' in outcome) await replyTo(github, source, outcome.refused);
  else await react(deps, github, source, 'rocket');
}

/**
 * Acknowledges a command that took effect. Only an acknowledgement: one that fails is logged, and
 * what follows the command (its cancel's comments on the PRs) still happens; failing the delivery
 * would have GitHub's redelivery give the command again, to a run that has moved on.
 */
async function react(deps: AppDeps, github: GitHub, source: CommandSource, content: '+1' | 'rocket'): Promise<void> {
  if (source.kind === 'button') return; // the check run itself shows the decision
  try {
    // A review has no reactions: a one-line answer says the command was taken.
    if (source.commentId === undefined) await replyTo(github, source, `done: Conveyor took the command of your review.`);
    else await github.comments.react(source.repo, source.commentId, content);
  } catch (e) {
    deps.log.warn(`could not acknowledge the command of @${source.actor.login} on ${source.repo}#${source.number}: ${(e as Error).message}`, {
      repo: source.repo,
      number: source.number,
    });
  }
}
