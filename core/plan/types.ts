// The compiled plan: a pipeline with every default resolved and every reference checked. It is
// what the engine runs and what travels to the action inside a step payload, so it is described
// by zod schemas (the action parses it back at the boundary).
import { z } from 'zod';
import { PRESET_NAMES } from '../config/presets.ts';
import { COPILOT_PROVIDERS, WIRE_APIS } from '../config/model-api.ts';

// Keys added after plans were first stored are written only when they say something (not their
// default), so that a plan, and its hash, from before them stays the same.
export const resolvedAgentSchema = z.object({
  name: z.string(),
  /** The agent's own command; absent: its preset's command line, which the action builds. */
  run: z.string().optional(),
  preset: z.enum(PRESET_NAMES).optional(),
  model: z.string().optional(),
  /** The model API its preset's CLI is pointed at; absent: its vendor's. */
  endpoint: z.string().optional(),
  /** Copilot CLI's bring-your-own-key provider, and its wire API. */
  provider: z.enum(COPILOT_PROVIDERS).optional(),
  wireApi: z.enum(WIRE_APIS).optional(),
  timeoutMinutes: z.number().int(),
  /** Minutes without output or workspace change before the agent is stopped; absent: DEFAULT_STALL_MINUTES. */
  stallMinutes: z.number().int().optional(),
  env: z.record(z.string(), z.string()),
  /** Variables passed by name from the runner's environment: its own `secrets` and its preset's credentials. */
  secrets: z.array(z.string()).optional(),
  /** Runs before the agent, in its install folder: its `setup`, or its preset's install when that folder does not have the CLI. */
  setup: z.string().optional(),
  /** Absent: DEFAULT_SETUP_TIMEOUT_MINUTES. */
  setupTimeoutMinutes: z.number().int().optional(),
  /** Hosts the agent's sandbox may reach; absent: none. */
  network: z.object({ allow: z.array(z.string()) }).optional(),
  /** US dollars one run of the agent may spend (`max-usd`): its CLI's flag where it has one, and $CONVEYOR_MAX_USD. */
  maxUsd: z.number().positive().optional(),
  /** Runs again after a backoff when its vendor is unavailable; absent: DEFAULT_VENDOR_RETRIES. */
  vendorRetries: z.number().int().min(0).optional(),
  /** Its preset's CLI version, installed by its preset's setup (into a tools folder of that version). */
  version: z.string().optional(),
});

export const resolvedDeploySchema = z.object({
  run: z.string(),
  teardown: z.string().optional(),
  timeoutMinutes: z.number().int(),
});

export const resolvedServiceSchema = z.object({
  name: z.string(),
  repo: z.string(),
  path: z.string().optional(),
  base: z.string(),
  dependsOn: z.array(z.string()),
  /** null: `deploy: none` or no deploy key (nothing to stand up). */
  deploy: resolvedDeploySchema.nullable(),
  gate: z.string().optional(),
  /** Runs in the service's folder before its gates, deploys and teardowns. */
  setup: z.string().optional(),
  /** Absent: DEFAULT_SETUP_TIMEOUT_MINUTES. */
  setupTimeoutMinutes: z.number().int().optional(),
  /** Variables passed by name to its deploys and teardowns. */
  secrets: z.array(z.string()).optional(),
  /** Hosts the service's gates, deploys and teardowns may reach; absent: any (the runner's network). */
  network: z.object({ allow: z.array(z.string()) }).optional(),
  /** Its commands keep the runner's Docker socket (written only when true). */
  docker: z.literal(true).optional(),
});

const repair = z.object({ agent: z.string(), maxAttempts: z.number().int() });

const stepCommon = {
  id: z.string(),
  needs: z.array(z.string()),
  timeoutMinutes: z.number().int(),
  /**
   * The runner label, or the labels a runner must all have, of the step's workflow job (its own
   * `runs-on`, else the pipeline's; the workflow reads it from the payload). Absent: the
   * workflow's default, ubuntu-latest. Never on an approval.
   */
  runsOn: z.union([z.string(), z.array(z.string())]).optional(),
};

export const planStepSchema = z.discriminatedUnion('kind', [
  z.object({ ...stepCommon, kind: z.literal('code'), agent: z.string(), writes: z.array(z.string()) }),
  z.object({
    ...stepCommon,
    kind: z.literal('gate'),
    /** Absent when each service's own `gate` command is used. */
    run: z.string().optional(),
    in: z.array(z.string()),
    repair: repair.optional(),
    author: z.string().optional(),
    path: z.string().optional(),
  }),
  z.object({ ...stepCommon, kind: z.literal('review'), agent: z.string(), repair: repair.optional() }),
  z.object({ ...stepCommon, kind: z.literal('deploy'), services: z.array(z.string()) }),
  z.object({
    ...stepCommon,
    kind: z.literal('approval'),
    approvers: z.array(z.string()),
    minApprovals: z.number().int(),
    allowRequester: z.boolean(),
  }),
  z.object({ ...stepCommon, kind: z.literal('merge'), method: z.enum(['merge', 'squash', 'rebase']) }),
  /**
   * The pipeline's `ci`, compiled into a step of its own (id CI_STEP_ID) before the first approval
   * or merge: it waits, in the app, for the checks the base branches require on the PRs' heads
   * (its `timeoutMinutes` is `wait-minutes`), and a failing one goes to `repair`.
   */
  z.object({ ...stepCommon, kind: z.literal('ci'), repair: repair.optional() }),
]);

export { CI_STEP_ID } from '../config/defaults.ts';

/** One repository of the change set; several services may live in one repository (a monorepo). */
export const changeSetRepoSchema = z.object({
  repo: z.string(),
  base: z.string(),
  role: z.enum(['primary', 'sibling']),
  services: z.array(z.string()),
});

export const planSchema = z.object({
  pipeline: z.string(),
  label: z.string(),
  service: z.string(),
  involves: z.array(z.string()),
  steps: z.array(planStepSchema),
  /** Topological levels of `needs`: every step of a wave can run once the waves before it succeeded. */
  waves: z.array(z.array(z.string())),
  agents: z.record(z.string(), resolvedAgentSchema),
  services: z.record(z.string(), resolvedServiceSchema),
  changeSet: z.array(changeSetRepoSchema),
  /** Deploy order of the change set's services: providers first, alphabetical inside a wave. */
  deployWaves: z.array(z.array(z.string())),
  /** `required`: no step runs its commands without a sandbox. Absent: best-effort. */
  sandbox: z.literal('required').optional(),
  /** `git`: steps push plain git commits. Absent: verified (made through GitHub's API, which signs them; git in the embedded mode). */
  commits: z.literal('git').optional(),
  /**
   * The pipeline's `budget-usd`: the run stops before an agent attempt once its agents have spent
   * it. Outside the hash (core/plan/hash.ts): raising it does not change what runs, and a retry
   * takes the configuration's current value (the retry event carries it).
   */
  budgetUsd: z.number().positive().optional(),
  /**
   * The pipeline's `protect` patterns, written only when they are not the default
   * (core/config/protect.ts): absent is the default, so plans (and hashes) from before the key
   * stay the same and protect what the default protects. `[]`: nothing is protected.
   */
  protect: z.array(z.string()).optional(),
  hash: z.string(),
});

export type ResolvedAgent = z.infer<typeof resolvedAgentSchema>;
export type ResolvedService = z.infer<typeof resolvedServiceSchema>;
export type ResolvedDeploy = z.infer<typeof resolvedDeploySchema>;
export type PlanStep = z.infer<typeof planStepSchema>;
export type ChangeSetRepo = z.infer<typeof changeSetRepoSchema>;
export type Plan = z.infer<typeof planSchema>;
