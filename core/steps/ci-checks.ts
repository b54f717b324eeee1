// The repository's own CI, judged: which checks a base branch requires (branch protection's
// `contexts` and `checks`, rulesets' `required_status_checks`), how each stands on a PR's head from
// the check runs and commit statuses other apps reported there, and what a repair agent is told of
// the ones that failed. Pure: the forge reads GitHub, this decides. Conveyor's own check runs and
// statuses never count (they report on the run itself: waiting for them would wait for ever).
import { code, fence, inlineText } from '../text.ts';
import { failingLines, truncateBytes } from './failing-lines.ts';

/** A check a base branch requires: by its name (context), from one app when `appId` is given. */
export interface RequiredCheck {
  context: string;
  appId?: number;
}

/** A check run on a commit, as the forge lists it (the latest of each name). */
export interface ObservedCheckRun {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  appId?: number;
  /** `github-actions` for a GitHub Actions job, whose check run id is its job id. */
  appSlug?: string;
  url?: string;
  title?: string;
  summary?: string;
}

/** A commit status (the statuses API), the latest of its context. */
export interface ObservedStatus {
  context: string;
  state: string;
  description?: string;
  url?: string;
}

/** What one PR's base requires and what its head has. */
export interface PullChecks {
  repo: string;
  number: number;
  head: string;
  required: readonly RequiredCheck[];
  checkRuns: readonly ObservedCheckRun[];
  statuses: readonly ObservedStatus[];
}

export type CheckState = 'pending' | 'success' | 'failure';

/** One required check of one PR, judged. */
export interface JudgedCheck {
  repo: string;
  number: number;
  context: string;
  state: CheckState;
  /** GitHub's word: a check run's conclusion (`failure`, `timed_out`…) or a status's state; `not reported` when none is there yet. */
  conclusion: string;
  summary?: string;
  url?: string;
  /** The GitHub Actions job behind it, whose log has the failing lines. */
  jobId?: number;
}

export interface CiJudgement {
  state: CheckState;
  checks: JudgedCheck[];
}

/** The app's own names: its summary check run `conveyor` and its steps' `conveyor / <step>`. */
function isConveyorName(name: string): boolean {
  const n = name.trim().toLowerCase();
  return n === 'conveyor' || n.startsWith('conveyor / ') || n.startsWith('conveyor/');
}

const PASSED = new Set(['success', 'neutral', 'skipped']);

function ofCheckRun(c: ObservedCheckRun): CheckState {
  if (c.status !== 'completed') return 'pending';
  return PASSED.has(c.conclusion ?? '') ? 'success' : 'failure';
}

function ofStatus(s: ObservedStatus): CheckState {
  if (s.state === 'success') return 'success';
  return s.state === 'pending' ? 'pending' : 'failure';
}

/** The required checks of every base, on every head, judged; pending while any is, else failed when any failed. */
export function judgeRequiredChecks(pulls: readonly PullChecks[], ownAppId: number | undefined): CiJudgement {
  const checks: JudgedCheck[] = [];
  for (const pull of pulls) {
    const required = new Map<string, RequiredCheck>();
    // Required twice (protection and a ruleset), the stricter one (from one app) stands.
    for (const r of pull.required) if (!isConveyorName(r.context) && (!required.has(r.context) || r.appId !== undefined)) required.set(r.context, r);
    for (const r of required.values()) checks.push(judgeOne(pull, r, ownAppId));
  }
  const state: CheckState = checks.some((c) => c.state === 'pending') ? 'pending' : checks.some((c) => c.state === 'failure') ? 'failure' : 'success';
  return { state, checks };
}

function judgeOne(pull: PullChecks, r: RequiredCheck, ownAppId: number | undefined): JudgedCheck {
  const base = { repo: pull.repo, number: pull.number, context: r.context };
  const runs = pull.checkRuns.filter(
    (c) => c.name === r.context && (ownAppId === undefined || c.appId !== ownAppId) && (r.appId === undefined || c.appId === r.appId),
  );
  // The newest of that name: a re-run makes a new check run, with a larger id.
  const run = runs.reduce<ObservedCheckRun | undefined>((a, c) => (!a || c.id > a.id ? c : a), undefined);
  const status = r.appId === undefined ? pull.statuses.find((s) => s.context === r.context) : undefined;
  if (run && (!status || ofCheckRun(run) !== 'success' || ofStatus(status) === 'success')) {
    const summary = [run.title, run.summary].filter((t): t is string => !!t?.trim()).join('\n\n');
    return {
      ...base,
      state: ofCheckRun(run),
      conclusion: run.status === 'completed' ? (run.conclusion ?? 'no conclusion') : run.status,
      ...(summary ? { summary } : {}),
      ...(run.url ? { url: run.url } : {}),
      ...(run.appSlug === 'github-actions' ? { jobId: run.id } : {}),
    };
  }
  if (status) {
    return {
      ...base,
      state: ofStatus(status),
      conclusion: status.state,
      ...(status.description ? { summary: status.description } : {}),
      ...(status.url ? { url: status.url } : {}),
    };
  }
  return { ...base, state: 'pending', conclusion: 'not reported' };
}

const where = (c: JudgedCheck) => `${c.repo}#${c.number}`;

/**
 * One line for people: what passed, what failed, what is still awaited. Plain text (a step's
 * reason and summary), which every view escapes as it shows it.
 */
export function describeJudgement(j: CiJudgement): string {
  if (j.checks.length === 0) return "The base branches require no checks (other than Conveyor's own): nothing to wait for.";
  const list = (state: CheckState) =>
    j.checks
      .filter((c) => c.state === state)
      .map((c) => `"${c.context}" on ${where(c)}${state === 'success' ? '' : ` (${c.conclusion})`}`)
      .join(', ');
  const parts: string[] = [];
  const failed = list('failure');
  const pending = list('pending');
  const passed = list('success');
  if (failed) parts.push(`Required checks failed: ${failed}.`);
  if (pending) parts.push(`Waiting for: ${pending}.`);
  if (passed) parts.push(`Passed: ${passed}.`);
  return parts.join(' ');
}

/** How much of a check's summary, and of its job's failing lines, the repair prompt gets. */
const SUMMARY_MAX = 2_000;
const LOG_LINES_MAX = 6_000;
const FINDINGS_MAX = 16_384;

/**
 * Markdown findings for the repair agent: each failed check by name and PR, its conclusion, its
 * summary and, for a GitHub Actions job, the failing lines of its log (`logs`, by job id), each in a
 * block its text cannot close. What another app wrote is data for the agent, never markup here.
 */
export function ciFindings(failed: readonly JudgedCheck[], logs: ReadonlyMap<number, string>): string {
  const sections = failed.map((c) => {
    const out = [`### ${where(c)}: required check ${code(c.context)} (${inlineText(c.conclusion)})`];
    if (c.url) out.push(`Details: ${inlineText(c.url)}`);
    if (c.summary?.trim()) out.push('Its summary:', fence(truncateBytes(c.summary, SUMMARY_MAX)));
    const log = c.jobId !== undefined ? logs.get(c.jobId) : undefined;
    if (log !== undefined) {
      const lines = failingLines(log, { maxBytes: LOG_LINES_MAX });
      out.push(
        lines.trim() ? `Failing lines of its log (GitHub Actions job ${c.jobId}):` : 'Its log printed nothing.',
        ...(lines.trim() ? [fence(lines)] : []),
      );
    }
    return out.join('\n\n');
  });
  const head = "These checks, which the pull requests' base branches require, failed on the run's heads. Change the code so that they pass:";
  return truncateBytes([head, ...sections].join('\n\n'), FINDINGS_MAX);
}
