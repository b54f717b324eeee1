import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);

// core/errors.ts
var ERROR_CODES = [
  "bad-payload",
  "bad-input",
  "clone-refused",
  "clone-failed",
  "agent-failed",
  "agent-timeout",
  /** The agent printed nothing and changed nothing for its `stall-minutes`: stopped, and its attempt runs again like a lost one. */
  "agent-stalled",
  /** The sandbox refused a host the agent kept asking for (its model's API, or a host it retried with nothing else going on): stopped, naming the host and the key to add. */
  "agent-network-refused",
  /** The model's vendor answered 429, 529 or 5xx (or the CLI said it was overloaded or rate limited) through every retry: not the agent's fault, no repair is spent. */
  "agent-vendor-unavailable",
  /** An agent's or a service's `setup` failed: the step's own command did not run (nothing for a repair to fix). */
  "setup-failed",
  "no-changes",
  "writes-violation",
  "push-rejected",
  "forge-failed",
  "gate-failed",
  "gate-not-discriminating",
  "gate-file-missing",
  "reviewer-no-verdict",
  "reviewer-changed-files",
  "deploy-failed",
  "teardown-failed",
  "merge-failed",
  /** A PR of the run does not merge cleanly into its base: the merge step dispatches a conflict repair. */
  "merge-conflict",
  /** The change holds paths `protect` names and no approval saw them at the heads to merge: nothing was merged. */
  "protected-paths",
  "stale-attempt",
  /** A check a base branch requires (another app's check run or commit status) failed on a PR's head: repaired where the pipeline's `ci` has `repair`. */
  "ci-failed",
  /** The required checks did not all complete within the pipeline's `ci.wait-minutes`: nothing failed, so no repair is spent. */
  "ci-timeout",
  /** The pipeline requires a sandbox (`sandbox: required`) and none can be made on this runner. */
  "sandbox-unavailable",
  /** A file a command handed back (result, usage, output, gate file) was a link, not a plain file, or too big: nothing of it was read. */
  "output-refused",
  /** A conflict repair left a file still holding git's conflict markers: nothing was committed. */
  "conflict-unresolved",
  /** A command left a git repository inside a checkout: Conveyor's git would run its configuration's programs, so nothing was committed. */
  "nested-repository",
  /** A file of the change is larger than GitHub takes (through its API, or at all): nothing was sent to the branch. */
  "change-too-large",
  "internal"
];
var ConveyorError = class extends Error {
  code;
  constructor(code, message, options) {
    super(message, options);
    this.name = "ConveyorError";
    this.code = code;
  }
};

export {
  ERROR_CODES,
  ConveyorError
};
//# sourceMappingURL=chunk-DJRTUKIR.js.map
