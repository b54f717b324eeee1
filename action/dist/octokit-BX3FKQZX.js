import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  logLines,
  policyOptions,
  withGitHubPolicy
} from "./chunk-5YXTGBBD.js";
import "./chunk-BJ2T3HHK.js";
import "./chunk-YEZRHRCQ.js";
import "./chunk-SD7663DA.js";
export {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  logLines,
  policyOptions,
  withGitHubPolicy
};
//# sourceMappingURL=octokit-BX3FKQZX.js.map
