// Starting a run: a pipeline's label on an issue, or `/conveyor run [pipeline]` in an issue
// comment (parsed in core/github/commands.ts), by a person with write permission on the issue's
// repository and, where the pipeline works on another, on its primary repository too: that
// repository's writers decide the run (deciders.ts), so they alone start it (never a bot, never
// triage: whoever labels or comments is checked here, the same way).
// The configuration is read from the default branch (never a PR branch); an invalid one gets a
// comment listing every error, and no run starts. One active run per issue and pipeline (the store
// enforces it): a second label or a redelivery changes nothing.
import { LRUCache } from 'lru-cache';
import { code } from '../core/text.ts';
import { DEFAULT_LABEL, DEFAULT_PIPELINE, labelOf } from '../core/config/defaults.ts';
import { formatConfigError, loadConfig } from '../core/config/load.ts';
import type { Config } from '../core/config/schema.ts';
import { compilePlan, listPipelines, reposWithoutBase } from '../core/plan/compile.ts';
import type { Plan } from '../core/plan/types.ts';
import type { Run } from '../core/run/types.ts';
import { defaultBranchOf } from '../core/run/origin.ts';
import type { RunStore } from '../engine/ports/store.ts';
import type { GitHub } from '../adapters/github/forge/github.ts';
import type { Repos } from '../adapters/github/forge/repos.ts';
import { StoreError } from '../engine/ports/store.ts';
import { issueAuthorSchema, type IssueAuthor, type PullRequestRef } from '../core/contract/wire.ts';
import { pullRequestBody, pullRequestTitle } from '../core/github/pr-body.ts';
import { primaryRepo, workBranch } from '../core/run/payload.ts';
import { canWrite, type AppDeps } from './deps.ts';
import { isBot } from './deciders.ts';

export const CONFIG_PATH = '.github/conveyor.yml';

export interface StartRequest {
  installationId: number;
  repo: string;
  defaultBranch: string;
  issue: { number: number; title: string; body: string; url: string; author?: IssueAuthor };
  requester: string;
  /** Whoever labeled or commented; `type` as GitHub gives it (`Bot` for apps). */
  sender?: { login: string; type?: string | null };
  /** A label that was added, or the pipeline a command named (undefined: the default one). */
  trigger: { kind: 'label'; label: string } | { kind: 'command'; pipeline?: string };
}

/**
 * The issue's author as a webhook names it (`issue.user`), for the co-author trailer of the run's
 * commits; nothing when the webhook names none or names it oddly (a run then credits no one).
 */
export function authorOf(user: { login?: string; id?: number } | null | undefined): { author?: IssueAuthor } {
  const parsed = issueAuthorSchema.safeParse({ login: user?.login, id: user?.id });
  return parsed.success ? { author: parsed.data } : {};
}

export type StartOutcome =
  | { started: true; runId: string }
  | { started: false; why: 'not-conveyor' | 'no-config' | 'invalid-config' | 'no-pipeline' | 'active' | 'not-allowed' | 'no-draft-pr'; message: string };

function pipelineFor(config: Config, trigger: StartRequest['trigger']): string | undefined {
  const names = listPipelines(config);
  if (trigger.kind === 'label') return names.find((n) => labelOf(n, config.pipelines[n]?.label) === trigger.label);
  if (trigger.pipeline) return names.find((n) => n === trigger.pipeline);
  return names.includes(DEFAULT_PIPELINE) ? DEFAULT_PIPELINE : names.length === 1 ? names[0] : undefined;
}

export async function runIdFor(store: RunStore, repo: string, issue: number, pipeline: string): Promise<string> {
  const base = `${repo.replace('/', '-')}-${issue}${pipeline === DEFAULT_PIPELINE ? '' : `-${pipeline}`}`.replace(/[^A-Za-z0-9_.-]/g, '-');
  if (!(await store.get(base))) return base;
  for (let n = 2; ; n++) if (!(await store.get(`${base}-${n}`))) return `${base}-${n}`;
}

/**
 * The run's pipeline's `budget-usd` as the default branch's configuration says now, for a retry to
 * go on with (null: it has none now). The budget is outside the plan hash (core/run/usage.ts), so
 * raising it is not a changed pipeline. Nothing when the file is gone, invalid or lost the
 * pipeline: the run keeps its own budget then, and the retry does not fail on it.
 */
export async function currentBudget(repos: Repos, run: Run): Promise<{ budgetUsd?: number | null }> {
  const text = await repos.readFile(run.issue.repo, CONFIG_PATH, defaultBranchOf(run));
  if (text === undefined) return {};
  const { loaded } = loadCached(text);
  const pipeline = loaded.ok ? loaded.config.pipelines[run.plan.pipeline] : undefined;
  return pipeline ? { budgetUsd: pipeline['budget-usd'] ?? null } : {};
}

/** A label may be meant for Conveyor even when the file is broken: the default label, or one the file names. */
function meantForConveyor(trigger: StartRequest['trigger'], text: string | undefined): boolean {
  if (trigger.kind === 'command') return true;
  if (trigger.label === DEFAULT_LABEL) return true;
  return text !== undefined && new RegExp(`label:\\s*["']?${trigger.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*$`, 'm').test(text);
}

/** Parsed configurations by their text (the same file is read on every label of a busy
 * repository), each with the plans compiled from it: compiling is pure, and a compiled plan is
 * frozen, so runs share it. */
interface Loaded {
  loaded: ReturnType<typeof loadConfig>;
  plans: Map<string, Plan | Error>;
}
const parsedConfigs = new LRUCache<string, Loaded>({ max: 64 });
function loadCached(text: string): Loaded {
  let entry = parsedConfigs.get(text);
  if (!entry) {
    entry = { loaded: loadConfig(text, CONFIG_PATH), plans: new Map() };
    parsedConfigs.set(text, entry);
  }
  return entry;
}

function planOf(entry: Loaded, config: Config, pipeline: string, repo: string, defaultBranches: Record<string, string>): Plan | Error {
  const key = `${pipeline}\u0000${repo}\u0000${JSON.stringify(defaultBranches)}`;
  let plan = entry.plans.get(key);
  if (!plan) {
    try {
      plan = compilePlan(config, pipeline, { primaryRepo: repo, defaultBranches });
    } catch (e) {
      plan = e as Error;
    }
    entry.plans.set(key, plan);
  }
  return plan;
}

/**
 * The default branches of the repositories whose services name no `base`: the base they get. The
 * issue's own repository's comes with the webhook; each other one is read once for the run
 * (GET /repos/{owner}/{repo}). A repository the installation cannot see is an error, in words.
 */
async function defaultBranchesOf(repos: Repos, config: Config, pipeline: string, request: StartRequest): Promise<Record<string, string> | string> {
  const branches: Record<string, string> = {};
  for (const repo of reposWithoutBase(config, pipeline, request.repo)) {
    const branch = repo === request.repo ? request.defaultBranch : await repos.defaultBranch(repo);
    if (branch === undefined)
      return `the Conveyor app cannot see ${repo} (a service's \`repo\`), so it cannot tell its default branch: install the app on it, or give the service a \`base\``;
    branches[repo] = branch;
  }
  return branches;
}

/** A label on an issue: starts the pipeline it names, if whoever labeled may. */
export function startFromLabel(deps: AppDeps, request: Omit<StartRequest, 'sender'>, sender: NonNullable<StartRequest['sender']>): Promise<StartOutcome> {
  return startRun(deps, { ...request, sender });
}

/**
 * 1. a command's giver may start runs (a label's is checked once the label is known to be
 * Conveyor's), 2. read and compile the configuration of the default branch, 3. one active run per
 * issue and pipeline, 4. the labeler may start runs, 5. start.
 */
export async function startRun(deps: AppDeps, request: StartRequest): Promise<StartOutcome> {
  const github = await deps.github(request.installationId);
  const { repo, trigger } = request;
  if (trigger.kind === 'command') {
    const refused = await allowed(github, request);
    if (refused) return refused;
  }
  const text = await github.repos.readFile(repo, CONFIG_PATH, request.defaultBranch);
  const comment = (body: string) => github.comments.create(repo, request.issue.number, body);

  if (text === undefined) {
    const message = `There is no \`${CONFIG_PATH}\` on ${code(request.defaultBranch)} of ${repo}, so Conveyor has no pipeline to run. Add one (\`conveyor init\` writes a starter file), then start it again (label the issue, or comment \`/conveyor run\`).`;
    if (meantForConveyor(trigger, undefined)) await comment(message);
    return { started: false, why: 'no-config', message };
  }
  const cached = loadCached(text);
  const { loaded } = cached;
  if (!loaded.ok) {
    const list = loaded.errors.map((e) => `- ${code(formatConfigError(e))}`).join('\n');
    const message = `Conveyor did not start: \`${CONFIG_PATH}\` on ${code(request.defaultBranch)} has ${loaded.errors.length} error${loaded.errors.length === 1 ? '' : 's'}:\n\n${list}\n\nFix them on ${code(request.defaultBranch)} (\`conveyor validate\` checks the file locally), then start it again (label the issue, or comment \`/conveyor run\`).`;
    if (!meantForConveyor(trigger, text)) return { started: false, why: 'not-conveyor', message };
    await comment(message);
    return { started: false, why: 'invalid-config', message };
  }
  const config = loaded.config;
  const pipeline = pipelineFor(config, trigger);
  if (!pipeline) {
    const known = listPipelines(config)
      .map((n) => `\`${n}\` (label \`${labelOf(n, config.pipelines[n]?.label)}\`)`)
      .join(', ');
    const message = `Conveyor has no pipeline ${trigger.kind === 'command' && trigger.pipeline ? `\`${trigger.pipeline}\`` : 'to run by default'}; the pipelines are ${known}.`;
    if (trigger.kind === 'command') await comment(message);
    return { started: false, why: trigger.kind === 'label' ? 'not-conveyor' : 'no-pipeline', message };
  }
  const active = (await deps.store.list({ status: ['running', 'waiting'], issue: { repo, number: request.issue.number }, pipeline })).at(0);
  if (active) {
    const message = activeText(active);
    if (trigger.kind === 'command') await comment(message);
    return { started: false, why: 'active', message };
  }
  if (trigger.kind === 'label') {
    const refused = await allowed(github, request);
    if (refused) return refused;
  }
  const branches = await defaultBranchesOf(github.repos, config, pipeline, request);
  const plan = typeof branches === 'string' ? new Error(branches) : planOf(cached, config, pipeline, repo, branches);
  if (plan instanceof Error) {
    const message = `Conveyor did not start pipeline \`${pipeline}\`: ${plan.message}.`;
    await comment(message);
    return { started: false, why: 'invalid-config', message };
  }
  const primary = primaryRepo(plan);
  if (primary !== repo) {
    const refused = await allowed(github, request, { repo: primary, role: `the primary repository of pipeline \`${pipeline}\`` });
    if (refused) return refused;
  }
  return begin(deps, github, request, plan);
}

/**
 * Opens the run's draft pull request in the primary repository (see Pulls.openDraft):
 * the code step resumes its branch, and its body is the one every PR of the run has (the issue, the
 * run, the sibling PRs once they exist).
 */
async function openDraft(
  github: GitHub,
  runId: string,
  plan: Plan,
  issue: { repo: string; number: number; title: string; url: string },
): Promise<{ ref: PullRequestRef; body: string }> {
  const primary = plan.changeSet.find((r) => r.role === 'primary') ?? plan.changeSet[0]!;
  const baseCommit = await github.repos.branchCommit(primary.repo, primary.base);
  const pr = await github.pulls.openDraft({
    repo: primary.repo,
    branch: workBranch(primary.repo, issue.number),
    base: primary.base,
    baseCommit,
    message: `Conveyor run ${runId} for ${issue.repo}#${issue.number}: the work starts here`,
    title: pullRequestTitle(issue, primary.repo),
    body: pullRequestBody({ issue, runId, repo: primary.repo, prs: [] }),
  });
  // Its draft flag and GraphQL id travel with the run: the action marks it ready after its push without reading it first.
  const ref = {
    repo: pr.repo,
    number: pr.number,
    url: pr.url,
    branch: pr.branch,
    head: pr.head,
    ...(pr.draft ? { draft: true } : {}),
    ...(pr.nodeId ? { nodeId: pr.nodeId } : {}),
  };
  // Its body as GitHub answered it (an open PR found on the branch keeps its own): the first status write needs no read.
  return { ref, body: pr.body };
}

function activeText(active: Pick<Run, 'id' | 'status' | 'plan'>): string {
  return `Run \`${active.id}\` of pipeline \`${active.plan.pipeline}\` is already active on this issue (${active.status}); \`/conveyor retry\` or \`/conveyor cancel\` act on it.`;
}

/**
 * Only a person with write permission on the issue's repository (or `on`, the pipeline's primary
 * repository, where that is another) starts a run: refused with a comment that says why.
 */
async function allowed(github: GitHub, request: StartRequest, on?: { repo: string; role: string }): Promise<StartOutcome | undefined> {
  const sender = request.sender ?? { login: request.requester };
  const refuse = async (message: string): Promise<StartOutcome> => {
    await github.comments.create(request.repo, request.issue.number, `@${sender.login} ${message}`);
    return { started: false, why: 'not-allowed', message };
  };
  if (isBot(sender)) return refuse('bots cannot start Conveyor runs. Nothing was started.');
  const permission = await github.people.permission(on?.repo ?? request.repo, sender.login);
  if (canWrite(permission)) return undefined;
  return refuse(
    on
      ? `only people with write permission on ${on.repo} can start a Conveyor run: ${on.repo} is ${on.role} (you have ${permission} there). Nothing was started.`
      : `only people with write permission on ${request.repo} can start a Conveyor run (you have ${permission}). Nothing was started.`,
  );
}

async function begin(deps: AppDeps, github: GitHub, request: StartRequest, plan: Plan): Promise<StartOutcome> {
  const { store } = deps;
  const refused = async (message: string): Promise<StartOutcome> => {
    if (request.trigger.kind === 'command') await github.comments.create(request.repo, request.issue.number, message);
    return { started: false, why: 'active', message };
  };
  const id = await runIdFor(store, request.repo, request.issue.number, plan.pipeline);
  const { author } = request.issue;
  const issue = {
    repo: request.repo,
    number: request.issue.number,
    title: request.issue.title,
    body: request.issue.body,
    url: request.issue.url,
    ...(author ? { author } : {}),
  };
  // The run's draft PR, before anything else: every check run of the run goes on its head from the first step.
  let draft: { ref: PullRequestRef; body: string };
  try {
    draft = await openDraft(github, id, plan, issue);
  } catch (e) {
    // Nothing was started: say why where it was asked (an app without contents or pull requests
    // write on the repository, a base branch that is not there).
    const message = `Conveyor did not start: it could not open the run's draft pull request in ${plan.changeSet[0]?.repo ?? request.repo} (${(e as Error).message}). Check that the app may write contents and pull requests there, then start it again (label the issue, or comment \`/conveyor run\`).`;
    await github.comments.create(request.repo, request.issue.number, message);
    return { started: false, why: 'no-draft-pr', message };
  }
  // Nothing of a run this process starts can be on GitHub yet: its reports need not look first.
  deps.reporter.markNew(id, { pr: draft.ref, body: draft.body });
  try {
    await deps.engine.start({
      id,
      plan,
      issue,
      requester: request.requester,
      origin: { kind: 'github', installationId: request.installationId, defaultBranch: request.defaultBranch },
      settings: { payloadLimit: deps.payloadLimit },
      prs: [draft.ref],
    });
  } catch (e) {
    // Two deliveries (or replicas) starting at once: the store let one through.
    if (e instanceof StoreError && e.code === 'active-run') return refused(`${e.message} \`/conveyor retry\` or \`/conveyor cancel\` act on it.`);
    throw e;
  }
  return { started: true, runId: id };
}
