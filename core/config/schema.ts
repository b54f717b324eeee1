// The `.github/conveyor.yml` model, version 1. Every object is strict: an unknown key is nearly
// always a typo, and a typo silently ignored is a pipeline that does not do what its author meant.
import { z } from 'zod';
import { REPO_NAME } from '../repo-name.ts';
import { PRESET_NAMES } from './presets.ts';
import { COPILOT_PROVIDERS, WIRE_APIS } from './model-api.ts';
import { VARIABLE_NAME } from './secret-names.ts';
import { patternProblem } from '../path-patterns.ts';

const name = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must start with a lower-case letter and use only a-z, 0-9, "-" and "_"');
const command = z
  .string({ error: 'must be one shell command (a string); for several, join them with && or write a block with |' })
  .trim()
  .min(1, 'must be a non-empty shell command');
const minutes = z.int('must be a whole number of minutes').min(1, 'must be from 1 to 360 minutes').max(360, 'must be from 1 to 360 minutes (6 hours)');
const relativePath = z.string().min(1, 'must not be empty');
/** A path pattern of the `writes`/`protect` dialect (core/path-patterns.ts). */
const pathPattern = z.string().superRefine((value, ctx) => {
  const problem = patternProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
/** A host name, or `*.` and a domain for every subdomain of it. */
export const HOST_PATTERN = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const networkSchema = z
  .strictObject({
    allow: z
      .array(
        z.string().regex(HOST_PATTERN, 'must be a host name such as api.example.com, or *.example.com for all of its subdomains (no scheme, port or path)'),
      )
      .describe("Hosts the command may reach through the sandbox's proxy: `host` exactly, `*.host` any subdomain of it."),
  })
  .describe("Network of the command's sandbox: only the hosts in `allow`.");

const secretsSchema = z
  .array(z.string().regex(VARIABLE_NAME, 'must be a variable name such as ANTHROPIC_API_KEY (letters, digits and "_", not starting with a digit)'))
  .describe("Variables passed by name from the runner's environment (the action step's `env:` on GitHub), masked in every log; never a GitHub token.");
const setupTimeout = minutes.optional().describe('Stop `setup` after this many minutes (default 15).');
/** US dollars: more than nothing, and short of what a typo would make of it. */
const dollars = z
  .number({ error: 'must be a number of US dollars, e.g. 20 or 2.5' })
  .positive('must be more than 0 US dollars')
  .max(100_000, 'must be at most 100000 US dollars');
/** A model API's base URL: http(s), no credentials in it (keys go in `secrets`), no query or fragment (the CLI appends its paths). */
const endpointUrl = z.string().superRefine((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL such as https://gateway.example.com/v1' });
    return;
  }
  const problem =
    url.protocol !== 'https:' && url.protocol !== 'http:'
      ? `must be an https URL (http for a model server on this machine), not ${url.protocol}`
      : url.username || url.password
        ? 'must not hold credentials: list the key in `secrets`, where it is masked and kept from the agent'
        : url.search || url.hash || text.includes('?') || text.includes('#')
          ? 'must be a base URL without a query or fragment: the CLI appends its own paths'
          : undefined;
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const runnerLabel = z.string().trim().min(1, 'must not be empty');
/** Passed to the workflow's job as its `runs-on` (GitHub's `jobs.<id>.runs-on`: one label, or labels a runner must all have). */
const runsOnSchema = z
  .union([runnerLabel, z.array(runnerLabel).min(1, 'must name at least one runner label')], {
    error: 'must be a runner label such as ubuntu-latest, or a list of labels a runner must all have, such as [self-hosted, gpu]',
  })
  .optional()
  .describe("Runner label, or labels a runner must all have (e.g. [self-hosted, gpu]), of the step's workflow job; default: ubuntu-latest.");

export const agentSchema = z.strictObject({
  preset: z
    .enum(PRESET_NAMES)
    .optional()
    .describe(
      'A coding CLI Conveyor knows how to run: its command line, install, credentials, network and how it gives a verdict. `run` overrides its command.',
    ),
  run: command.optional().describe('Shell command that runs the agent; it reads the prompt from $CONVEYOR_PROMPT_FILE. Required without `preset`.'),
  model: z
    .string()
    .min(1)
    .optional()
    .describe("Model passed to the agent (as $CONVEYOR_MODEL, and to a preset's CLI); also used to judge whether a review is independent."),
  endpoint: endpointUrl
    .optional()
    .describe(
      "The model API the preset's CLI talks to (a gateway, a regional or enterprise endpoint, a local model server); default: its vendor's. Its host joins `network.allow`.",
    ),
  provider: z
    .enum(COPILOT_PROVIDERS)
    .optional()
    .describe(
      'Copilot CLI only: its bring-your-own-key mode with this provider (no GitHub sign-in; COPILOT_PROVIDER_API_KEY is the key); azure needs `endpoint`.',
    ),
  'wire-api': z
    .enum(WIRE_APIS)
    .optional()
    .describe("Copilot CLI with `provider` openai or azure: the provider's wire API, Chat Completions (default) or Responses (GPT-5 models)."),
  secrets: secretsSchema.optional(),
  setup: command
    .optional()
    .describe(
      "Runs before the agent, in the agent's own install folder, e.g. to install its CLI; default for a preset: install its pinned CLI unless that folder has it.",
    ),
  'setup-timeout-minutes': setupTimeout,
  'timeout-minutes': minutes.optional().describe('Kill the agent after this many minutes (default 45).'),
  'stall-minutes': minutes
    .optional()
    .describe('Kill the agent when it prints nothing and changes nothing in the workspace for this many minutes (default 15); the attempt runs again.'),
  env: z.record(z.string().regex(VARIABLE_NAME), z.string()).optional().describe('Extra environment variables.'),
  network: networkSchema.optional().describe('Hosts the agent may reach; default: what its preset needs, nothing for a plain `run`.'),
  'max-usd': dollars
    .optional()
    .describe(
      "US dollars one agent run may spend: passed to a CLI that can stop itself (Claude Code's --max-budget-usd) and to every agent as $CONVEYOR_MAX_USD.",
    ),
  'vendor-retries': z
    .number()
    .int()
    .min(0)
    .max(5)
    .optional()
    .describe(
      "Times the agent runs again, after a backoff (30 s, 1 min, 2 min…), when its model's API is unavailable (429, 529, 5xx, or its CLI says overloaded or rate limited); default 3. No repair is spent on these.",
    ),
  version: z
    .string()
    .regex(/^[0-9]+(\.[0-9]+){0,2}([-+][0-9A-Za-z.-]+)?$/, { error: 'must be a version such as 2.1.197 (digits and dots, an optional -suffix)' })
    .optional()
    .describe("The version of its preset's CLI to install; default the version the preset was checked with (`conveyor validate` warns on another)."),
});

export const deploySchema = z.union([
  z.literal('none'),
  z.strictObject({
    run: command.describe('Stands up the preview; writes url=... to $CONVEYOR_OUTPUT.'),
    teardown: command.optional().describe('Removes the preview; gets $CONVEYOR_ENV_ID.'),
    'timeout-minutes': minutes.optional(),
  }),
]);

export const serviceSchema = z.strictObject({
  repo: z
    .string()
    .regex(REPO_NAME, 'must be "owner/name", e.g. acme/web')
    .optional()
    .describe('Repository of the service; default: the repository holding this file.'),
  path: relativePath.optional().describe('Directory of the service inside a monorepo.'),
  base: z.string().min(1).optional().describe('Base branch; default: main.'),
  'depends-on': z.array(z.string()).optional().describe('Providers this service consumes.'),
  deploy: deploySchema.optional(),
  gate: command.optional().describe('Command a gate step without `run` runs in this service.'),
  setup: command.optional().describe("Runs in the service's folder before its gates, deploys and teardowns, e.g. `npm ci`."),
  'setup-timeout-minutes': setupTimeout,
  secrets: secretsSchema
    .optional()
    .describe("Variables passed by name to this service's deploys and teardowns only, masked in every log; never a GitHub token."),
  network: networkSchema.optional().describe("Hosts this service's gates, deploys and teardowns may reach; default: any (the runner's network)."),
  docker: z
    .boolean()
    .optional()
    .describe(
      "Its gates, deploys, teardowns and setup may use the runner's Docker daemon (its socket is root on the runner: code an agent wrote can then reach the whole machine); default false.",
    ),
});

const repairSchema = z.strictObject({
  agent: z.string().describe('Agent that repairs the change after a failure.'),
  'max-attempts': z
    .int('must be a whole number')
    .min(1, 'must be from 1 to 5 attempts')
    .max(5, 'must be from 1 to 5 attempts')
    .optional()
    .describe('Repairs of a failed gate, review or required check (each followed by running it again) before the run waits for a person (default 2).'),
});

const stepBase = {
  id: name.describe('Step id, unique in the pipeline; the check run is named `conveyor / <id>`.'),
  needs: z.array(z.string()).optional().describe('Steps that must succeed first; default: the step before.'),
};

// Only the steps a runner carries out are timed out: an approval waits for people as long as it
// takes, and the app carries out a merge itself.
const timeout = { 'timeout-minutes': minutes.optional().describe('Fail the step after this many minutes.') };
// Every step but an approval runs on a runner (a merge's conflict repairs do): `runs-on` overrides the pipeline's.
const runner = { 'runs-on': runsOnSchema };

export const codeStepSchema = z.strictObject({
  ...stepBase,
  ...timeout,
  ...runner,
  kind: z.literal('code'),
  agent: z.string().describe('Agent that writes the change.'),
  writes: z
    .array(relativePath)
    .optional()
    .describe('Paths the agent may change: folders or files (and everything under them), or patterns with *, ? and ** (as in `protect`).'),
});

export const gateStepSchema = z.strictObject({
  ...stepBase,
  ...timeout,
  ...runner,
  kind: z.literal('gate'),
  run: command.optional(),
  in: z
    .array(z.string())
    .min(1, 'must name at least one service; leave `in` out to run in the whole change set')
    .optional()
    .describe('Services to run in; default: the whole change set.'),
  repair: repairSchema.optional(),
  author: z.string().optional().describe('Agent that writes the gate file first.'),
  path: relativePath.optional().describe('Gate file the author writes, substituted for {path}.'),
});

export const reviewStepSchema = z.strictObject({
  ...stepBase,
  ...timeout,
  ...runner,
  kind: z.literal('review'),
  agent: z.string().describe('Agent that reviews the change read-only.'),
  repair: repairSchema.optional(),
});

export const deployStepSchema = z.strictObject({
  ...stepBase,
  ...timeout,
  ...runner,
  kind: z.literal('deploy'),
  services: z
    .array(z.string())
    .min(1, 'must name at least one service; leave `services` out to deploy every service of the change set that deploys')
    .optional()
    .describe('Services to stand up; default: every service of the change set that deploys.'),
});

export const approvalStepSchema = z.strictObject({
  ...stepBase,
  kind: z.literal('approval'),
  approvers: z.array(z.string().regex(/^@?[A-Za-z0-9][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.-]+)?$/, 'must be a user or @org/team')).optional(),
  'min-approvals': z.int('must be a whole number').min(1, 'must be from 1 to 10 approvals').max(10, 'must be from 1 to 10 approvals').optional(),
  'allow-requester': z.boolean().optional(),
});

export const mergeStepSchema = z.strictObject({
  ...stepBase,
  ...runner,
  kind: z.literal('merge'),
  method: z.enum(['merge', 'squash', 'rebase']).optional(),
});

export const STEP_KINDS = ['code', 'gate', 'review', 'deploy', 'approval', 'merge'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const stepSchema = z.discriminatedUnion('kind', [
  codeStepSchema,
  gateStepSchema,
  reviewStepSchema,
  deployStepSchema,
  approvalStepSchema,
  mergeStepSchema,
]);

/**
 * The repository's own CI in the loop: before the run's approval (or merge), Conveyor waits for the
 * checks the base branches require, and sends a failing one to the repair agent.
 */
export const ciSchema = z
  .strictObject({
    repair: repairSchema
      .optional()
      .describe(
        'Agent that repairs the change when a required check fails (its name, summary and failing log lines in the prompt); without it, a failing check waits for a person.',
      ),
    'wait-minutes': minutes.optional().describe('How long to wait for the required checks to complete on the final heads before the step fails (default 60).'),
  })
  .describe(
    "Wait for the checks each base branch requires (branch protection and rulesets: other apps' check runs and commit statuses, never Conveyor's own) on the run's final heads, before its approval or merge.",
  );

export const pipelineSchema = z.strictObject({
  label: z
    .string()
    .min(1, 'must not be empty')
    .max(50, 'must be at most 50 characters (the GitHub label limit)')
    .optional()
    .describe('Issue label that starts this pipeline.'),
  service: z.string().optional().describe("The task's own service (primary repository)."),
  involves: z.array(z.string()).optional().describe('Sibling services the change may touch.'),
  'runs-on': runsOnSchema,
  steps: z.array(stepSchema).min(1, 'a pipeline needs at least one step'),
  sandbox: z
    .enum(['required', 'best-effort'])
    .optional()
    .describe('`required`: a step fails (sandbox-unavailable) where no sandbox can be made; `best-effort` (default): it runs unsandboxed there and says so.'),
  'budget-usd': dollars
    .optional()
    .describe(
      'US dollars a run may spend on agents (as they report it): once spent, the run stops before its next agent attempt (budget-exhausted); raise it and retry to go on.',
    ),
  ci: ciSchema.optional(),
  commits: z
    .enum(['verified', 'git'])
    .optional()
    .describe(
      "How steps put their commits on GitHub: `verified` (default) makes them through GitHub's Git data API, which signs them (a branch that requires signed commits takes them); `git` pushes plain git commits. The embedded mode always uses git.",
    ),
  protect: z
    .array(pathPattern)
    .optional()
    .describe(
      'Path patterns whose changes a person must see: a change to one merges only after an approval of the heads that hold it, and a pipeline without an approval step stops before the merge (protected-paths). Default: .github/**, CODEOWNERS, agent instruction files and dependency manifests and lock files; [] turns it off.',
    ),
});

export const configSchema = z.strictObject({
  version: z.literal(1).describe('Version of this file format: 1.'),
  agents: z.record(name, agentSchema).optional().describe('Named agent commands that steps refer to.'),
  services: z.record(name, serviceSchema).describe('The service graph: repositories, providers, preview deploys.'),
  pipelines: z.record(name, pipelineSchema).describe('Pipelines by name; labeling an issue starts one.'),
});

export type Config = z.infer<typeof configSchema>;
export type AgentConfig = z.infer<typeof agentSchema>;
export type ServiceConfig = z.infer<typeof serviceSchema>;
export type DeployConfig = z.infer<typeof deploySchema>;
export type CiConfig = z.infer<typeof ciSchema>;
export type PipelineConfig = z.infer<typeof pipelineSchema>;
export type StepConfig = z.infer<typeof stepSchema>;
