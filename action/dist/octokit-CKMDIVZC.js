import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  octokitLog,
  policyOptions,
  withGitHubPolicy
} from "./chunk-GYGYHA3K.js";
import "./chunk-ZXEARZ4J.js";
import "./chunk-YEZRHRCQ.js";
import "./chunk-SD7663DA.js";
export {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  octokitLog,
  policyOptions,
  withGitHubPolicy
};
//# sourceMappingURL=octokit-CKMDIVZC.js.map
