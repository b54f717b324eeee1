import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  GitHubForge
} from "./chunk-2TF2UYHF.js";
import "./chunk-BDDCTM4D.js";
import "./chunk-E3NFZRE2.js";
import "./chunk-BJ2T3HHK.js";
import "./chunk-YEZRHRCQ.js";
import "./chunk-SD7663DA.js";
export {
  GitHubForge
};
//# sourceMappingURL=github-RCJ5EUDG.js.map
