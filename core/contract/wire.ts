// The app <-> action wire contract. The app sends a step payload; the action answers with a step
// result. Both sides parse with these schemas, so a change to either is a change to the contract
// and bumps WIRE_VERSION.
import { z } from 'zod';
import { planStepSchema, resolvedAgentSchema, resolvedServiceSchema } from '../plan/types.ts';
import { REPO_NAME } from '../repo-name.ts';
import { ERROR_CODES } from '../errors.ts';
import { usageSchema } from './usage.ts';
import { ATTEMPT_MODES, refOf, type AttemptRef } from './attempt-ref.ts';

/** 2: a result names its step `step`, as the attempt's ref does (1 said `stepId`). */
export const WIRE_VERSION = 2;

export { ERROR_CODES, type ErrorCode } from '../errors.ts';

export const pullRequestRefSchema = z.object({
  repo: z.string(),
  number: z.number().int().positive(),
  url: z.string(),
  branch: z.string(),
  head: z.string().optional(),
  /** Still a draft (the run's own PR opens as one); absent once it is ready for review. */
  draft: z.boolean().optional(),
  /** GitHub's GraphQL id, so marking the draft ready for review needs no read of the PR first. */
  nodeId: z.string().optional(),
});

export const payloadRepoSchema = z.object({
  repo: z.string().regex(REPO_NAME, { error: (issue) => `must be "owner/name", got ${JSON.stringify(issue.input)}` }),
  role: z.enum(['primary', 'sibling']),
  services: z.array(z.string()),
  base: z.string().min(1),
  workBranch: z.string().min(1),
  pr: pullRequestRefSchema.optional(),
});

/** A GitHub account as its webhooks name it: the login (a person's, or an app's `name[bot]`) and its id. */
export const issueAuthorSchema = z.object({
  login: z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,38})(?:\[bot\])?$/, 'must be a GitHub login'),
  id: z.number().int().positive(),
});

export const environmentSchema = z.object({
  service: z.string(),
  envId: z.string(),
  state: z.enum(['ready', 'failed', 'skipped']),
  url: z.string().optional(),
  error: z.string().optional(),
  outputTail: z.string().optional(),
  /** The commit the environment was deployed from (a retry redeploys when the source moved). */
  commit: z.string().optional(),
  /** The GitHub Deployment standing for it, so teardown can mark it inactive. */
  deployment: z.object({ repo: z.string(), id: z.number().int() }).optional(),
  /** The mark of the processes its deploy left running (the environment, where it runs on the runner): its teardown ends them. */
  processMark: z.string().optional(),
});

export const stepPayloadSchema = z.object({
  version: z.literal(WIRE_VERSION),
  runId: z.string().min(1),
  pipeline: z.string(),
  planHash: z.string(),
  issue: z.object({
    repo: z.string(),
    number: z.number().int().positive(),
    title: z.string(),
    body: z.string(),
    url: z.string().optional(),
    /** Who opened the issue on GitHub: the co-author of the commits made for it (absent in the embedded mode). */
    author: issueAuthorSchema.optional(),
  }),
  requester: z.string().optional(),
  /** The pipeline's own service (the task's): a deploy step fails when its environment fails. */
  service: z.string().optional(),
  /** `repair` runs the step's repair agent on the work branch; `teardown` removes environments (core/contract/attempt-ref.ts). */
  mode: z.enum(ATTEMPT_MODES),
  step: planStepSchema,
  attempt: z.number().int().positive(),
  epoch: z.number().int().nonnegative(),
  agents: z.record(z.string(), resolvedAgentSchema),
  services: z.record(z.string(), resolvedServiceSchema),
  repos: z.array(payloadRepoSchema).min(1),
  /** Findings for a repair: failing gate lines or review findings, Markdown. */
  findings: z.string().optional(),
  /** Environments already settled (deploy resume) or to remove (teardown). */
  environments: z.array(environmentSchema).default([]),
  /** Who wrote the code, to judge whether a review is independent. */
  /**
   * The code step's agent and its `writes` (path prefixes): review independence judges against the
   * agent, and every repair of the run (a gate's, a review's, a merge conflict's) keeps to `writes`.
   */
  coder: z
    .object({
      agent: z.string(),
      model: z.string().optional(),
      /** The models the code step's attempts reported using (absent while none did). */
      models: z.array(z.string().max(200)).max(20).optional(),
      writes: z.array(z.string()).optional(),
    })
    .optional(),
  /**
   * Until when the app keeps this attempt current whatever else happens (ISO time): it judges a
   * queued attempt lost only this long after queueing it, and nothing else closes the check run
   * of an attempt that has not run. An action that starts well before then knows its check run is
   * still open without reading it back from GitHub. Set by the workflow dispatcher; routing, not
   * an input of the step: receipts leave it out.
   */
  currentUntil: z.iso.datetime({ offset: true }).optional(),
  /** The pipeline's `sandbox`: `required` fails the step where no sandbox can be made. Absent: best-effort. */
  sandbox: z.enum(['required', 'best-effort']).optional(),
  /**
   * The pipeline's `commits`: `git` pushes plain git commits. Absent or `verified`: where the forge
   * makes commits itself (GitHub's Git data API, which signs them), they are made there; the local
   * forge has none, so the embedded mode pushes with git.
   */
  commits: z.enum(['verified', 'git']).optional(),
  /**
   * Every variable a command of the run is given by name (any agent's or service's `secrets`, a
   * preset's credentials): masked, and kept from every command that does not list it, including
   * those of agents this payload does not carry.
   */
  byName: z.array(z.string()).optional(),
  /**
   * What the run's earlier attempts used (of this step, and of the whole run) and the run's budget,
   * for the attempt's check run to show beside its own usage. Absent while nothing was reported.
   */
  usageSoFar: z.object({ step: usageSchema.optional(), run: usageSchema.optional(), budgetUsd: z.number().optional() }).optional(),
  /**
   * An attempt that may push (a code step's, any repair): the pipeline's `protect` patterns, whose
   * changes it reports (the result's `protected`), and what the run knows of them per repository
   * (what the PR bodies say), so a body is rewritten only when that changed. Absent: nothing is
   * protected.
   */
  protect: z.object({ patterns: z.array(z.string()).min(1), known: z.record(z.string(), z.array(z.string())).default({}) }).optional(),
});

/** The protected paths the change of one repository holds at one head (everything its PR would merge, matched against `protect`). */
export const protectedChangeSchema = z.object({
  repo: z.string(),
  head: z.string(),
  /** At most MAX_PROTECTED_PATHS of them (a check run holds the result); `more` counts the rest. */
  paths: z.array(z.string()),
  more: z.number().int().positive().optional(),
});

/** Protected paths a result names per repository; past it they are counted (what a person sees lists them on the PR). */
export const MAX_PROTECTED_PATHS = 200;

export const reviewVerdictSchema = z.object({
  verdict: z.enum(['pass', 'fail']),
  findings: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])).default([]),
  scores: z.object({
    complexity: z.number().min(0).max(1),
    risk: z.number().min(0).max(1),
    impact: z.number().min(0).max(1),
  }),
});

/** A result names its attempt with the fields of its ref (core/contract/attempt-ref.ts), read leniently: a bad payload's failure says what it can. */
export const stepResultSchema = z.object({
  version: z.literal(WIRE_VERSION),
  runId: z.string(),
  step: z.string(),
  mode: z.enum(ATTEMPT_MODES),
  attempt: z.number().int().positive(),
  epoch: z.number().int().nonnegative(),
  conclusion: z.enum(['success', 'failure', 'neutral']),
  summary: z.string(),
  prs: z.array(pullRequestRefSchema).default([]),
  /** Head of the work branch (or the checkout) of each repository after the step. */
  commits: z.record(z.string(), z.string()).default({}),
  environments: z.array(environmentSchema).default([]),
  review: reviewVerdictSchema.extend({ agent: z.string(), model: z.string().optional(), independent: z.boolean() }).optional(),
  /** What a repair agent should address: failing gate lines or review findings. */
  findings: z.string().optional(),
  error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }).optional(),
  /** How the step's commands were isolated, and every connection the sandbox refused. */
  sandbox: z
    .object({
      mode: z.enum(['bubblewrap', 'none']),
      /** Why there was none (`mode: none`): what the runner lacked. */
      reason: z.string().optional(),
      blocked: z.array(z.object({ host: z.string(), port: z.number().int(), count: z.number().int().positive() })).default([]),
    })
    .optional(),
  /** Tokens, turns and cost of every agent run of the attempt, summed (absent when none reported any). Sealed by the receipt. */
  usage: usageSchema.optional(),
  /**
   * For every repository the attempt found or left with work in it: the paths its PR changes
   * against its base at the head it reported that match the payload's `protect` (sorted, none
   * included). Sealed by the receipt like the rest.
   */
  protected: z.array(protectedChangeSchema).optional(),
  receipt: z.string().optional(),
});

export type StepPayload = z.infer<typeof stepPayloadSchema>;
export type StepPayloadInput = z.input<typeof stepPayloadSchema>;
export type PayloadRepo = z.infer<typeof payloadRepoSchema>;
export type PullRequestRef = z.infer<typeof pullRequestRefSchema>;
export type Environment = z.infer<typeof environmentSchema>;
export type IssueAuthor = z.infer<typeof issueAuthorSchema>;
export type StepResult = z.infer<typeof stepResultSchema>;

/** A result's first fields: the wire version and the attempt's ref, nothing done yet. */
export type ResultBase = Omit<StepResult, 'conclusion' | 'summary'>;

export function resultBase(attempt: Omit<AttemptRef, 'step'> & { step: string | { id: string } }): ResultBase {
  return { version: WIRE_VERSION, ...refOf(attempt), prs: [], commits: {}, environments: [] };
}
export type ReviewVerdict = z.infer<typeof reviewVerdictSchema>;
export type ProtectedChange = z.infer<typeof protectedChangeSchema>;
export type SandboxReport = NonNullable<StepResult['sandbox']>;

/** Parses untrusted JSON text into a payload; the error names the field that is wrong. */
export function parseStepPayload(text: string): { ok: true; payload: StepPayload } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `payload is not JSON: ${(e as Error).message}` };
  }
  const parsed = stepPayloadSchema.safeParse(raw);
  if (parsed.success) return { ok: true, payload: parsed.data };
  return { ok: false, message: describeIssues(parsed.error) };
}

export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? formatPath(i.path) : '(root)'}: ${i.message}`).join('; ');
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}
