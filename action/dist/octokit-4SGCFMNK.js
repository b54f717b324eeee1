import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  logLines,
  policyOptions,
  withGitHubPolicy
} from "./chunk-MW3IM5PH.js";
import "./chunk-6Q76G6DM.js";
import "./chunk-YEZRHRCQ.js";
import "./chunk-SD7663DA.js";
export {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  logLines,
  policyOptions,
  withGitHubPolicy
};
//# sourceMappingURL=octokit-4SGCFMNK.js.map
