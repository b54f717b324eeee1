import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  GitRepo
} from "./chunk-3MRXZG7W.js";
import {
  MergeRefused,
  splitRepo
} from "./chunk-BDDCTM4D.js";
import {
  ConveyorError
} from "./chunk-BJ2T3HHK.js";
import "./chunk-HRZ2MPDI.js";
import "./chunk-SD7663DA.js";

// adapters/forge/local.ts
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// lib/sqlite.ts
function useWal(db, busyTimeoutMs) {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const deadline = Date.now() + busyTimeoutMs;
  for (; ; ) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (e) {
      if (!isBusy(e) || Date.now() > deadline) throw e;
      sleepSync(20);
    }
  }
}
function isBusy(e) {
  const code = e.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || /database is locked/.test(String(e.message));
}
function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// adapters/forge/local.ts
var LOCAL_FORGE_DB = ".conveyor-forge.db";
var MERGE_TRIES = 5;
var SCHEMA = `
CREATE TABLE IF NOT EXISTS pull_requests (
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  branch TEXT NOT NULL,
  base TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'closed', 'merged')),
  head TEXT,
  merge_commit TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (repo, number)
);
CREATE UNIQUE INDEX IF NOT EXISTS pull_requests_one_open ON pull_requests (repo, branch) WHERE state = 'open';
`;
var LocalForge = class _LocalForge {
  constructor(db, remotesDir, serverUrl) {
    this.db = db;
    this.remotesDir = remotesDir;
    this.serverUrl = serverUrl;
  }
  db;
  remotesDir;
  serverUrl;
  /** Opens (creating when needed) the PR records of the bare repositories in `remotesDir`. */
  static async open(folder) {
    const remotesDir = resolve(folder);
    if (!existsSync(remotesDir)) throw new ConveyorError("bad-input", `remotes folder ${remotesDir} does not exist`);
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join(remotesDir, LOCAL_FORGE_DB), { timeout: 15e3 });
    useWal(db, 15e3);
    db.exec(SCHEMA);
    return new _LocalForge(db, remotesDir, `file://${remotesDir.replace(/\/+$/, "")}`);
  }
  close() {
    this.db.close();
  }
  bare(repo) {
    const { owner, name } = splitRepo(repo);
    return join(this.remotesDir, owner, `${name}.git`);
  }
  branchHead(repo, branch) {
    return new GitRepo(this.bare(repo)).branchHead(branch);
  }
  async toPullRequest(row) {
    const head = row.state === "open" ? await this.branchHead(row.repo, row.branch) ?? row.head ?? "" : row.head ?? "";
    return {
      repo: row.repo,
      number: row.number,
      url: `${this.serverUrl}/${row.repo}/pull/${row.number}`,
      branch: row.branch,
      head,
      base: row.base,
      title: row.title,
      body: row.body,
      state: row.state,
      ...row.merge_commit ? { mergeCommit: row.merge_commit } : {}
    };
  }
  row(repo, number) {
    const row = this.db.prepare("SELECT * FROM pull_requests WHERE repo = ? AND number = ?").get(repo, number);
    if (!row) throw new ConveyorError("forge-failed", `pull request ${repo}#${number} does not exist in ${this.remotesDir}`);
    return row;
  }
  async findPullRequest(repo, branch) {
    const row = this.db.prepare("SELECT * FROM pull_requests WHERE repo = ? AND branch = ? AND state = 'open'").get(repo, branch);
    return row ? this.toPullRequest(row) : void 0;
  }
  async openPullRequest(pr) {
    if (!existsSync(this.bare(pr.repo))) throw new ConveyorError("forge-failed", `repository ${pr.repo} does not exist in ${this.remotesDir}`);
    for (const b of [pr.branch, pr.base]) {
      if (!await this.branchHead(pr.repo, b)) throw new ConveyorError("forge-failed", `branch "${b}" does not exist in ${pr.repo}`);
    }
    const now = (/* @__PURE__ */ new Date()).toISOString();
    const insert = this.db.transaction(() => {
      const open = this.db.prepare("SELECT number FROM pull_requests WHERE repo = ? AND branch = ? AND state = 'open'").get(pr.repo, pr.branch);
      if (open) throw new ConveyorError("forge-failed", `a pull request for ${pr.repo}:${pr.branch} already exists (#${open.number})`);
      const { next } = this.db.prepare("SELECT COALESCE(MAX(number), 0) + 1 AS next FROM pull_requests WHERE repo = ?").get(pr.repo);
      this.db.prepare("INSERT INTO pull_requests (repo, number, branch, base, title, body, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)").run(pr.repo, next, pr.branch, pr.base, pr.title, pr.body, now, now);
      return next;
    });
    const number = insert.immediate();
    return this.toPullRequest(this.row(pr.repo, number));
  }
  async updatePullRequest(repo, number, change) {
    const row = this.row(repo, number);
    this.db.prepare("UPDATE pull_requests SET title = ?, body = ?, updated_at = ? WHERE repo = ? AND number = ?").run(change.title ?? row.title, change.body ?? row.body, (/* @__PURE__ */ new Date()).toISOString(), repo, number);
    return this.toPullRequest(this.row(repo, number));
  }
  /** With its mergeability, as GitHub gives it for one PR: clean, or dirty (a conflict with its base). */
  async getPullRequest(repo, number) {
    const pr = await this.toPullRequest(this.row(repo, number));
    if (pr.state !== "open" || !pr.head) return pr;
    const clean = await new GitRepo(this.bare(repo)).mergesCleanly(`refs/heads/${pr.base}`, pr.head);
    return { ...pr, mergeable: clean, mergeableState: clean ? "clean" : "dirty" };
  }
  async listPullRequests(repo, options) {
    const rows = this.db.prepare("SELECT * FROM pull_requests WHERE repo = ? ORDER BY number").all(repo);
    const state = options.state ?? "all";
    const wanted = rows.filter((r) => options.branches.includes(r.branch) && (state === "all" || (state === "open" ? r.state === "open" : r.state !== "open")));
    return Promise.all(wanted.map((r) => this.toPullRequest(r)));
  }
  /** A real merge into the bare repository's base, done in a temporary clone. */
  async mergePullRequest(repo, number, options) {
    const row = this.row(repo, number);
    if (row.state !== "open") throw new ConveyorError("merge-failed", `${repo}#${number} is ${row.state}, not open`);
    const head = await this.branchHead(repo, row.branch);
    if (!head) throw new ConveyorError("merge-failed", `branch "${row.branch}" of ${repo}#${number} no longer exists`);
    if (options.expectedHead && options.expectedHead !== head) {
      throw new MergeRefused(`${repo}#${number} moved to ${head.slice(0, 12)} (expected ${options.expectedHead.slice(0, 12)}); not merged`, false);
    }
    for (let tries = 1; ; tries++) {
      const outcome = await this.mergeOnce(repo, number, row, options);
      if (outcome.merged) {
        this.db.prepare("UPDATE pull_requests SET state = 'merged', head = ?, merge_commit = ?, updated_at = ? WHERE repo = ? AND number = ?").run(head, outcome.sha, (/* @__PURE__ */ new Date()).toISOString(), repo, number);
        return { merged: true, sha: outcome.sha };
      }
      if (tries >= MERGE_TRIES) {
        throw new ConveyorError("merge-failed", `${repo}#${number}: ${row.base} kept moving while merging (${tries} tries): ${outcome.reason}`);
      }
    }
  }
  /** One try: merge into a fresh clone of the base and push; `merged: false` when the base moved. */
  async mergeOnce(repo, number, row, options) {
    const work = await mkdtemp(join(tmpdir(), "conveyor-merge-"));
    const git = new GitRepo(join(work, "repo"), { code: "merge-failed" });
    const message = options.message ? `${options.title}

${options.message.trim()}
` : `${options.title}
`;
    try {
      await git.clone(this.bare(repo));
      await git.checkout(row.base, `origin/${row.base}`);
      const branchRef = `origin/${row.branch}`;
      if (await git.countCommits(`${row.base}..${branchRef}`) === 0 || !await git.differs(row.base, branchRef)) {
        throw new ConveyorError("merge-failed", `${repo}#${number} (${row.branch}) has no changes against ${row.base}: nothing to merge`);
      }
      let attempt;
      if (options.method === "merge") {
        attempt = await git.merge(branchRef, { message, noFastForward: true });
      } else if (options.method === "squash") {
        attempt = await git.mergeSquash(branchRef);
        if (attempt.merged) await git.commit(message);
      } else {
        await git.checkout("conveyor-rebase", branchRef);
        attempt = await git.rebase(`origin/${row.base}`);
        if (attempt.merged && options.message) {
          const last = await git.lastMessage();
          await git.commit(`${last.trimEnd()}

${options.message.trim()}
`, { amend: true });
        }
        if (attempt.merged) await git.checkout(row.base, "conveyor-rebase");
      }
      if (!attempt.merged) {
        throw new MergeRefused(`${repo}#${number} (${row.branch}) does not ${options.method} cleanly into ${row.base}: ${attempt.output}`, true);
      }
      const sha = await git.currentCommit();
      const base = await git.revParse(`origin/${row.base}`);
      const push = await git.push({ to: "origin", ref: "HEAD", branch: row.base, lease: base });
      if (!push.pushed) return { merged: false, reason: push.output };
      return { merged: true, sha };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
};
function openLocalForge(remotesDir) {
  return LocalForge.open(remotesDir);
}
export {
  LOCAL_FORGE_DB,
  LocalForge,
  openLocalForge
};
//# sourceMappingURL=local-RGMZBBMJ.js.map
