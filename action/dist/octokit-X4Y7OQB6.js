import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  octokitLog,
  policyOptions,
  withGitHubPolicy
} from "./chunk-7JELCMRV.js";
import "./chunk-DJRTUKIR.js";
import "./chunk-YEZRHRCQ.js";
import "./chunk-SD7663DA.js";
export {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  octokitLog,
  policyOptions,
  withGitHubPolicy
};
//# sourceMappingURL=octokit-X4Y7OQB6.js.map
