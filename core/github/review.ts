// A review step's verdict as a pull request review on each of the run's PRs: each finding with a
// file and a line the PR's diff shows becomes a review comment on that line (its new side), every
// other finding goes in the review's body with its place, and the body says the verdict, the
// scores and whether the reviewer was independent. `REQUEST_CHANGES` for a fail, `COMMENT` for a
// pass, never `APPROVE`: approving is for people. Findings are the reviewer's words, untrusted:
// they are shown as the characters they are (no mention, link, image or markup of theirs). A
// marker opening the body names the step, so a later attempt's review finds and replaces it.
// Pure: the action posts what this returns.
import { z } from 'zod';
import type { ReviewVerdict } from '../contract/wire.ts';
import { diffLines, type DiffLines } from '../steps/diff-lines.ts';
import { code, fitText, inlineText, safeLinkTarget } from '../text.ts';
import { stepCheckName } from './check-run.ts';
import { REVIEW_BODY_MAX, REVIEW_COMMENTS_MAX } from './limits.ts';

/** A repository the review judged, as the review step saw it. */
export interface ReviewedRepository {
  repo: string;
  role: 'primary' | 'sibling';
  /** Prefixes by which a reviewer may name a file of it: its folder beside the primary (`../acme__api`), its absolute path. */
  prefixes: string[];
  /** `git diff base...head` as the reviewer got it; empty when the run did not change the repository. */
  diff: string;
  /** The commit the review judged (what its comments are on). */
  commit: string;
  pr?: { number: number; url: string };
}

export interface ReviewInput {
  runId: string;
  step: string;
  attempt: number;
  verdict: Pick<ReviewVerdict, 'verdict' | 'findings' | 'scores'>;
  reviewer: { agent: string; model?: string | undefined };
  independence: { independent: boolean; reason: string };
  repos: ReviewedRepository[];
}

/** A finding as the body and the comments show it. */
interface Finding {
  message: string;
  /** Where the reviewer said it is, as it said it (for the body). */
  place?: string;
  path?: string;
  line?: number;
}

interface Placed extends Finding {
  /** The repository it was placed in, when it has a file. */
  repo?: ReviewedRepository;
}

/** The review of one PR, before it is written: which findings are comments and which are in the body. */
export interface PullReviewPlan {
  repo: string;
  number: number;
  url: string;
  commit: string;
  /** Findings on a line of this PR's diff, at most REVIEW_COMMENTS_MAX of them. */
  onLines: Array<Finding & { path: string; line: number }>;
  /** Findings on a line of this diff past REVIEW_COMMENTS_MAX: in the body, said so. */
  overLimit: Finding[];
  /** Findings of this repository (or of none that has a PR) not on a line of its diff. */
  elsewhere: Finding[];
  /** Findings with no file: the whole change's, in every PR's review. */
  general: Finding[];
  /** How many findings are on the run's other PRs. */
  others: Array<{ repo: string; number: number; url: string; count: number }>;
}

export interface PullReviewRequest {
  event: 'COMMENT' | 'REQUEST_CHANGES';
  body: string;
  comments: Array<{ path: string; line: number; body: string }>;
}

// A place of another shape (a number for a file, `true` for a line) is no place: the finding keeps its words.
const loose = z.looseObject({
  file: z.string().nullish().catch(undefined),
  line: z.union([z.number(), z.string()]).nullish().catch(undefined),
  message: z.unknown().optional(),
  text: z.unknown().optional(),
  title: z.unknown().optional(),
  description: z.unknown().optional(),
});

/** A finding as the verdict has it (a string, or an object such as `{file, line, message}`). */
export function readFinding(raw: ReviewVerdict['findings'][number]): Finding {
  if (typeof raw === 'string') return { message: raw };
  const parsed = loose.safeParse(raw);
  if (!parsed.success) return { message: JSON.stringify(raw) };
  const f = parsed.data;
  const text = [f.message, f.text, f.title, f.description].find((t) => typeof t === 'string');
  const message = typeof text === 'string' ? text : JSON.stringify(raw);
  const file = typeof f.file === 'string' && f.file.trim() ? f.file.trim() : undefined;
  if (!file) return { message };
  const line = typeof f.line === 'number' ? f.line : typeof f.line === 'string' && /^\d+$/.test(f.line.trim()) ? Number(f.line) : undefined;
  const placed = line !== undefined && Number.isSafeInteger(line) && line > 0 ? line : undefined;
  return { message, place: placed === undefined ? file : `${file}:${placed}`, path: file, ...(placed !== undefined ? { line: placed } : {}) };
}

/** The repository a file path names, and the path inside it. */
function locate(path: string, repos: readonly ReviewedRepository[], lines: ReadonlyMap<string, DiffLines>): { repo: ReviewedRepository; path: string } {
  const clean = path.replace(/^(?:\.\/)+/, '');
  const named = repos
    .flatMap((repo) => repo.prefixes.map((prefix) => ({ repo, prefix: prefix.replace(/\/+$/, '') })))
    .filter((p) => p.prefix && clean.startsWith(`${p.prefix}/`))
    .sort((a, b) => b.prefix.length - a.prefix.length)[0];
  if (named) return { repo: named.repo, path: clean.slice(named.prefix.length + 1) };
  // A bare path is relative to its repository's folder: the one whose diff has it, the primary when several or none do.
  const primary = repos.find((r) => r.role === 'primary') ?? repos[0]!;
  const having = repos.filter((r) => lines.get(r.repo)?.has(clean));
  const repo = having.length === 1 ? having[0]! : primary;
  return { repo, path: clean };
}

export function planPullReviews(input: ReviewInput): PullReviewPlan[] {
  const withPr = input.repos.filter((r): r is ReviewedRepository & { pr: { number: number; url: string } } => r.pr !== undefined);
  if (withPr.length === 0) return [];
  const lines = new Map(input.repos.map((r) => [r.repo, diffLines(r.diff)]));
  const home = withPr.find((r) => r.role === 'primary') ?? withPr[0]!;
  const placed: Placed[] = input.verdict.findings.map((raw) => {
    const f = readFinding(raw);
    if (f.path === undefined) return f;
    const at = locate(f.path, input.repos, lines);
    return { ...f, repo: at.repo, path: at.path, place: f.line === undefined ? at.path : `${at.path}:${f.line}` };
  });
  const plans = withPr.map((r): PullReviewPlan => ({
    repo: r.repo,
    number: r.pr.number,
    url: r.pr.url,
    commit: r.commit,
    onLines: [],
    overLimit: [],
    elsewhere: [],
    general: [],
    others: [],
  }));
  const planOf = (repo: string) => plans.find((p) => p.repo === repo);
  for (const f of placed) {
    const { repo, ...finding } = f;
    if (!repo) {
      for (const p of plans) p.general.push(finding);
      continue;
    }
    const target = planOf(repo.repo) ?? planOf(home.repo)!;
    const onLine = target.repo === repo.repo && f.line !== undefined && f.path !== undefined && lines.get(repo.repo)?.get(f.path)?.has(f.line);
    if (onLine && target.onLines.length < REVIEW_COMMENTS_MAX) target.onLines.push({ ...finding, path: f.path!, line: f.line! });
    else if (onLine) target.overLimit.push(finding);
    // Shown with its repository when it is not the PR's own (a sibling the run did not change).
    else target.elsewhere.push(target.repo === repo.repo ? finding : { ...finding, place: `${repo.repo}: ${f.place}` });
  }
  for (const p of plans) {
    p.others = plans
      .filter((o) => o !== p)
      .map((o) => ({ repo: o.repo, number: o.number, url: o.url, count: o.onLines.length + o.overLimit.length + o.elsewhere.length }))
      .filter((o) => o.count > 0);
  }
  return plans;
}

const MARKER = /^<!-- conveyor:review(-outdated)? step=([A-Za-z0-9][A-Za-z0-9_-]*)(?: [^>]*)? -->/;

export function reviewMarker(input: Pick<ReviewInput, 'runId' | 'step' | 'attempt'>): string {
  return `<!-- conveyor:review step=${input.step} run=${input.runId} attempt=${input.attempt} -->`;
}

/** The step whose review a body opens with, and whether a later one already replaced it; undefined for any other body. */
export function reviewOf(body: string | null | undefined): { step: string; outdated: boolean } | undefined {
  const m = MARKER.exec(body ?? '');
  return m ? { step: m[2]!, outdated: m[1] !== undefined } : undefined;
}

const bullet = (f: Finding, note?: string): string =>
  `- ${f.place ? `${code(f.place)}${note ? ` (${note})` : ''}: ` : note ? `(${note}) ` : ''}${inlineText(f.message)}`;

/**
 * The request for one PR. `lines: false`: GitHub refused the comments on lines, so every finding
 * goes in the body. `ownPullRequest`: GitHub refused to request changes on a PR the poster opened
 * (Conveyor opens the run's PRs), so a failing review comments, and says why.
 */
export function renderPullReview(
  input: ReviewInput,
  plan: PullReviewPlan,
  how: { lines?: boolean; ownPullRequest?: boolean; linesRefused?: string } = {},
): PullReviewRequest {
  const lines = how.lines ?? true;
  const failed = input.verdict.verdict === 'fail';
  const event = failed && !how.ownPullRequest ? 'REQUEST_CHANGES' : 'COMMENT';
  const s = input.verdict.scores;
  const who = `${code(input.reviewer.agent)}${input.reviewer.model ? ` (${code(input.reviewer.model)})` : ''}`;
  const out: string[] = [
    reviewMarker(input),
    `**Conveyor review ${code(input.step)}, attempt ${input.attempt}: ${failed ? '❌ changes requested' : '✅ passed'}**`,
    `${input.independence.independent ? 'Independent' : '**Not independent**'} review by ${who}: ${input.independence.reason}.`,
    `| complexity | risk | impact |\n| --- | --- | --- |\n| ${s.complexity} | ${s.risk} | ${s.impact} |`,
  ];
  const body = [
    ...(lines ? [] : plan.onLines.map((f) => bullet(f))),
    ...plan.overLimit.map((f) => bullet(f, lines ? `over the ${REVIEW_COMMENTS_MAX} comments of one review` : undefined)),
    ...plan.elsewhere.map((f) => bullet(f, f.line !== undefined ? 'not a line of this diff' : 'no line given')),
    ...plan.general.map((f) => bullet(f)),
  ];
  const total = plan.onLines.length + plan.overLimit.length + plan.elsewhere.length + plan.general.length;
  if (total === 0 && input.verdict.findings.length > 0) out.push('No findings on this pull request.');
  else if (total === 0) out.push(failed ? 'The reviewer failed the change without findings.' : 'No findings.');
  else if (lines && plan.onLines.length > 0) out.push(`${total} finding(s): ${plan.onLines.length} on the lines of this diff, ${body.length} below.`);
  else out.push(`${total} finding(s):`);
  if (body.length > 0) out.push(body.join('\n'));
  if (plan.others.length > 0) {
    const list = plan.others.map((o) => {
      const target = safeLinkTarget(o.url);
      const name = `${o.repo}#${o.number}`;
      return `${target ? `[${name}](${target})` : name} (${o.count})`;
    });
    out.push(`Findings on the other pull requests of this change: ${list.join(', ')}.`);
  }
  if (how.linesRefused) out.push(`> GitHub refused the comments on lines (${code(how.linesRefused)}): every finding is in this body.`);
  if (failed && how.ownPullRequest) {
    out.push(
      `> GitHub lets no one request changes on a pull request they opened, and Conveyor opened this one: this review only comments. The check run ${code(stepCheckName(input.step))} failed, and that is what holds the merge.`,
    );
  }
  const rest = "the whole review is in the step's check run";
  return {
    event,
    body: fitText(out.join('\n\n'), REVIEW_BODY_MAX, rest),
    comments: lines
      ? plan.onLines.map((f) => ({ path: f.path, line: f.line, body: fitText(`**${code(input.step)}**: ${inlineText(f.message)}`, REVIEW_BODY_MAX, rest) }))
      : [],
  };
}

/** What an earlier attempt's review (a comment: GitHub dismisses only reviews that request changes or approve) becomes. */
export function outdatedReviewBody(step: string, replacedBy: { attempt: number; url: string }): string {
  const target = safeLinkTarget(replacedBy.url);
  const newer = target ? `[the review of attempt ${replacedBy.attempt}](${target})` : `the review of attempt ${replacedBy.attempt}`;
  return `<!-- conveyor:review-outdated step=${step} -->\n**Outdated:** ${newer} of step ${code(step)} replaced this review.`;
}

/** The message of an earlier attempt's dismissed review. */
export function dismissalMessage(step: string, replacedBy: { attempt: number; url: string }): string {
  return `Replaced by the review of attempt ${replacedBy.attempt} of step ${step}: ${replacedBy.url}`;
}
