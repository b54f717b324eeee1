import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  RATE_LIMIT_RETRIES,
  createGitHubOctokit,
  octokitLog,
  policyOptions,
  withGitHubPolicy
} from "./chunk-GBXMUY2I.js";
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
//# sourceMappingURL=octokit-PYITXLZP.js.map
