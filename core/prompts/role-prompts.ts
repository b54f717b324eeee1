// Prompts of the agents that judge rather than build: the reviewer (read-only, writes a verdict)
// and the author of a discriminating gate (writes one acceptance test). The issue is sanitized and
// fenced off as data, as in the coder's prompt. Pure: the caller writes the files.
import { environmentsSection, fence, issueSection } from './prompt.ts';
import { reviewVerdictSchema, describeIssues } from '../contract/wire.ts';
import type { ReviewVerdict } from '../contract/wire.ts';

export interface RoleIssue {
  repo: string;
  number: number;
  title: string;
  body: string;
  url?: string;
}

export interface ReviewedRepo {
  repo: string;
  /** Folder relative to the workspace root. */
  dir: string;
  base: string;
  branch: string;
  /** `git diff base...branch`; empty when the run did not change this repository. */
  diff: string;
}

/** At most this much of the diffs goes into the prompt; all of them are in the diff file. */
export const PROMPT_DIFF_BUDGET = 200 * 1024;

export function buildReviewPrompt(input: {
  issue: RoleIssue;
  step: string;
  attempt: number;
  repos: ReviewedRepo[];
  /** Path of the file holding every diff in full. */
  diffFile: string;
  /**
   * How the verdict comes back: `file` (the reviewer writes $CONVEYOR_RESULT_FILE, the default),
   * `answer` (its CLI enforces the verdict's schema on its final answer), `reply` (a CLI that can
   * only edit the repository's files: the verdict ends its reply).
   */
  verdictBy?: 'file' | 'answer' | 'reply';
  /** The preview environments of the deploys before this step (its CONVEYOR_ENV_* variables). */
  environments?: Record<string, string>;
}): string {
  const out: string[] = [`# Conveyor: review ${input.issue.repo}#${input.issue.number}`, ''];
  out.push(
    '## Your role',
    '',
    `You are the reviewer of step \`${input.step}\` (attempt ${input.attempt}). Judge whether the change below does what the`,
    'issue asks, safely. You are read-only: do not change, create or delete any file in any repository folder, and do',
    'not commit (a reviewer that changes files fails the step). You may read the folders and run read-only commands.',
    '',
    '## Your verdict',
    '',
    ...verdictInstructions(input.verdictBy ?? 'file'),
    '',
    'Say `fail` only for what must change before merging; the findings go to the agent that repairs the change.',
    '',
    ...placeInstructions(input.repos),
    '## The change',
    '',
  );
  out.push('| folder | repository | branch (base) | changed |', '| --- | --- | --- | --- |');
  for (const r of input.repos) out.push(`| \`${r.dir}\` | ${r.repo} | \`${r.branch}\` (\`${r.base}\`) | ${r.diff.trim() ? 'yes' : 'no'} |`);
  out.push('', `Every diff in full: \`${input.diffFile}\`.`, '');
  let room = PROMPT_DIFF_BUDGET;
  for (const r of input.repos) {
    if (!r.diff.trim()) continue;
    out.push(`### ${r.repo}: \`git diff ${r.base}...${r.branch}\``, '');
    if (r.diff.length <= room) {
      out.push(fence(r.diff.trimEnd(), 'diff'), '');
      room -= r.diff.length;
    } else {
      out.push(`(too long for this prompt: read it in \`${input.diffFile}\`)`, '');
    }
  }
  out.push(...environmentsSection(input.environments));
  out.push(...issueSection(input.issue));
  return out.join('\n');
}

/** How to name a finding's place so that the review step can put it on that line of its PR. */
function placeInstructions(repos: readonly ReviewedRepo[]): string[] {
  const other = repos.find((r) => r.dir !== '.');
  const example = other ? ` (another repository's through its folder, e.g. \`${other.dir}/src/a.ts\`)` : '';
  return [
    `A finding with a \`file\` and a \`line\` becomes a review comment on that line of its pull request: give \`file\` as a path from your current folder${example} and \`line\` as its line number in the file as it is on the branch.`,
    '',
  ];
}

function verdictInstructions(by: 'file' | 'answer' | 'reply'): string[] {
  const scores = '"scores": {"complexity": 0.0-1.0, "risk": 0.0-1.0, "impact": 0.0-1.0}';
  if (by === 'answer') {
    return [
      'Give your verdict as your final answer, one JSON object (your CLI holds it to this shape, and Conveyor records it;',
      'write no file for it):',
      '',
      fence(
        `{"verdict": "pass" | "fail",\n "findings": [{"file": "src/a.ts" or null, "line": 12 or null, "message": "what must change"}, ...],\n ${scores}}`,
        'json',
      ),
    ];
  }
  const shape = fence(`{"verdict": "pass" | "fail", "findings": ["what must change, one finding each", ...],\n ${scores}}`, 'json');
  const object = 'A finding may also be an object such as `{"file": "src/a.ts", "line": 12, "message": "..."}`.';
  if (by === 'reply') {
    return ['End your reply with your verdict: exactly one JSON object in a ```json block, and nothing after it:', '', shape, '', object];
  }
  return ['Write exactly one JSON object to the file named by `$CONVEYOR_RESULT_FILE`:', '', shape, '', object];
}

export function buildAuthorPrompt(input: {
  issue: RoleIssue;
  step: string;
  attempt: number;
  repo: string;
  base: string;
  /** The gate file to write, relative to the repository. */
  path: string;
  /** The gate's command, with the file in it. */
  command: string;
  /** The preview environments of the deploys before this step (its CONVEYOR_ENV_* variables). */
  environments?: Record<string, string>;
}): string {
  const out: string[] = [`# Conveyor: acceptance test for ${input.issue.repo}#${input.issue.number}`, ''];
  out.push(
    '## Your role',
    '',
    `You are the author of the acceptance test of step \`${input.step}\` (attempt ${input.attempt}), in ${input.repo}`,
    `(your current folder). Write the file \`${input.path}\`: a test that checks what the issue asks for. Do not`,
    'implement the change itself: another agent does that after you, and must make your test pass.',
    '',
    '## What makes it count',
    '',
    `- It is run as \`${input.command}\` from the repository root.`,
    `- It must FAIL on the base branch \`${input.base}\` with only your file added: a test that already passes there`,
    '  cannot tell whether the issue is done, and the step fails as not discriminating.',
    '- It must pass once the issue is done. Test behaviour the issue describes, not implementation details.',
    `- Only \`${input.path}\` is kept; anything else you change is discarded. Do not commit or push.`,
    '',
  );
  out.push(...environmentsSection(input.environments));
  out.push(...issueSection(input.issue));
  return out.join('\n');
}

export type VerdictReading = { ok: true; verdict: ReviewVerdict } | { ok: false; problem: string };

/** Parses what a reviewer wrote; the problem says what was wrong with it. */
export function readVerdict(text: string | undefined): VerdictReading {
  if (text === undefined) return { ok: false, problem: 'it wrote nothing to $CONVEYOR_RESULT_FILE' };
  if (!text.trim()) return { ok: false, problem: '$CONVEYOR_RESULT_FILE is empty' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `$CONVEYOR_RESULT_FILE is not JSON (${(e as Error).message})` };
  }
  const parsed = reviewVerdictSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      problem: `the verdict does not match {"verdict": "pass"|"fail", "findings": [...], "scores": {"complexity", "risk", "impact"} (0-1)}: ${describeIssues(parsed.error)}`,
    };
  return { ok: true, verdict: parsed.data };
}

/** What a reviewer wrote, cut for a message: at most `max` characters, said so when cut. */
export function quoteWritten(text: string, max = 500): string {
  const t = text.length > max ? `${text.slice(0, max)}… (${text.length} characters in all)` : text;
  return JSON.stringify(t);
}
