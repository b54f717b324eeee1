// After the agent: commit what it left in each repository, check `writes`, push every branch that
// advanced (leased on the commit the step started from), and open or update one PR per pushed
// repository, then rewrite every PR body so each links the issue and its siblings.
import { code } from '../../core/text.ts';
import { oneLine } from '../../core/prompts/prompt.ts';
import { pullRequestBody, pullRequestTitle, type RepoChangeSummary } from '../../core/github/pr-body.ts';
import { PR_TITLE_MAX } from '../../core/github/limits.ts';
import { z } from 'zod';
import { ConveyorError } from '../../core/errors.ts';
import { coAuthoredBy } from '../../core/github/trailers.ts';
import { MAX_PROTECTED_PATHS, type ProtectedChange, type PullRequestRef, type StepPayload } from '../../core/contract/wire.ts';
import { matchingPatterns } from '../../core/path-patterns.ts';
import { writesOutside } from '../../core/steps/writes.ts';
import { conflictMarkerLines } from '../../core/steps/conflicts.ts';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Forge, PullRequest } from '../../engine/ports/forge.ts';
import type { StepContext } from './context.ts';
import type { Workspace, WorkspaceRepo } from './workspace.ts';
import { readHandedBack } from './exchange.ts';
import { sendThroughApi } from './api-commits.ts';

export interface RepoChange {
  repo: WorkspaceRepo;
  head: string;
  /** The agent changed something here (committed by it or by us). */
  changed: boolean;
  /** Paths changed since the agent started. */
  paths: string[];
  /** Every path the commits a push would send change, from their trees (what `writes` is checked on). */
  pushedPaths: string[];
  /** The work branch is ahead of where it started on the remote: it gets pushed. */
  advanced: boolean;
}

/**
 * The trailer block of a commit Conveyor makes for the issue: the run, and the issue's author as
 * co-author where GitHub named them (the commit itself is Conveyor's, or the app's when GitHub
 * makes it: a commit GitHub signs names no other author).
 */
export function commitTrailers(payload: StepPayload): string[] {
  return [`Conveyor-Run: ${payload.runId}`, ...(payload.issue.author ? [coAuthoredBy(payload.issue.author)] : [])];
}

export function commitMessage(payload: StepPayload): string {
  const { issue } = payload;
  return [
    `${oneLine(issue.title, 60)} (${issue.repo}#${issue.number})`,
    '',
    `Changes left by the ${payload.mode === 'repair' ? 'repair agent' : 'agent'} of step ${payload.step.id}, attempt ${payload.attempt}.`,
    '',
    ...commitTrailers(payload),
    '',
  ].join('\n');
}

function mergeMessage(payload: StepPayload, repo: WorkspaceRepo): string {
  return [
    `Merge ${repo.base} into ${repo.workBranch} (${payload.issue.repo}#${payload.issue.number})`,
    '',
    `Its conflicts resolved by the repair agent of step ${payload.step.id}, attempt ${payload.attempt}.`,
    '',
    ...commitTrailers(payload),
    '',
  ].join('\n');
}

/** The largest conflicted file whose markers are looked for (a source file; a bigger one is refused, not skipped). */
const MAX_RESOLVED_FILE = 32 * 1024 * 1024;

/** A conflict repair's files that still hold git's markers: `path (lines 3, 9)`. */
async function unresolved(repo: WorkspaceRepo): Promise<string[]> {
  const left: string[] = [];
  for (const path of repo.conflicts) {
    const file = join(repo.dir, path);
    const info = await lstat(file).catch(() => undefined);
    // Deleted, or made something other than a file (a link is committed as a link): resolved as git will record it.
    if (!info?.isFile()) continue;
    const text = await readHandedBack(file, repo.dir, `the conflicted file ${path} of ${repo.repo}`, MAX_RESOLVED_FILE);
    const lines = conflictMarkerLines(text ?? '');
    if (lines.length) left.push(`${path} (line${lines.length === 1 ? '' : 's'} ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''})`);
  }
  return left;
}

/**
 * Commits tracked and new (not ignored) files; the message travels in a file, never as an
 * argument. Refused (nothing committed) when the checkout holds a git repository of the agent's
 * (`nested-repository`: git would run its configuration's programs while adding it), or a conflict
 * repair left a marker. A merge under way is committed as the merge.
 */
export async function commitLeftovers(payload: StepPayload, repo: WorkspaceRepo): Promise<RepoChange> {
  const git = repo.git;
  const resolving = repo.baseMerge === 'resolving';
  if (resolving) {
    const left = await unresolved(repo);
    if (left.length) {
      throw new ConveyorError(
        'conflict-unresolved',
        `${repo.repo}: the merge of ${code(repo.base)} still has conflict markers in ${left.join('; ')}; nothing was committed. Every conflict must be resolved by editing the file.`,
      );
    }
  }
  const { head } = await git.commitAll(resolving ? mergeMessage(payload, repo) : commitMessage(payload));
  const paths = await git.diffNames(repo.preparedHead, head);
  return {
    repo,
    head,
    changed: head !== repo.preparedHead && (paths.length > 0 || resolving),
    paths,
    pushedPaths: await git.pushedPaths(head, [repo.startCommit, repo.baseCommit]),
    // A branch started over (its old PR ended) advanced only by commits on the base: its old head is what the push replaces, not what it adds to.
    advanced: head !== (repo.startedOver ? repo.baseCommit : repo.startCommit || repo.baseCommit),
  };
}

/**
 * The protected paths (`payload.protect`) each repository's change holds at the head the step
 * leaves: everything its PR would merge, not only what this attempt wrote (a repair's PR still
 * holds the code step's changes). A repository the run has not changed (its head is its base) has
 * none to tell.
 */
export async function protectedChanges(payload: StepPayload, changes: readonly RepoChange[]): Promise<ProtectedChange[]> {
  const patterns = payload.protect?.patterns ?? [];
  if (patterns.length === 0) return [];
  const out: ProtectedChange[] = [];
  for (const c of changes) {
    if (!c.head || c.head === c.repo.baseCommit) continue;
    const all = (await c.repo.git.changedSince(c.repo.baseCommit, c.head)).filter((path) => matchingPatterns(path, patterns).length > 0).sort();
    const more = all.length - MAX_PROTECTED_PATHS;
    out.push({ repo: c.repo.repo, head: c.head, paths: all.slice(0, MAX_PROTECTED_PATHS), ...(more > 0 ? { more } : {}) });
  }
  return out;
}

/** `owner/name: path` for every change outside the prefixes, in what the push would send. */
export function writesViolations(changes: readonly RepoChange[], writes: readonly string[]): string[] {
  if (writes.length === 0) return [];
  return changes.flatMap((c) => writesOutside(c.pushedPaths, writes).map((p) => `${c.repo.repo}: ${p}`));
}

/** Where a branch went: the commit it is at now (GitHub's, when GitHub made the commits), and how it got there. */
export interface Pushed {
  head: string;
  through: 'git' | 'api';
  /** Made through the API: whether GitHub signed every commit it made (Verified), and why not where it did not. */
  verified?: boolean;
  unverified?: string;
}

/** How a branch went, for the step's summary: nothing said for git; GitHub's signature for its API. */
export function throughApi(p: Pushed): string {
  if (p.through === 'git') return '';
  return p.verified ? ", committed by GitHub's API (Verified)" : `, committed by GitHub's API, not signed (${p.unverified ?? 'unsigned'})`;
}

/**
 * Sends the commit Conveyor made (by its id: whatever HEAD names now) to the work branch, leased on
 * where the branch was when the step started: made by GitHub through its API where the forge has
 * one and the pipeline did not ask for git (`commits`), which GitHub signs; else pushed with git.
 */
export async function pushBranch(ctx: StepContext, payload: StepPayload, change: Pick<RepoChange, 'repo' | 'head'>): Promise<Pushed> {
  const r = change.repo;
  const gitData = payload.commits === 'git' ? undefined : (await ctx.forge()).gitData;
  if (gitData) {
    const sent = await sendThroughApi(gitData, r, change.head);
    const unsigned = sent.made.filter((m) => !m.verified);
    const what = `${sent.made.length} commit(s) through GitHub's API (${sent.requests.trees} tree request(s), ${sent.requests.blobs} blob(s))`;
    ctx.log.info(
      `${r.repo}: ${what}; ${r.workBranch} is at ${sent.head}${unsigned.length ? `; not signed by GitHub: ${unsigned.map((m) => `${m.sha.slice(0, 12)} (${m.reason ?? 'unsigned'})`).join(', ')}` : ''}`,
    );
    return {
      head: sent.head,
      through: 'api',
      verified: unsigned.length === 0,
      ...(unsigned.length ? { unverified: [...new Set(unsigned.map((m) => m.reason ?? 'unsigned'))].join(', ') } : {}),
    };
  }
  const pushed = await r.git.push({ to: r.url, ref: change.head, branch: r.workBranch, lease: r.startCommit });
  if (!pushed.pushed) {
    throw new ConveyorError(
      'push-rejected',
      `push of ${r.workBranch} to ${r.repo} was rejected (someone else pushed since the step started from ${r.startCommit.slice(0, 12) || 'nothing'}?): ${pushed.output}`,
    );
  }
  return { head: change.head, through: 'git' };
}

function toRef(pr: PullRequestRef): PullRequestRef {
  return {
    repo: pr.repo,
    number: pr.number,
    url: pr.url,
    branch: pr.branch,
    ...(pr.head ? { head: pr.head } : {}),
    ...(pr.draft ? { draft: true } : {}),
    ...(pr.nodeId ? { nodeId: pr.nodeId } : {}),
  };
}

/**
 * The run's draft PR becomes ready for review once the change is in it: there is then something to
 * review, and people approve on it. Only a draft the run knows as its own (the payload's) and only
 * once: a PR the run already saw ready and a person turned back into a draft stays a draft (the
 * merge waits for them). Forges without drafts (local) have nothing to mark. A refusal does not
 * undo the pushed change: the PR is reported still a draft (the next push tries again), and the
 * merge stops on it saying what to do.
 */
async function markReady(ctx: StepContext, forge: Forge, pr: PullRequestRef): Promise<PullRequestRef> {
  if (!pr.draft || !forge.markReadyForReview) return pr;
  try {
    await forge.markReadyForReview(pr);
  } catch (e) {
    ctx.log.warn(`could not mark ${pr.repo}#${pr.number} ready for review (${(e as Error).message}); it stays a draft until someone does`);
    return pr;
  }
  ctx.log.info(`marked ${pr.repo}#${pr.number} ready for review`);
  const { draft: _draft, ...ready } = pr;
  return ready;
}

/** A PR of the change as this step knows it: its body only where GitHub just said it. */
type Known = { pr: PullRequestRef; body?: string };

/** The PR of a repository: the payload's, else none where the work branch is new, else GitHub's (one listing). */
async function knownPr(forge: Forge, r: WorkspaceRepo): Promise<Known | undefined> {
  // The app keeps each repository's PR with the run and sends it with every attempt after the first.
  if (r.pr) return { pr: r.pr };
  // An open PR needs its head branch: a work branch that did not exist when the step started has none.
  if (!r.resumed) return undefined;
  const found = await forge.findPullRequest(r.repo, r.workBranch);
  return found ? { pr: found, body: found.body } : undefined;
}

/** The agent's own words on its change: `summary` of the JSON it left at $CONVEYOR_RESULT_FILE, if any. */
export function agentSummary(resultText: string | undefined): string | undefined {
  if (!resultText) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(resultText);
  } catch {
    return undefined;
  }
  const parsed = agentSummarySchema.safeParse(raw);
  return parsed.success && parsed.data.summary.trim() ? parsed.data.summary : undefined;
}

const agentSummarySchema = z.object({ summary: z.string() });

/**
 * What the PR of a repository holds against its base, from the checkout (no call to the forge), read
 * once and only when a body says it: a PR the run knew and this attempt left alone is not written
 * again, so its diff is not read. (Its local HEAD, not the pushed head: a commit GitHub made through
 * its API is not in the checkout, and has the same tree.)
 */
function changesOf(ws: Workspace, summary: string | undefined): (repo: string) => Promise<RepoChangeSummary | undefined> {
  const read = new Map<string, Promise<RepoChangeSummary>>();
  return (repo) => {
    const r = ws.repos.find((w) => w.repo === repo);
    if (!r) return Promise.resolve(undefined);
    let change = read.get(repo);
    if (!change) {
      change = r.git.currentCommit().then(async (head) => ({ files: await r.git.diffStat(r.baseCommit, head), ...(summary ? { summary } : {}) }));
      read.set(repo, change);
    }
    return change;
  };
}

/**
 * A body is what a person reads, not the change: the push it follows stands whatever the forge
 * says to it, so a refused rewrite is said and the PR kept as it was (the next attempt writes it again).
 */
async function rewriteBody(ctx: StepContext, forge: Forge, pr: PullRequestRef, body: string): Promise<PullRequestRef | PullRequest> {
  try {
    return await forge.updatePullRequest(pr.repo, pr.number, { body });
  } catch (e) {
    ctx.log.warn(`could not rewrite the body of ${pr.repo}#${pr.number} (${(e as Error).message}); it says what it said before`);
    return pr;
  }
}

/**
 * Opens or updates the PR of each pushed repository, finds the PRs of the others (a resumed
 * change keeps its PRs), and rewrites a body when what it says changed: a PR just opened or pushed
 * to (what changed in it), or one found that the run did not know (the set it links). A PR the run
 * knew and this attempt did not push to was written as the run knew it, so it costs no call. A body
 * known here keeps its status section (the app and the embedded mode keep that current); one not
 * read gets the placeholder, which the next report of the run replaces. The run's draft PR of a
 * repository that holds the change (`holding`: the pushed ones, or those whose branch kept an
 * earlier attempt's work) is marked ready for review. `extra.summary`: the agent's own words (agentSummary);
 * `extra.protectedPaths`: what each change holds of `protect`; a body says it, and is rewritten when
 * that differs from what the run knew (the payload's `protect.known`).
 */
export async function publishPullRequests(
  ctx: StepContext,
  payload: StepPayload,
  ws: Workspace,
  pushed: ReadonlyMap<string, string>,
  holding: ReadonlySet<string> = new Set(pushed.keys()),
  extra: { protectedPaths?: readonly ProtectedChange[]; summary?: string } = {},
): Promise<PullRequestRef[]> {
  const protectedPaths = extra.protectedPaths ?? [];
  const guarded = (repo: string) => protectedPaths.find((p) => p.repo === repo);
  const protectedOf = (repo: string) => {
    const p = guarded(repo);
    return p?.paths.length ? { protected: p } : {};
  };
  // A body the run knew says the protected paths it knew; one whose change now holds others is rewritten.
  const sameProtected = (repo: string) => {
    const p = guarded(repo);
    return p === undefined || JSON.stringify(p.paths) === JSON.stringify(payload.protect?.known[repo] ?? []);
  };
  const forge = await ctx.forge();
  const prs: Known[] = [];
  const changeOf = changesOf(ws, extra.summary);
  for (const r of ws.repos) {
    let known = await knownPr(forge, r);
    if (!known && pushed.has(r.repo)) {
      const opened = await forge.openPullRequest({
        repo: r.repo,
        branch: r.workBranch,
        base: r.base,
        title: fitTitle(pullRequestTitle(payload.issue, r.repo)),
        body: pullRequestBody({
          issue: payload.issue,
          runId: payload.runId,
          repo: r.repo,
          prs: [],
          change: (await changeOf(r.repo)) ?? { files: [] },
          ...protectedOf(r.repo),
        }),
      });
      ctx.log.info(`opened ${r.repo}#${opened.number} (${opened.url})`);
      known = { pr: opened, body: opened.body };
    } else if (known && !known.body && pushed.has(r.repo)) {
      known = { pr: { ...known.pr, head: pushed.get(r.repo)! } };
    }
    if (known && r.pr && holding.has(r.repo)) known = { ...known, pr: await markReady(ctx, forge, known.pr) };
    if (known) prs.push(known);
  }
  const links = prs.map(({ pr: p }) => ({ repo: p.repo, number: p.number, url: p.url }));
  const asTheRunKnew =
    prs.every((k) => payload.repos.some((r) => r.pr?.repo === k.pr.repo && r.pr.number === k.pr.number)) &&
    payload.repos.every((r) => !r.pr || prs.some((k) => k.pr.repo === r.pr!.repo));
  const out: PullRequestRef[] = [];
  for (const { pr, body: current } of prs) {
    // A body not read is written only when what it says changed; one read is compared with what it would say now.
    if (current === undefined && asTheRunKnew && !pushed.has(pr.repo) && sameProtected(pr.repo)) {
      out.push(toRef(pr));
      continue;
    }
    const change = await changeOf(pr.repo);
    const body = pullRequestBody(
      { issue: payload.issue, runId: payload.runId, repo: pr.repo, prs: links, ...(change ? { change } : {}), ...protectedOf(pr.repo) },
      current,
    );
    const updated = body === current ? pr : await rewriteBody(ctx, forge, pr, body);
    out.push(toRef({ ...updated, head: updated.head || pr.head }));
  }
  return out;
}

/** A title GitHub takes (PR_TITLE_MAX). */
function fitTitle(title: string): string {
  return title.length <= PR_TITLE_MAX ? title : `${title.slice(0, PR_TITLE_MAX - 1)}…`;
}
