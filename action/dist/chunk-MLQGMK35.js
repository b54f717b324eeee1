import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  external_exports
} from "./chunk-ZQDVONEP.js";
import {
  ConveyorError,
  ERROR_CODES
} from "./chunk-DJRTUKIR.js";
import {
  require_src
} from "./chunk-HRZ2MPDI.js";
import {
  __commonJS,
  __require,
  __toESM
} from "./chunk-SD7663DA.js";

// node_modules/@kwsites/file-exists/dist/src/index.js
var require_src2 = __commonJS({
  "node_modules/@kwsites/file-exists/dist/src/index.js"(exports) {
    "use strict";
    var __importDefault = exports && exports.__importDefault || function(mod) {
      return mod && mod.__esModule ? mod : { "default": mod };
    };
    Object.defineProperty(exports, "__esModule", { value: true });
    var fs_1 = __require("fs");
    var debug_1 = __importDefault(require_src());
    var log = debug_1.default("@kwsites/file-exists");
    function check(path, isFile, isDirectory) {
      log(`checking %s`, path);
      try {
        const stat = fs_1.statSync(path);
        if (stat.isFile() && isFile) {
          log(`[OK] path represents a file`);
          return true;
        }
        if (stat.isDirectory() && isDirectory) {
          log(`[OK] path represents a directory`);
          return true;
        }
        log(`[FAIL] path represents something other than a file or directory`);
        return false;
      } catch (e) {
        if (e.code === "ENOENT") {
          log(`[FAIL] path is not accessible: %o`, e);
          return false;
        }
        log(`[FATAL] %o`, e);
        throw e;
      }
    }
    function exists2(path, type = exports.READABLE) {
      return check(path, (type & exports.FILE) > 0, (type & exports.FOLDER) > 0);
    }
    exports.exists = exists2;
    exports.FILE = 1;
    exports.FOLDER = 2;
    exports.READABLE = exports.FILE + exports.FOLDER;
  }
});

// node_modules/@kwsites/file-exists/dist/index.js
var require_dist = __commonJS({
  "node_modules/@kwsites/file-exists/dist/index.js"(exports) {
    "use strict";
    function __export2(m) {
      for (var p2 in m) if (!exports.hasOwnProperty(p2)) exports[p2] = m[p2];
    }
    Object.defineProperty(exports, "__esModule", { value: true });
    __export2(require_src2());
  }
});

// node_modules/@kwsites/promise-deferred/dist/index.js
var require_dist2 = __commonJS({
  "node_modules/@kwsites/promise-deferred/dist/index.js"(exports) {
    "use strict";
    Object.defineProperty(exports, "__esModule", { value: true });
    exports.createDeferred = exports.deferred = void 0;
    function deferred2() {
      let done;
      let fail;
      let status = "pending";
      const promise = new Promise((_done, _fail) => {
        done = _done;
        fail = _fail;
      });
      return {
        promise,
        done(result) {
          if (status === "pending") {
            status = "resolved";
            done(result);
          }
        },
        fail(error) {
          if (status === "pending") {
            status = "rejected";
            fail(error);
          }
        },
        get fulfilled() {
          return status !== "pending";
        },
        get status() {
          return status;
        }
      };
    }
    exports.deferred = deferred2;
    exports.createDeferred = deferred2;
    exports.default = deferred2;
  }
});

// lib/private-temp.ts
import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
var checked = /* @__PURE__ */ new Set();
function privateTemp() {
  return ownFolder(join(realpathSync(tmpdir()), `conveyor-${process.getuid?.() ?? "user"}`));
}
function socketFolder() {
  const own = privateTemp();
  return own.length <= 60 ? own : ownFolder(join("/tmp", `conveyor-${process.getuid?.() ?? "user"}-sockets`));
}
function ownFolder(path) {
  if (checked.has(path)) return path;
  mkdirSync(path, { recursive: true, mode: 448 });
  const info = lstatSync(path);
  const mine = process.getuid === void 0 || info.uid === process.getuid();
  if (!info.isDirectory() || info.isSymbolicLink() || !mine || (info.mode & 63) !== 0) {
    throw new ConveyorError(
      "internal",
      `${path} is not a folder of this user's alone (a link, someone else's, or open to others); remove it, or set TMPDIR to a folder of your own`
    );
  }
  checked.add(path);
  return path;
}
function makePrivateTemp(prefix) {
  return mkdtemp(join(privateTemp(), prefix));
}

// lib/git.ts
import { mkdirSync as mkdirSync2 } from "node:fs";
import { appendFile, lstat as lstat2, mkdir, rm as rm2, writeFile as writeFile2 } from "node:fs/promises";
import { tmpdir as tmpdir2 } from "node:os";
import { dirname as dirname2, join as join5 } from "node:path";

// node_modules/simple-git/dist/esm/index.js
var import_file_exists = __toESM(require_dist(), 1);

// node_modules/@simple-git/args-pathspec/dist/index.mjs
var t = /* @__PURE__ */ new WeakMap();
function c(...n) {
  const e = new String(n);
  return t.set(e, n), e;
}
function r(n) {
  return n instanceof String && t.has(n);
}
function o(n) {
  return t.get(n) ?? [];
}

// node_modules/simple-git/dist/esm/index.js
var import_debug = __toESM(require_src(), 1);
import { spawn } from "child_process";
var import_promise_deferred = __toESM(require_dist2(), 1);
import { normalize } from "node:path";

// node_modules/@simple-git/argv-parser/dist/index.mjs
function* U(e, t2) {
  const n = t2 === "global";
  for (const o2 of e)
    o2.isGlobal === n && (yield o2);
}
var k = /* @__PURE__ */ new Set([
  "--add",
  "--edit",
  "--remove-section",
  "--rename-section",
  "--replace-all",
  "--unset",
  "--unset-all",
  "-e"
]);
var S = /* @__PURE__ */ new Set([
  "--get",
  "--get-all",
  "--get-color",
  "--get-colorbool",
  "--get-regexp",
  "--get-urlmatch",
  "--list",
  "-l"
]);
var P = /* @__PURE__ */ new Set([
  "edit",
  "remove-section",
  "rename-section",
  "set",
  "unset"
]);
var E = /* @__PURE__ */ new Set(["get", "get-color", "get-colorbool", "list"]);
function F(e, t2) {
  for (const { name: o2 } of U(e, "task")) {
    if (k.has(o2))
      return p(true, t2);
    if (S.has(o2))
      return p(false, t2);
  }
  const n = t2.at(0)?.toLowerCase();
  return n === void 0 ? null : P.has(n) ? p(true, t2.slice(1)) : E.has(n) ? p(false, t2.slice(1)) : t2.length === 1 ? p(false, t2) : p(true, t2);
}
function p(e = false, t2 = []) {
  const n = t2.at(0)?.toLowerCase();
  return n === void 0 ? null : {
    isWrite: e,
    isRead: !e,
    key: n,
    value: t2.at(1)
  };
}
function A(e, t2) {
  return t2.isWrite && t2.value !== void 0 ? { key: t2.key, value: t2.value, scope: e } : { key: t2.key, scope: e };
}
function M(e) {
  const t2 = e?.indexOf("=") || -1;
  return !e || t2 < 0 ? null : {
    key: e.slice(0, t2).trim().toLowerCase(),
    value: e.slice(t2 + 1)
  };
}
function N(e) {
  for (const { name: t2 } of U(e, "task"))
    switch (t2) {
      case "--global":
        return "global";
      case "--system":
        return "system";
      case "--worktree":
        return "worktree";
      case "--local":
        return "local";
      case "--file":
      case "-f":
        return "file";
    }
  return "local";
}
function G({ name: e }) {
  if (e === "-c" || e === "--config")
    return "inline";
  if (e === "--config-env")
    return "env";
}
function* O(e) {
  for (const t2 of e) {
    const n = G(t2), o2 = n && M(t2.value);
    o2 && (yield {
      ...o2,
      scope: n
    });
  }
}
function L(e, t2, n) {
  const o2 = {
    read: [],
    write: [...O(t2)]
  };
  return e === "config" && $(
    o2,
    N(t2),
    F(t2, n)
  ), o2;
}
function $(e, t2, n) {
  if (n === null)
    return;
  const o2 = A(t2, n);
  n.isWrite ? e.write.push(o2) : e.read.push(o2);
}
var x = {
  short: /* @__PURE__ */ new Map([
    ["c", true]
    //  -c <k=v>    set config key for this invocation
  ])
};
var D = {
  short: new Map([
    ["C", true],
    //  -C <path>   change working directory
    ["P", false],
    // -P          no pager (alias for --no-pager)
    ["h", false],
    // -h          help
    ["p", false],
    // -p          paginate
    ["v", false],
    // -v          version
    ...x.short.entries()
  ]),
  long: /* @__PURE__ */ new Set([
    "attr-source",
    "config-env",
    "exec-path",
    "git-dir",
    "list-cmds",
    "namespace",
    "super-prefix",
    "work-tree"
  ])
};
var R = {
  clone: {
    short: /* @__PURE__ */ new Map([
      ["b", true],
      // -b <branch>
      ["j", true],
      // -j <n>          parallel jobs
      ["l", false],
      // -l local
      ["n", false],
      // -n no-checkout
      ["o", true],
      // -o <name>       remote name
      ["q", false],
      // -q quiet
      ["s", false],
      // -s shared
      ["u", true]
      // -u <upload-pack>
    ]),
    long: /* @__PURE__ */ new Set(["branch", "config", "jobs", "origin", "upload-pack", "u", "template"])
  },
  commit: {
    short: /* @__PURE__ */ new Map([
      ["C", true],
      // -C <commit>  reuse message
      ["F", true],
      // -F <file>    read message from file
      ["c", true],
      // -c <commit>  reedit message
      ["m", true],
      // -m <msg>
      ["t", true]
      // -t <template>
    ]),
    long: /* @__PURE__ */ new Set(["file", "message", "reedit-message", "reuse-message", "template"])
  },
  config: {
    short: /* @__PURE__ */ new Map([
      ["e", false],
      // -e  open editor
      ["f", true],
      //  -f <file>
      ["l", false]
      // -l  list
    ]),
    long: /* @__PURE__ */ new Set(["blob", "comment", "default", "file", "type", "value"])
  },
  fetch: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["upload-pack"])
  },
  init: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["template"])
  },
  pull: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["upload-pack"])
  },
  push: {
    short: /* @__PURE__ */ new Map(),
    long: /* @__PURE__ */ new Set(["exec", "receive-pack"])
  }
};
var T = { short: /* @__PURE__ */ new Map(), long: /* @__PURE__ */ new Set() };
function I(e) {
  const t2 = R[e ?? ""] ?? T;
  return {
    short: new Map([...x.short.entries(), ...t2.short.entries()]),
    long: t2.long
  };
}
function b(e, t2 = D) {
  if (e.startsWith("--")) {
    const n = e.indexOf("=");
    if (n > 2)
      return [{ name: e.slice(0, n), value: e.slice(n + 1), needsNext: false }];
    const o2 = e.slice(2);
    return [{ name: e, needsNext: t2.long.has(o2) }];
  }
  if (e.length === 2) {
    const n = e.charAt(1), o2 = t2.short.get(n);
    return [{ name: e, needsNext: o2 === true }];
  }
  return W(e, t2.short);
}
function W(e, t2) {
  const n = e.slice(1).split(""), o2 = [];
  for (let s = 0; s < n.length; s++) {
    const r2 = n[s], l = t2.get(r2);
    if (l === void 0)
      return [{ name: e, needsNext: false }];
    if (l) {
      const a = n.slice(s + 1).join("");
      if (a && ![...a].every((w) => t2.has(w)))
        return o2.push({ name: `-${r2}`, value: a, needsNext: false }), o2;
    }
    o2.push({ name: `-${r2}`, needsNext: l });
  }
  return o2;
}
function j(e, t2 = []) {
  let n = 0;
  for (; n < e.length; ) {
    const o2 = String(e[n]);
    if (!o2.startsWith("-") || o2.length < 2) break;
    const s = b(o2);
    let r2 = n + 1;
    for (const l of s) {
      const a = {
        name: l.name,
        value: l.value,
        absorbedNext: false,
        isGlobal: true
      };
      l.needsNext && a.value === void 0 && r2 < e.length && (a.value = String(e[r2]), a.absorbedNext = true, r2++), t2.push(a);
    }
    n = r2;
  }
  return { flags: t2, taskIndex: n };
}
function B(e, t2, n = []) {
  const o2 = I(t2), s = [], r2 = [];
  let l = 0;
  for (; l < e.length; ) {
    const a = e[l];
    if (r(a)) {
      r2.push(...o(a)), l++;
      continue;
    }
    const f = String(a);
    if (f === "--") {
      for (let g = l + 1; g < e.length; g++) {
        const u = e[g];
        r(u) ? r2.push(...o(u)) : r2.push(String(u));
      }
      break;
    }
    if (!f.startsWith("-") || f.length < 2) {
      s.push(f), l++;
      continue;
    }
    const w = b(f, o2);
    let d = l + 1;
    for (const g of w) {
      const u = {
        name: g.name,
        value: g.value,
        absorbedNext: false,
        isGlobal: false
      };
      g.needsNext && u.value === void 0 && d < e.length && !r(e[d]) && (u.value = String(e[d]), u.absorbedNext = true, d++), n.push(u);
    }
    l = d;
  }
  return { flags: n, positionals: s, pathspecs: r2 };
}
function* V({
  write: e
}) {
  for (const t2 of e)
    for (const n of q) {
      const o2 = n(t2.key);
      o2 && (yield o2);
    }
}
function c2(e, t2, n = String(e)) {
  const o2 = typeof e == "string" ? new RegExp(`\\s*${e.toLowerCase()}`) : e;
  return function(r2) {
    if (o2.test(r2))
      return {
        category: t2,
        message: `Configuring ${n} is not permitted without enabling ${t2}`
      };
  };
}
function i(e, t2) {
  const n = new RegExp(`\\s*${e.toLowerCase().replace(/\./g, "(..+)?.")}`);
  return c2(n, t2, e);
}
var q = [
  c2("alias", "allowUnsafeAlias"),
  c2("core.askPass", "allowUnsafeAskPass"),
  c2("core.editor", "allowUnsafeEditor"),
  c2("core.fsmonitor", "allowUnsafeFsMonitor"),
  c2("core.gitProxy", "allowUnsafeGitProxy"),
  c2("core.hooksPath", "allowUnsafeHooksPath"),
  c2("core.pager", "allowUnsafePager"),
  c2("core.sshCommand", "allowUnsafeSshCommand"),
  i("credential.helper", "allowUnsafeCredentialHelper"),
  i("diff.command", "allowUnsafeDiffExternal"),
  c2("diff.external", "allowUnsafeDiffExternal"),
  i("diff.textconv", "allowUnsafeDiffTextConv"),
  i("filter.clean", "allowUnsafeFilter"),
  i("filter.smudge", "allowUnsafeFilter"),
  i("gpg.program", "allowUnsafeGpgProgram"),
  c2("init.templateDir", "allowUnsafeTemplateDir"),
  i("merge.driver", "allowUnsafeMergeDriver"),
  i("mergetool.path", "allowUnsafeMergeDriver"),
  i("mergetool.cmd", "allowUnsafeMergeDriver"),
  i("protocol.allow", "allowUnsafeProtocolOverride"),
  i("remote.receivepack", "allowUnsafePack"),
  i("remote.uploadpack", "allowUnsafePack"),
  c2("sequence.editor", "allowUnsafeEditor")
];
function* K(e, t2) {
  for (const n of t2)
    for (const o2 of H) {
      const s = o2(e, n.name);
      s && (yield s);
    }
}
function h(e, t2, n, o2 = String(t2)) {
  const s = typeof t2 == "string" ? new RegExp(`\\s*${t2.toLowerCase()}`) : t2, r2 = `Use of ${e ? `${e} with option ` : ""}${o2} is not permitted without enabling ${n}`;
  return function(a, f) {
    if ((!e || a === e) && s.test(f))
      return {
        category: n,
        message: r2
      };
  };
}
var H = [
  h(
    null,
    /--(upload|receive)-pack/,
    "allowUnsafePack",
    "--upload-pack or --receive-pack"
  ),
  h("clone", /^-\w*u/, "allowUnsafePack"),
  h("clone", "--u", "allowUnsafePack"),
  h("push", "--exec", "allowUnsafePack"),
  h(null, "--template", "allowUnsafeTemplateDir")
];
function C(e, t2, n) {
  return [...K(e, t2), ...V(n)];
}
function Y(...e) {
  const { flags: t2, taskIndex: n } = j(e), o2 = n < e.length ? String(e[n]).toLowerCase() : null, s = o2 !== null ? e.slice(n + 1) : [], { positionals: r2, pathspecs: l } = B(s, o2, t2), a = L(o2, t2, r2);
  return {
    task: o2,
    flags: t2.map(J),
    paths: l,
    config: a,
    vulnerabilities: z(C(o2, t2, a))
  };
}
function z(e) {
  return Object.defineProperty(e, "vulnerabilities", {
    value: e
  });
}
function J({ value: e, name: t2 }) {
  return e !== void 0 ? { name: t2, value: e } : { name: t2 };
}
var y = {
  editor: "allowUnsafeEditor",
  git_askpass: "allowUnsafeAskPass",
  git_config_global: "allowUnsafeConfigPaths",
  git_config_system: "allowUnsafeConfigPaths",
  git_config_count: "allowUnsafeConfigEnvCount",
  git_config: "allowUnsafeConfigPaths",
  git_editor: "allowUnsafeEditor",
  git_exec_path: "allowUnsafeConfigPaths",
  git_external_diff: "allowUnsafeDiffExternal",
  git_pager: "allowUnsafePager",
  git_proxy_command: "allowUnsafeGitProxy",
  git_template_dir: "allowUnsafeTemplateDir",
  git_sequence_editor: "allowUnsafeEditor",
  git_ssh: "allowUnsafeSshCommand",
  git_ssh_command: "allowUnsafeSshCommand",
  pager: "allowUnsafePager",
  prefix: "allowUnsafeConfigPaths",
  ssh_askpass: "allowUnsafeAskPass"
};
function* Q(e) {
  const t2 = parseInt(e.git_config_count ?? "0", 10);
  for (let n = 0; n < t2; n++) {
    const o2 = e[`git_config_key_${n}`], s = e[`git_config_value_${n}`];
    o2 !== void 0 && (yield { key: o2.toLowerCase().trim(), value: s, scope: "env" });
  }
}
function* X(e) {
  for (const t2 of Object.keys(e))
    if (_(t2)) {
      const n = y[t2];
      yield {
        category: n,
        message: `Use of "${t2.toUpperCase()}" is not permitted without enabling ${n}`
      };
    }
}
function _(e) {
  return Object.hasOwn(y, e);
}
function Z(e) {
  const t2 = {};
  for (const [n, o2] of Object.entries(e)) {
    const s = n.toLowerCase().trim();
    (_(s) || s.startsWith("git")) && (t2[s] = String(o2));
  }
  return t2;
}
function ee(e) {
  const t2 = Z(e), n = {
    read: [],
    write: [...Q(t2)]
  }, o2 = [
    ...X(t2),
    ...C(null, [], n)
  ];
  return {
    config: n,
    vulnerabilities: o2
  };
}
function ne(e, t2) {
  return [...Y(...e).vulnerabilities, ...ee(t2).vulnerabilities];
}

// node_modules/simple-git/dist/esm/index.js
var import_promise_deferred2 = __toESM(require_dist2(), 1);
import { EventEmitter } from "node:events";
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __esm = (fn, res) => function __init() {
  return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
};
var __commonJS2 = (cb, mod) => function __require2() {
  return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);
var GitError;
var init_git_error = __esm({
  "src/lib/errors/git-error.ts"() {
    "use strict";
    GitError = class extends Error {
      constructor(task, message) {
        super(message);
        this.task = task;
        Object.setPrototypeOf(this, new.target.prototype);
      }
    };
  }
});
var GitResponseError;
var init_git_response_error = __esm({
  "src/lib/errors/git-response-error.ts"() {
    "use strict";
    init_git_error();
    GitResponseError = class extends GitError {
      constructor(git, message) {
        super(void 0, message || String(git));
        this.git = git;
      }
    };
  }
});
var TaskConfigurationError;
var init_task_configuration_error = __esm({
  "src/lib/errors/task-configuration-error.ts"() {
    "use strict";
    init_git_error();
    TaskConfigurationError = class extends GitError {
      constructor(message) {
        super(void 0, message);
      }
    };
  }
});
function asFunction(source) {
  if (typeof source !== "function") {
    return NOOP;
  }
  return source;
}
function isUserFunction(source) {
  return typeof source === "function" && source !== NOOP;
}
function splitOn(input, char) {
  const index = input.indexOf(char);
  if (index <= 0) {
    return [input, ""];
  }
  return [input.substr(0, index), input.substr(index + 1)];
}
function first(input, offset = 0) {
  return isArrayLike(input) && input.length > offset ? input[offset] : void 0;
}
function last(input, offset = 0) {
  if (isArrayLike(input) && input.length > offset) {
    return input[input.length - 1 - offset];
  }
}
function isArrayLike(input) {
  return filterHasLength(input);
}
function toLinesWithContent(input = "", trimmed2 = true, separator = "\n") {
  return input.split(separator).reduce((output, line) => {
    const lineContent = trimmed2 ? line.trim() : line;
    if (lineContent) {
      output.push(lineContent);
    }
    return output;
  }, []);
}
function forEachLineWithContent(input, callback) {
  return toLinesWithContent(input, true).map((line) => callback(line));
}
function folderExists(path) {
  return (0, import_file_exists.exists)(path, import_file_exists.FOLDER);
}
function append(target, item) {
  if (Array.isArray(target)) {
    if (!target.includes(item)) {
      target.push(item);
    }
  } else {
    target.add(item);
  }
  return item;
}
function including(target, item) {
  if (Array.isArray(target) && !target.includes(item)) {
    target.push(item);
  }
  return target;
}
function remove(target, item) {
  if (Array.isArray(target)) {
    const index = target.indexOf(item);
    if (index >= 0) {
      target.splice(index, 1);
    }
  } else {
    target.delete(item);
  }
  return item;
}
function asArray(source) {
  return Array.isArray(source) ? source : [source];
}
function asCamelCase(str) {
  return str.replace(/[\s-]+(.)/g, (_all, chr) => {
    return chr.toUpperCase();
  });
}
function asStringArray(source) {
  return asArray(source).map((item) => {
    return item instanceof String ? item : String(item);
  });
}
function asNumber(source, onNaN = 0) {
  if (source == null) {
    return onNaN;
  }
  const num = parseInt(source, 10);
  return Number.isNaN(num) ? onNaN : num;
}
function prefixedArray(input, prefix) {
  const output = [];
  for (let i2 = 0, max = input.length; i2 < max; i2++) {
    output.push(prefix, input[i2]);
  }
  return output;
}
function bufferToString(input) {
  return (Array.isArray(input) ? Buffer.concat(input) : input).toString("utf-8");
}
function pick(source, properties) {
  const out = {};
  properties.forEach((key) => {
    if (source[key] !== void 0) {
      out[key] = source[key];
    }
  });
  return out;
}
function delay(duration = 0) {
  return new Promise((done) => setTimeout(done, duration));
}
function orVoid(input) {
  if (input === false) {
    return void 0;
  }
  return input;
}
var NULL;
var NOOP;
var objectToString;
var init_util = __esm({
  "src/lib/utils/util.ts"() {
    "use strict";
    init_argument_filters();
    NULL = "\0";
    NOOP = () => {
    };
    objectToString = Object.prototype.toString.call.bind(Object.prototype.toString);
  }
});
function filterType(input, filter, def) {
  if (filter(input)) {
    return input;
  }
  return arguments.length > 2 ? def : void 0;
}
function filterPrimitives(input, omit) {
  const type = r(input) ? "string" : typeof input;
  return /number|string|boolean/.test(type) && (!omit || !omit.includes(type));
}
function filterPlainObject(input) {
  return !!input && objectToString(input) === "[object Object]";
}
function filterFunction(input) {
  return typeof input === "function";
}
var filterArray;
var filterNumber;
var filterString;
var filterStringOrStringArray;
var filterHasLength;
var init_argument_filters = __esm({
  "src/lib/utils/argument-filters.ts"() {
    "use strict";
    init_util();
    filterArray = (input) => {
      return Array.isArray(input);
    };
    filterNumber = (input) => {
      return typeof input === "number";
    };
    filterString = (input) => {
      return typeof input === "string" || r(input);
    };
    filterStringOrStringArray = (input) => {
      return filterString(input) || Array.isArray(input) && input.every(filterString);
    };
    filterHasLength = (input) => {
      if (input == null || "number|boolean|function".includes(typeof input)) {
        return false;
      }
      return typeof input.length === "number";
    };
  }
});
var ExitCodes;
var init_exit_codes = __esm({
  "src/lib/utils/exit-codes.ts"() {
    "use strict";
    ExitCodes = /* @__PURE__ */ ((ExitCodes2) => {
      ExitCodes2[ExitCodes2["SUCCESS"] = 0] = "SUCCESS";
      ExitCodes2[ExitCodes2["ERROR"] = 1] = "ERROR";
      ExitCodes2[ExitCodes2["NOT_FOUND"] = -2] = "NOT_FOUND";
      ExitCodes2[ExitCodes2["UNCLEAN"] = 128] = "UNCLEAN";
      return ExitCodes2;
    })(ExitCodes || {});
  }
});
var GitOutputStreams;
var init_git_output_streams = __esm({
  "src/lib/utils/git-output-streams.ts"() {
    "use strict";
    GitOutputStreams = class _GitOutputStreams {
      constructor(stdOut, stdErr) {
        this.stdOut = stdOut;
        this.stdErr = stdErr;
      }
      asStrings() {
        return new _GitOutputStreams(this.stdOut.toString("utf8"), this.stdErr.toString("utf8"));
      }
    };
  }
});
function useMatchesDefault() {
  throw new Error(`LineParser:useMatches not implemented`);
}
var LineParser;
var RemoteLineParser;
var init_line_parser = __esm({
  "src/lib/utils/line-parser.ts"() {
    "use strict";
    LineParser = class {
      constructor(regExp, useMatches) {
        this.matches = [];
        this.useMatches = useMatchesDefault;
        this.parse = (line, target) => {
          this.resetMatches();
          if (!this._regExp.every((reg, index) => this.addMatch(reg, index, line(index)))) {
            return false;
          }
          return this.useMatches(target, this.prepareMatches()) !== false;
        };
        this._regExp = Array.isArray(regExp) ? regExp : [regExp];
        if (useMatches) {
          this.useMatches = useMatches;
        }
      }
      resetMatches() {
        this.matches.length = 0;
      }
      prepareMatches() {
        return this.matches;
      }
      addMatch(reg, index, line) {
        const matched = line && reg.exec(line);
        if (matched) {
          this.pushMatch(index, matched);
        }
        return !!matched;
      }
      pushMatch(_index, matched) {
        this.matches.push(...matched.slice(1));
      }
    };
    RemoteLineParser = class extends LineParser {
      addMatch(reg, index, line) {
        return /^remote:\s/.test(String(line)) && super.addMatch(reg, index, line);
      }
      pushMatch(index, matched) {
        if (index > 0 || matched.length > 1) {
          super.pushMatch(index, matched);
        }
      }
    };
  }
});
function createInstanceConfig(...options) {
  const baseDir = process.cwd();
  const config = Object.assign(
    { baseDir, ...defaultOptions },
    ...options.filter((o2) => typeof o2 === "object" && o2)
  );
  config.baseDir = config.baseDir || baseDir;
  config.trimmed = config.trimmed === true;
  return config;
}
var defaultOptions;
var init_simple_git_options = __esm({
  "src/lib/utils/simple-git-options.ts"() {
    "use strict";
    defaultOptions = {
      binary: "git",
      maxConcurrentProcesses: 5,
      config: [],
      trimmed: false
    };
  }
});
function appendTaskOptions(options, commands = []) {
  if (!filterPlainObject(options)) {
    return commands;
  }
  return Object.keys(options).reduce((commands2, key) => {
    const value = options[key];
    if (r(value)) {
      commands2.push(value);
    } else if (filterPrimitives(value, ["boolean"])) {
      commands2.push(key + "=" + value);
    } else if (Array.isArray(value)) {
      for (const v of value) {
        if (!filterPrimitives(v, ["string", "number"])) {
          commands2.push(key + "=" + v);
        }
      }
    } else {
      commands2.push(key);
    }
    return commands2;
  }, commands);
}
function getTrailingOptions(args, initialPrimitive = 0, objectOnly = false) {
  const command = [];
  for (let i2 = 0, max = initialPrimitive < 0 ? args.length : initialPrimitive; i2 < max; i2++) {
    if ("string|number".includes(typeof args[i2])) {
      command.push(String(args[i2]));
    }
  }
  appendTaskOptions(trailingOptionsArgument(args), command);
  if (!objectOnly) {
    command.push(...trailingArrayArgument(args));
  }
  return command;
}
function trailingArrayArgument(args) {
  const hasTrailingCallback = typeof last(args) === "function";
  return asStringArray(filterType(last(args, hasTrailingCallback ? 1 : 0), filterArray, []));
}
function trailingOptionsArgument(args) {
  const hasTrailingCallback = filterFunction(last(args));
  return filterType(last(args, hasTrailingCallback ? 1 : 0), filterPlainObject);
}
function trailingFunctionArgument(args, includeNoop = true) {
  const callback = asFunction(last(args));
  return includeNoop || isUserFunction(callback) ? callback : void 0;
}
var init_task_options = __esm({
  "src/lib/utils/task-options.ts"() {
    "use strict";
    init_argument_filters();
    init_util();
  }
});
function callTaskParser(parser4, streams) {
  return parser4(streams.stdOut, streams.stdErr);
}
function parseStringResponse(result, parsers12, texts, trim = true) {
  asArray(texts).forEach((text) => {
    for (let lines = toLinesWithContent(text, trim), i2 = 0, max = lines.length; i2 < max; i2++) {
      const line = (offset = 0) => {
        if (i2 + offset >= max) {
          return;
        }
        return lines[i2 + offset];
      };
      parsers12.some(({ parse }) => parse(line, result));
    }
  });
  return result;
}
var init_task_parser = __esm({
  "src/lib/utils/task-parser.ts"() {
    "use strict";
    init_util();
  }
});
var utils_exports = {};
__export(utils_exports, {
  ExitCodes: () => ExitCodes,
  GitOutputStreams: () => GitOutputStreams,
  LineParser: () => LineParser,
  NOOP: () => NOOP,
  NULL: () => NULL,
  RemoteLineParser: () => RemoteLineParser,
  append: () => append,
  appendTaskOptions: () => appendTaskOptions,
  asArray: () => asArray,
  asCamelCase: () => asCamelCase,
  asFunction: () => asFunction,
  asNumber: () => asNumber,
  asStringArray: () => asStringArray,
  bufferToString: () => bufferToString,
  callTaskParser: () => callTaskParser,
  createInstanceConfig: () => createInstanceConfig,
  delay: () => delay,
  filterArray: () => filterArray,
  filterFunction: () => filterFunction,
  filterHasLength: () => filterHasLength,
  filterNumber: () => filterNumber,
  filterPlainObject: () => filterPlainObject,
  filterPrimitives: () => filterPrimitives,
  filterString: () => filterString,
  filterStringOrStringArray: () => filterStringOrStringArray,
  filterType: () => filterType,
  first: () => first,
  folderExists: () => folderExists,
  forEachLineWithContent: () => forEachLineWithContent,
  getTrailingOptions: () => getTrailingOptions,
  including: () => including,
  isUserFunction: () => isUserFunction,
  last: () => last,
  objectToString: () => objectToString,
  orVoid: () => orVoid,
  parseStringResponse: () => parseStringResponse,
  pick: () => pick,
  prefixedArray: () => prefixedArray,
  remove: () => remove,
  splitOn: () => splitOn,
  toLinesWithContent: () => toLinesWithContent,
  trailingFunctionArgument: () => trailingFunctionArgument,
  trailingOptionsArgument: () => trailingOptionsArgument
});
var init_utils = __esm({
  "src/lib/utils/index.ts"() {
    "use strict";
    init_argument_filters();
    init_exit_codes();
    init_git_output_streams();
    init_line_parser();
    init_simple_git_options();
    init_task_options();
    init_task_parser();
    init_util();
  }
});
var check_is_repo_exports = {};
__export(check_is_repo_exports, {
  CheckRepoActions: () => CheckRepoActions,
  checkIsBareRepoTask: () => checkIsBareRepoTask,
  checkIsRepoRootTask: () => checkIsRepoRootTask,
  checkIsRepoTask: () => checkIsRepoTask
});
function checkIsRepoTask(action) {
  switch (action) {
    case "bare":
      return checkIsBareRepoTask();
    case "root":
      return checkIsRepoRootTask();
  }
  const commands = ["rev-parse", "--is-inside-work-tree"];
  return {
    commands,
    format: "utf-8",
    onError,
    parser
  };
}
function checkIsRepoRootTask() {
  const commands = ["rev-parse", "--git-dir"];
  return {
    commands,
    format: "utf-8",
    onError,
    parser(path) {
      return /^\.(git)?$/.test(path.trim());
    }
  };
}
function checkIsBareRepoTask() {
  const commands = ["rev-parse", "--is-bare-repository"];
  return {
    commands,
    format: "utf-8",
    onError,
    parser
  };
}
function isNotRepoMessage(error) {
  return /(Not a git repository|Kein Git-Repository)/i.test(String(error));
}
var CheckRepoActions;
var onError;
var parser;
var init_check_is_repo = __esm({
  "src/lib/tasks/check-is-repo.ts"() {
    "use strict";
    init_utils();
    CheckRepoActions = /* @__PURE__ */ ((CheckRepoActions2) => {
      CheckRepoActions2["BARE"] = "bare";
      CheckRepoActions2["IN_TREE"] = "tree";
      CheckRepoActions2["IS_REPO_ROOT"] = "root";
      return CheckRepoActions2;
    })(CheckRepoActions || {});
    onError = ({ exitCode }, error, done, fail) => {
      if (exitCode === 128 && isNotRepoMessage(error)) {
        return done(Buffer.from("false"));
      }
      fail(error);
    };
    parser = (text) => {
      return text.trim() === "true";
    };
  }
});
function cleanSummaryParser(dryRun, text) {
  const summary = new CleanResponse(dryRun);
  const regexp = dryRun ? dryRunRemovalRegexp : removalRegexp;
  toLinesWithContent(text).forEach((line) => {
    const removed = line.replace(regexp, "");
    summary.paths.push(removed);
    (isFolderRegexp.test(removed) ? summary.folders : summary.files).push(removed);
  });
  return summary;
}
var CleanResponse;
var removalRegexp;
var dryRunRemovalRegexp;
var isFolderRegexp;
var init_CleanSummary = __esm({
  "src/lib/responses/CleanSummary.ts"() {
    "use strict";
    init_utils();
    CleanResponse = class {
      constructor(dryRun) {
        this.dryRun = dryRun;
        this.paths = [];
        this.files = [];
        this.folders = [];
      }
    };
    removalRegexp = /^[a-z]+\s*/i;
    dryRunRemovalRegexp = /^[a-z]+\s+[a-z]+\s*/i;
    isFolderRegexp = /\/$/;
  }
});
var task_exports = {};
__export(task_exports, {
  EMPTY_COMMANDS: () => EMPTY_COMMANDS,
  adhocExecTask: () => adhocExecTask,
  configurationErrorTask: () => configurationErrorTask,
  isBufferTask: () => isBufferTask,
  isEmptyTask: () => isEmptyTask,
  straightThroughBufferTask: () => straightThroughBufferTask,
  straightThroughStringTask: () => straightThroughStringTask
});
function adhocExecTask(parser4) {
  return {
    commands: EMPTY_COMMANDS,
    format: "empty",
    parser: parser4
  };
}
function configurationErrorTask(error) {
  return {
    commands: EMPTY_COMMANDS,
    format: "empty",
    parser() {
      throw typeof error === "string" ? new TaskConfigurationError(error) : error;
    }
  };
}
function straightThroughStringTask(commands, trimmed2 = false) {
  return {
    commands,
    format: "utf-8",
    parser(text) {
      return trimmed2 ? String(text).trim() : text;
    }
  };
}
function straightThroughBufferTask(commands) {
  return {
    commands,
    format: "buffer",
    parser(buffer) {
      return buffer;
    }
  };
}
function isBufferTask(task) {
  return task.format === "buffer";
}
function isEmptyTask(task) {
  return task.format === "empty" || !task.commands.length;
}
var EMPTY_COMMANDS;
var init_task = __esm({
  "src/lib/tasks/task.ts"() {
    "use strict";
    init_task_configuration_error();
    EMPTY_COMMANDS = [];
  }
});
var clean_exports = {};
__export(clean_exports, {
  CONFIG_ERROR_INTERACTIVE_MODE: () => CONFIG_ERROR_INTERACTIVE_MODE,
  CONFIG_ERROR_MODE_REQUIRED: () => CONFIG_ERROR_MODE_REQUIRED,
  CONFIG_ERROR_UNKNOWN_OPTION: () => CONFIG_ERROR_UNKNOWN_OPTION,
  CleanOptions: () => CleanOptions,
  cleanTask: () => cleanTask,
  cleanWithOptionsTask: () => cleanWithOptionsTask,
  isCleanOptionsArray: () => isCleanOptionsArray
});
function cleanWithOptionsTask(mode, customArgs) {
  const { cleanMode, options, valid } = getCleanOptions(mode);
  if (!cleanMode) {
    return configurationErrorTask(CONFIG_ERROR_MODE_REQUIRED);
  }
  if (!valid.options) {
    return configurationErrorTask(CONFIG_ERROR_UNKNOWN_OPTION + JSON.stringify(mode));
  }
  options.push(...customArgs);
  if (options.some(isInteractiveMode)) {
    return configurationErrorTask(CONFIG_ERROR_INTERACTIVE_MODE);
  }
  return cleanTask(cleanMode, options);
}
function cleanTask(mode, customArgs) {
  const commands = ["clean", `-${mode}`, ...customArgs];
  return {
    commands,
    format: "utf-8",
    parser(text) {
      return cleanSummaryParser(mode === "n", text);
    }
  };
}
function isCleanOptionsArray(input) {
  return Array.isArray(input) && input.every((test) => CleanOptionValues.has(test));
}
function getCleanOptions(input) {
  let cleanMode;
  let options = [];
  let valid = { cleanMode: false, options: true };
  input.replace(/[^a-z]i/g, "").split("").forEach((char) => {
    if (isCleanMode(char)) {
      cleanMode = char;
      valid.cleanMode = true;
    } else {
      valid.options = valid.options && isKnownOption(options[options.length] = `-${char}`);
    }
  });
  return {
    cleanMode,
    options,
    valid
  };
}
function isCleanMode(cleanMode) {
  return cleanMode === "f" || cleanMode === "n";
}
function isKnownOption(option) {
  return /^-[a-z]$/i.test(option) && CleanOptionValues.has(option.charAt(1));
}
function isInteractiveMode(option) {
  if (/^-[^\-]/.test(option)) {
    return option.indexOf("i") > 0;
  }
  return option === "--interactive";
}
var CONFIG_ERROR_INTERACTIVE_MODE;
var CONFIG_ERROR_MODE_REQUIRED;
var CONFIG_ERROR_UNKNOWN_OPTION;
var CleanOptions;
var CleanOptionValues;
var init_clean = __esm({
  "src/lib/tasks/clean.ts"() {
    "use strict";
    init_CleanSummary();
    init_utils();
    init_task();
    CONFIG_ERROR_INTERACTIVE_MODE = "Git clean interactive mode is not supported";
    CONFIG_ERROR_MODE_REQUIRED = 'Git clean mode parameter ("n" or "f") is required';
    CONFIG_ERROR_UNKNOWN_OPTION = "Git clean unknown option found in: ";
    CleanOptions = /* @__PURE__ */ ((CleanOptions2) => {
      CleanOptions2["DRY_RUN"] = "n";
      CleanOptions2["FORCE"] = "f";
      CleanOptions2["IGNORED_INCLUDED"] = "x";
      CleanOptions2["IGNORED_ONLY"] = "X";
      CleanOptions2["EXCLUDING"] = "e";
      CleanOptions2["QUIET"] = "q";
      CleanOptions2["RECURSIVE"] = "d";
      return CleanOptions2;
    })(CleanOptions || {});
    CleanOptionValues = /* @__PURE__ */ new Set([
      "i",
      ...asStringArray(Object.values(CleanOptions))
    ]);
  }
});
function configListParser(text) {
  const config = new ConfigList();
  for (const item of configParser(text)) {
    config.addValue(item.file, String(item.key), item.value);
  }
  return config;
}
function configGetParser(text, key) {
  let value = null;
  const values = [];
  const scopes = /* @__PURE__ */ new Map();
  for (const item of configParser(text, key)) {
    if (item.key !== key) {
      continue;
    }
    values.push(value = item.value);
    if (!scopes.has(item.file)) {
      scopes.set(item.file, []);
    }
    scopes.get(item.file).push(value);
  }
  return {
    key,
    paths: Array.from(scopes.keys()),
    scopes,
    value,
    values
  };
}
function configFilePath(filePath) {
  return filePath.replace(/^(file):/, "");
}
function* configParser(text, requestedKey = null) {
  const lines = text.split("\0");
  for (let i2 = 0, max = lines.length - 1; i2 < max; ) {
    const file = configFilePath(lines[i2++]);
    let value = lines[i2++];
    let key = requestedKey;
    if (value.includes("\n")) {
      const line = splitOn(value, "\n");
      key = line[0];
      value = line[1];
    }
    yield { file, key, value };
  }
}
var ConfigList;
var init_ConfigList = __esm({
  "src/lib/responses/ConfigList.ts"() {
    "use strict";
    init_utils();
    ConfigList = class {
      constructor() {
        this.files = [];
        this.values = /* @__PURE__ */ Object.create(null);
      }
      get all() {
        if (!this._all) {
          this._all = this.files.reduce((all, file) => {
            return Object.assign(all, this.values[file]);
          }, {});
        }
        return this._all;
      }
      addFile(file) {
        if (!(file in this.values)) {
          const latest = last(this.files);
          this.values[file] = latest ? Object.create(this.values[latest]) : {};
          this.files.push(file);
        }
        return this.values[file];
      }
      addValue(file, key, value) {
        const values = this.addFile(file);
        if (!Object.hasOwn(values, key)) {
          values[key] = value;
        } else if (Array.isArray(values[key])) {
          values[key].push(value);
        } else {
          values[key] = [values[key], value];
        }
        this._all = void 0;
      }
    };
  }
});
function asConfigScope(scope, fallback) {
  if (typeof scope === "string" && Object.hasOwn(GitConfigScope, scope)) {
    return scope;
  }
  return fallback;
}
function addConfigTask(key, value, append2, scope) {
  const commands = ["config", `--${scope}`];
  if (append2) {
    commands.push("--add");
  }
  commands.push(key, value);
  return {
    commands,
    format: "utf-8",
    parser(text) {
      return text;
    }
  };
}
function getConfigTask(key, scope) {
  const commands = ["config", "--null", "--show-origin", "--get-all", key];
  if (scope) {
    commands.splice(1, 0, `--${scope}`);
  }
  return {
    commands,
    format: "utf-8",
    parser(text) {
      return configGetParser(text, key);
    }
  };
}
function listConfigTask(scope) {
  const commands = ["config", "--list", "--show-origin", "--null"];
  if (scope) {
    commands.push(`--${scope}`);
  }
  return {
    commands,
    format: "utf-8",
    parser(text) {
      return configListParser(text);
    }
  };
}
function config_default() {
  return {
    addConfig(key, value, ...rest) {
      return this._runTask(
        addConfigTask(
          key,
          value,
          rest[0] === true,
          asConfigScope(
            rest[1],
            "local"
            /* local */
          )
        ),
        trailingFunctionArgument(arguments)
      );
    },
    getConfig(key, scope) {
      return this._runTask(
        getConfigTask(key, asConfigScope(scope, void 0)),
        trailingFunctionArgument(arguments)
      );
    },
    listConfig(...rest) {
      return this._runTask(
        listConfigTask(asConfigScope(rest[0], void 0)),
        trailingFunctionArgument(arguments)
      );
    }
  };
}
var GitConfigScope;
var init_config = __esm({
  "src/lib/tasks/config.ts"() {
    "use strict";
    init_ConfigList();
    init_utils();
    GitConfigScope = /* @__PURE__ */ ((GitConfigScope2) => {
      GitConfigScope2["system"] = "system";
      GitConfigScope2["global"] = "global";
      GitConfigScope2["local"] = "local";
      GitConfigScope2["worktree"] = "worktree";
      return GitConfigScope2;
    })(GitConfigScope || {});
  }
});
function isDiffNameStatus(input) {
  return diffNameStatus.has(input);
}
var DiffNameStatus;
var diffNameStatus;
var init_diff_name_status = __esm({
  "src/lib/tasks/diff-name-status.ts"() {
    "use strict";
    DiffNameStatus = /* @__PURE__ */ ((DiffNameStatus2) => {
      DiffNameStatus2["ADDED"] = "A";
      DiffNameStatus2["COPIED"] = "C";
      DiffNameStatus2["DELETED"] = "D";
      DiffNameStatus2["MODIFIED"] = "M";
      DiffNameStatus2["RENAMED"] = "R";
      DiffNameStatus2["CHANGED"] = "T";
      DiffNameStatus2["UNMERGED"] = "U";
      DiffNameStatus2["UNKNOWN"] = "X";
      DiffNameStatus2["BROKEN"] = "B";
      return DiffNameStatus2;
    })(DiffNameStatus || {});
    diffNameStatus = new Set(Object.values(DiffNameStatus));
  }
});
function grepQueryBuilder(...params) {
  return new GrepQuery().param(...params);
}
function parseGrep(grep) {
  const paths = /* @__PURE__ */ new Set();
  const results = {};
  forEachLineWithContent(grep, (input) => {
    const [path, line, preview] = input.split(NULL);
    paths.add(path);
    (results[path] = results[path] || []).push({
      line: asNumber(line),
      path,
      preview
    });
  });
  return {
    paths,
    results
  };
}
function grep_default() {
  return {
    grep(searchTerm) {
      const then = trailingFunctionArgument(arguments);
      const options = getTrailingOptions(arguments);
      for (const option of disallowedOptions) {
        if (options.includes(option)) {
          return this._runTask(
            configurationErrorTask(`git.grep: use of "${option}" is not supported.`),
            then
          );
        }
      }
      if (typeof searchTerm === "string") {
        searchTerm = grepQueryBuilder().param(searchTerm);
      }
      const commands = ["grep", "--null", "-n", "--full-name", ...options, ...searchTerm];
      return this._runTask(
        {
          commands,
          format: "utf-8",
          parser(stdOut) {
            return parseGrep(stdOut);
          }
        },
        then
      );
    }
  };
}
var disallowedOptions;
var Query;
var _a;
var GrepQuery;
var init_grep = __esm({
  "src/lib/tasks/grep.ts"() {
    "use strict";
    init_utils();
    init_task();
    disallowedOptions = ["-h"];
    Query = /* @__PURE__ */ Symbol("grepQuery");
    GrepQuery = class {
      constructor() {
        this[_a] = [];
      }
      *[(_a = Query, Symbol.iterator)]() {
        for (const query of this[Query]) {
          yield query;
        }
      }
      and(...and) {
        and.length && this[Query].push("--and", "(", ...prefixedArray(and, "-e"), ")");
        return this;
      }
      param(...param) {
        this[Query].push(...prefixedArray(param, "-e"));
        return this;
      }
    };
  }
});
var reset_exports = {};
__export(reset_exports, {
  ResetMode: () => ResetMode,
  getResetMode: () => getResetMode,
  resetTask: () => resetTask
});
function resetTask(mode, customArgs) {
  const commands = ["reset"];
  if (isValidResetMode(mode)) {
    commands.push(`--${mode}`);
  }
  commands.push(...customArgs);
  return straightThroughStringTask(commands);
}
function getResetMode(mode) {
  if (isValidResetMode(mode)) {
    return mode;
  }
  switch (typeof mode) {
    case "string":
    case "undefined":
      return "soft";
  }
  return;
}
function isValidResetMode(mode) {
  return typeof mode === "string" && validResetModes.includes(mode);
}
var ResetMode;
var validResetModes;
var init_reset = __esm({
  "src/lib/tasks/reset.ts"() {
    "use strict";
    init_utils();
    init_task();
    ResetMode = /* @__PURE__ */ ((ResetMode2) => {
      ResetMode2["MIXED"] = "mixed";
      ResetMode2["SOFT"] = "soft";
      ResetMode2["HARD"] = "hard";
      ResetMode2["MERGE"] = "merge";
      ResetMode2["KEEP"] = "keep";
      return ResetMode2;
    })(ResetMode || {});
    validResetModes = asStringArray(Object.values(ResetMode));
  }
});
function createLog() {
  return (0, import_debug.default)("simple-git");
}
function prefixedLogger(to, prefix, forward) {
  if (!prefix || !String(prefix).replace(/\s*/, "")) {
    return !forward ? to : (message, ...args) => {
      to(message, ...args);
      forward(message, ...args);
    };
  }
  return (message, ...args) => {
    to(`%s ${message}`, prefix, ...args);
    if (forward) {
      forward(message, ...args);
    }
  };
}
function childLoggerName(name, childDebugger, { namespace: parentNamespace }) {
  if (typeof name === "string") {
    return name;
  }
  const childNamespace = childDebugger && childDebugger.namespace || "";
  if (childNamespace.startsWith(parentNamespace)) {
    return childNamespace.substr(parentNamespace.length + 1);
  }
  return childNamespace || parentNamespace;
}
function createLogger(label, verbose, initialStep, infoDebugger = createLog()) {
  const labelPrefix = label && `[${label}]` || "";
  const spawned = [];
  const debugDebugger = typeof verbose === "string" ? infoDebugger.extend(verbose) : verbose;
  const key = childLoggerName(filterType(verbose, filterString), debugDebugger, infoDebugger);
  return step(initialStep);
  function sibling(name, initial) {
    return append(
      spawned,
      createLogger(label, key.replace(/^[^:]+/, name), initial, infoDebugger)
    );
  }
  function step(phase) {
    const stepPrefix = phase && `[${phase}]` || "";
    const debug2 = debugDebugger && prefixedLogger(debugDebugger, stepPrefix) || NOOP;
    const info = prefixedLogger(infoDebugger, `${labelPrefix} ${stepPrefix}`, debug2);
    return Object.assign(debugDebugger ? debug2 : info, {
      label,
      sibling,
      info,
      step
    });
  }
}
var init_git_logger = __esm({
  "src/lib/git-logger.ts"() {
    "use strict";
    init_utils();
    import_debug.default.formatters.L = (value) => String(filterHasLength(value) ? value.length : "-");
    import_debug.default.formatters.B = (value) => {
      if (Buffer.isBuffer(value)) {
        return value.toString("utf8");
      }
      return objectToString(value);
    };
  }
});
var TasksPendingQueue;
var init_tasks_pending_queue = __esm({
  "src/lib/runners/tasks-pending-queue.ts"() {
    "use strict";
    init_git_error();
    init_git_logger();
    TasksPendingQueue = class _TasksPendingQueue {
      constructor(logLabel = "GitExecutor") {
        this.logLabel = logLabel;
        this._queue = /* @__PURE__ */ new Map();
      }
      withProgress(task) {
        return this._queue.get(task);
      }
      createProgress(task) {
        const name = _TasksPendingQueue.getName(task.commands[0]);
        const logger = createLogger(this.logLabel, name);
        return {
          task,
          logger,
          name
        };
      }
      push(task) {
        const progress = this.createProgress(task);
        progress.logger("Adding task to the queue, commands = %o", task.commands);
        this._queue.set(task, progress);
        return progress;
      }
      fatal(err) {
        for (const [task, { logger }] of Array.from(this._queue.entries())) {
          if (task === err.task) {
            logger.info(`Failed %o`, err);
            logger(
              `Fatal exception, any as-yet un-started tasks run through this executor will not be attempted`
            );
          } else {
            logger.info(
              `A fatal exception occurred in a previous task, the queue has been purged: %o`,
              err.message
            );
          }
          this.complete(task);
        }
        if (this._queue.size !== 0) {
          throw new Error(`Queue size should be zero after fatal: ${this._queue.size}`);
        }
      }
      complete(task) {
        const progress = this.withProgress(task);
        if (progress) {
          this._queue.delete(task);
        }
      }
      attempt(task) {
        const progress = this.withProgress(task);
        if (!progress) {
          throw new GitError(void 0, "TasksPendingQueue: attempt called for an unknown task");
        }
        progress.logger("Starting task");
        return progress;
      }
      static getName(name = "empty") {
        return `task:${name}:${++_TasksPendingQueue.counter}`;
      }
      static {
        this.counter = 0;
      }
    };
  }
});
function pluginContext(task, commands) {
  return {
    method: first(task.commands) || "",
    commands
  };
}
function onErrorReceived(target, logger) {
  return (err) => {
    logger(`[ERROR] child process exception %o`, err);
    target.push(Buffer.from(String(err.stack), "ascii"));
  };
}
function onDataReceived(target, name, logger, output) {
  return (buffer) => {
    logger(`%s received %L bytes`, name, buffer);
    output(`%B`, buffer);
    target.push(buffer);
  };
}
var GitExecutorChain;
var init_git_executor_chain = __esm({
  "src/lib/runners/git-executor-chain.ts"() {
    "use strict";
    init_git_error();
    init_task();
    init_utils();
    init_tasks_pending_queue();
    GitExecutorChain = class {
      constructor(_executor, _scheduler, _plugins) {
        this._executor = _executor;
        this._scheduler = _scheduler;
        this._plugins = _plugins;
        this._chain = Promise.resolve();
        this._queue = new TasksPendingQueue();
      }
      get cwd() {
        return this._cwd || this._executor.cwd;
      }
      set cwd(cwd) {
        this._cwd = cwd;
      }
      get env() {
        return this._executor.env;
      }
      get outputHandler() {
        return this._executor.outputHandler;
      }
      chain() {
        return this;
      }
      push(task) {
        this._queue.push(task);
        return this._chain = this._chain.then(() => this.attemptTask(task));
      }
      async attemptTask(task) {
        const onScheduleComplete = await this._scheduler.next();
        const onQueueComplete = () => this._queue.complete(task);
        try {
          const { logger } = this._queue.attempt(task);
          return await (isEmptyTask(task) ? this.attemptEmptyTask(task, logger) : this.attemptRemoteTask(task, logger));
        } catch (e) {
          throw this.onFatalException(task, e);
        } finally {
          onQueueComplete();
          onScheduleComplete();
        }
      }
      onFatalException(task, e) {
        const gitError = e instanceof GitError ? Object.assign(e, { task }) : new GitError(task, e && String(e));
        this._chain = Promise.resolve();
        this._queue.fatal(gitError);
        return gitError;
      }
      async attemptRemoteTask(task, logger) {
        const binary = this._plugins.exec("spawn.binary", "", pluginContext(task, task.commands));
        const args = this._plugins.exec("spawn.args", [...task.commands], {
          ...pluginContext(task, task.commands),
          env: { ...this.env }
        });
        const raw = await this.gitResponse(
          task,
          binary,
          args,
          this.outputHandler,
          logger.step("SPAWN")
        );
        const outputStreams = await this.handleTaskData(task, args, raw, logger.step("HANDLE"));
        logger(`passing response to task's parser as a %s`, task.format);
        if (isBufferTask(task)) {
          return callTaskParser(task.parser, outputStreams);
        }
        return callTaskParser(task.parser, outputStreams.asStrings());
      }
      async attemptEmptyTask(task, logger) {
        logger(`empty task bypassing child process to call to task's parser`);
        return task.parser(this);
      }
      handleTaskData(task, args, result, logger) {
        const { exitCode, rejection, stdOut, stdErr } = result;
        return new Promise((done, fail) => {
          logger(`Preparing to handle process response exitCode=%d stdOut=`, exitCode);
          const { error } = this._plugins.exec(
            "task.error",
            { error: rejection },
            {
              ...pluginContext(task, args),
              ...result
            }
          );
          if (error && task.onError) {
            logger.info(`exitCode=%s handling with custom error handler`);
            return task.onError(
              result,
              error,
              (newStdOut) => {
                logger.info(`custom error handler treated as success`);
                logger(`custom error returned a %s`, objectToString(newStdOut));
                done(
                  new GitOutputStreams(
                    Array.isArray(newStdOut) ? Buffer.concat(newStdOut) : newStdOut,
                    Buffer.concat(stdErr)
                  )
                );
              },
              fail
            );
          }
          if (error) {
            logger.info(
              `handling as error: exitCode=%s stdErr=%s rejection=%o`,
              exitCode,
              stdErr.length,
              rejection
            );
            return fail(error);
          }
          logger.info(`retrieving task output complete`);
          done(new GitOutputStreams(Buffer.concat(stdOut), Buffer.concat(stdErr)));
        });
      }
      async gitResponse(task, command, args, outputHandler, logger) {
        const outputLogger = logger.sibling("output");
        const spawnOptions = this._plugins.exec(
          "spawn.options",
          {
            cwd: this.cwd,
            env: this.env,
            windowsHide: true
          },
          pluginContext(task, task.commands)
        );
        return new Promise((done) => {
          const stdOut = [];
          const stdErr = [];
          logger.info(`%s %o`, command, args);
          logger("%O", spawnOptions);
          let rejection = this._beforeSpawn(task, args);
          if (rejection) {
            return done({
              stdOut,
              stdErr,
              exitCode: 9901,
              rejection
            });
          }
          this._plugins.exec("spawn.before", void 0, {
            ...pluginContext(task, args),
            kill(reason) {
              rejection = reason || rejection;
            }
          });
          const spawned = spawn(command, args, spawnOptions);
          spawned.stdout.on(
            "data",
            onDataReceived(stdOut, "stdOut", logger, outputLogger.step("stdOut"))
          );
          spawned.stderr.on(
            "data",
            onDataReceived(stdErr, "stdErr", logger, outputLogger.step("stdErr"))
          );
          spawned.on("error", onErrorReceived(stdErr, logger));
          if (outputHandler) {
            logger(`Passing child process stdOut/stdErr to custom outputHandler`);
            outputHandler(command, spawned.stdout, spawned.stderr, [...args]);
          }
          this._plugins.exec("spawn.after", void 0, {
            ...pluginContext(task, args),
            spawned,
            close(exitCode, reason) {
              done({
                stdOut,
                stdErr,
                exitCode,
                rejection: rejection || reason
              });
            },
            kill(reason) {
              if (spawned.killed) {
                return;
              }
              rejection = reason;
              spawned.kill("SIGINT");
            }
          });
        });
      }
      _beforeSpawn(task, args) {
        let rejection;
        this._plugins.exec("spawn.before", void 0, {
          ...pluginContext(task, args),
          kill(reason) {
            rejection = reason || rejection;
          }
        });
        return rejection;
      }
    };
  }
});
var git_executor_exports = {};
__export(git_executor_exports, {
  GitExecutor: () => GitExecutor
});
var GitExecutor;
var init_git_executor = __esm({
  "src/lib/runners/git-executor.ts"() {
    "use strict";
    init_git_executor_chain();
    GitExecutor = class {
      constructor(cwd, _scheduler, _plugins) {
        this.cwd = cwd;
        this._scheduler = _scheduler;
        this._plugins = _plugins;
        this._chain = new GitExecutorChain(this, this._scheduler, this._plugins);
      }
      chain() {
        return new GitExecutorChain(this, this._scheduler, this._plugins);
      }
      push(task) {
        return this._chain.push(task);
      }
    };
  }
});
function taskCallback(task, response, callback = NOOP) {
  const onSuccess = (data) => {
    callback(null, data);
  };
  const onError2 = (err) => {
    if (err?.task === task) {
      callback(
        err instanceof GitResponseError ? addDeprecationNoticeToError(err) : err,
        void 0
      );
    }
  };
  response.then(onSuccess, onError2);
}
function addDeprecationNoticeToError(err) {
  let log = (name) => {
    console.warn(
      `simple-git deprecation notice: accessing GitResponseError.${name} should be GitResponseError.git.${name}, this will no longer be available in version 3`
    );
    log = NOOP;
  };
  return Object.create(err, Object.getOwnPropertyNames(err.git).reduce(descriptorReducer, {}));
  function descriptorReducer(all, name) {
    if (name in err) {
      return all;
    }
    all[name] = {
      enumerable: false,
      configurable: false,
      get() {
        log(name);
        return err.git[name];
      }
    };
    return all;
  }
}
var init_task_callback = __esm({
  "src/lib/task-callback.ts"() {
    "use strict";
    init_git_response_error();
    init_utils();
  }
});
function changeWorkingDirectoryTask(directory, root) {
  return adhocExecTask((instance) => {
    if (!folderExists(directory)) {
      throw new Error(`Git.cwd: cannot change to non-directory "${directory}"`);
    }
    return (root || instance).cwd = directory;
  });
}
var init_change_working_directory = __esm({
  "src/lib/tasks/change-working-directory.ts"() {
    "use strict";
    init_utils();
    init_task();
  }
});
function checkoutTask(args) {
  const commands = ["checkout", ...args];
  if (commands[1] === "-b" && commands.includes("-B")) {
    commands[1] = remove(commands, "-B");
  }
  return straightThroughStringTask(commands);
}
function checkout_default() {
  return {
    checkout() {
      return this._runTask(
        checkoutTask(getTrailingOptions(arguments, 1)),
        trailingFunctionArgument(arguments)
      );
    },
    checkoutBranch(branchName, startPoint) {
      return this._runTask(
        checkoutTask(["-b", branchName, startPoint, ...getTrailingOptions(arguments)]),
        trailingFunctionArgument(arguments)
      );
    },
    checkoutLocalBranch(branchName) {
      return this._runTask(
        checkoutTask(["-b", branchName, ...getTrailingOptions(arguments)]),
        trailingFunctionArgument(arguments)
      );
    }
  };
}
var init_checkout = __esm({
  "src/lib/tasks/checkout.ts"() {
    "use strict";
    init_utils();
    init_task();
  }
});
function countObjectsResponse() {
  return {
    count: 0,
    garbage: 0,
    inPack: 0,
    packs: 0,
    prunePackable: 0,
    size: 0,
    sizeGarbage: 0,
    sizePack: 0
  };
}
function count_objects_default() {
  return {
    countObjects() {
      return this._runTask({
        commands: ["count-objects", "--verbose"],
        format: "utf-8",
        parser(stdOut) {
          return parseStringResponse(countObjectsResponse(), [parser2], stdOut);
        }
      });
    }
  };
}
var parser2;
var init_count_objects = __esm({
  "src/lib/tasks/count-objects.ts"() {
    "use strict";
    init_utils();
    parser2 = new LineParser(
      /([a-z-]+): (\d+)$/,
      (result, [key, value]) => {
        const property = asCamelCase(key);
        if (Object.hasOwn(result, property)) {
          result[property] = asNumber(value);
        }
      }
    );
  }
});
function parseCommitResult(stdOut) {
  const result = {
    author: null,
    branch: "",
    commit: "",
    root: false,
    summary: {
      changes: 0,
      insertions: 0,
      deletions: 0
    }
  };
  return parseStringResponse(result, parsers, stdOut);
}
var parsers;
var init_parse_commit = __esm({
  "src/lib/parsers/parse-commit.ts"() {
    "use strict";
    init_utils();
    parsers = [
      new LineParser(/^\[([^\s]+)( \([^)]+\))? ([^\]]+)/, (result, [branch, root, commit]) => {
        result.branch = branch;
        result.commit = commit;
        result.root = !!root;
      }),
      new LineParser(/\s*Author:\s(.+)/i, (result, [author]) => {
        const parts = author.split("<");
        const email = parts.pop();
        if (!email || !email.includes("@")) {
          return;
        }
        result.author = {
          email: email.substr(0, email.length - 1),
          name: parts.join("<").trim()
        };
      }),
      new LineParser(
        /(\d+)[^,]*(?:,\s*(\d+)[^,]*)(?:,\s*(\d+))/g,
        (result, [changes, insertions, deletions]) => {
          result.summary.changes = parseInt(changes, 10) || 0;
          result.summary.insertions = parseInt(insertions, 10) || 0;
          result.summary.deletions = parseInt(deletions, 10) || 0;
        }
      ),
      new LineParser(
        /^(\d+)[^,]*(?:,\s*(\d+)[^(]+\(([+-]))?/,
        (result, [changes, lines, direction]) => {
          result.summary.changes = parseInt(changes, 10) || 0;
          const count = parseInt(lines, 10) || 0;
          if (direction === "-") {
            result.summary.deletions = count;
          } else if (direction === "+") {
            result.summary.insertions = count;
          }
        }
      )
    ];
  }
});
function commitTask(message, files, customArgs) {
  const commands = [
    "-c",
    "core.abbrev=40",
    "commit",
    ...prefixedArray(message, "-m"),
    ...files,
    ...customArgs
  ];
  return {
    commands,
    format: "utf-8",
    parser: parseCommitResult
  };
}
function commit_default() {
  return {
    commit(message, ...rest) {
      const next = trailingFunctionArgument(arguments);
      const task = rejectDeprecatedSignatures(message) || commitTask(
        asArray(message),
        asArray(filterType(rest[0], filterStringOrStringArray, [])),
        [
          ...asStringArray(filterType(rest[1], filterArray, [])),
          ...getTrailingOptions(arguments, 0, true)
        ]
      );
      return this._runTask(task, next);
    }
  };
  function rejectDeprecatedSignatures(message) {
    return !filterStringOrStringArray(message) && configurationErrorTask(
      `git.commit: requires the commit message to be supplied as a string/string[]`
    );
  }
}
var init_commit = __esm({
  "src/lib/tasks/commit.ts"() {
    "use strict";
    init_parse_commit();
    init_utils();
    init_task();
  }
});
function first_commit_default() {
  return {
    firstCommit() {
      return this._runTask(
        straightThroughStringTask(["rev-list", "--max-parents=0", "HEAD"], true),
        trailingFunctionArgument(arguments)
      );
    }
  };
}
var init_first_commit = __esm({
  "src/lib/tasks/first-commit.ts"() {
    "use strict";
    init_utils();
    init_task();
  }
});
function hashObjectTask(filePath, write) {
  const commands = ["hash-object", filePath];
  if (write) {
    commands.push("-w");
  }
  return straightThroughStringTask(commands, true);
}
var init_hash_object = __esm({
  "src/lib/tasks/hash-object.ts"() {
    "use strict";
    init_task();
  }
});
function parseInit(bare, path, text) {
  const response = String(text).trim();
  let result;
  if (result = initResponseRegex.exec(response)) {
    return new InitSummary(bare, path, false, result[1]);
  }
  if (result = reInitResponseRegex.exec(response)) {
    return new InitSummary(bare, path, true, result[1]);
  }
  let gitDir = "";
  const tokens = response.split(" ");
  while (tokens.length) {
    const token = tokens.shift();
    if (token === "in") {
      gitDir = tokens.join(" ");
      break;
    }
  }
  return new InitSummary(bare, path, /^re/i.test(response), gitDir);
}
var InitSummary;
var initResponseRegex;
var reInitResponseRegex;
var init_InitSummary = __esm({
  "src/lib/responses/InitSummary.ts"() {
    "use strict";
    InitSummary = class {
      constructor(bare, path, existing, gitDir) {
        this.bare = bare;
        this.path = path;
        this.existing = existing;
        this.gitDir = gitDir;
      }
    };
    initResponseRegex = /^Init.+ repository in (.+)$/;
    reInitResponseRegex = /^Rein.+ in (.+)$/;
  }
});
function hasBareCommand(command) {
  return command.includes(bareCommand);
}
function initTask(bare = false, path, customArgs) {
  const commands = ["init", ...customArgs];
  if (bare && !hasBareCommand(commands)) {
    commands.splice(1, 0, bareCommand);
  }
  return {
    commands,
    format: "utf-8",
    parser(text) {
      return parseInit(commands.includes("--bare"), path, text);
    }
  };
}
var bareCommand;
var init_init = __esm({
  "src/lib/tasks/init.ts"() {
    "use strict";
    init_InitSummary();
    bareCommand = "--bare";
  }
});
function logFormatFromCommand(customArgs) {
  for (let i2 = 0; i2 < customArgs.length; i2++) {
    const format = logFormatRegex.exec(customArgs[i2]);
    if (format) {
      return `--${format[1]}`;
    }
  }
  return "";
}
function isLogFormat(customArg) {
  return logFormatRegex.test(customArg);
}
var logFormatRegex;
var init_log_format = __esm({
  "src/lib/args/log-format.ts"() {
    "use strict";
    logFormatRegex = /^--(stat|numstat|name-only|name-status)(=|$)/;
  }
});
var DiffSummary;
var init_DiffSummary = __esm({
  "src/lib/responses/DiffSummary.ts"() {
    "use strict";
    DiffSummary = class {
      constructor() {
        this.changed = 0;
        this.deletions = 0;
        this.insertions = 0;
        this.files = [];
      }
    };
  }
});
function getDiffParser(format = "") {
  const parser4 = diffSummaryParsers[format];
  return (stdOut) => parseStringResponse(new DiffSummary(), parser4, stdOut, false);
}
var statParser;
var numStatParser;
var nameOnlyParser;
var nameStatusParser;
var diffSummaryParsers;
var init_parse_diff_summary = __esm({
  "src/lib/parsers/parse-diff-summary.ts"() {
    "use strict";
    init_log_format();
    init_DiffSummary();
    init_diff_name_status();
    init_utils();
    statParser = [
      new LineParser(
        /^(.+)\s+\|\s+(\d+)(\s+[+\-]+)?$/,
        (result, [file, changes, alterations = ""]) => {
          result.files.push({
            file: file.trim(),
            changes: asNumber(changes),
            insertions: alterations.replace(/[^+]/g, "").length,
            deletions: alterations.replace(/[^-]/g, "").length,
            binary: false
          });
        }
      ),
      new LineParser(
        /^(.+) \|\s+Bin ([0-9.]+) -> ([0-9.]+) ([a-z]+)/,
        (result, [file, before, after]) => {
          result.files.push({
            file: file.trim(),
            before: asNumber(before),
            after: asNumber(after),
            binary: true
          });
        }
      ),
      new LineParser(
        /(\d+) files? changed\s*((?:, \d+ [^,]+){0,2})/,
        (result, [changed, summary]) => {
          const inserted = /(\d+) i/.exec(summary);
          const deleted = /(\d+) d/.exec(summary);
          result.changed = asNumber(changed);
          result.insertions = asNumber(inserted?.[1]);
          result.deletions = asNumber(deleted?.[1]);
        }
      )
    ];
    numStatParser = [
      new LineParser(
        /(\d+)\t(\d+)\t(.+)$/,
        (result, [changesInsert, changesDelete, file]) => {
          const insertions = asNumber(changesInsert);
          const deletions = asNumber(changesDelete);
          result.changed++;
          result.insertions += insertions;
          result.deletions += deletions;
          result.files.push({
            file,
            changes: insertions + deletions,
            insertions,
            deletions,
            binary: false
          });
        }
      ),
      new LineParser(/-\t-\t(.+)$/, (result, [file]) => {
        result.changed++;
        result.files.push({
          file,
          after: 0,
          before: 0,
          binary: true
        });
      })
    ];
    nameOnlyParser = [
      new LineParser(/(.+)$/, (result, [file]) => {
        result.changed++;
        result.files.push({
          file,
          changes: 0,
          insertions: 0,
          deletions: 0,
          binary: false
        });
      })
    ];
    nameStatusParser = [
      new LineParser(
        /([ACDMRTUXB])([0-9]{0,3})\t(.[^\t]*)(\t(.[^\t]*))?$/,
        (result, [status, similarity, from, _to, to]) => {
          result.changed++;
          result.files.push({
            file: to ?? from,
            changes: 0,
            insertions: 0,
            deletions: 0,
            binary: false,
            status: orVoid(isDiffNameStatus(status) && status),
            from: orVoid(!!to && from !== to && from),
            similarity: asNumber(similarity)
          });
        }
      )
    ];
    diffSummaryParsers = {
      [
        ""
        /* NONE */
      ]: statParser,
      [
        "--stat"
        /* STAT */
      ]: statParser,
      [
        "--numstat"
        /* NUM_STAT */
      ]: numStatParser,
      [
        "--name-status"
        /* NAME_STATUS */
      ]: nameStatusParser,
      [
        "--name-only"
        /* NAME_ONLY */
      ]: nameOnlyParser
    };
  }
});
function lineBuilder(tokens, fields) {
  return fields.reduce(
    (line, field, index) => {
      line[field] = tokens[index] || "";
      return line;
    },
    /* @__PURE__ */ Object.create({ diff: null })
  );
}
function createListLogSummaryParser(splitter = SPLITTER, fields = defaultFieldNames, logFormat = "") {
  const parseDiffResult = getDiffParser(logFormat);
  return function(stdOut) {
    const all = toLinesWithContent(
      stdOut.trim(),
      false,
      START_BOUNDARY
    ).map(function(item) {
      const lineDetail = item.split(COMMIT_BOUNDARY);
      const listLogLine = lineBuilder(lineDetail[0].split(splitter), fields);
      if (lineDetail.length > 1 && !!lineDetail[1].trim()) {
        listLogLine.diff = parseDiffResult(lineDetail[1]);
      }
      return listLogLine;
    });
    return {
      all,
      latest: all.length && all[0] || null,
      total: all.length
    };
  };
}
var START_BOUNDARY;
var COMMIT_BOUNDARY;
var SPLITTER;
var defaultFieldNames;
var init_parse_list_log_summary = __esm({
  "src/lib/parsers/parse-list-log-summary.ts"() {
    "use strict";
    init_utils();
    init_parse_diff_summary();
    init_log_format();
    START_BOUNDARY = "\xF2\xF2\xF2\xF2\xF2\xF2 ";
    COMMIT_BOUNDARY = " \xF2\xF2";
    SPLITTER = " \xF2 ";
    defaultFieldNames = ["hash", "date", "message", "refs", "author_name", "author_email"];
  }
});
var diff_exports = {};
__export(diff_exports, {
  diffSummaryTask: () => diffSummaryTask,
  validateLogFormatConfig: () => validateLogFormatConfig
});
function diffSummaryTask(customArgs) {
  let logFormat = logFormatFromCommand(customArgs);
  const commands = ["diff"];
  if (logFormat === "") {
    logFormat = "--stat";
    commands.push("--stat=4096");
  }
  commands.push(...customArgs);
  return validateLogFormatConfig(commands) || {
    commands,
    format: "utf-8",
    parser: getDiffParser(logFormat)
  };
}
function validateLogFormatConfig(customArgs) {
  const flags = customArgs.filter(isLogFormat);
  if (flags.length > 1) {
    return configurationErrorTask(
      `Summary flags are mutually exclusive - pick one of ${flags.join(",")}`
    );
  }
  if (flags.length && customArgs.includes("-z")) {
    return configurationErrorTask(
      `Summary flag ${flags} parsing is not compatible with null termination option '-z'`
    );
  }
}
var init_diff = __esm({
  "src/lib/tasks/diff.ts"() {
    "use strict";
    init_log_format();
    init_parse_diff_summary();
    init_task();
  }
});
function prettyFormat(format, splitter) {
  const fields = [];
  const formatStr = [];
  Object.keys(format).forEach((field) => {
    fields.push(field);
    formatStr.push(String(format[field]));
  });
  return [fields, formatStr.join(splitter)];
}
function userOptions(input) {
  return Object.keys(input).reduce((out, key) => {
    if (!(key in excludeOptions)) {
      out[key] = input[key];
    }
    return out;
  }, {});
}
function parseLogOptions(opt = {}, customArgs = []) {
  const splitter = filterType(opt.splitter, filterString, SPLITTER);
  const format = filterPlainObject(opt.format) ? opt.format : {
    hash: "%H",
    date: opt.strictDate === false ? "%ai" : "%aI",
    message: "%s",
    refs: "%D",
    body: opt.multiLine ? "%B" : "%b",
    author_name: opt.mailMap !== false ? "%aN" : "%an",
    author_email: opt.mailMap !== false ? "%aE" : "%ae"
  };
  const [fields, formatStr] = prettyFormat(format, splitter);
  const suffix = [];
  const command = [
    `--pretty=format:${START_BOUNDARY}${formatStr}${COMMIT_BOUNDARY}`,
    ...customArgs
  ];
  const maxCount = opt.n || opt["max-count"] || opt.maxCount;
  if (maxCount) {
    command.push(`--max-count=${maxCount}`);
  }
  if (opt.from || opt.to) {
    const rangeOperator = opt.symmetric !== false ? "..." : "..";
    suffix.push(`${opt.from || ""}${rangeOperator}${opt.to || ""}`);
  }
  if (filterString(opt.file)) {
    command.push("--follow", c(opt.file));
  }
  appendTaskOptions(userOptions(opt), command);
  return {
    fields,
    splitter,
    commands: [...command, ...suffix]
  };
}
function logTask(splitter, fields, customArgs) {
  const parser4 = createListLogSummaryParser(splitter, fields, logFormatFromCommand(customArgs));
  return {
    commands: ["log", ...customArgs],
    format: "utf-8",
    parser: parser4
  };
}
function log_default() {
  return {
    log(...rest) {
      const next = trailingFunctionArgument(arguments);
      const options = parseLogOptions(
        trailingOptionsArgument(arguments),
        asStringArray(filterType(arguments[0], filterArray, []))
      );
      const task = rejectDeprecatedSignatures(...rest) || validateLogFormatConfig(options.commands) || createLogTask(options);
      return this._runTask(task, next);
    }
  };
  function createLogTask(options) {
    return logTask(options.splitter, options.fields, options.commands);
  }
  function rejectDeprecatedSignatures(from, to) {
    return filterString(from) && filterString(to) && configurationErrorTask(
      `git.log(string, string) should be replaced with git.log({ from: string, to: string })`
    );
  }
}
var excludeOptions;
var init_log = __esm({
  "src/lib/tasks/log.ts"() {
    "use strict";
    init_log_format();
    init_parse_list_log_summary();
    init_utils();
    init_task();
    init_diff();
    excludeOptions = /* @__PURE__ */ ((excludeOptions2) => {
      excludeOptions2[excludeOptions2["--pretty"] = 0] = "--pretty";
      excludeOptions2[excludeOptions2["max-count"] = 1] = "max-count";
      excludeOptions2[excludeOptions2["maxCount"] = 2] = "maxCount";
      excludeOptions2[excludeOptions2["n"] = 3] = "n";
      excludeOptions2[excludeOptions2["file"] = 4] = "file";
      excludeOptions2[excludeOptions2["format"] = 5] = "format";
      excludeOptions2[excludeOptions2["from"] = 6] = "from";
      excludeOptions2[excludeOptions2["to"] = 7] = "to";
      excludeOptions2[excludeOptions2["splitter"] = 8] = "splitter";
      excludeOptions2[excludeOptions2["symmetric"] = 9] = "symmetric";
      excludeOptions2[excludeOptions2["mailMap"] = 10] = "mailMap";
      excludeOptions2[excludeOptions2["multiLine"] = 11] = "multiLine";
      excludeOptions2[excludeOptions2["strictDate"] = 12] = "strictDate";
      return excludeOptions2;
    })(excludeOptions || {});
  }
});
var MergeSummaryConflict;
var MergeSummaryDetail;
var init_MergeSummary = __esm({
  "src/lib/responses/MergeSummary.ts"() {
    "use strict";
    MergeSummaryConflict = class {
      constructor(reason, file = null, meta) {
        this.reason = reason;
        this.file = file;
        this.meta = meta;
      }
      toString() {
        return `${this.file}:${this.reason}`;
      }
    };
    MergeSummaryDetail = class {
      constructor() {
        this.conflicts = [];
        this.merges = [];
        this.result = "success";
      }
      get failed() {
        return this.conflicts.length > 0;
      }
      get reason() {
        return this.result;
      }
      toString() {
        if (this.conflicts.length) {
          return `CONFLICTS: ${this.conflicts.join(", ")}`;
        }
        return "OK";
      }
    };
  }
});
var PullSummary;
var PullFailedSummary;
var init_PullSummary = __esm({
  "src/lib/responses/PullSummary.ts"() {
    "use strict";
    PullSummary = class {
      constructor() {
        this.remoteMessages = {
          all: []
        };
        this.created = [];
        this.deleted = [];
        this.files = [];
        this.deletions = {};
        this.insertions = {};
        this.summary = {
          changes: 0,
          deletions: 0,
          insertions: 0
        };
      }
    };
    PullFailedSummary = class {
      constructor() {
        this.remote = "";
        this.hash = {
          local: "",
          remote: ""
        };
        this.branch = {
          local: "",
          remote: ""
        };
        this.message = "";
      }
      toString() {
        return this.message;
      }
    };
  }
});
function objectEnumerationResult(remoteMessages) {
  return remoteMessages.objects = remoteMessages.objects || {
    compressing: 0,
    counting: 0,
    enumerating: 0,
    packReused: 0,
    reused: { count: 0, delta: 0 },
    total: { count: 0, delta: 0 }
  };
}
function asObjectCount(source) {
  const count = /^\s*(\d+)/.exec(source);
  const delta = /delta (\d+)/i.exec(source);
  return {
    count: asNumber(count && count[1] || "0"),
    delta: asNumber(delta && delta[1] || "0")
  };
}
var remoteMessagesObjectParsers;
var init_parse_remote_objects = __esm({
  "src/lib/parsers/parse-remote-objects.ts"() {
    "use strict";
    init_utils();
    remoteMessagesObjectParsers = [
      new RemoteLineParser(
        /^remote:\s*(enumerating|counting|compressing) objects: (\d+),/i,
        (result, [action, count]) => {
          const key = action.toLowerCase();
          const enumeration = objectEnumerationResult(result.remoteMessages);
          Object.assign(enumeration, { [key]: asNumber(count) });
        }
      ),
      new RemoteLineParser(
        /^remote:\s*(enumerating|counting|compressing) objects: \d+% \(\d+\/(\d+)\),/i,
        (result, [action, count]) => {
          const key = action.toLowerCase();
          const enumeration = objectEnumerationResult(result.remoteMessages);
          Object.assign(enumeration, { [key]: asNumber(count) });
        }
      ),
      new RemoteLineParser(
        /total ([^,]+), reused ([^,]+), pack-reused (\d+)/i,
        (result, [total, reused, packReused]) => {
          const objects = objectEnumerationResult(result.remoteMessages);
          objects.total = asObjectCount(total);
          objects.reused = asObjectCount(reused);
          objects.packReused = asNumber(packReused);
        }
      )
    ];
  }
});
function parseRemoteMessages(_stdOut, stdErr) {
  return parseStringResponse({ remoteMessages: new RemoteMessageSummary() }, parsers2, stdErr);
}
var parsers2;
var RemoteMessageSummary;
var init_parse_remote_messages = __esm({
  "src/lib/parsers/parse-remote-messages.ts"() {
    "use strict";
    init_utils();
    init_parse_remote_objects();
    parsers2 = [
      new RemoteLineParser(/^remote:\s*(.+)$/, (result, [text]) => {
        result.remoteMessages.all.push(text.trim());
        return false;
      }),
      ...remoteMessagesObjectParsers,
      new RemoteLineParser(
        [/create a (?:pull|merge) request/i, /\s(https?:\/\/\S+)$/],
        (result, [pullRequestUrl]) => {
          result.remoteMessages.pullRequestUrl = pullRequestUrl;
        }
      ),
      new RemoteLineParser(
        [/found (\d+) vulnerabilities.+\(([^)]+)\)/i, /\s(https?:\/\/\S+)$/],
        (result, [count, summary, url]) => {
          result.remoteMessages.vulnerabilities = {
            count: asNumber(count),
            summary,
            url
          };
        }
      )
    ];
    RemoteMessageSummary = class {
      constructor() {
        this.all = [];
      }
    };
  }
});
function parsePullErrorResult(stdOut, stdErr) {
  const pullError = parseStringResponse(new PullFailedSummary(), errorParsers, [stdOut, stdErr]);
  return pullError.message && pullError;
}
var FILE_UPDATE_REGEX;
var SUMMARY_REGEX;
var ACTION_REGEX;
var parsers3;
var errorParsers;
var parsePullDetail;
var parsePullResult;
var init_parse_pull = __esm({
  "src/lib/parsers/parse-pull.ts"() {
    "use strict";
    init_PullSummary();
    init_utils();
    init_parse_remote_messages();
    FILE_UPDATE_REGEX = /^\s*(.+?)\s+\|\s+\d+\s*(\+*)(-*)/;
    SUMMARY_REGEX = /(\d+)\D+((\d+)\D+\(\+\))?(\D+(\d+)\D+\(-\))?/;
    ACTION_REGEX = /^(create|delete) mode \d+ (.+)/;
    parsers3 = [
      new LineParser(FILE_UPDATE_REGEX, (result, [file, insertions, deletions]) => {
        result.files.push(file);
        if (insertions) {
          result.insertions[file] = insertions.length;
        }
        if (deletions) {
          result.deletions[file] = deletions.length;
        }
      }),
      new LineParser(SUMMARY_REGEX, (result, [changes, , insertions, , deletions]) => {
        if (insertions !== void 0 || deletions !== void 0) {
          result.summary.changes = +changes || 0;
          result.summary.insertions = +insertions || 0;
          result.summary.deletions = +deletions || 0;
          return true;
        }
        return false;
      }),
      new LineParser(ACTION_REGEX, (result, [action, file]) => {
        append(result.files, file);
        append(action === "create" ? result.created : result.deleted, file);
      })
    ];
    errorParsers = [
      new LineParser(/^from\s(.+)$/i, (result, [remote]) => void (result.remote = remote)),
      new LineParser(/^fatal:\s(.+)$/, (result, [message]) => void (result.message = message)),
      new LineParser(
        /([a-z0-9]+)\.\.([a-z0-9]+)\s+(\S+)\s+->\s+(\S+)$/,
        (result, [hashLocal, hashRemote, branchLocal, branchRemote]) => {
          result.branch.local = branchLocal;
          result.hash.local = hashLocal;
          result.branch.remote = branchRemote;
          result.hash.remote = hashRemote;
        }
      )
    ];
    parsePullDetail = (stdOut, stdErr) => {
      return parseStringResponse(new PullSummary(), parsers3, [stdOut, stdErr]);
    };
    parsePullResult = (stdOut, stdErr) => {
      return Object.assign(
        new PullSummary(),
        parsePullDetail(stdOut, stdErr),
        parseRemoteMessages(stdOut, stdErr)
      );
    };
  }
});
var parsers4;
var parseMergeResult;
var parseMergeDetail;
var init_parse_merge = __esm({
  "src/lib/parsers/parse-merge.ts"() {
    "use strict";
    init_MergeSummary();
    init_utils();
    init_parse_pull();
    parsers4 = [
      new LineParser(/^Auto-merging\s+(.+)$/, (summary, [autoMerge]) => {
        summary.merges.push(autoMerge);
      }),
      new LineParser(/^CONFLICT\s+\((.+)\): Merge conflict in (.+)$/, (summary, [reason, file]) => {
        summary.conflicts.push(new MergeSummaryConflict(reason, file));
      }),
      new LineParser(
        /^CONFLICT\s+\((.+\/delete)\): (.+) deleted in (.+) and/,
        (summary, [reason, file, deleteRef]) => {
          summary.conflicts.push(new MergeSummaryConflict(reason, file, { deleteRef }));
        }
      ),
      new LineParser(/^CONFLICT\s+\((.+)\):/, (summary, [reason]) => {
        summary.conflicts.push(new MergeSummaryConflict(reason, null));
      }),
      new LineParser(/^Automatic merge failed;\s+(.+)$/, (summary, [result]) => {
        summary.result = result;
      })
    ];
    parseMergeResult = (stdOut, stdErr) => {
      return Object.assign(parseMergeDetail(stdOut, stdErr), parsePullResult(stdOut, stdErr));
    };
    parseMergeDetail = (stdOut) => {
      return parseStringResponse(new MergeSummaryDetail(), parsers4, stdOut);
    };
  }
});
function mergeTask(customArgs) {
  if (!customArgs.length) {
    return configurationErrorTask("Git.merge requires at least one option");
  }
  return {
    commands: ["merge", ...customArgs],
    format: "utf-8",
    parser(stdOut, stdErr) {
      const merge = parseMergeResult(stdOut, stdErr);
      if (merge.failed) {
        throw new GitResponseError(merge);
      }
      return merge;
    }
  };
}
var init_merge = __esm({
  "src/lib/tasks/merge.ts"() {
    "use strict";
    init_git_response_error();
    init_parse_merge();
    init_task();
  }
});
function pushResultPushedItem(local, remote, status) {
  const deleted = status.includes("deleted");
  const tag = status.includes("tag") || /^refs\/tags/.test(local);
  const alreadyUpdated = !status.includes("new");
  return {
    deleted,
    tag,
    branch: !tag,
    new: !alreadyUpdated,
    alreadyUpdated,
    local,
    remote
  };
}
var parsers5;
var parsePushResult;
var parsePushDetail;
var init_parse_push = __esm({
  "src/lib/parsers/parse-push.ts"() {
    "use strict";
    init_utils();
    init_parse_remote_messages();
    parsers5 = [
      new LineParser(/^Pushing to (.+)$/, (result, [repo]) => {
        result.repo = repo;
      }),
      new LineParser(/^updating local tracking ref '(.+)'/, (result, [local]) => {
        result.ref = {
          ...result.ref || {},
          local
        };
      }),
      new LineParser(/^[=*-]\s+([^:]+):(\S+)\s+\[(.+)]$/, (result, [local, remote, type]) => {
        result.pushed.push(pushResultPushedItem(local, remote, type));
      }),
      new LineParser(
        /^Branch '([^']+)' set up to track remote branch '([^']+)' from '([^']+)'/,
        (result, [local, remote, remoteName]) => {
          result.branch = {
            ...result.branch || {},
            local,
            remote,
            remoteName
          };
        }
      ),
      new LineParser(
        /^([^:]+):(\S+)\s+([a-z0-9]+)\.\.([a-z0-9]+)$/,
        (result, [local, remote, from, to]) => {
          result.update = {
            head: {
              local,
              remote
            },
            hash: {
              from,
              to
            }
          };
        }
      )
    ];
    parsePushResult = (stdOut, stdErr) => {
      const pushDetail = parsePushDetail(stdOut, stdErr);
      const responseDetail = parseRemoteMessages(stdOut, stdErr);
      return {
        ...pushDetail,
        ...responseDetail
      };
    };
    parsePushDetail = (stdOut, stdErr) => {
      return parseStringResponse({ pushed: [] }, parsers5, [stdOut, stdErr]);
    };
  }
});
var push_exports = {};
__export(push_exports, {
  pushTagsTask: () => pushTagsTask,
  pushTask: () => pushTask
});
function pushTagsTask(ref = {}, customArgs) {
  append(customArgs, "--tags");
  return pushTask(ref, customArgs);
}
function pushTask(ref = {}, customArgs) {
  const commands = ["push", ...customArgs];
  if (ref.branch) {
    commands.splice(1, 0, ref.branch);
  }
  if (ref.remote) {
    commands.splice(1, 0, ref.remote);
  }
  remove(commands, "-v");
  append(commands, "--verbose");
  append(commands, "--porcelain");
  return {
    commands,
    format: "utf-8",
    parser: parsePushResult
  };
}
var init_push = __esm({
  "src/lib/tasks/push.ts"() {
    "use strict";
    init_parse_push();
    init_utils();
  }
});
function show_default() {
  return {
    showBuffer() {
      const commands = ["show", ...getTrailingOptions(arguments, 1)];
      if (!commands.includes("--binary")) {
        commands.splice(1, 0, "--binary");
      }
      return this._runTask(
        straightThroughBufferTask(commands),
        trailingFunctionArgument(arguments)
      );
    },
    show() {
      const commands = ["show", ...getTrailingOptions(arguments, 1)];
      return this._runTask(
        straightThroughStringTask(commands),
        trailingFunctionArgument(arguments)
      );
    }
  };
}
var init_show = __esm({
  "src/lib/tasks/show.ts"() {
    "use strict";
    init_utils();
    init_task();
  }
});
var fromPathRegex;
var FileStatusSummary;
var init_FileStatusSummary = __esm({
  "src/lib/responses/FileStatusSummary.ts"() {
    "use strict";
    fromPathRegex = /^(.+)\0(.+)$/;
    FileStatusSummary = class {
      constructor(path, index, working_dir) {
        this.path = path;
        this.index = index;
        this.working_dir = working_dir;
        if (index === "R" || working_dir === "R") {
          const detail = fromPathRegex.exec(path) || [null, path, path];
          this.from = detail[2] || "";
          this.path = detail[1] || "";
        }
      }
    };
  }
});
function renamedFile(line) {
  const [to, from] = line.split(NULL);
  return {
    from: from || to,
    to
  };
}
function parser3(indexX, indexY, handler) {
  return [`${indexX}${indexY}`, handler];
}
function conflicts(indexX, ...indexY) {
  return indexY.map((y2) => parser3(indexX, y2, (result, file) => result.conflicted.push(file)));
}
function splitLine(result, lineStr) {
  const trimmed2 = lineStr.trim();
  switch (" ") {
    case trimmed2.charAt(2):
      return data(trimmed2.charAt(0), trimmed2.charAt(1), trimmed2.slice(3));
    case trimmed2.charAt(1):
      return data(" ", trimmed2.charAt(0), trimmed2.slice(2));
    default:
      return;
  }
  function data(index, workingDir, path) {
    const raw = `${index}${workingDir}`;
    const handler = parsers6.get(raw);
    if (handler) {
      handler(result, path);
    }
    if (raw !== "##" && raw !== "!!") {
      result.files.push(new FileStatusSummary(path, index, workingDir));
    }
  }
}
var StatusSummary;
var parsers6;
var parseStatusSummary;
var init_StatusSummary = __esm({
  "src/lib/responses/StatusSummary.ts"() {
    "use strict";
    init_utils();
    init_FileStatusSummary();
    StatusSummary = class {
      constructor() {
        this.not_added = [];
        this.conflicted = [];
        this.created = [];
        this.deleted = [];
        this.ignored = void 0;
        this.modified = [];
        this.renamed = [];
        this.files = [];
        this.staged = [];
        this.ahead = 0;
        this.behind = 0;
        this.current = null;
        this.tracking = null;
        this.detached = false;
        this.isClean = () => {
          return !this.files.length;
        };
      }
    };
    parsers6 = new Map([
      parser3(
        " ",
        "A",
        (result, file) => result.created.push(file)
      ),
      parser3(
        " ",
        "D",
        (result, file) => result.deleted.push(file)
      ),
      parser3(
        " ",
        "M",
        (result, file) => result.modified.push(file)
      ),
      parser3("A", " ", (result, file) => {
        result.created.push(file);
        result.staged.push(file);
      }),
      parser3("A", "M", (result, file) => {
        result.created.push(file);
        result.staged.push(file);
        result.modified.push(file);
      }),
      parser3("D", " ", (result, file) => {
        result.deleted.push(file);
        result.staged.push(file);
      }),
      parser3("M", " ", (result, file) => {
        result.modified.push(file);
        result.staged.push(file);
      }),
      parser3("M", "M", (result, file) => {
        result.modified.push(file);
        result.staged.push(file);
      }),
      parser3("R", " ", (result, file) => {
        result.renamed.push(renamedFile(file));
      }),
      parser3("R", "M", (result, file) => {
        const renamed = renamedFile(file);
        result.renamed.push(renamed);
        result.modified.push(renamed.to);
      }),
      parser3("!", "!", (_result, _file) => {
        (_result.ignored = _result.ignored || []).push(_file);
      }),
      parser3(
        "?",
        "?",
        (result, file) => result.not_added.push(file)
      ),
      ...conflicts(
        "A",
        "A",
        "U"
        /* UNMERGED */
      ),
      ...conflicts(
        "D",
        "D",
        "U"
        /* UNMERGED */
      ),
      ...conflicts(
        "U",
        "A",
        "D",
        "U"
        /* UNMERGED */
      ),
      [
        "##",
        (result, line) => {
          const aheadReg = /ahead (\d+)/;
          const behindReg = /behind (\d+)/;
          const currentReg = /^(.+?(?=(?:\.{3}|\s|$)))/;
          const trackingReg = /\.{3}(\S*)/;
          const onEmptyBranchReg = /\son\s(\S+?)(?=\.{3}|$)/;
          let regexResult = aheadReg.exec(line);
          result.ahead = regexResult && +regexResult[1] || 0;
          regexResult = behindReg.exec(line);
          result.behind = regexResult && +regexResult[1] || 0;
          regexResult = currentReg.exec(line);
          result.current = filterType(regexResult?.[1], filterString, null);
          regexResult = trackingReg.exec(line);
          result.tracking = filterType(regexResult?.[1], filterString, null);
          regexResult = onEmptyBranchReg.exec(line);
          if (regexResult) {
            result.current = filterType(regexResult?.[1], filterString, result.current);
          }
          result.detached = /\(no branch\)/.test(line);
        }
      ]
    ]);
    parseStatusSummary = function(text) {
      const lines = text.split(NULL);
      const status = new StatusSummary();
      for (let i2 = 0, l = lines.length; i2 < l; ) {
        let line = lines[i2++].trim();
        if (!line) {
          continue;
        }
        if (line.charAt(0) === "R") {
          line += NULL + (lines[i2++] || "");
        }
        splitLine(status, line);
      }
      return status;
    };
  }
});
function statusTask(customArgs) {
  const commands = [
    "status",
    "--porcelain",
    "-b",
    "-u",
    "--null",
    ...customArgs.filter((arg) => !ignoredOptions.includes(arg))
  ];
  return {
    format: "utf-8",
    commands,
    parser(text) {
      return parseStatusSummary(text);
    }
  };
}
var ignoredOptions;
var init_status = __esm({
  "src/lib/tasks/status.ts"() {
    "use strict";
    init_StatusSummary();
    ignoredOptions = ["--null", "-z"];
  }
});
function versionResponse(major = 0, minor = 0, patch = 0, agent = "", installed = true) {
  return Object.defineProperty(
    {
      major,
      minor,
      patch,
      agent,
      installed
    },
    "toString",
    {
      value() {
        return `${this.major}.${this.minor}.${this.patch}`;
      },
      configurable: false,
      enumerable: false
    }
  );
}
function notInstalledResponse() {
  return versionResponse(0, 0, 0, "", false);
}
function version_default() {
  return {
    version() {
      return this._runTask({
        commands: ["--version"],
        format: "utf-8",
        parser: versionParser,
        onError(result, error, done, fail) {
          if (result.exitCode === -2) {
            return done(Buffer.from(NOT_INSTALLED));
          }
          fail(error);
        }
      });
    }
  };
}
function versionParser(stdOut) {
  if (stdOut === NOT_INSTALLED) {
    return notInstalledResponse();
  }
  return parseStringResponse(versionResponse(0, 0, 0, stdOut), parsers7, stdOut);
}
var NOT_INSTALLED;
var parsers7;
var init_version = __esm({
  "src/lib/tasks/version.ts"() {
    "use strict";
    init_utils();
    NOT_INSTALLED = "installed=false";
    parsers7 = [
      new LineParser(
        /version (\d+)\.(\d+)\.(\d+)(?:\s*\((.+)\))?/,
        (result, [major, minor, patch, agent = ""]) => {
          Object.assign(
            result,
            versionResponse(asNumber(major), asNumber(minor), asNumber(patch), agent)
          );
        }
      ),
      new LineParser(
        /version (\d+)\.(\d+)\.(\D+)(.+)?$/,
        (result, [major, minor, patch, agent = ""]) => {
          Object.assign(result, versionResponse(asNumber(major), asNumber(minor), patch, agent));
        }
      )
    ];
  }
});
function createCloneTask(api, task, repoPath, ...args) {
  if (!filterString(repoPath)) {
    return configurationErrorTask(`git.${api}() requires a string 'repoPath'`);
  }
  return task(repoPath, filterType(args[0], filterString), getTrailingOptions(arguments));
}
function clone_default() {
  return {
    clone(repo, ...rest) {
      return this._runTask(
        createCloneTask("clone", cloneTask, filterType(repo, filterString), ...rest),
        trailingFunctionArgument(arguments)
      );
    },
    mirror(repo, ...rest) {
      return this._runTask(
        createCloneTask("mirror", cloneMirrorTask, filterType(repo, filterString), ...rest),
        trailingFunctionArgument(arguments)
      );
    }
  };
}
var cloneTask;
var cloneMirrorTask;
var init_clone = __esm({
  "src/lib/tasks/clone.ts"() {
    "use strict";
    init_task();
    init_utils();
    cloneTask = (repo, directory, customArgs) => {
      const commands = ["clone", ...customArgs];
      filterString(repo) && commands.push(c(repo));
      filterString(directory) && commands.push(c(directory));
      return straightThroughStringTask(commands);
    };
    cloneMirrorTask = (repo, directory, customArgs) => {
      append(customArgs, "--mirror");
      return cloneTask(repo, directory, customArgs);
    };
  }
});
var simple_git_api_exports = {};
__export(simple_git_api_exports, {
  SimpleGitApi: () => SimpleGitApi
});
var SimpleGitApi;
var init_simple_git_api = __esm({
  "src/lib/simple-git-api.ts"() {
    "use strict";
    init_task_callback();
    init_change_working_directory();
    init_checkout();
    init_count_objects();
    init_commit();
    init_config();
    init_first_commit();
    init_grep();
    init_hash_object();
    init_init();
    init_log();
    init_merge();
    init_push();
    init_show();
    init_status();
    init_task();
    init_version();
    init_utils();
    init_clone();
    SimpleGitApi = class {
      constructor(_executor) {
        this._executor = _executor;
      }
      _runTask(task, then) {
        const chain = this._executor.chain();
        const promise = chain.push(task);
        if (then) {
          taskCallback(task, promise, then);
        }
        return Object.create(this, {
          then: { value: promise.then.bind(promise) },
          catch: { value: promise.catch.bind(promise) },
          _executor: { value: chain }
        });
      }
      add(files) {
        return this._runTask(
          straightThroughStringTask(["add", ...asArray(files)]),
          trailingFunctionArgument(arguments)
        );
      }
      cwd(directory) {
        const next = trailingFunctionArgument(arguments);
        if (typeof directory === "string") {
          return this._runTask(changeWorkingDirectoryTask(directory, this._executor), next);
        }
        if (typeof directory?.path === "string") {
          return this._runTask(
            changeWorkingDirectoryTask(
              directory.path,
              directory.root && this._executor || void 0
            ),
            next
          );
        }
        return this._runTask(
          configurationErrorTask("Git.cwd: workingDirectory must be supplied as a string"),
          next
        );
      }
      hashObject(path, write) {
        return this._runTask(
          hashObjectTask(path, write === true),
          trailingFunctionArgument(arguments)
        );
      }
      init(bare) {
        return this._runTask(
          initTask(bare === true, this._executor.cwd, getTrailingOptions(arguments)),
          trailingFunctionArgument(arguments)
        );
      }
      merge() {
        return this._runTask(
          mergeTask(getTrailingOptions(arguments)),
          trailingFunctionArgument(arguments)
        );
      }
      mergeFromTo(remote, branch) {
        if (!(filterString(remote) && filterString(branch))) {
          return this._runTask(
            configurationErrorTask(
              `Git.mergeFromTo requires that the 'remote' and 'branch' arguments are supplied as strings`
            )
          );
        }
        return this._runTask(
          mergeTask([remote, branch, ...getTrailingOptions(arguments)]),
          trailingFunctionArgument(arguments, false)
        );
      }
      outputHandler(handler) {
        this._executor.outputHandler = handler;
        return this;
      }
      push() {
        const task = pushTask(
          {
            remote: filterType(arguments[0], filterString),
            branch: filterType(arguments[1], filterString)
          },
          getTrailingOptions(arguments)
        );
        return this._runTask(task, trailingFunctionArgument(arguments));
      }
      stash() {
        return this._runTask(
          straightThroughStringTask(["stash", ...getTrailingOptions(arguments)]),
          trailingFunctionArgument(arguments)
        );
      }
      status() {
        return this._runTask(
          statusTask(getTrailingOptions(arguments)),
          trailingFunctionArgument(arguments)
        );
      }
    };
    Object.assign(
      SimpleGitApi.prototype,
      checkout_default(),
      clone_default(),
      commit_default(),
      config_default(),
      count_objects_default(),
      first_commit_default(),
      grep_default(),
      log_default(),
      show_default(),
      version_default()
    );
  }
});
var scheduler_exports = {};
__export(scheduler_exports, {
  Scheduler: () => Scheduler
});
var createScheduledTask;
var Scheduler;
var init_scheduler = __esm({
  "src/lib/runners/scheduler.ts"() {
    "use strict";
    init_utils();
    init_git_logger();
    createScheduledTask = /* @__PURE__ */ (() => {
      let id = 0;
      return () => {
        id++;
        const { promise, done } = (0, import_promise_deferred.createDeferred)();
        return {
          promise,
          done,
          id
        };
      };
    })();
    Scheduler = class {
      constructor(concurrency = 2) {
        this.concurrency = concurrency;
        this.logger = createLogger("", "scheduler");
        this.pending = [];
        this.running = [];
        this.logger(`Constructed, concurrency=%s`, concurrency);
      }
      schedule() {
        if (!this.pending.length || this.running.length >= this.concurrency) {
          this.logger(
            `Schedule attempt ignored, pending=%s running=%s concurrency=%s`,
            this.pending.length,
            this.running.length,
            this.concurrency
          );
          return;
        }
        const task = append(this.running, this.pending.shift());
        this.logger(`Attempting id=%s`, task.id);
        task.done(() => {
          this.logger(`Completing id=`, task.id);
          remove(this.running, task);
          this.schedule();
        });
      }
      next() {
        const { promise, id } = append(this.pending, createScheduledTask());
        this.logger(`Scheduling id=%s`, id);
        this.schedule();
        return promise;
      }
    };
  }
});
var apply_patch_exports = {};
__export(apply_patch_exports, {
  applyPatchTask: () => applyPatchTask
});
function applyPatchTask(patches, customArgs) {
  return straightThroughStringTask(["apply", ...customArgs, ...patches]);
}
var init_apply_patch = __esm({
  "src/lib/tasks/apply-patch.ts"() {
    "use strict";
    init_task();
  }
});
function branchDeletionSuccess(branch, hash) {
  return {
    branch,
    hash,
    success: true
  };
}
function branchDeletionFailure(branch) {
  return {
    branch,
    hash: null,
    success: false
  };
}
var BranchDeletionBatch;
var init_BranchDeleteSummary = __esm({
  "src/lib/responses/BranchDeleteSummary.ts"() {
    "use strict";
    BranchDeletionBatch = class {
      constructor() {
        this.all = [];
        this.branches = {};
        this.errors = [];
      }
      get success() {
        return !this.errors.length;
      }
    };
  }
});
function hasBranchDeletionError(data, processExitCode) {
  return processExitCode === 1 && deleteErrorRegex.test(data);
}
var deleteSuccessRegex;
var deleteErrorRegex;
var parsers8;
var parseBranchDeletions;
var init_parse_branch_delete = __esm({
  "src/lib/parsers/parse-branch-delete.ts"() {
    "use strict";
    init_BranchDeleteSummary();
    init_utils();
    deleteSuccessRegex = /(\S+)\s+\(\S+\s([^)]+)\)/;
    deleteErrorRegex = /^error[^']+'([^']+)'/m;
    parsers8 = [
      new LineParser(deleteSuccessRegex, (result, [branch, hash]) => {
        const deletion = branchDeletionSuccess(branch, hash);
        result.all.push(deletion);
        result.branches[branch] = deletion;
      }),
      new LineParser(deleteErrorRegex, (result, [branch]) => {
        const deletion = branchDeletionFailure(branch);
        result.errors.push(deletion);
        result.all.push(deletion);
        result.branches[branch] = deletion;
      })
    ];
    parseBranchDeletions = (stdOut, stdErr) => {
      return parseStringResponse(new BranchDeletionBatch(), parsers8, [stdOut, stdErr]);
    };
  }
});
var BranchSummaryResult;
var init_BranchSummary = __esm({
  "src/lib/responses/BranchSummary.ts"() {
    "use strict";
    BranchSummaryResult = class {
      constructor() {
        this.all = [];
        this.branches = {};
        this.current = "";
        this.detached = false;
      }
      push(status, detached, name, commit, label) {
        if (status === "*") {
          this.detached = detached;
          this.current = name;
        }
        this.all.push(name);
        this.branches[name] = {
          current: status === "*",
          linkedWorkTree: status === "+",
          name,
          commit,
          label
        };
      }
    };
  }
});
function branchStatus(input) {
  return input ? input.charAt(0) : "";
}
function parseBranchSummary(stdOut, currentOnly = false) {
  return parseStringResponse(
    new BranchSummaryResult(),
    currentOnly ? [currentBranchParser] : parsers9,
    stdOut
  );
}
var parsers9;
var currentBranchParser;
var init_parse_branch = __esm({
  "src/lib/parsers/parse-branch.ts"() {
    "use strict";
    init_BranchSummary();
    init_utils();
    parsers9 = [
      new LineParser(
        /^([*+]\s)?\((?:HEAD )?detached (?:from|at) (\S+)\)\s+([a-z0-9]+)\s(.*)$/,
        (result, [current, name, commit, label]) => {
          result.push(branchStatus(current), true, name, commit, label);
        }
      ),
      new LineParser(
        /^([*+]\s)?(\S+)\s+([a-z0-9]+)\s?(.*)$/s,
        (result, [current, name, commit, label]) => {
          result.push(branchStatus(current), false, name, commit, label);
        }
      )
    ];
    currentBranchParser = new LineParser(/^(\S+)$/s, (result, [name]) => {
      result.push("*", false, name, "", "");
    });
  }
});
var branch_exports = {};
__export(branch_exports, {
  branchLocalTask: () => branchLocalTask,
  branchTask: () => branchTask,
  containsDeleteBranchCommand: () => containsDeleteBranchCommand,
  deleteBranchTask: () => deleteBranchTask,
  deleteBranchesTask: () => deleteBranchesTask
});
function containsDeleteBranchCommand(commands) {
  const deleteCommands = ["-d", "-D", "--delete"];
  return commands.some((command) => deleteCommands.includes(command));
}
function branchTask(customArgs) {
  const isDelete = containsDeleteBranchCommand(customArgs);
  const isCurrentOnly = customArgs.includes("--show-current");
  const commands = ["branch", ...customArgs];
  if (commands.length === 1) {
    commands.push("-a");
  }
  if (!commands.includes("-v")) {
    commands.splice(1, 0, "-v");
  }
  return {
    format: "utf-8",
    commands,
    parser(stdOut, stdErr) {
      if (isDelete) {
        return parseBranchDeletions(stdOut, stdErr).all[0];
      }
      return parseBranchSummary(stdOut, isCurrentOnly);
    }
  };
}
function branchLocalTask() {
  return {
    format: "utf-8",
    commands: ["branch", "-v"],
    parser(stdOut) {
      return parseBranchSummary(stdOut);
    }
  };
}
function deleteBranchesTask(branches, forceDelete = false) {
  return {
    format: "utf-8",
    commands: ["branch", "-v", forceDelete ? "-D" : "-d", ...branches],
    parser(stdOut, stdErr) {
      return parseBranchDeletions(stdOut, stdErr);
    },
    onError({ exitCode, stdOut }, error, done, fail) {
      if (!hasBranchDeletionError(String(error), exitCode)) {
        return fail(error);
      }
      done(stdOut);
    }
  };
}
function deleteBranchTask(branch, forceDelete = false) {
  const task = {
    format: "utf-8",
    commands: ["branch", "-v", forceDelete ? "-D" : "-d", branch],
    parser(stdOut, stdErr) {
      return parseBranchDeletions(stdOut, stdErr).branches[branch];
    },
    onError({ exitCode, stdErr, stdOut }, error, _2, fail) {
      if (!hasBranchDeletionError(String(error), exitCode)) {
        return fail(error);
      }
      throw new GitResponseError(
        task.parser(bufferToString(stdOut), bufferToString(stdErr)),
        String(error)
      );
    }
  };
  return task;
}
var init_branch = __esm({
  "src/lib/tasks/branch.ts"() {
    "use strict";
    init_git_response_error();
    init_parse_branch_delete();
    init_parse_branch();
    init_utils();
  }
});
function toPath(input) {
  const path = input.trim().replace(/^["']|["']$/g, "");
  return path && normalize(path);
}
var parseCheckIgnore;
var init_CheckIgnore = __esm({
  "src/lib/responses/CheckIgnore.ts"() {
    "use strict";
    parseCheckIgnore = (text) => {
      return text.split(/\n/g).map(toPath).filter(Boolean);
    };
  }
});
var check_ignore_exports = {};
__export(check_ignore_exports, {
  checkIgnoreTask: () => checkIgnoreTask
});
function checkIgnoreTask(paths) {
  return {
    commands: ["check-ignore", ...paths],
    format: "utf-8",
    parser: parseCheckIgnore
  };
}
var init_check_ignore = __esm({
  "src/lib/tasks/check-ignore.ts"() {
    "use strict";
    init_CheckIgnore();
  }
});
function parseFetchResult(stdOut, stdErr) {
  const result = {
    raw: stdOut,
    remote: null,
    branches: [],
    tags: [],
    updated: [],
    deleted: []
  };
  return parseStringResponse(result, parsers10, [stdOut, stdErr]);
}
var parsers10;
var init_parse_fetch = __esm({
  "src/lib/parsers/parse-fetch.ts"() {
    "use strict";
    init_utils();
    parsers10 = [
      new LineParser(/From (.+)$/, (result, [remote]) => {
        result.remote = remote;
      }),
      new LineParser(/\* \[new branch]\s+(\S+)\s*-> (.+)$/, (result, [name, tracking]) => {
        result.branches.push({
          name,
          tracking
        });
      }),
      new LineParser(/\* \[new tag]\s+(\S+)\s*-> (.+)$/, (result, [name, tracking]) => {
        result.tags.push({
          name,
          tracking
        });
      }),
      new LineParser(/- \[deleted]\s+\S+\s*-> (.+)$/, (result, [tracking]) => {
        result.deleted.push({
          tracking
        });
      }),
      new LineParser(
        /\s*([^.]+)\.\.(\S+)\s+(\S+)\s*-> (.+)$/,
        (result, [from, to, name, tracking]) => {
          result.updated.push({
            name,
            tracking,
            to,
            from
          });
        }
      )
    ];
  }
});
var fetch_exports = {};
__export(fetch_exports, {
  fetchTask: () => fetchTask
});
function disallowedCommand(command) {
  return /^--upload-pack(=|$)/.test(command);
}
function fetchTask(remote, branch, customArgs) {
  const commands = ["fetch", ...customArgs];
  if (remote && branch) {
    commands.push(remote, branch);
  }
  const banned = commands.find(disallowedCommand);
  if (banned) {
    return configurationErrorTask(`git.fetch: potential exploit argument blocked.`);
  }
  return {
    commands,
    format: "utf-8",
    parser: parseFetchResult
  };
}
var init_fetch = __esm({
  "src/lib/tasks/fetch.ts"() {
    "use strict";
    init_parse_fetch();
    init_task();
  }
});
function parseMoveResult(stdOut) {
  return parseStringResponse({ moves: [] }, parsers11, stdOut);
}
var parsers11;
var init_parse_move = __esm({
  "src/lib/parsers/parse-move.ts"() {
    "use strict";
    init_utils();
    parsers11 = [
      new LineParser(/^Renaming (.+) to (.+)$/, (result, [from, to]) => {
        result.moves.push({ from, to });
      })
    ];
  }
});
var move_exports = {};
__export(move_exports, {
  moveTask: () => moveTask
});
function moveTask(from, to) {
  return {
    commands: ["mv", "-v", ...asArray(from), to],
    format: "utf-8",
    parser: parseMoveResult
  };
}
var init_move = __esm({
  "src/lib/tasks/move.ts"() {
    "use strict";
    init_parse_move();
    init_utils();
  }
});
var pull_exports = {};
__export(pull_exports, {
  pullTask: () => pullTask
});
function pullTask(remote, branch, customArgs) {
  const commands = ["pull", ...customArgs];
  if (remote && branch) {
    commands.splice(1, 0, remote, branch);
  }
  return {
    commands,
    format: "utf-8",
    parser(stdOut, stdErr) {
      return parsePullResult(stdOut, stdErr);
    },
    onError(result, _error, _done, fail) {
      const pullError = parsePullErrorResult(
        bufferToString(result.stdOut),
        bufferToString(result.stdErr)
      );
      if (pullError) {
        return fail(new GitResponseError(pullError));
      }
      fail(_error);
    }
  };
}
var init_pull = __esm({
  "src/lib/tasks/pull.ts"() {
    "use strict";
    init_git_response_error();
    init_parse_pull();
    init_utils();
  }
});
function parseGetRemotes(text) {
  const remotes = {};
  forEach(text, ([name]) => remotes[name] = { name });
  return Object.values(remotes);
}
function parseGetRemotesVerbose(text) {
  const remotes = {};
  forEach(text, ([name, url, purpose]) => {
    if (!Object.hasOwn(remotes, name)) {
      remotes[name] = {
        name,
        refs: { fetch: "", push: "" }
      };
    }
    if (purpose && url) {
      remotes[name].refs[purpose.replace(/[^a-z]/g, "")] = url;
    }
  });
  return Object.values(remotes);
}
function forEach(text, handler) {
  forEachLineWithContent(text, (line) => handler(line.split(/\s+/)));
}
var init_GetRemoteSummary = __esm({
  "src/lib/responses/GetRemoteSummary.ts"() {
    "use strict";
    init_utils();
  }
});
var remote_exports = {};
__export(remote_exports, {
  addRemoteTask: () => addRemoteTask,
  getRemotesTask: () => getRemotesTask,
  listRemotesTask: () => listRemotesTask,
  remoteTask: () => remoteTask,
  removeRemoteTask: () => removeRemoteTask
});
function addRemoteTask(remoteName, remoteRepo, customArgs) {
  return straightThroughStringTask(["remote", "add", ...customArgs, remoteName, remoteRepo]);
}
function getRemotesTask(verbose) {
  const commands = ["remote"];
  if (verbose) {
    commands.push("-v");
  }
  return {
    commands,
    format: "utf-8",
    parser: verbose ? parseGetRemotesVerbose : parseGetRemotes
  };
}
function listRemotesTask(customArgs) {
  const commands = [...customArgs];
  if (commands[0] !== "ls-remote") {
    commands.unshift("ls-remote");
  }
  return straightThroughStringTask(commands);
}
function remoteTask(customArgs) {
  const commands = [...customArgs];
  if (commands[0] !== "remote") {
    commands.unshift("remote");
  }
  return straightThroughStringTask(commands);
}
function removeRemoteTask(remoteName) {
  return straightThroughStringTask(["remote", "remove", remoteName]);
}
var init_remote = __esm({
  "src/lib/tasks/remote.ts"() {
    "use strict";
    init_GetRemoteSummary();
    init_task();
  }
});
var stash_list_exports = {};
__export(stash_list_exports, {
  stashListTask: () => stashListTask
});
function stashListTask(opt = {}, customArgs) {
  const options = parseLogOptions(opt);
  const commands = ["stash", "list", ...options.commands, ...customArgs];
  const parser4 = createListLogSummaryParser(
    options.splitter,
    options.fields,
    logFormatFromCommand(commands)
  );
  return validateLogFormatConfig(commands) || {
    commands,
    format: "utf-8",
    parser: parser4
  };
}
var init_stash_list = __esm({
  "src/lib/tasks/stash-list.ts"() {
    "use strict";
    init_log_format();
    init_parse_list_log_summary();
    init_diff();
    init_log();
  }
});
var sub_module_exports = {};
__export(sub_module_exports, {
  addSubModuleTask: () => addSubModuleTask,
  initSubModuleTask: () => initSubModuleTask,
  subModuleTask: () => subModuleTask,
  updateSubModuleTask: () => updateSubModuleTask
});
function addSubModuleTask(repo, path) {
  return subModuleTask(["add", repo, path]);
}
function initSubModuleTask(customArgs) {
  return subModuleTask(["init", ...customArgs]);
}
function subModuleTask(customArgs) {
  const commands = [...customArgs];
  if (commands[0] !== "submodule") {
    commands.unshift("submodule");
  }
  return straightThroughStringTask(commands);
}
function updateSubModuleTask(customArgs) {
  return subModuleTask(["update", ...customArgs]);
}
var init_sub_module = __esm({
  "src/lib/tasks/sub-module.ts"() {
    "use strict";
    init_task();
  }
});
function singleSorted(a, b2) {
  const aIsNum = Number.isNaN(a);
  const bIsNum = Number.isNaN(b2);
  if (aIsNum !== bIsNum) {
    return aIsNum ? 1 : -1;
  }
  return aIsNum ? sorted(a, b2) : 0;
}
function sorted(a, b2) {
  return a === b2 ? 0 : a > b2 ? 1 : -1;
}
function trimmed(input) {
  return input.trim();
}
function toNumber(input) {
  if (typeof input === "string") {
    return parseInt(input.replace(/^\D+/g, ""), 10) || 0;
  }
  return 0;
}
var TagList;
var parseTagList;
var init_TagList = __esm({
  "src/lib/responses/TagList.ts"() {
    "use strict";
    TagList = class {
      constructor(all, latest) {
        this.all = all;
        this.latest = latest;
      }
    };
    parseTagList = function(data, customSort = false) {
      const tags = data.split("\n").map(trimmed).filter(Boolean);
      if (!customSort) {
        tags.sort(function(tagA, tagB) {
          const partsA = tagA.split(".");
          const partsB = tagB.split(".");
          if (partsA.length === 1 || partsB.length === 1) {
            return singleSorted(toNumber(partsA[0]), toNumber(partsB[0]));
          }
          for (let i2 = 0, l = Math.max(partsA.length, partsB.length); i2 < l; i2++) {
            const diff = sorted(toNumber(partsA[i2]), toNumber(partsB[i2]));
            if (diff) {
              return diff;
            }
          }
          return 0;
        });
      }
      const latest = customSort ? tags[0] : [...tags].reverse().find((tag) => tag.indexOf(".") >= 0);
      return new TagList(tags, latest);
    };
  }
});
var tag_exports = {};
__export(tag_exports, {
  addAnnotatedTagTask: () => addAnnotatedTagTask,
  addTagTask: () => addTagTask,
  tagListTask: () => tagListTask
});
function tagListTask(customArgs = []) {
  const hasCustomSort = customArgs.some((option) => /^--sort=/.test(option));
  return {
    format: "utf-8",
    commands: ["tag", "-l", ...customArgs],
    parser(text) {
      return parseTagList(text, hasCustomSort);
    }
  };
}
function addTagTask(name) {
  return {
    format: "utf-8",
    commands: ["tag", name],
    parser() {
      return { name };
    }
  };
}
function addAnnotatedTagTask(name, tagMessage) {
  return {
    format: "utf-8",
    commands: ["tag", "-a", "-m", tagMessage, name],
    parser() {
      return { name };
    }
  };
}
var init_tag = __esm({
  "src/lib/tasks/tag.ts"() {
    "use strict";
    init_TagList();
  }
});
var require_git = __commonJS2({
  "src/git.js"(exports, module) {
    "use strict";
    var { GitExecutor: GitExecutor2 } = (init_git_executor(), __toCommonJS(git_executor_exports));
    var { SimpleGitApi: SimpleGitApi2 } = (init_simple_git_api(), __toCommonJS(simple_git_api_exports));
    var { Scheduler: Scheduler2 } = (init_scheduler(), __toCommonJS(scheduler_exports));
    var { adhocExecTask: adhocExecTask2, configurationErrorTask: configurationErrorTask2 } = (init_task(), __toCommonJS(task_exports));
    var {
      asArray: asArray2,
      filterArray: filterArray2,
      filterPrimitives: filterPrimitives2,
      filterString: filterString2,
      filterStringOrStringArray: filterStringOrStringArray2,
      filterType: filterType2,
      getTrailingOptions: getTrailingOptions2,
      trailingFunctionArgument: trailingFunctionArgument2,
      trailingOptionsArgument: trailingOptionsArgument2
    } = (init_utils(), __toCommonJS(utils_exports));
    var { applyPatchTask: applyPatchTask2 } = (init_apply_patch(), __toCommonJS(apply_patch_exports));
    var {
      branchTask: branchTask2,
      branchLocalTask: branchLocalTask2,
      deleteBranchesTask: deleteBranchesTask2,
      deleteBranchTask: deleteBranchTask2
    } = (init_branch(), __toCommonJS(branch_exports));
    var { checkIgnoreTask: checkIgnoreTask2 } = (init_check_ignore(), __toCommonJS(check_ignore_exports));
    var { checkIsRepoTask: checkIsRepoTask2 } = (init_check_is_repo(), __toCommonJS(check_is_repo_exports));
    var { cleanWithOptionsTask: cleanWithOptionsTask2, isCleanOptionsArray: isCleanOptionsArray2 } = (init_clean(), __toCommonJS(clean_exports));
    var { diffSummaryTask: diffSummaryTask2 } = (init_diff(), __toCommonJS(diff_exports));
    var { fetchTask: fetchTask2 } = (init_fetch(), __toCommonJS(fetch_exports));
    var { moveTask: moveTask2 } = (init_move(), __toCommonJS(move_exports));
    var { pullTask: pullTask2 } = (init_pull(), __toCommonJS(pull_exports));
    var { pushTagsTask: pushTagsTask2 } = (init_push(), __toCommonJS(push_exports));
    var {
      addRemoteTask: addRemoteTask2,
      getRemotesTask: getRemotesTask2,
      listRemotesTask: listRemotesTask2,
      remoteTask: remoteTask2,
      removeRemoteTask: removeRemoteTask2
    } = (init_remote(), __toCommonJS(remote_exports));
    var { getResetMode: getResetMode2, resetTask: resetTask2 } = (init_reset(), __toCommonJS(reset_exports));
    var { stashListTask: stashListTask2 } = (init_stash_list(), __toCommonJS(stash_list_exports));
    var {
      addSubModuleTask: addSubModuleTask2,
      initSubModuleTask: initSubModuleTask2,
      subModuleTask: subModuleTask2,
      updateSubModuleTask: updateSubModuleTask2
    } = (init_sub_module(), __toCommonJS(sub_module_exports));
    var { addAnnotatedTagTask: addAnnotatedTagTask2, addTagTask: addTagTask2, tagListTask: tagListTask2 } = (init_tag(), __toCommonJS(tag_exports));
    var { straightThroughBufferTask: straightThroughBufferTask2, straightThroughStringTask: straightThroughStringTask2 } = (init_task(), __toCommonJS(task_exports));
    function Git2(options, plugins) {
      this._plugins = plugins;
      this._executor = new GitExecutor2(
        options.baseDir,
        new Scheduler2(options.maxConcurrentProcesses),
        plugins
      );
      this._trimmed = options.trimmed;
    }
    (Git2.prototype = Object.create(SimpleGitApi2.prototype)).constructor = Git2;
    Git2.prototype.customBinary = function(command) {
      this._plugins.reconfigure("binary", command);
      return this;
    };
    Git2.prototype.env = function(name, value) {
      if (arguments.length === 1 && typeof name === "object") {
        this._executor.env = name;
      } else {
        (this._executor.env = this._executor.env || {})[name] = value;
      }
      return this;
    };
    Git2.prototype.stashList = function(options) {
      return this._runTask(
        stashListTask2(
          trailingOptionsArgument2(arguments) || {},
          filterArray2(options) && options || []
        ),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.mv = function(from, to) {
      return this._runTask(moveTask2(from, to), trailingFunctionArgument2(arguments));
    };
    Git2.prototype.checkoutLatestTag = function(then) {
      var git = this;
      return this.pull(function() {
        git.tags(function(err, tags) {
          git.checkout(tags.latest, then);
        });
      });
    };
    Git2.prototype.pull = function(remote, branch, options, then) {
      return this._runTask(
        pullTask2(
          filterType2(remote, filterString2),
          filterType2(branch, filterString2),
          getTrailingOptions2(arguments)
        ),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.fetch = function(remote, branch) {
      return this._runTask(
        fetchTask2(
          filterType2(remote, filterString2),
          filterType2(branch, filterString2),
          getTrailingOptions2(arguments)
        ),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.silent = function(silence) {
      return this._runTask(
        adhocExecTask2(
          () => console.warn(
            "simple-git deprecation notice: git.silent: logging should be configured using the `debug` library / `DEBUG` environment variable, this method will be removed."
          )
        )
      );
    };
    Git2.prototype.tags = function(options, then) {
      return this._runTask(
        tagListTask2(getTrailingOptions2(arguments)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.rebase = function() {
      return this._runTask(
        straightThroughStringTask2(["rebase", ...getTrailingOptions2(arguments)]),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.reset = function(mode) {
      return this._runTask(
        resetTask2(getResetMode2(mode), getTrailingOptions2(arguments)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.revert = function(commit) {
      const next = trailingFunctionArgument2(arguments);
      if (typeof commit !== "string") {
        return this._runTask(configurationErrorTask2("Commit must be a string"), next);
      }
      return this._runTask(
        straightThroughStringTask2(["revert", ...getTrailingOptions2(arguments, 0, true), commit]),
        next
      );
    };
    Git2.prototype.addTag = function(name) {
      const task = typeof name === "string" ? addTagTask2(name) : configurationErrorTask2("Git.addTag requires a tag name");
      return this._runTask(task, trailingFunctionArgument2(arguments));
    };
    Git2.prototype.addAnnotatedTag = function(tagName, tagMessage) {
      return this._runTask(
        addAnnotatedTagTask2(tagName, tagMessage),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.deleteLocalBranch = function(branchName, forceDelete, then) {
      return this._runTask(
        deleteBranchTask2(branchName, typeof forceDelete === "boolean" ? forceDelete : false),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.deleteLocalBranches = function(branchNames, forceDelete, then) {
      return this._runTask(
        deleteBranchesTask2(branchNames, typeof forceDelete === "boolean" ? forceDelete : false),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.branch = function(options, then) {
      return this._runTask(
        branchTask2(getTrailingOptions2(arguments)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.branchLocal = function(then) {
      return this._runTask(branchLocalTask2(), trailingFunctionArgument2(arguments));
    };
    Git2.prototype.raw = function(commands) {
      const createRestCommands = !Array.isArray(commands);
      const command = [].slice.call(createRestCommands ? arguments : commands, 0);
      for (let i2 = 0; i2 < command.length && createRestCommands; i2++) {
        if (!filterPrimitives2(command[i2])) {
          command.splice(i2, command.length - i2);
          break;
        }
      }
      command.push(...getTrailingOptions2(arguments, 0, true));
      var next = trailingFunctionArgument2(arguments);
      if (!command.length) {
        return this._runTask(
          configurationErrorTask2("Raw: must supply one or more command to execute"),
          next
        );
      }
      return this._runTask(straightThroughStringTask2(command, this._trimmed), next);
    };
    Git2.prototype.submoduleAdd = function(repo, path, then) {
      return this._runTask(addSubModuleTask2(repo, path), trailingFunctionArgument2(arguments));
    };
    Git2.prototype.submoduleUpdate = function(args, then) {
      return this._runTask(
        updateSubModuleTask2(getTrailingOptions2(arguments, true)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.submoduleInit = function(args, then) {
      return this._runTask(
        initSubModuleTask2(getTrailingOptions2(arguments, true)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.subModule = function(options, then) {
      return this._runTask(
        subModuleTask2(getTrailingOptions2(arguments)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.listRemote = function() {
      return this._runTask(
        listRemotesTask2(getTrailingOptions2(arguments)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.addRemote = function(remoteName, remoteRepo, then) {
      return this._runTask(
        addRemoteTask2(remoteName, remoteRepo, getTrailingOptions2(arguments)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.removeRemote = function(remoteName, then) {
      return this._runTask(removeRemoteTask2(remoteName), trailingFunctionArgument2(arguments));
    };
    Git2.prototype.getRemotes = function(verbose, then) {
      return this._runTask(getRemotesTask2(verbose === true), trailingFunctionArgument2(arguments));
    };
    Git2.prototype.remote = function(options, then) {
      return this._runTask(
        remoteTask2(getTrailingOptions2(arguments)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.tag = function(options, then) {
      const command = getTrailingOptions2(arguments);
      if (command[0] !== "tag") {
        command.unshift("tag");
      }
      return this._runTask(straightThroughStringTask2(command), trailingFunctionArgument2(arguments));
    };
    Git2.prototype.updateServerInfo = function(then) {
      return this._runTask(
        straightThroughStringTask2(["update-server-info"]),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.pushTags = function(remote, then) {
      const task = pushTagsTask2(
        { remote: filterType2(remote, filterString2) },
        getTrailingOptions2(arguments)
      );
      return this._runTask(task, trailingFunctionArgument2(arguments));
    };
    Git2.prototype.rm = function(files) {
      return this._runTask(
        straightThroughStringTask2(["rm", "-f", ...asArray2(files)]),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.rmKeepLocal = function(files) {
      return this._runTask(
        straightThroughStringTask2(["rm", "--cached", ...asArray2(files)]),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.catFile = function(options, then) {
      return this._catFile("utf-8", arguments);
    };
    Git2.prototype.binaryCatFile = function() {
      return this._catFile("buffer", arguments);
    };
    Git2.prototype._catFile = function(format, args) {
      var handler = trailingFunctionArgument2(args);
      var command = ["cat-file"];
      var options = args[0];
      if (typeof options === "string") {
        return this._runTask(
          configurationErrorTask2("Git.catFile: options must be supplied as an array of strings"),
          handler
        );
      }
      if (Array.isArray(options)) {
        command.push.apply(command, options);
      }
      const task = format === "buffer" ? straightThroughBufferTask2(command) : straightThroughStringTask2(command);
      return this._runTask(task, handler);
    };
    Git2.prototype.diff = function(options, then) {
      const task = filterString2(options) ? configurationErrorTask2(
        "git.diff: supplying options as a single string is no longer supported, switch to an array of strings"
      ) : straightThroughStringTask2(["diff", ...getTrailingOptions2(arguments)]);
      return this._runTask(task, trailingFunctionArgument2(arguments));
    };
    Git2.prototype.diffSummary = function() {
      return this._runTask(
        diffSummaryTask2(getTrailingOptions2(arguments, 1)),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.applyPatch = function(patches) {
      const task = !filterStringOrStringArray2(patches) ? configurationErrorTask2(
        `git.applyPatch requires one or more string patches as the first argument`
      ) : applyPatchTask2(asArray2(patches), getTrailingOptions2([].slice.call(arguments, 1)));
      return this._runTask(task, trailingFunctionArgument2(arguments));
    };
    Git2.prototype.revparse = function() {
      const commands = ["rev-parse", ...getTrailingOptions2(arguments, true)];
      return this._runTask(
        straightThroughStringTask2(commands, true),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.clean = function(mode, options, then) {
      const usingCleanOptionsArray = isCleanOptionsArray2(mode);
      const cleanMode = usingCleanOptionsArray && mode.join("") || filterType2(mode, filterString2) || "";
      const customArgs = getTrailingOptions2([].slice.call(arguments, usingCleanOptionsArray ? 1 : 0));
      return this._runTask(
        cleanWithOptionsTask2(cleanMode, customArgs),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.exec = function(then) {
      const task = {
        commands: [],
        format: "utf-8",
        parser() {
          if (typeof then === "function") {
            then();
          }
        }
      };
      return this._runTask(task);
    };
    Git2.prototype.clearQueue = function() {
      return this._runTask(
        adhocExecTask2(
          () => console.warn(
            "simple-git deprecation notice: clearQueue() is deprecated and will be removed, switch to using the abortPlugin instead."
          )
        )
      );
    };
    Git2.prototype.checkIgnore = function(pathnames, then) {
      return this._runTask(
        checkIgnoreTask2(asArray2(filterType2(pathnames, filterStringOrStringArray2, []))),
        trailingFunctionArgument2(arguments)
      );
    };
    Git2.prototype.checkIsRepo = function(checkType, then) {
      return this._runTask(
        checkIsRepoTask2(filterType2(checkType, filterString2)),
        trailingFunctionArgument2(arguments)
      );
    };
    module.exports = Git2;
  }
});
init_git_error();
var GitConstructError = class extends GitError {
  constructor(config, message) {
    super(void 0, message);
    this.config = config;
  }
};
init_git_error();
init_git_error();
var GitPluginError = class extends GitError {
  constructor(task, plugin, message) {
    super(task, message);
    this.task = task;
    this.plugin = plugin;
    Object.setPrototypeOf(this, new.target.prototype);
  }
};
init_git_response_error();
init_task_configuration_error();
init_check_is_repo();
init_clean();
init_config();
init_diff_name_status();
init_grep();
init_reset();
function abortPlugin(signal) {
  if (!signal) {
    return;
  }
  const onSpawnAfter = {
    type: "spawn.after",
    action(_data, context) {
      function kill() {
        context.kill(new GitPluginError(void 0, "abort", "Abort signal received"));
      }
      signal.addEventListener("abort", kill);
      context.spawned.on("close", () => signal.removeEventListener("abort", kill));
    }
  };
  const onSpawnBefore = {
    type: "spawn.before",
    action(_data, context) {
      if (signal.aborted) {
        context.kill(new GitPluginError(void 0, "abort", "Abort already signaled"));
      }
    }
  };
  return [onSpawnBefore, onSpawnAfter];
}
function blockUnsafeOperationsPlugin(options = {}) {
  return {
    type: "spawn.args",
    action(args, { env }) {
      for (const vulnerability of ne(args, env)) {
        if (options[vulnerability.category] !== true) {
          throw new GitPluginError(void 0, "unsafe", vulnerability.message);
        }
      }
      return args;
    }
  };
}
init_utils();
function commandConfigPrefixingPlugin(configuration) {
  const prefix = prefixedArray(configuration, "-c");
  return {
    type: "spawn.args",
    action(data) {
      return [...prefix, ...data];
    }
  };
}
init_utils();
var never = (0, import_promise_deferred2.deferred)().promise;
function completionDetectionPlugin({
  onClose = true,
  onExit = 50
} = {}) {
  function createEvents() {
    let exitCode = -1;
    const events = {
      close: (0, import_promise_deferred2.deferred)(),
      closeTimeout: (0, import_promise_deferred2.deferred)(),
      exit: (0, import_promise_deferred2.deferred)(),
      exitTimeout: (0, import_promise_deferred2.deferred)()
    };
    const result = Promise.race([
      onClose === false ? never : events.closeTimeout.promise,
      onExit === false ? never : events.exitTimeout.promise
    ]);
    configureTimeout(onClose, events.close, events.closeTimeout);
    configureTimeout(onExit, events.exit, events.exitTimeout);
    return {
      close(code) {
        exitCode = code;
        events.close.done();
      },
      exit(code) {
        exitCode = code;
        events.exit.done();
      },
      get exitCode() {
        return exitCode;
      },
      result
    };
  }
  function configureTimeout(flag, event, timeout) {
    if (flag === false) {
      return;
    }
    (flag === true ? event.promise : event.promise.then(() => delay(flag))).then(timeout.done);
  }
  return {
    type: "spawn.after",
    async action(_data, { spawned, close }) {
      const events = createEvents();
      let deferClose = true;
      let quickClose = () => void (deferClose = false);
      spawned.stdout?.on("data", quickClose);
      spawned.stderr?.on("data", quickClose);
      spawned.on("error", quickClose);
      spawned.on("close", (code) => events.close(code));
      spawned.on("exit", (code) => events.exit(code));
      try {
        await events.result;
        if (deferClose) {
          await delay(50);
        }
        close(events.exitCode);
      } catch (err) {
        close(events.exitCode, err);
      }
    }
  };
}
init_utils();
var WRONG_NUMBER_ERR = `Invalid value supplied for custom binary, requires a single string or an array containing either one or two strings`;
var WRONG_CHARS_ERR = `Invalid value supplied for custom binary, restricted characters must be removed or supply the unsafe.allowUnsafeCustomBinary option`;
function isBadArgument(arg) {
  return !arg || !/^([a-z]:)?([a-z0-9/.\\_~-]+)$/i.test(arg);
}
function toBinaryConfig(input, allowUnsafe) {
  if (input.length < 1 || input.length > 2) {
    throw new GitPluginError(void 0, "binary", WRONG_NUMBER_ERR);
  }
  const isBad = input.some(isBadArgument);
  if (isBad) {
    if (allowUnsafe) {
      console.warn(WRONG_CHARS_ERR);
    } else {
      throw new GitPluginError(void 0, "binary", WRONG_CHARS_ERR);
    }
  }
  const [binary, prefix] = input;
  return {
    binary,
    prefix
  };
}
function customBinaryPlugin(plugins, input = ["git"], allowUnsafe = false) {
  let config = toBinaryConfig(asArray(input), allowUnsafe);
  plugins.on("binary", (input2) => {
    config = toBinaryConfig(asArray(input2), allowUnsafe);
  });
  plugins.append("spawn.binary", () => {
    return config.binary;
  });
  plugins.append("spawn.args", (data) => {
    return config.prefix ? [config.prefix, ...data] : data;
  });
}
init_git_error();
function isTaskError(result) {
  return !!(result.exitCode && result.stdErr.length);
}
function getErrorMessage(result) {
  return Buffer.concat([...result.stdOut, ...result.stdErr]);
}
function errorDetectionHandler(overwrite = false, isError = isTaskError, errorMessage = getErrorMessage) {
  return (error, result) => {
    if (!overwrite && error || !isError(result)) {
      return error;
    }
    return errorMessage(result);
  };
}
function errorDetectionPlugin(config) {
  return {
    type: "task.error",
    action(data, context) {
      const error = config(data.error, {
        stdErr: context.stdErr,
        stdOut: context.stdOut,
        exitCode: context.exitCode
      });
      if (Buffer.isBuffer(error)) {
        return { error: new GitError(void 0, error.toString("utf-8")) };
      }
      return {
        error
      };
    }
  };
}
init_utils();
var PluginStore = class {
  constructor() {
    this.plugins = /* @__PURE__ */ new Set();
    this.events = new EventEmitter();
  }
  on(type, listener) {
    this.events.on(type, listener);
  }
  reconfigure(type, data) {
    this.events.emit(type, data);
  }
  append(type, action) {
    const plugin = append(this.plugins, { type, action });
    return () => this.plugins.delete(plugin);
  }
  add(plugin) {
    const plugins = [];
    asArray(plugin).forEach((plugin2) => plugin2 && this.plugins.add(append(plugins, plugin2)));
    return () => {
      plugins.forEach((plugin2) => this.plugins.delete(plugin2));
    };
  }
  exec(type, data, context) {
    let output = data;
    const contextual = Object.freeze(Object.create(context));
    for (const plugin of this.plugins) {
      if (plugin.type === type) {
        output = plugin.action(output, contextual);
      }
    }
    return output;
  }
};
init_utils();
function progressMonitorPlugin(progress) {
  const progressCommand = "--progress";
  const progressMethods = ["checkout", "clone", "fetch", "pull", "push"];
  const onProgress = {
    type: "spawn.after",
    action(_data, context) {
      if (!context.commands.includes(progressCommand)) {
        return;
      }
      context.spawned.stderr?.on("data", (chunk) => {
        const message = /^([\s\S]+?):\s*(\d+)% \((\d+)\/(\d+)\)/.exec(chunk.toString("utf8"));
        if (!message) {
          return;
        }
        progress({
          method: context.method,
          stage: progressEventStage(message[1]),
          progress: asNumber(message[2]),
          processed: asNumber(message[3]),
          total: asNumber(message[4])
        });
      });
    }
  };
  const onArgs = {
    type: "spawn.args",
    action(args, context) {
      if (!progressMethods.includes(context.method)) {
        return args;
      }
      return including(args, progressCommand);
    }
  };
  return [onArgs, onProgress];
}
function progressEventStage(input) {
  return String(input.toLowerCase().split(" ", 1)) || "unknown";
}
init_utils();
function spawnOptionsPlugin(spawnOptions) {
  const options = pick(spawnOptions, ["uid", "gid"]);
  return {
    type: "spawn.options",
    action(data) {
      return { ...options, ...data };
    }
  };
}
function timeoutPlugin({
  block,
  stdErr = true,
  stdOut = true
}) {
  if (block > 0) {
    return {
      type: "spawn.after",
      action(_data, context) {
        let timeout;
        function wait() {
          timeout && clearTimeout(timeout);
          timeout = setTimeout(kill, block);
        }
        function stop() {
          context.spawned.stdout?.off("data", wait);
          context.spawned.stderr?.off("data", wait);
          context.spawned.off("exit", stop);
          context.spawned.off("close", stop);
          timeout && clearTimeout(timeout);
        }
        function kill() {
          stop();
          context.kill(new GitPluginError(void 0, "timeout", `block timeout reached`));
        }
        stdOut && context.spawned.stdout?.on("data", wait);
        stdErr && context.spawned.stderr?.on("data", wait);
        context.spawned.on("exit", stop);
        context.spawned.on("close", stop);
        wait();
      }
    };
  }
}
function suffixPathsPlugin() {
  return {
    type: "spawn.args",
    action(data) {
      const prefix = [];
      let suffix;
      function append2(args) {
        (suffix = suffix || []).push(...args);
      }
      for (let i2 = 0; i2 < data.length; i2++) {
        const param = data[i2];
        if (r(param)) {
          append2(o(param));
          continue;
        }
        if (param === "--") {
          append2(
            data.slice(i2 + 1).flatMap((item) => r(item) && o(item) || item)
          );
          break;
        }
        prefix.push(param);
      }
      return !suffix ? prefix : [...prefix, "--", ...suffix.map(String)];
    }
  };
}
init_utils();
var Git = require_git();
function gitInstanceFactory(baseDir, options) {
  const plugins = new PluginStore();
  const config = createInstanceConfig(
    baseDir && (typeof baseDir === "string" ? { baseDir } : baseDir) || {},
    options
  );
  if (!folderExists(config.baseDir)) {
    throw new GitConstructError(
      config,
      `Cannot use simple-git on a directory that does not exist`
    );
  }
  if (Array.isArray(config.config)) {
    plugins.add(commandConfigPrefixingPlugin(config.config));
  }
  plugins.add(blockUnsafeOperationsPlugin(config.unsafe));
  plugins.add(completionDetectionPlugin(config.completion));
  config.abort && plugins.add(abortPlugin(config.abort));
  config.progress && plugins.add(progressMonitorPlugin(config.progress));
  config.timeout && plugins.add(timeoutPlugin(config.timeout));
  config.spawnOptions && plugins.add(spawnOptionsPlugin(config.spawnOptions));
  plugins.add(suffixPathsPlugin());
  plugins.add(errorDetectionPlugin(errorDetectionHandler(true)));
  config.errors && plugins.add(errorDetectionPlugin(config.errors));
  customBinaryPlugin(plugins, config.binary, config.unsafe?.allowUnsafeCustomBinary);
  return new Git(config, plugins);
}
init_git_response_error();
var simpleGit = gitInstanceFactory;

// lib/git-safety.ts
var import_debug2 = __toESM(require_src(), 1);
import { mkdtempSync } from "node:fs";
import { delimiter as delimiter2, dirname, join as join3 } from "node:path";

// lib/which.ts
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join as join2 } from "node:path";
function which(name, path) {
  for (const dir of (path ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join2(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
    }
  }
  return void 0;
}

// lib/git-safety.ts
var CONVEYOR_IDENTITY = { name: "Conveyor", email: "conveyor@users.noreply.github.com" };
var TOKEN_VARIABLE = "CONVEYOR_GIT_TOKEN";
var CREDENTIAL_HELPER = `!f() { test "$1" = get || exit 0; echo username=x-access-token; echo "password=$${TOKEN_VARIABLE}"; }; f`;
var ALLOWED_UNSAFE = {
  // core.hooksPath=/dev/null: hooks a repository (or an agent) planted never run.
  allowUnsafeHooksPath: true,
  // credential.helper= clears any other helper; credential.<server>.helper is Conveyor's own.
  allowUnsafeCredentialHelper: true,
  // GIT_CONFIG_GLOBAL=/dev/null: no ~/.gitconfig (an agent could have written one).
  allowUnsafeConfigPaths: true,
  // core.fsmonitor=false: a planted fsmonitor would run on every status, add and commit.
  allowUnsafeFsMonitor: true,
  // core.sshCommand=false: Conveyor never uses ssh; a planted one would run on a fetch.
  allowUnsafeSshCommand: true,
  // protocol.allow=never, then only file and http(s): no ext:: transport (a command line) or ssh.
  allowUnsafeProtocolOverride: true
};
var STARTUP_PATH = process.env.PATH ?? "/usr/bin:/bin";
var GIT_BINARY = which("git", STARTUP_PATH);
var PASSED_FROM_START = [
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "ALL_PROXY",
  "all_proxy",
  "NO_PROXY",
  "no_proxy",
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CURL_CA_BUNDLE"
];
var FROM_START = Object.fromEntries(PASSED_FROM_START.flatMap((k2) => process.env[k2] ? [[k2, process.env[k2]]] : []));
function gitBinary() {
  if (!GIT_BINARY) {
    throw new ConveyorError("internal", `git is not installed (no \`git\` on PATH when Conveyor started: ${STARTUP_PATH}); install git on this machine`);
  }
  return GIT_BINARY;
}
var home;
function gitHome() {
  home ??= mkdtempSync(join3(privateTemp(), "git-home-"));
  return home;
}
{
  const asked = process.env.DEBUG;
  const namespaces = import_debug2.default.disable();
  import_debug2.default.enable([namespaces, "-simple-git", "-simple-git:*"].filter(Boolean).join(","));
  if (asked === void 0) delete process.env.DEBUG;
  else process.env.DEBUG = asked;
}
var NO_HOOKS = "/dev/null";
function pinnedSettings() {
  const proxy = FROM_START.HTTPS_PROXY ?? FROM_START.https_proxy ?? FROM_START.HTTP_PROXY ?? FROM_START.http_proxy ?? FROM_START.ALL_PROXY ?? FROM_START.all_proxy;
  return [
    `core.hooksPath=${NO_HOOKS}`,
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.sshCommand=false",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "protocol.allow=never",
    "protocol.file.allow=always",
    "protocol.https.allow=always",
    "protocol.http.allow=always",
    // Empty turns proxying off; the runner's own proxy (from this process's start) is kept.
    `http.proxy=${proxy ?? ""}`,
    "http.sslVerify=true",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    // A nested repository's status (run by git inside it) would run its filters and fsmonitor.
    "diff.ignoreSubmodules=all",
    "submodule.recurse=false",
    "status.submoduleSummary=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "advice.detachedHead=false",
    // GIT_GRAFT_FILE=/dev/null (gitEnv) is no graft file, but git would say grafts are deprecated in every message.
    "advice.graftFileDeprecated=false"
  ];
}
function gitConfig(authServerUrl, identity = CONVEYOR_IDENTITY) {
  const config = [`user.name=${identity.name}`, `user.email=${identity.email}`, ...pinnedSettings()];
  if (authServerUrl) {
    const scope = authServerUrl.replace(/\/+$/, "");
    config.push("credential.helper=", `credential.${scope}.helper=`, `credential.${scope}.helper=${CREDENTIAL_HELPER}`);
  }
  return config;
}
function gitEnvironment(token, identity) {
  const path = [.../* @__PURE__ */ new Set([dirname(gitBinary()), "/usr/local/bin", "/usr/bin", "/bin"])].join(delimiter2);
  const env = {
    ...FROM_START,
    PATH: path,
    HOME: gitHome(),
    GIT_TERMINAL_PROMPT: "0",
    GCM_INTERACTIVE: "never",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_GRAFT_FILE: "/dev/null",
    GIT_PROTOCOL_FROM_USER: "0",
    LC_ALL: "C"
  };
  if (identity?.date) Object.assign(env, { GIT_AUTHOR_DATE: identity.date, GIT_COMMITTER_DATE: identity.date });
  if (token) env[TOKEN_VARIABLE] = token;
  return env;
}
var OUTSIDE_ANY_REPOSITORY = { GIT_DIR: "/dev/null" };

// lib/git-owned.ts
import { lstat, readFile, rm, writeFile } from "node:fs/promises";
import { join as join4 } from "node:path";
var FOREIGN = [
  "config.worktree",
  "commondir",
  "info/grafts",
  "info/attributes",
  "objects/info/alternates",
  "objects/info/http-alternates",
  "refs/replace",
  "worktrees"
];
function gitFileText(gitDir) {
  return `gitdir: ${gitDir}
`;
}
async function readOwn(path) {
  const info = await lstat(path).catch(() => void 0);
  return info?.isFile() ? readFile(path, "utf8") : null;
}
async function replace(path, text) {
  await rm(path, { recursive: true, force: true });
  await writeFile(path, text, { flag: "wx" });
}
var OwnedGitDir = class {
  constructor(gitDir, workTree) {
    this.gitDir = gitDir;
    this.workTree = workTree;
  }
  gitDir;
  workTree;
  config;
  shallow;
  /** Refuses a git folder or checkout folder that is no longer a real folder (a command replaced it with a link). */
  async checkFolders() {
    for (const [what, path] of [
      ["git folder", this.gitDir],
      ["checkout folder", this.workTree]
    ]) {
      const info = await lstat(path).catch(() => void 0);
      if (info && (!info.isDirectory() || info.isSymbolicLink())) {
        throw new ConveyorError("bad-input", `the ${what} ${path} is no longer a folder (a command replaced it); Conveyor runs no git there`);
      }
    }
  }
  /** Before a command: the git folder as Conveyor left it. */
  async reclaim() {
    await this.checkFolders();
    if (!await lstat(this.gitDir).catch(() => void 0)) return;
    await Promise.all(FOREIGN.map((p2) => rm(join4(this.gitDir, p2), { recursive: true, force: true })));
    for (const [name, known] of [
      ["config", this.config],
      ["shallow", this.shallow]
    ]) {
      if (known === void 0) continue;
      const path = join4(this.gitDir, name);
      const now = await lstat(path).catch(() => void 0);
      if (known === null) {
        if (now) await rm(path, { recursive: true, force: true });
        continue;
      }
      if (now?.isFile() && !now.isSymbolicLink() && await readFile(path, "utf8") === known) continue;
      await replace(path, known);
    }
    const pointer = join4(this.workTree, ".git");
    const info = await lstat(pointer).catch(() => void 0);
    if (info && !(info.isFile() && await readFile(pointer, "utf8") === gitFileText(this.gitDir))) await replace(pointer, gitFileText(this.gitDir));
  }
  /** After a command: what git wrote is what the next command starts from. */
  async record() {
    if (!await lstat(this.gitDir).catch(() => void 0)) return;
    this.config = await readOwn(join4(this.gitDir, "config"));
    this.shallow = await readOwn(join4(this.gitDir, "shallow"));
  }
};

// lib/git-objects.ts
var ZERO = /^0+$/;
var PATHS_PER_LISTING = 500;
var GitObjects = class {
  constructor(run) {
    this.run = run;
  }
  run;
  /**
   * The commits reachable from `head` and from none of `known`, parents before children (what a
   * push of `head` sends, replace refs and grafts ignored as by every command of the layer).
   */
  async commitsToSend(head, known) {
    const out = await this.run(["rev-list", "--topo-order", "--reverse", head, "--not", ...known.filter(Boolean), "--"]);
    const commits = [];
    for (const sha of out.stdout.split("\n").filter(Boolean)) commits.push(await this.commit(sha));
    return commits;
  }
  /** A commit's tree, parents and message, as stored (`cat-file commit`: the message byte for byte). */
  async commit(sha) {
    const text = (await this.run(["cat-file", "commit", sha])).stdout;
    const split = text.indexOf("\n\n");
    const headers = (split < 0 ? text : text.slice(0, split)).split("\n");
    const tree = headers.find((h2) => h2.startsWith("tree "))?.slice(5) ?? "";
    const parents = headers.filter((h2) => h2.startsWith("parent ")).map((h2) => h2.slice(7));
    return { sha, tree, parents, message: split < 0 ? "" : text.slice(split + 2) };
  }
  /** Every path (files, links, submodules: no folders) that differs between two commits, renames unpaired. */
  async changes(from, to) {
    const fields = (await this.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", from, to])).stdout.split("\0");
    const changes = [];
    for (let i2 = 0; i2 + 1 < fields.length; i2 += 2) {
      const [oldMode, mode, oldSha, sha] = fields[i2].replace(/^:/, "").split(" ");
      const path = fields[i2 + 1];
      if (!oldMode || !mode || !oldSha || !sha) continue;
      changes.push({ path, mode, sha: ZERO.test(sha) ? void 0 : sha, oldMode, oldSha: ZERO.test(oldSha) ? void 0 : oldSha });
    }
    return changes;
  }
  /** The size in bytes of each blob at `paths` in `commit` (a submodule's entry has none). */
  async sizes(commit, paths) {
    const sizes = /* @__PURE__ */ new Map();
    for (let i2 = 0; i2 < paths.length; i2 += PATHS_PER_LISTING) {
      const chunk = paths.slice(i2, i2 + PATHS_PER_LISTING);
      const out = await this.run(["--literal-pathspecs", "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", ...chunk]);
      for (const entry of out.stdout.split("\0").filter(Boolean)) {
        const tab = entry.indexOf("	");
        const size = Number(entry.slice(0, tab).trim().split(/\s+/)[3]);
        if (Number.isFinite(size)) sizes.set(entry.slice(tab + 1), size);
      }
    }
    return sizes;
  }
  /** A blob's bytes exactly. */
  async blob(sha) {
    const out = await this.run(["cat-file", "blob", sha], { reach: "contents", bytes: true });
    return out.bytes ?? Buffer.alloc(0);
  }
  /** A commit's tree. */
  async treeOf(commit) {
    return (await this.run(["rev-parse", "--verify", "--end-of-options", `${commit}^{tree}`])).stdout.trim();
  }
};

// lib/git.ts
var GitRepo = class _GitRepo {
  constructor(dir, options = {}, owned = options.gitDir ? new OwnedGitDir(options.gitDir, dir) : void 0) {
    this.dir = dir;
    this.options = options;
    this.owned = owned;
  }
  dir;
  options;
  owned;
  /** One command at a time: each starts from the state the one before left. */
  queue = Promise.resolve();
  /** The git folder: the separate one of a checkout, else `.git` in the folder. */
  get gitDir() {
    return this.options.gitDir ?? join5(this.dir, ".git");
  }
  /** The same repository, failing with `code` (sharing what it knows of its git folder). */
  failingAs(code) {
    const other = new _GitRepo(this.dir, { ...this.options, code }, this.owned);
    other.queue = this.queue;
    return other;
  }
  /**
   * Clones `source` into this folder (created when missing; must be empty), without tags, checking
   * nothing out; a checkout's git folder goes where `gitDir` says.
   */
  async clone(source, how = {}) {
    mkdirSync2(this.dir, { recursive: true });
    const args = ["clone", "--no-tags", "--origin", "origin"];
    if (this.options.gitDir) {
      mkdirSync2(dirname2(this.options.gitDir), { recursive: true });
      args.push(`--separate-git-dir=${this.options.gitDir}`);
    }
    if (how.local) args.push("--local", "--no-hardlinks");
    if (how.shared) args.push("--shared");
    if (how.branch) args.push("--single-branch", "--branch", how.branch);
    if (how.filter) args.push(`--filter=${how.filter}`);
    if (how.depth) args.push(`--depth=${how.depth}`);
    await this.run([...args, "--no-checkout", "--", source, this.dir], { reach: "server", standalone: true });
  }
  /** Removes the repository (its git folder and the checkout's pointer to it), keeping the folder: to clone again. */
  async removeRepository() {
    await rm2(this.gitDir, { recursive: true, force: true });
    await rm2(join5(this.dir, ".git"), { recursive: true, force: true });
  }
  /** A new repository in this folder (created when missing). */
  async init(how = {}) {
    mkdirSync2(this.dir, { recursive: true });
    await this.run(["init", ...how.bare ? ["--bare"] : [], ...how.initialBranch ? [`--initial-branch=${how.initialBranch}`] : [], this.dir], {
      standalone: true
    });
  }
  // --- the server -------------------------------------------------------------------------------
  /**
   * Heads of `branches` on the server at `url`: branch name to commit; absent branches are left
   * out. It needs no repository and reads none (so it may run while this folder is being cloned).
   */
  async remoteHeads(url, branches) {
    const out = await this.run(["ls-remote", "--heads", url, ...branches.map((b2) => `refs/heads/${b2}`)], { reach: "server", outside: true });
    return headsOf(out.stdout, "refs/heads/", branches);
  }
  /** Fetches `refspecs` from origin, without tags (a partial clone's filter applies). */
  async fetch(refspecs) {
    await this.run(["fetch", "--no-tags", "origin", ...refspecs], { reach: "server" });
  }
  /**
   * Pushes `ref` to `branch` of `to` (a URL, or a remote's name), no hooks. With `lease`, only if
   * the branch is still at that commit ('' = it must not exist yet): someone else's push since is a
   * rejection, never overwritten.
   */
  async push(how) {
    const lease = how.lease === void 0 ? [] : [`--force-with-lease=refs/heads/${how.branch}:${how.lease}`];
    const out = await this.run(["push", "--no-verify", ...lease, how.to, `${how.ref}:refs/heads/${how.branch}`], { reach: "server", answers: [1, 128] });
    return out.exitCode === 0 ? { pushed: true } : { pushed: false, output: out.stderr.trim() || out.stdout.trim() };
  }
  // --- configuration ----------------------------------------------------------------------------
  /** Records `commit` (already in this repository) as the remote-tracking branch `origin/<branch>`. */
  async setRemoteBranch(branch, commit) {
    await this.run(["update-ref", `refs/remotes/origin/${branch}`, commit]);
  }
  async setRemoteUrl(name, url) {
    await this.run(["config", `remote.${name}.url`, url]);
  }
  /**
   * Forgets where remote `name` is (its configuration), keeping what was fetched from it
   * (`refs/remotes/<name>/*`): nothing pushes or fetches through it afterwards.
   */
  async forgetRemote(name) {
    await this.run(["config", "--remove-section", `remote.${name}`], { answers: [128] });
  }
  /** The URL of remote `name`, or undefined when there is none (or no repository here). */
  async remoteUrl(name = "origin") {
    const out = await this.run(["config", "--get", `remote.${name}.url`], { answers: [1, 128] });
    return out.exitCode === 0 ? out.stdout.trim() || void 0 : void 0;
  }
  // --- reading ----------------------------------------------------------------------------------
  async revParse(rev) {
    return (await this.run(["rev-parse", "--verify", "--end-of-options", rev])).stdout.trim();
  }
  /** The commit checked out. */
  currentCommit() {
    return this.revParse("HEAD");
  }
  /** Head of a local branch (in a bare repository: of the repository), or undefined when it does not exist. */
  async branchHead(branch) {
    const out = await this.run(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], { answers: [1] });
    return out.exitCode === 0 ? out.stdout.trim() : void 0;
  }
  /** Heads of the remote-tracking branches `<remote>/<branch>` that exist. */
  async remoteBranchHeads(branches, remote = "origin") {
    const prefix = `refs/remotes/${remote}/`;
    const out = await this.run(["for-each-ref", "--format=%(objectname) %(refname)", ...branches.map((b2) => `${prefix}${b2}`)]);
    return headsOf(out.stdout, prefix, branches);
  }
  /** Whether `ancestor` is reachable from `commit` (asked through their merge base). */
  async isAncestor(ancestor, commit) {
    const base = await this.run(["merge-base", ancestor, commit], { answers: [1] });
    if (base.exitCode !== 0) return false;
    const id = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(ancestor) ? ancestor : await this.revParse(`${ancestor}^{commit}`);
    return base.stdout.trim() === id;
  }
  /**
   * Whether `head` merges into `base` without a conflict, asked of the object database alone (no
   * checkout, so a bare repository answers too): `git merge-tree --write-tree` exits 1 on a conflict.
   */
  async mergesCleanly(base, head) {
    return (await this.run(["merge-tree", "--write-tree", "--no-messages", base, head], { answers: [1] })).exitCode === 0;
  }
  /** Number of commits in `range` (e.g. `main..feature`). */
  async countCommits(range) {
    return Number((await this.run(["rev-list", "--count", range])).stdout.trim());
  }
  /**
   * Paths that differ between two commits. Renames are not paired: a renamed file gives both its
   * old and its new path, so a check of what was written sees both.
   */
  async diffNames(from, to) {
    const out = await this.run(["diff", "--name-only", "--no-renames", "-z", from, to, "--"]);
    return out.stdout.split("\0").filter(Boolean);
  }
  /**
   * Paths a merge of `head` into `base` would change: the differences between their merge base and
   * `head` (what the pull request shows), renames unpaired as in diffNames.
   */
  async changedSince(base, head) {
    const out = await this.run(["diff", "--name-only", "--no-renames", "-z", `${base}...${head}`, "--"]);
    return out.stdout.split("\0").filter(Boolean);
  }
  /**
   * Every path the commits reachable from `head` but from none of `known` change, taken from their
   * trees (replace refs and grafts are ignored by every command, git-safety.ts): what a push of
   * `head` would send. A merge counts the paths it changed against all of its parents (what its
   * resolution wrote); the rest came from a parent, and those are counted where they were made.
   */
  async pushedPaths(head, known) {
    const lines = (await this.run(["rev-list", "--parents", head, "--not", ...known.filter(Boolean), "--"])).stdout.split("\n").filter(Boolean);
    const paths = /* @__PURE__ */ new Set();
    for (const line of lines) {
      const [commit, ...parentList] = line.split(" ");
      const parents = parentList.length;
      const args = [
        "diff-tree",
        "-r",
        "--no-commit-id",
        "--name-only",
        "--no-renames",
        "-z",
        ...parents > 1 ? ["-c"] : parents === 0 ? ["--root"] : [],
        commit
      ];
      for (const p2 of (await this.run(args)).stdout.split("\0")) if (p2) paths.add(p2);
    }
    return [...paths].sort();
  }
  /**
   * Repositories inside the checkout: one a command left (untracked, shown by git as a folder) or
   * a submodule's folder that holds one. Git would run their configuration's programs while adding
   * them (`commitAll` refuses); asking runs none (their status is never asked: submodules ignored).
   */
  async nestedRepositories() {
    const untracked = (await this.run(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=all"])).stdout.split("\0").filter((e) => e.startsWith("?? ") && e.endsWith("/")).map((e) => e.slice(3, -1));
    const gitlinks = (await this.run(["ls-files", "--stage", "-z"])).stdout.split("\0").filter((e) => e.startsWith("160000 ")).map((e) => e.slice(e.indexOf("	") + 1));
    const filled = [];
    for (const g of gitlinks) if (await lstat2(join5(this.dir, g, ".git")).catch(() => void 0)) filled.push(g);
    return [...untracked, ...filled].sort();
  }
  /**
   * Lines added and removed per file from the merge base of `base` and `head` to `head` (what a
   * pull request's diff shows); null counts for a binary file.
   */
  async diffStat(base, head) {
    const out = await this.run(["diff", "--numstat", "--no-renames", "--no-ext-diff", "-z", `${base}...${head}`, "--"], { reach: "contents" });
    return out.stdout.split("\0").filter(Boolean).map((entry) => {
      const [added = "-", removed = "-", ...path] = entry.split("	");
      const count = (n) => /^\d+$/.test(n) ? Number(n) : null;
      return { path: path.join("	"), added: count(added), removed: count(removed) };
    });
  }
  /** Whether two commits hold different trees. */
  async differs(from, to) {
    return (await this.diffNames(from, to)).length > 0;
  }
  /** The patch of `range` (e.g. `origin/main...HEAD`), no colours, no external diff program. */
  async diff(range) {
    return (await this.run(["diff", "--no-color", "--no-ext-diff", range, "--"], { reach: "contents" })).stdout;
  }
  /** `git status --porcelain=v1 -z`, untracked files included (ignored ones not): what a checkout looks like. */
  async status() {
    return (await this.run(["status", "--porcelain=v1", "-z", "--untracked-files=all"])).stdout;
  }
  /** The full message of the commit checked out. */
  async lastMessage() {
    return (await this.run(["log", "-1", "--format=%B"])).stdout;
  }
  // --- changing ---------------------------------------------------------------------------------
  /** Checks out `branch` at `at`, creating it, or moving it when it exists. */
  async checkout(branch, at) {
    await this.run(["checkout", "-B", branch, at], { reach: "contents" });
  }
  /** Creates `branch` at `at` and checks it out; fails when it exists. */
  async createBranch(branch, at) {
    await this.run(["checkout", "-b", branch, at], { reach: "contents" });
  }
  /**
   * Merges `ref` into what is checked out: with `message` (and `noFastForward`) as given, else
   * git's own message. A merge that does not go through is undone and its conflicts reported.
   */
  async merge(ref, how = {}) {
    const attempt = (messageArgs) => this.run(["merge", ...how.noFastForward ? ["--no-ff"] : [], ...messageArgs, ref], { reach: "contents", answers: [1, 128] });
    const out = how.message === void 0 ? await attempt(["--no-edit"]) : await withMessageFile(how.message, (file) => attempt(["-F", file]));
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ["merge", "--abort"]);
  }
  /**
   * Starts merging `ref` into what is checked out and stops before committing, conflicts and all:
   * the conflicted files hold git's markers for someone to resolve by editing them, and `commitAll`
   * then records the merge. Returns the conflicted paths (none: it merged cleanly, still uncommitted).
   */
  async startMerge(ref) {
    await this.run(["merge", "--no-ff", "--no-commit", ref], { reach: "contents", answers: [1] });
    const conflicted = await this.run(["diff", "--name-only", "--diff-filter=U", "-z"]);
    return conflicted.stdout.split("\0").filter(Boolean);
  }
  /** Whether a merge is under way (startMerge): its commit is a merge commit. */
  async mergeInProgress() {
    return (await this.run(["rev-parse", "--verify", "--quiet", "MERGE_HEAD"], { answers: [1] })).exitCode === 0;
  }
  /** Stages the changes of `ref` as one (a squash merge) for `commit`; undone when they conflict. */
  async mergeSquash(ref) {
    const out = await this.run(["merge", "--squash", ref], { reach: "contents", answers: [1, 128] });
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ["reset", "--merge"]);
  }
  /** Replays what is checked out onto `onto`; undone when it conflicts. */
  async rebase(onto) {
    const out = await this.run(["rebase", onto], { reach: "contents", answers: [1, 128] });
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ["rebase", "--abort"]);
  }
  /**
   * Undoes on what is checked out what `to` brought over `from` (a merge commit over its first
   * parent, a squash over its parent, the last of rebased commits over the base before them): a
   * commit with `from`'s tree on top of `to` is cherry-picked, git's three-way revert of the whole
   * range, whatever merged it. Committed with `message`; undone when it does not apply cleanly.
   */
  async revertChanges(from, to, message) {
    const tree = await this.revParse(`${from}^{tree}`);
    const undo = (await withMessageFile(message, (file) => this.run(["commit-tree", tree, "-p", to, "-F", file]))).stdout.trim();
    const out = await this.run(["cherry-pick", undo], { reach: "contents", answers: [1] });
    if (out.exitCode === 0) return { merged: true };
    return this.undo(out, ["cherry-pick", "--abort"]);
  }
  /**
   * Commits what is staged (only `paths` when given; `amend` replaces the last commit). The
   * message travels in a file, never as an argument. Returns the new head.
   */
  async commit(message, how = {}) {
    const paths = how.paths ? ["--", ...how.paths] : [];
    await withMessageFile(message, (file) => this.run(["commit", "--no-verify", ...how.amend ? ["--amend"] : [], "-F", file, ...paths]));
    return this.currentCommit();
  }
  /**
   * Stages every change (or only `paths`), new files included, ignored ones not, and commits them if
   * there are any, or if a merge is under way (its commit records the merge, even when it changes
   * nothing the branch did not have).
   */
  async commitAll(message, how = {}) {
    const paths = how.paths ? ["--", ...how.paths] : [];
    const nested = await this.nestedRepositories();
    if (nested.length) {
      throw new ConveyorError(
        "nested-repository",
        `${this.dir} holds a git repository of its own at ${nested.map((n) => `\`${n}\``).join(", ")}: adding it would run programs its configuration names, so Conveyor commits nothing there. Remove it (or keep its files as plain files) and run again.`
      );
    }
    await this.run(["add", "--all", "--verbose", ...paths]);
    const staged = await this.run(["diff", "--cached", "--name-only", "-z", ...paths]);
    if (!staged.stdout && !await this.mergeInProgress()) return { committed: false, head: await this.currentCommit() };
    return { committed: true, head: await this.commit(message, how) };
  }
  /** Checks out `commit` without a branch. */
  async checkoutDetached(commit) {
    await this.run(["checkout", "--detach", commit], { reach: "contents" });
  }
  /**
   * Writes the files of `commit` into `dir` (a folder of the caller's), as a checkout would, but
   * with an index of its own and no git folder there: a command run in `dir` finds no repository
   * to change, and this repository's index and work tree stay as they are.
   */
  async exportTree(commit, dir) {
    const scratch = await makePrivateTemp("index-");
    try {
      const index = join5(scratch, "index");
      await this.run(["read-tree", `--index-output=${index}`, commit]);
      await this.run(["checkout-index", "--all", "--force"], { reach: "contents", workTree: dir, index });
    } finally {
      await rm2(scratch, { recursive: true, force: true });
    }
  }
  /** What a commit made here is made of, read from the object database: to send it through an API (git-objects.ts). */
  objects() {
    return new GitObjects((args, how) => this.run(args, how));
  }
  /** Keeps files matching `patterns` out of every commit (the git folder's info/exclude, where no command can write). */
  async exclude(patterns) {
    if (patterns.length === 0) return;
    await mkdir(join5(this.gitDir, "info"), { recursive: true });
    await appendFile(join5(this.gitDir, "info", "exclude"), `
${patterns.join("\n")}
`);
  }
  // --- running ----------------------------------------------------------------------------------
  /** Lists the conflicted paths of a failed merge, rebase or squash, then undoes it with `undo`. */
  async undo(failed, undo) {
    const conflicted = await this.run(["diff", "--name-only", "--diff-filter=U", "-z"], { answers: [128] });
    await this.run(undo, { reach: "contents", answers: [1, 128] });
    return {
      merged: false,
      conflicts: conflicted.exitCode === 0 ? conflicted.stdout.split("\0").filter(Boolean) : [],
      output: [failed.stdout.trim(), failed.stderr.trim()].filter(Boolean).join("\n")
    };
  }
  run(args, how = {}) {
    const next = this.queue.then(() => this.runNow(args, how));
    this.queue = next.catch(() => void 0);
    return next;
  }
  async runNow(args, how) {
    if (this.owned && !how.outside) await this.owned.reclaim();
    try {
      const named = this.owned && !how.outside && !how.standalone;
      if (named && how.bytes) return await this.spawn(args, how, { GIT_DIR: this.owned.gitDir, GIT_WORK_TREE: this.dir });
      return await this.spawn(named ? [`--git-dir=${this.owned.gitDir}`, `--work-tree=${how.workTree ?? this.dir}`, ...args] : args, how);
    } finally {
      if (this.owned && !how.outside) await this.owned.record();
    }
  }
  async spawn(args, how, folders = {}) {
    const reach = how.reach ?? "local";
    const auth = reach === "server" || reach === "contents" && this.options.partial ? this.options.auth : void 0;
    const scrub = this.options.scrub ?? ((t2) => t2);
    let result;
    const what = `git ${args.filter((a) => !a.includes("\n") && !a.startsWith("--git-dir=") && !a.startsWith("--work-tree=")).join(" ")}`;
    const cwd = how.outside ? tmpdir2() : this.dir;
    const token = typeof auth?.token === "function" ? await auth.token() : auth?.token;
    const env = {
      ...gitEnvironment(token, this.options.identity),
      ...how.outside ? OUTSIDE_ANY_REPOSITORY : {},
      ...how.index ? { GIT_INDEX_FILE: how.index } : {},
      ...folders
    };
    let stdout;
    let bytes;
    try {
      const git = simpleGit({
        baseDir: cwd,
        binary: gitBinary(),
        config: gitConfig(auth?.serverUrl, this.options.identity),
        unsafe: ALLOWED_UNSAFE,
        errors: (_error, r2) => {
          result = { exitCode: r2.exitCode, stderr: Buffer.concat(r2.stdErr).toString("utf8") };
          return void 0;
        }
      }).env(env);
      if (how.bytes && args[0] === "cat-file") {
        bytes = await git.binaryCatFile(args.slice(1));
        stdout = "";
      } else stdout = await git.raw(args);
    } catch (e) {
      const said = result?.stderr.trim() || (e instanceof Error ? e.message : String(e));
      throw new ConveyorError(this.options.code ?? "internal", scrub(`${what} could not run in ${this.dir}: ${said}`), { cause: e });
    }
    const exitCode = result?.exitCode ?? 0;
    const stderr = scrub(result?.stderr ?? "");
    if (exitCode !== 0 && !how.answers?.includes(exitCode)) {
      throw new ConveyorError(this.options.code ?? "internal", scrub(`${what} failed (exit ${exitCode}) in ${this.dir}: ${stderr.trim() || stdout.trim()}`));
    }
    return { exitCode, stdout, stderr, ...bytes ? { bytes } : {} };
  }
};
function headsOf(lines, prefix, branches) {
  const heads = /* @__PURE__ */ new Map();
  for (const line of lines.split("\n")) {
    const [sha, ref] = line.split(/[\t ]/);
    const branch = ref?.startsWith(prefix) ? ref.slice(prefix.length) : void 0;
    if (sha && branch !== void 0 && branches.includes(branch)) heads.set(branch, sha);
  }
  return heads;
}
async function withMessageFile(message, fn) {
  const folder = await makePrivateTemp("message-");
  try {
    const file = join5(folder, "message.txt");
    await writeFile2(file, message, { mode: 384 });
    return await fn(file);
  } finally {
    await rm2(folder, { recursive: true, force: true });
  }
}

// core/contract/attempt-ref.ts
var ATTEMPT_MODES = ["run", "repair", "teardown"];
var STEP_ID = /^[a-z][a-z0-9_-]*$/;
var attemptRefSchema = external_exports.object({
  runId: external_exports.string().min(1),
  step: external_exports.string().regex(STEP_ID, { error: "must be a step id (lowercase letters, digits, - and _)" }),
  attempt: external_exports.number().int().positive(),
  epoch: external_exports.number().int().nonnegative(),
  mode: external_exports.enum(ATTEMPT_MODES)
});
function refOf(x2) {
  return { runId: x2.runId, step: typeof x2.step === "string" ? x2.step : x2.step.id, attempt: x2.attempt, epoch: x2.epoch, mode: x2.mode };
}
function attemptKey(ref) {
  return `${ref.runId}:${ref.step}:${ref.attempt}:${ref.epoch}${ref.mode === "teardown" ? ":teardown" : ""}`;
}
function attemptName(ref, prefix) {
  return `${prefix}-${ref.runId}-${ref.step}.${ref.mode}.${ref.attempt}.${ref.epoch}`.replace(/[":<>|*?\\/\r\n]/g, "-");
}

// core/config/presets.ts
var PRESET_NAMES = ["claude-code", "codex", "gemini", "copilot", "aider"];
var PRESETS = {
  "claude-code": {
    name: "claude-code",
    title: "Claude Code",
    cli: "claude",
    package: { registry: "npm", name: "@anthropic-ai/claude-code" },
    version: "2.1.197",
    checked: { against: "`claude --help`" },
    credentials: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
    hosts: ["api.anthropic.com"],
    // Not CLAUDE_CODE_SUBPROCESS_ENV_SCRUB: from 2.1.197 it forces the permission mode back to
    // `default` (every edit is refused in --print) and runs its Bash in a sandbox of its own that
    // leaves empty decoy files (package.json, .env, lock files) in the repository, which the
    // commit would carry (test/e2e/real-cli/claude-code.test.ts).
    env: { DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    // It refuses bypassPermissions as root ("… cannot be used with root/sudo privileges") unless told a sandbox guards it.
    sandboxedEnv: { IS_SANDBOX: "1" },
    // stream-json prints each event as it happens (the stall guard sees an agent that works); with
    // --print it needs --verbose. The sandbox is the guard, so nothing asks for permission.
    args: ["--print", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "--add-dir", { env: "CONVEYOR_WORKSPACE" }],
    outsideRepoArgs: [],
    prompt: { stdin: true },
    model: { flag: "--model", provider: "strip" },
    reviewer: { args: ["--json-schema", { verdictSchema: "inline" }], verdict: "structured-output" },
    leaves: [],
    homeCaches: [],
    // Its last stream-json event, `{"type": "result"}`, has total_cost_usd, num_turns and usage.
    usage: { from: "events" },
    // "Maximum dollar amount to spend on API calls (only works with --print)", which it runs with.
    maxUsd: { flag: "--max-budget-usd" },
    help: [["--help"]]
  },
  codex: {
    name: "codex",
    title: "OpenAI Codex CLI",
    cli: "codex",
    package: { registry: "npm", name: "@openai/codex" },
    version: "0.171.0",
    checked: { against: "`codex exec --help`" },
    credentials: ["CODEX_API_KEY", "OPENAI_API_KEY"],
    hosts: ["api.openai.com"],
    env: {},
    sandboxedEnv: {},
    // Conveyor's sandbox is the external one the flag's help asks for; Codex's own would nest in it.
    args: ["exec", "--json", "--color", "never", "--dangerously-bypass-approvals-and-sandbox"],
    outsideRepoArgs: ["--skip-git-repo-check"],
    prompt: { stdin: true },
    model: { flag: "--model", provider: "strip" },
    reviewer: { args: ["--output-schema", { verdictSchema: "file" }, "--output-last-message", { env: "CONVEYOR_RESULT_FILE" }], verdict: "cli-writes-file" },
    leaves: [],
    homeCaches: [],
    // Each `{"type": "turn.completed"}` event has that turn's token usage (no cost).
    usage: { from: "events" },
    maxUsd: { unsupported: "`codex exec` has no flag that stops it at a cost" },
    help: [["exec", "--help"]]
  },
  gemini: {
    name: "gemini",
    title: "Gemini CLI",
    cli: "gemini",
    package: { registry: "npm", name: "@google/gemini-cli" },
    version: "0.61.0",
    checked: { against: "`gemini --help`" },
    credentials: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    hosts: ["generativelanguage.googleapis.com"],
    env: { GEMINI_SANDBOX: "false" },
    sandboxedEnv: {},
    // --prompt makes it headless and is appended to the prompt read from standard input.
    args: [
      "--output-format",
      "stream-json",
      "--approval-mode",
      "yolo",
      "--skip-trust",
      "--include-directories",
      { env: "CONVEYOR_WORKSPACE" },
      "--prompt",
      "Do what the instructions above ask."
    ],
    outsideRepoArgs: [],
    prompt: { stdin: true },
    model: { flag: "--model", provider: "strip" },
    reviewer: { args: [], verdict: "agent-writes-file" },
    leaves: [],
    homeCaches: [],
    // Its last stream-json event, `{"type": "result"}`, has `stats` with the tokens by model (no cost).
    usage: { from: "events" },
    maxUsd: { unsupported: "the Gemini CLI has no flag that stops it at a cost" },
    help: [["--help"]]
  },
  copilot: {
    name: "copilot",
    title: "GitHub Copilot CLI",
    cli: "copilot",
    package: { registry: "npm", name: "@github/copilot" },
    version: "1.0.102",
    checked: { against: "`copilot --help`" },
    // A fine-grained personal access token with the Copilot Requests permission; never the
    // workflow's or the app's token (those are refused wherever they are named).
    credentials: ["COPILOT_GITHUB_TOKEN"],
    hosts: ["api.githubcopilot.com", "*.githubcopilot.com", "api.github.com"],
    env: {},
    sandboxedEnv: {},
    // It takes the prompt as --prompt's value only: the file's text goes there (up to 128 KiB, the
    // system's limit on one argument).
    args: ["--allow-all", "--no-ask-user", "--no-auto-update", "--output-format", "json"],
    outsideRepoArgs: [],
    prompt: { flag: "--prompt", value: "text" },
    model: { flag: "--model", provider: "strip" },
    reviewer: { args: [], verdict: "agent-writes-file" },
    leaves: [],
    // Its npm package is a loader that unpacks the CLI for its platform (235 MB) on first run, into
    // $XDG_CACHE_HOME/copilot/pkg (1.0.102, run in the sandbox): the agent's kept `.cache`.
    homeCaches: [],
    // Its JSON events carry no tokens; --usage-output-file writes them by model (it bills in premium requests, not dollars).
    usage: { from: "file", flag: "--usage-output-file" },
    // --max-ai-credits counts GitHub's AI credits, not dollars: a team that wants it adds it with `run`.
    maxUsd: { unsupported: "the Copilot CLI stops at AI credits (--max-ai-credits), not at dollars" },
    help: [["--help"]]
  },
  aider: {
    name: "aider",
    title: "Aider",
    cli: "aider",
    package: { registry: "pypi", name: "aider-chat" },
    // Its 0.86 releases, as its documentation describes them (PyPI was not reachable to name a patch release).
    version: "0.86",
    checked: { against: "the options reference, aider.chat/docs/config/options.html (PyPI was not reachable)" },
    credentials: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY"],
    hosts: ["api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com", "api.deepseek.com", "openrouter.ai"],
    env: {},
    sandboxedEnv: {},
    // Conveyor commits what the agent leaves (with the run's trailer) and keeps .aider* files out of
    // the commits; Aider must neither commit nor edit .gitignore.
    args: [
      "--yes-always",
      "--no-auto-commits",
      "--no-gitignore",
      "--no-check-update",
      "--no-show-model-warnings",
      "--no-pretty",
      "--no-fancy-input",
      "--analytics-disable"
    ],
    // It would offer to create a repository at the workspace root, and --yes-always would accept.
    outsideRepoArgs: ["--no-git"],
    prompt: { flag: "--message-file", value: "path" },
    // Aider routes by the provider prefix (anthropic/…, openai/…), as LiteLLM does.
    model: { flag: "--model", provider: "keep" },
    // It edits only files of the repository: the reviewer answers in ask mode, the verdict in its reply.
    reviewer: { args: ["--chat-mode", "ask"], verdict: "reply" },
    leaves: [".aider*"],
    homeCaches: [],
    // Its options reference documents no machine-readable usage (it prints a "Tokens: … Cost: …" line for people).
    usage: { from: "none", why: "Aider prints its usage for people only" },
    maxUsd: { unsupported: "Aider has no option that stops it at a cost" },
    help: [["--help"]]
  }
};
function presetInstall(preset, version = preset.version) {
  if (preset.package.registry === "npm") return `npm install --global ${preset.package.name}@${version}`;
  const spec = /^\d+\.\d+$/.test(version) ? `${preset.package.name}==${version}.*` : `${preset.package.name}==${version}`;
  return `pipx install '${spec}'`;
}
function presetSetup(preset, version = preset.version) {
  return `test -x "\${CONVEYOR_INSTALL_DIR:?}/bin/${preset.cli}" || ${presetInstall(preset, version)}`;
}
function isPresetSetup(preset, version, setup) {
  return setup === presetSetup(preset, version) || setup === `command -v ${preset.cli} >/dev/null 2>&1 || ${presetInstall(preset, version)}`;
}
function presetModel(preset, model) {
  return preset.model.provider === "keep" ? model : model.slice(model.lastIndexOf("/") + 1);
}

// core/config/model-api.ts
var COPILOT_PROVIDERS = ["openai", "azure", "anthropic"];
var WIRE_APIS = ["completions", "responses"];
var OPENAI = "https://api.openai.com/v1";
var ANTHROPIC = "https://api.anthropic.com";
var GEMINI = "https://generativelanguage.googleapis.com";
var COPILOT_DEFAULT = { openai: OPENAI, anthropic: ANTHROPIC, azure: void 0 };
var COPILOT_HEADER = { openai: "bearer", anthropic: "x-api-key", azure: "api-key" };
var pointing = (p2) => ({ env: p2.env ?? {}, homeFiles: p2.homeFiles ?? {}, homeVariables: p2.homeVariables ?? {} });
function aiderRoute(model) {
  if (model?.startsWith("anthropic/")) return "anthropic";
  if (model?.startsWith("openai/")) return "openai";
  return void 0;
}
function modelApiOf(agent) {
  const configured = agent.endpoint !== void 0;
  const api = (endpoint, keys, point, always = configured) => ({
    endpoint: agent.endpoint ?? endpoint,
    pointAlways: always,
    keys,
    point
  });
  switch (agent.preset) {
    case "claude-code":
      return api(ANTHROPIC, [{ variable: "ANTHROPIC_API_KEY", header: "x-api-key" }], (url) => pointing({ env: { ANTHROPIC_BASE_URL: url } }));
    case "codex":
      return api(
        OPENAI,
        [
          { variable: "CODEX_API_KEY", header: "bearer" },
          { variable: "OPENAI_API_KEY", header: "bearer" }
        ],
        (url) => pointing({ homeFiles: { ".codex/config.toml": `openai_base_url = ${JSON.stringify(url)}
` }, homeVariables: { CODEX_HOME: ".codex" } })
      );
    case "gemini":
      return api(
        GEMINI,
        [
          { variable: "GEMINI_API_KEY", header: "x-goog-api-key" },
          // Pointed with the API key's sign-in, it reads GEMINI_API_KEY only (GOOGLE_API_KEY is Vertex AI's).
          { variable: "GOOGLE_API_KEY", header: "x-goog-api-key", readAs: "GEMINI_API_KEY" }
        ],
        (url) => pointing({
          env: { GOOGLE_GEMINI_BASE_URL: url },
          homeFiles: {
            ".gemini/settings.json": `${JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false } }, null, 2)}
`
          },
          homeVariables: { GEMINI_CLI_HOME: "." }
        })
      );
    case "copilot": {
      const provider = agent.provider;
      if (!provider) return void 0;
      const fallback = COPILOT_DEFAULT[provider];
      if (agent.endpoint === void 0 && fallback === void 0) return void 0;
      return api(
        fallback ?? "",
        [{ variable: "COPILOT_PROVIDER_API_KEY", header: COPILOT_HEADER[provider] }],
        (url) => pointing({
          env: {
            COPILOT_PROVIDER_BASE_URL: url,
            COPILOT_PROVIDER_TYPE: provider,
            ...agent.wireApi ? { COPILOT_PROVIDER_WIRE_API: agent.wireApi } : {},
            // Nothing of GitHub's: no sign-in, no telemetry, no GitHub MCP server, no update check.
            COPILOT_OFFLINE: "true"
          }
        }),
        true
      );
    }
    case "aider": {
      const route = aiderRoute(agent.model);
      if (route === "anthropic") {
        return api(
          ANTHROPIC,
          [{ variable: "ANTHROPIC_API_KEY", header: "x-api-key" }],
          (url) => pointing({ env: { ANTHROPIC_API_BASE: url, ANTHROPIC_BASE_URL: url } })
        );
      }
      if (route === "openai") return api(OPENAI, [{ variable: "OPENAI_API_KEY", header: "bearer" }], (url) => pointing({ env: { OPENAI_API_BASE: url } }));
      return void 0;
    }
    case void 0:
      return void 0;
  }
}
function presetCredentials(preset, provider) {
  if (preset === "copilot" && provider) return ["COPILOT_PROVIDER_API_KEY"];
  return [...PRESETS[preset].credentials];
}
function presetHosts(preset, provider) {
  if (preset === "copilot" && provider) return [];
  return [...PRESETS[preset].hosts];
}
function endpointHost(agent) {
  const url = agent.endpoint ?? (agent.preset === "copilot" ? modelApiOf(agent)?.endpoint : void 0);
  return url ? new URL(url).hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase() : void 0;
}
function isLoopbackHost(host) {
  const h2 = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return h2 === "localhost" || h2 === "::1" || /^127(\.\d{1,3}){3}$/.test(h2);
}

// core/config/defaults.ts
var DEFAULT_STALL_MINUTES = 15;
var DEFAULT_VENDOR_RETRIES = 3;
var DEFAULT_SETUP_TIMEOUT_MINUTES = 15;

// core/plan/types.ts
var resolvedAgentSchema = external_exports.object({
  name: external_exports.string(),
  /** The agent's own command; absent: its preset's command line, which the action builds. */
  run: external_exports.string().optional(),
  preset: external_exports.enum(PRESET_NAMES).optional(),
  model: external_exports.string().optional(),
  /** The model API its preset's CLI is pointed at; absent: its vendor's. */
  endpoint: external_exports.string().optional(),
  /** Copilot CLI's bring-your-own-key provider, and its wire API. */
  provider: external_exports.enum(COPILOT_PROVIDERS).optional(),
  wireApi: external_exports.enum(WIRE_APIS).optional(),
  timeoutMinutes: external_exports.number().int(),
  /** Minutes without output or workspace change before the agent is stopped; absent: DEFAULT_STALL_MINUTES. */
  stallMinutes: external_exports.number().int().optional(),
  env: external_exports.record(external_exports.string(), external_exports.string()),
  /** Variables passed by name from the runner's environment: its own `secrets` and its preset's credentials. */
  secrets: external_exports.array(external_exports.string()).optional(),
  /** Runs before the agent, in its install folder: its `setup`, or its preset's install when that folder does not have the CLI. */
  setup: external_exports.string().optional(),
  /** Absent: DEFAULT_SETUP_TIMEOUT_MINUTES. */
  setupTimeoutMinutes: external_exports.number().int().optional(),
  /** Hosts the agent's sandbox may reach; absent: none. */
  network: external_exports.object({ allow: external_exports.array(external_exports.string()) }).optional(),
  /** US dollars one run of the agent may spend (`max-usd`): its CLI's flag where it has one, and $CONVEYOR_MAX_USD. */
  maxUsd: external_exports.number().positive().optional(),
  /** Runs again after a backoff when its vendor is unavailable; absent: DEFAULT_VENDOR_RETRIES. */
  vendorRetries: external_exports.number().int().min(0).optional(),
  /** Its preset's CLI version, installed by its preset's setup (into a tools folder of that version). */
  version: external_exports.string().optional()
});
var resolvedDeploySchema = external_exports.object({
  run: external_exports.string(),
  teardown: external_exports.string().optional(),
  timeoutMinutes: external_exports.number().int()
});
var resolvedServiceSchema = external_exports.object({
  name: external_exports.string(),
  repo: external_exports.string(),
  path: external_exports.string().optional(),
  base: external_exports.string(),
  dependsOn: external_exports.array(external_exports.string()),
  /** null: `deploy: none` or no deploy key (nothing to stand up). */
  deploy: resolvedDeploySchema.nullable(),
  gate: external_exports.string().optional(),
  /** Runs in the service's folder before its gates, deploys and teardowns. */
  setup: external_exports.string().optional(),
  /** Absent: DEFAULT_SETUP_TIMEOUT_MINUTES. */
  setupTimeoutMinutes: external_exports.number().int().optional(),
  /** Variables passed by name to its deploys and teardowns. */
  secrets: external_exports.array(external_exports.string()).optional(),
  /** Hosts the service's gates, deploys and teardowns may reach; absent: any (the runner's network). */
  network: external_exports.object({ allow: external_exports.array(external_exports.string()) }).optional(),
  /** Its commands keep the runner's Docker socket (written only when true). */
  docker: external_exports.literal(true).optional()
});
var repair = external_exports.object({ agent: external_exports.string(), maxAttempts: external_exports.number().int() });
var stepCommon = {
  id: external_exports.string(),
  needs: external_exports.array(external_exports.string()),
  timeoutMinutes: external_exports.number().int(),
  /**
   * The runner label, or the labels a runner must all have, of the step's workflow job (its own
   * `runs-on`, else the pipeline's; the workflow reads it from the payload). Absent: the
   * workflow's default, ubuntu-latest. Never on an approval.
   */
  runsOn: external_exports.union([external_exports.string(), external_exports.array(external_exports.string())]).optional()
};
var planStepSchema = external_exports.discriminatedUnion("kind", [
  external_exports.object({ ...stepCommon, kind: external_exports.literal("code"), agent: external_exports.string(), writes: external_exports.array(external_exports.string()) }),
  external_exports.object({
    ...stepCommon,
    kind: external_exports.literal("gate"),
    /** Absent when each service's own `gate` command is used. */
    run: external_exports.string().optional(),
    in: external_exports.array(external_exports.string()),
    repair: repair.optional(),
    author: external_exports.string().optional(),
    path: external_exports.string().optional()
  }),
  external_exports.object({ ...stepCommon, kind: external_exports.literal("review"), agent: external_exports.string(), repair: repair.optional() }),
  external_exports.object({ ...stepCommon, kind: external_exports.literal("deploy"), services: external_exports.array(external_exports.string()) }),
  external_exports.object({
    ...stepCommon,
    kind: external_exports.literal("approval"),
    approvers: external_exports.array(external_exports.string()),
    minApprovals: external_exports.number().int(),
    allowRequester: external_exports.boolean()
  }),
  external_exports.object({ ...stepCommon, kind: external_exports.literal("merge"), method: external_exports.enum(["merge", "squash", "rebase"]) }),
  /**
   * The pipeline's `ci`, compiled into a step of its own (id CI_STEP_ID) before the first approval
   * or merge: it waits, in the app, for the checks the base branches require on the PRs' heads
   * (its `timeoutMinutes` is `wait-minutes`), and a failing one goes to `repair`.
   */
  external_exports.object({ ...stepCommon, kind: external_exports.literal("ci"), repair: repair.optional() })
]);
var changeSetRepoSchema = external_exports.object({
  repo: external_exports.string(),
  base: external_exports.string(),
  role: external_exports.enum(["primary", "sibling"]),
  services: external_exports.array(external_exports.string())
});
var planSchema = external_exports.object({
  pipeline: external_exports.string(),
  label: external_exports.string(),
  service: external_exports.string(),
  involves: external_exports.array(external_exports.string()),
  steps: external_exports.array(planStepSchema),
  /** Topological levels of `needs`: every step of a wave can run once the waves before it succeeded. */
  waves: external_exports.array(external_exports.array(external_exports.string())),
  agents: external_exports.record(external_exports.string(), resolvedAgentSchema),
  services: external_exports.record(external_exports.string(), resolvedServiceSchema),
  changeSet: external_exports.array(changeSetRepoSchema),
  /** Deploy order of the change set's services: providers first, alphabetical inside a wave. */
  deployWaves: external_exports.array(external_exports.array(external_exports.string())),
  /** `required`: no step runs its commands without a sandbox. Absent: best-effort. */
  sandbox: external_exports.literal("required").optional(),
  /** `git`: steps push plain git commits. Absent: verified (made through GitHub's API, which signs them; git in the embedded mode). */
  commits: external_exports.literal("git").optional(),
  /**
   * The pipeline's `budget-usd`: the run stops before an agent attempt once its agents have spent
   * it. Outside the hash (core/plan/hash.ts): raising it does not change what runs, and a retry
   * takes the configuration's current value (the retry event carries it).
   */
  budgetUsd: external_exports.number().positive().optional(),
  /**
   * The pipeline's `protect` patterns, written only when they are not the default
   * (core/config/protect.ts): absent is the default, so plans (and hashes) from before the key
   * stay the same and protect what the default protects. `[]`: nothing is protected.
   */
  protect: external_exports.array(external_exports.string()).optional(),
  hash: external_exports.string()
});

// core/repo-name.ts
var REPO_NAME = /^(?!\.{1,2}\/)[A-Za-z0-9_.-]+\/(?!\.{1,2}$)[A-Za-z0-9_.-]+$/;

// core/contract/usage.ts
var MAX_COUNT = Number.MAX_SAFE_INTEGER;
var MAX_USD = 1e9;
function countSchema(unit) {
  return external_exports.int({ error: (issue) => issue.code === "too_big" ? `must be at most ${MAX_COUNT} (Conveyor counts no more)` : `must be a whole number of ${unit}` }).nonnegative("must not be negative");
}
var usdSchema = external_exports.number("must be a number of US dollars").nonnegative("must not be negative").max(MAX_USD, `must be at most $${MAX_USD} (Conveyor counts no more)`);
var usageFileSchema = external_exports.strictObject({
  input_tokens: countSchema("tokens").optional(),
  output_tokens: countSchema("tokens").optional(),
  cost_usd: usdSchema.optional(),
  turns: countSchema("turns").optional(),
  model: external_exports.string().min(1).max(200).optional()
});
var usageSchema = external_exports.object({
  inputTokens: external_exports.int().nonnegative().optional(),
  outputTokens: external_exports.int().nonnegative().optional(),
  costUsd: external_exports.number().nonnegative().max(MAX_USD).optional(),
  turns: external_exports.int().nonnegative().optional(),
  /** Every model that reported, in the order they first did. */
  models: external_exports.array(external_exports.string().max(200)).max(20).optional()
});
var USAGE_FIGURES = {
  costUsd: "cost",
  inputTokens: "input tokens",
  outputTokens: "output tokens",
  turns: "turns"
};
var FIGURES = Object.keys(USAGE_FIGURES);
var kindOf = (f) => f === "costUsd" ? "usd" : "count";
var CEILING = { usd: MAX_USD, count: MAX_COUNT };
function usageOfFile(file) {
  return compact({
    inputTokens: file.input_tokens,
    outputTokens: file.output_tokens,
    costUsd: file.cost_usd,
    turns: file.turns,
    models: file.model !== void 0 ? [file.model] : void 0
  });
}
function parseUsageFile(text) {
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `it is not JSON (${e.message})` };
  }
  const parsed = usageFileSchema.safeParse(raw);
  if (!parsed.success) {
    const what = parsed.error.issues.map(
      (i2) => i2.code === "unrecognized_keys" ? `unknown key${i2.keys.length > 1 ? "s" : ""} ${i2.keys.map((k2) => `"${k2}"`).join(", ")}` : `${i2.path.join(".") || "(the file)"}: ${i2.message}`
    ).join("; ");
    return { ok: false, problem: `${what} (expected {"input_tokens", "output_tokens", "cost_usd", "turns", "model"}, any of them)` };
  }
  return { ok: true, usage: usageOfFile(parsed.data) };
}
var roundUsd = (x2) => Math.round(x2 * 1e6) / 1e6;
function figure(kind, x2) {
  if (x2 === void 0) return void 0;
  const ok = typeof x2 === "number" && x2 >= 0 && (kind === "usd" ? Number.isFinite(x2) : Number.isSafeInteger(x2));
  return ok ? Math.min(x2, CEILING[kind]) : CEILING[kind];
}
function add(kind, a, b2) {
  if (a === void 0 || b2 === void 0) return a ?? b2;
  return Math.min(kind === "usd" ? roundUsd(a + b2) : a + b2, CEILING[kind]);
}
function addCounts(...xs) {
  return xs.reduce((total, x2) => add("count", total, figure("count", x2)), void 0);
}
function sumUsage(usages) {
  let total;
  for (const u of usages) {
    if (!u || isEmptyUsage(u)) continue;
    const sum = { models: joinModels(total?.models, u.models) };
    for (const f of FIGURES) sum[f] = add(kindOf(f), total?.[f], figure(kindOf(f), u[f]));
    total = compact(sum);
  }
  return total;
}
function cappedFigures(u) {
  return u ? FIGURES.filter((f) => u[f] !== void 0 && u[f] >= CEILING[kindOf(f)]).map((f) => USAGE_FIGURES[f]) : [];
}
function joinModels(a, b2) {
  const all = [.../* @__PURE__ */ new Set([...a ?? [], ...b2 ?? []])].slice(0, 20);
  return all.length ? all : void 0;
}
function isEmptyUsage(u) {
  return FIGURES.every((f) => u[f] === void 0) && !u.models?.length;
}
function compact(u) {
  return Object.fromEntries(Object.entries(u).filter(([, v]) => v !== void 0));
}
function formatUsd(x2) {
  if (x2 > 0 && x2 < 0.01) return `$${x2.toFixed(3)}`;
  return `$${x2.toFixed(2)}`;
}
function formatTokens(n) {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n.toLocaleString("en-US");
}
function describeUsage(u) {
  if (!u || isEmptyUsage(u)) return "not reported";
  const parts = [];
  if (u.costUsd !== void 0) parts.push(formatUsd(u.costUsd));
  const [i2, o2] = [u.inputTokens, u.outputTokens];
  if (i2 !== void 0 && o2 !== void 0) parts.push(`${formatTokens(i2)} tokens in, ${formatTokens(o2)} out`);
  else if (i2 !== void 0) parts.push(`${formatTokens(i2)} tokens in`);
  else if (o2 !== void 0) parts.push(`${formatTokens(o2)} tokens out`);
  if (u.turns !== void 0) parts.push(`${u.turns} turn${u.turns === 1 ? "" : "s"}`);
  if (parts.length === 0 && u.models?.length) parts.push("no figures");
  const capped = cappedFigures(u);
  if (capped.length) parts.push(`${capped.join(", ")} at Conveyor's ceiling`);
  return parts.join(" \xB7 ");
}

// core/contract/wire.ts
var WIRE_VERSION = 2;
var pullRequestRefSchema = external_exports.object({
  repo: external_exports.string(),
  number: external_exports.number().int().positive(),
  url: external_exports.string(),
  branch: external_exports.string(),
  head: external_exports.string().optional(),
  /** Still a draft (the run's own PR opens as one); absent once it is ready for review. */
  draft: external_exports.boolean().optional(),
  /** GitHub's GraphQL id, so marking the draft ready for review needs no read of the PR first. */
  nodeId: external_exports.string().optional()
});
var payloadRepoSchema = external_exports.object({
  repo: external_exports.string().regex(REPO_NAME, { error: (issue) => `must be "owner/name", got ${JSON.stringify(issue.input)}` }),
  role: external_exports.enum(["primary", "sibling"]),
  services: external_exports.array(external_exports.string()),
  base: external_exports.string().min(1),
  workBranch: external_exports.string().min(1),
  pr: pullRequestRefSchema.optional()
});
var issueAuthorSchema = external_exports.object({
  login: external_exports.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,38})(?:\[bot\])?$/, "must be a GitHub login"),
  id: external_exports.number().int().positive()
});
var environmentSchema = external_exports.object({
  service: external_exports.string(),
  envId: external_exports.string(),
  state: external_exports.enum(["ready", "failed", "skipped"]),
  url: external_exports.string().optional(),
  error: external_exports.string().optional(),
  outputTail: external_exports.string().optional(),
  /** The commit the environment was deployed from (a retry redeploys when the source moved). */
  commit: external_exports.string().optional(),
  /** The GitHub Deployment standing for it, so teardown can mark it inactive. */
  deployment: external_exports.object({ repo: external_exports.string(), id: external_exports.number().int() }).optional(),
  /** The mark of the processes its deploy left running (the environment, where it runs on the runner): its teardown ends them. */
  processMark: external_exports.string().optional()
});
var stepPayloadSchema = external_exports.object({
  version: external_exports.literal(WIRE_VERSION),
  runId: external_exports.string().min(1),
  pipeline: external_exports.string(),
  planHash: external_exports.string(),
  issue: external_exports.object({
    repo: external_exports.string(),
    number: external_exports.number().int().positive(),
    title: external_exports.string(),
    body: external_exports.string(),
    url: external_exports.string().optional(),
    /** Who opened the issue on GitHub: the co-author of the commits made for it (absent in the embedded mode). */
    author: issueAuthorSchema.optional()
  }),
  requester: external_exports.string().optional(),
  /** The pipeline's own service (the task's): a deploy step fails when its environment fails. */
  service: external_exports.string().optional(),
  /** `repair` runs the step's repair agent on the work branch; `teardown` removes environments (core/contract/attempt-ref.ts). */
  mode: external_exports.enum(ATTEMPT_MODES),
  step: planStepSchema,
  attempt: external_exports.number().int().positive(),
  epoch: external_exports.number().int().nonnegative(),
  agents: external_exports.record(external_exports.string(), resolvedAgentSchema),
  services: external_exports.record(external_exports.string(), resolvedServiceSchema),
  repos: external_exports.array(payloadRepoSchema).min(1),
  /** Findings for a repair: failing gate lines or review findings, Markdown. */
  findings: external_exports.string().optional(),
  /** Environments already settled (deploy resume) or to remove (teardown). */
  environments: external_exports.array(environmentSchema).default([]),
  /** Who wrote the code, to judge whether a review is independent. */
  /**
   * The code step's agent and its `writes` (path prefixes): review independence judges against the
   * agent, and every repair of the run (a gate's, a review's, a merge conflict's) keeps to `writes`.
   */
  coder: external_exports.object({
    agent: external_exports.string(),
    model: external_exports.string().optional(),
    /** The models the code step's attempts reported using (absent while none did). */
    models: external_exports.array(external_exports.string().max(200)).max(20).optional(),
    writes: external_exports.array(external_exports.string()).optional()
  }).optional(),
  /**
   * Until when the app keeps this attempt current whatever else happens (ISO time): it judges a
   * queued attempt lost only this long after queueing it, and nothing else closes the check run
   * of an attempt that has not run. An action that starts well before then knows its check run is
   * still open without reading it back from GitHub. Set by the workflow dispatcher; routing, not
   * an input of the step: receipts leave it out.
   */
  currentUntil: external_exports.iso.datetime({ offset: true }).optional(),
  /** The pipeline's `sandbox`: `required` fails the step where no sandbox can be made. Absent: best-effort. */
  sandbox: external_exports.enum(["required", "best-effort"]).optional(),
  /**
   * The pipeline's `commits`: `git` pushes plain git commits. Absent or `verified`: where the forge
   * makes commits itself (GitHub's Git data API, which signs them), they are made there; the local
   * forge has none, so the embedded mode pushes with git.
   */
  commits: external_exports.enum(["verified", "git"]).optional(),
  /**
   * Every variable a command of the run is given by name (any agent's or service's `secrets`, a
   * preset's credentials): masked, and kept from every command that does not list it, including
   * those of agents this payload does not carry.
   */
  byName: external_exports.array(external_exports.string()).optional(),
  /**
   * What the run's earlier attempts used (of this step, and of the whole run) and the run's budget,
   * for the attempt's check run to show beside its own usage. Absent while nothing was reported.
   */
  usageSoFar: external_exports.object({ step: usageSchema.optional(), run: usageSchema.optional(), budgetUsd: external_exports.number().optional() }).optional(),
  /**
   * An attempt that may push (a code step's, any repair): the pipeline's `protect` patterns, whose
   * changes it reports (the result's `protected`), and what the run knows of them per repository
   * (what the PR bodies say), so a body is rewritten only when that changed. Absent: nothing is
   * protected.
   */
  protect: external_exports.object({ patterns: external_exports.array(external_exports.string()).min(1), known: external_exports.record(external_exports.string(), external_exports.array(external_exports.string())).default({}) }).optional()
});
var protectedChangeSchema = external_exports.object({
  repo: external_exports.string(),
  head: external_exports.string(),
  /** At most MAX_PROTECTED_PATHS of them (a check run holds the result); `more` counts the rest. */
  paths: external_exports.array(external_exports.string()),
  more: external_exports.number().int().positive().optional()
});
var MAX_PROTECTED_PATHS = 200;
var reviewVerdictSchema = external_exports.object({
  verdict: external_exports.enum(["pass", "fail"]),
  findings: external_exports.array(external_exports.union([external_exports.string(), external_exports.record(external_exports.string(), external_exports.unknown())])).default([]),
  scores: external_exports.object({
    complexity: external_exports.number().min(0).max(1),
    risk: external_exports.number().min(0).max(1),
    impact: external_exports.number().min(0).max(1)
  })
});
var stepResultSchema = external_exports.object({
  version: external_exports.literal(WIRE_VERSION),
  runId: external_exports.string(),
  step: external_exports.string(),
  mode: external_exports.enum(ATTEMPT_MODES),
  attempt: external_exports.number().int().positive(),
  epoch: external_exports.number().int().nonnegative(),
  conclusion: external_exports.enum(["success", "failure", "neutral"]),
  summary: external_exports.string(),
  prs: external_exports.array(pullRequestRefSchema).default([]),
  /** Head of the work branch (or the checkout) of each repository after the step. */
  commits: external_exports.record(external_exports.string(), external_exports.string()).default({}),
  environments: external_exports.array(environmentSchema).default([]),
  review: reviewVerdictSchema.extend({ agent: external_exports.string(), model: external_exports.string().optional(), independent: external_exports.boolean() }).optional(),
  /** What a repair agent should address: failing gate lines or review findings. */
  findings: external_exports.string().optional(),
  error: external_exports.object({ code: external_exports.enum(ERROR_CODES), message: external_exports.string() }).optional(),
  /** How the step's commands were isolated, and every connection the sandbox refused. */
  sandbox: external_exports.object({
    mode: external_exports.enum(["bubblewrap", "none"]),
    /** Why there was none (`mode: none`): what the runner lacked. */
    reason: external_exports.string().optional(),
    blocked: external_exports.array(external_exports.object({ host: external_exports.string(), port: external_exports.number().int(), count: external_exports.number().int().positive() })).default([])
  }).optional(),
  /** Tokens, turns and cost of every agent run of the attempt, summed (absent when none reported any). Sealed by the receipt. */
  usage: usageSchema.optional(),
  /**
   * For every repository the attempt found or left with work in it: the paths its PR changes
   * against its base at the head it reported that match the payload's `protect` (sorted, none
   * included). Sealed by the receipt like the rest.
   */
  protected: external_exports.array(protectedChangeSchema).optional(),
  receipt: external_exports.string().optional()
});
function resultBase(attempt) {
  return { version: WIRE_VERSION, ...refOf(attempt), prs: [], commits: {}, environments: [] };
}
function describeIssues(error) {
  return error.issues.map((i2) => `${i2.path.length ? formatPath(i2.path) : "(root)"}: ${i2.message}`).join("; ");
}
function formatPath(path) {
  let out = "";
  for (const p2 of path) {
    if (typeof p2 === "number") out += `[${p2}]`;
    else out += out ? `.${String(p2)}` : String(p2);
  }
  return out;
}

export {
  PRESETS,
  presetSetup,
  isPresetSetup,
  presetModel,
  modelApiOf,
  presetCredentials,
  presetHosts,
  endpointHost,
  isLoopbackHost,
  DEFAULT_STALL_MINUTES,
  DEFAULT_VENDOR_RETRIES,
  DEFAULT_SETUP_TIMEOUT_MINUTES,
  MAX_COUNT,
  MAX_USD,
  usdSchema,
  USAGE_FIGURES,
  FIGURES,
  parseUsageFile,
  addCounts,
  sumUsage,
  cappedFigures,
  joinModels,
  isEmptyUsage,
  compact,
  formatUsd,
  formatTokens,
  describeUsage,
  attemptRefSchema,
  refOf,
  attemptKey,
  attemptName,
  stepPayloadSchema,
  MAX_PROTECTED_PATHS,
  reviewVerdictSchema,
  stepResultSchema,
  resultBase,
  describeIssues,
  privateTemp,
  socketFolder,
  makePrivateTemp,
  which,
  GitRepo
};
//# sourceMappingURL=chunk-MLQGMK35.js.map
