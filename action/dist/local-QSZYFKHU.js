import { createRequire as __conveyorCreateRequire } from 'node:module'; const require = __conveyorCreateRequire(import.meta.url);
import {
  GitRepo,
  describeIssues,
  makePrivateTemp
} from "./chunk-MLQGMK35.js";
import {
  MergeRefused,
  external_exports,
  splitRepo
} from "./chunk-ZQDVONEP.js";
import {
  ConveyorError
} from "./chunk-DJRTUKIR.js";
import "./chunk-HRZ2MPDI.js";
import "./chunk-SD7663DA.js";

// adapters/forge/local.ts
import { existsSync as existsSync2 } from "node:fs";
import { rm } from "node:fs/promises";
import { join as join2, resolve } from "node:path";

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

// adapters/forge/local-reviews.ts
var REVIEWS_SCHEMA = `
CREATE TABLE IF NOT EXISTS reviews (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  commit_sha TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('COMMENTED', 'CHANGES_REQUESTED', 'DISMISSED')),
  body TEXT NOT NULL,
  author TEXT NOT NULL,
  dismissal TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_of_pull ON reviews (repo, number, id);
CREATE TABLE IF NOT EXISTS review_comments (
  review_id INTEGER NOT NULL REFERENCES reviews (id),
  position INTEGER NOT NULL,
  path TEXT NOT NULL,
  line INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (review_id, position)
);
`;
var LOCAL_REVIEWER = "conveyor";
var reviewRow = external_exports.object({
  id: external_exports.number().int(),
  commit_sha: external_exports.string(),
  state: external_exports.enum(["COMMENTED", "CHANGES_REQUESTED", "DISMISSED"]),
  body: external_exports.string(),
  author: external_exports.string(),
  dismissal: external_exports.string().nullable()
});
var commentRow = external_exports.object({ review_id: external_exports.number().int(), path: external_exports.string(), line: external_exports.number().int(), body: external_exports.string() });
var LocalReviews = class {
  constructor(db, pullUrl) {
    this.db = db;
    this.pullUrl = pullUrl;
  }
  db;
  pullUrl;
  create(request) {
    const now = (/* @__PURE__ */ new Date()).toISOString();
    const state = request.event === "REQUEST_CHANGES" ? "CHANGES_REQUESTED" : "COMMENTED";
    const insert = this.db.transaction(() => {
      const { lastInsertRowid } = this.db.prepare("INSERT INTO reviews (repo, number, commit_sha, state, body, author, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(request.repo, request.number, request.commit, state, request.body, LOCAL_REVIEWER, now, now);
      const id2 = Number(lastInsertRowid);
      const add = this.db.prepare("INSERT INTO review_comments (review_id, position, path, line, body) VALUES (?, ?, ?, ?, ?)");
      request.comments.forEach((c, i) => add.run(id2, i, c.path, c.line, c.body));
      return id2;
    });
    const id = insert.immediate();
    return this.get(request.repo, request.number, id);
  }
  list(repo, number) {
    const rows = external_exports.array(reviewRow).parse(this.db.prepare("SELECT * FROM reviews WHERE repo = ? AND number = ? ORDER BY id").all(repo, number));
    const comments = external_exports.array(commentRow).parse(
      this.db.prepare("SELECT c.* FROM review_comments c JOIN reviews r ON r.id = c.review_id WHERE r.repo = ? AND r.number = ? ORDER BY c.review_id, c.position").all(repo, number)
    );
    return rows.map(
      (r) => this.toReview(
        repo,
        number,
        r,
        comments.filter((c) => c.review_id === r.id)
      )
    );
  }
  dismiss(repo, number, id, message) {
    const review = this.get(repo, number, id);
    if (review.state !== "CHANGES_REQUESTED") {
      throw new ConveyorError(
        "forge-failed",
        `review ${id} of ${repo}#${number} is ${review.state}: only a review that requests changes can be dismissed (edit a comment instead)`
      );
    }
    this.db.prepare("UPDATE reviews SET state = 'DISMISSED', dismissal = ?, updated_at = ? WHERE id = ?").run(message, (/* @__PURE__ */ new Date()).toISOString(), id);
  }
  edit(repo, number, id, body) {
    this.get(repo, number, id);
    this.db.prepare("UPDATE reviews SET body = ?, updated_at = ? WHERE id = ?").run(body, (/* @__PURE__ */ new Date()).toISOString(), id);
  }
  get(repo, number, id) {
    const found = this.list(repo, number).find((r) => r.id === id);
    if (!found) throw new ConveyorError("forge-failed", `pull request ${repo}#${number} has no review ${id}`);
    return found;
  }
  toReview(repo, number, r, comments) {
    return {
      id: r.id,
      url: `${this.pullUrl(repo, number)}#review-${r.id}`,
      state: r.state,
      body: r.body,
      author: r.author,
      commit: r.commit_sha,
      comments: comments.map((c) => ({ path: c.path, line: c.line, body: c.body })),
      ...r.dismissal !== null ? { dismissal: r.dismissal } : {}
    };
  }
};

// adapters/forge/local-issues.ts
var ISSUES_SCHEMA = `
CREATE TABLE IF NOT EXISTS issues (
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (repo, number)
);
`;
var nextRow = external_exports.object({ next: external_exports.number().int().positive() });
var issueRow = external_exports.object({ repo: external_exports.string(), number: external_exports.number().int().positive(), title: external_exports.string(), body: external_exports.string() });
function nextNumber(db, repo) {
  return nextRow.parse(
    db.prepare(
      `SELECT MAX(COALESCE((SELECT MAX(number) FROM issues WHERE repo = ?), 0), COALESCE((SELECT MAX(number) FROM pull_requests WHERE repo = ?), 0)) + 1 AS next`
    ).get(repo, repo)
  ).next;
}
var LocalIssues = class {
  constructor(db) {
    this.db = db;
  }
  db;
  /**
   * Opens an issue and returns it: the next number of its repository, or the number given (an
   * issue of that number already there is kept as it is: the person named an existing issue).
   */
  open(issue) {
    const insert = this.db.transaction(() => {
      const number2 = issue.number ?? Math.max(nextNumber(this.db, issue.repo), (issue.after ?? 0) + 1);
      this.db.prepare("INSERT OR IGNORE INTO issues (repo, number, title, body, created_at) VALUES (?, ?, ?, ?, ?)").run(issue.repo, number2, issue.title, issue.body, (/* @__PURE__ */ new Date()).toISOString());
      return number2;
    });
    const number = insert.immediate();
    return this.get(issue.repo, number);
  }
  get(repo, number) {
    const row = this.db.prepare("SELECT repo, number, title, body FROM issues WHERE repo = ? AND number = ?").get(repo, number);
    return row === void 0 ? void 0 : issueRow.parse(row);
  }
};

// adapters/forge/local-queue.ts
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
var RULES_FILE_SUFFIX = ".rules.json";
var rulesFile = external_exports.strictObject({
  "merge-queue": external_exports.boolean().default(false),
  "up-to-date": external_exports.boolean().default(false),
  branches: external_exports.array(external_exports.string().min(1)).optional()
});
var QUEUE_SCHEMA = `
CREATE TABLE IF NOT EXISTS merge_queue (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  head TEXT NOT NULL,
  enqueued_at TEXT NOT NULL,
  UNIQUE (repo, number)
);
`;
function readBranchRules(remotesDir, repo, branch) {
  const { owner, name } = splitRepo(repo);
  const file = join(remotesDir, owner, `${name}${RULES_FILE_SUFFIX}`);
  if (!existsSync(file)) return { mergeQueue: false, upToDate: false };
  let json;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new ConveyorError("bad-input", `${file} is not JSON (${e.message}); it holds the branch rules of ${repo}`);
  }
  const parsed = rulesFile.safeParse(json);
  if (!parsed.success) throw new ConveyorError("bad-input", `${file}: ${describeIssues(parsed.error)} (keys: "merge-queue", "up-to-date", "branches")`);
  const r = parsed.data;
  if (r.branches && !r.branches.includes(branch)) return { mergeQueue: false, upToDate: false };
  return { mergeQueue: r["merge-queue"], upToDate: r["up-to-date"] };
}
var LocalMergeQueue = class {
  constructor(db, forge) {
    this.db = db;
    this.forge = forge;
  }
  db;
  forge;
  async enqueue(pr, expectedHead) {
    const now = await this.forge.getPullRequest(pr.repo, pr.number);
    if (now.state !== "open") throw new MergeRefused(`${pr.repo}#${pr.number} is ${now.state}, not open`, false);
    if (now.head !== expectedHead)
      throw new MergeRefused(`${pr.repo}#${pr.number} moved to ${now.head.slice(0, 12)} (expected ${expectedHead.slice(0, 12)}); not enqueued`, false);
    this.db.prepare("INSERT INTO merge_queue (repo, number, head, enqueued_at) VALUES (?, ?, ?, ?) ON CONFLICT (repo, number) DO NOTHING").run(pr.repo, pr.number, expectedHead, (/* @__PURE__ */ new Date()).toISOString());
  }
  async holds(repo, number) {
    return this.db.prepare("SELECT 1 FROM merge_queue WHERE repo = ? AND number = ?").get(repo, number) !== void 0;
  }
  async dequeue(pr) {
    return this.db.prepare("DELETE FROM merge_queue WHERE repo = ? AND number = ?").run(pr.repo, pr.number).changes > 0;
  }
  /** Merges (or removes) every PR the queue holds, in the order enqueued; says what became of each. */
  async tick() {
    const rows = this.db.prepare("SELECT repo, number, head FROM merge_queue ORDER BY seq").all();
    const out = [];
    for (const row of rows) {
      this.db.prepare("DELETE FROM merge_queue WHERE repo = ? AND number = ?").run(row.repo, row.number);
      out.push(await this.mergeOne(row));
    }
    return out;
  }
  async mergeOne(row) {
    const at = { repo: row.repo, number: row.number };
    try {
      const pr = await this.forge.getPullRequest(row.repo, row.number);
      if (pr.state === "merged") return { ...at, change: "removed", reason: "ALREADY_MERGED" };
      if (pr.state !== "open") return { ...at, change: "removed", reason: "MANUAL" };
      await this.forge.mergePullRequest(row.repo, row.number, { method: "squash", title: `${pr.title} (#${row.number})`, expectedHead: row.head });
      return { ...at, change: "merged" };
    } catch (e) {
      if (e instanceof MergeRefused) return { ...at, change: "removed", reason: e.conflict ? "MERGE_CONFLICT" : "BRANCH_PROTECTIONS" };
      return { ...at, change: "removed", reason: "UNKNOWN_REMOVAL_REASON" };
    }
  }
};

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
-- The base's head just before a PR merged: what a revert goes back to (a rebase leaves no parent that says it).
CREATE TABLE IF NOT EXISTS pull_request_merges (
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  base_before TEXT NOT NULL,
  PRIMARY KEY (repo, number)
);
`;
var LocalForge = class _LocalForge {
  constructor(db, remotesDir, serverUrl) {
    this.db = db;
    this.remotesDir = remotesDir;
    this.serverUrl = serverUrl;
    this.reviews = new LocalReviews(db, (repo, number) => this.pullUrl(repo, number));
    this.issues = new LocalIssues(db);
    this.mergeQueue = new LocalMergeQueue(db, this);
  }
  db;
  remotesDir;
  serverUrl;
  reviews;
  issues;
  mergeQueue;
  /** Opens (creating when needed) the PR records of the bare repositories in `remotesDir`. */
  static async open(folder) {
    const remotesDir = resolve(folder);
    if (!existsSync2(remotesDir)) throw new ConveyorError("bad-input", `remotes folder ${remotesDir} does not exist`);
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join2(remotesDir, LOCAL_FORGE_DB), { timeout: 15e3 });
    useWal(db, 15e3);
    db.exec(SCHEMA);
    db.exec(REVIEWS_SCHEMA);
    db.exec(ISSUES_SCHEMA);
    db.exec(QUEUE_SCHEMA);
    return new _LocalForge(db, remotesDir, `file://${remotesDir.replace(/\/+$/, "")}`);
  }
  close() {
    this.db.close();
  }
  bare(repo) {
    const { owner, name } = splitRepo(repo);
    return join2(this.remotesDir, owner, `${name}.git`);
  }
  branchHead(repo, branch) {
    return new GitRepo(this.bare(repo)).branchHead(branch);
  }
  async toPullRequest(row) {
    const head = row.state === "open" ? await this.branchHead(row.repo, row.branch) ?? row.head ?? "" : row.head ?? "";
    return {
      repo: row.repo,
      number: row.number,
      url: this.pullUrl(row.repo, row.number),
      branch: row.branch,
      head,
      base: row.base,
      title: row.title,
      body: row.body,
      state: row.state,
      ...row.merge_commit ? { mergeCommit: row.merge_commit } : {}
    };
  }
  pullUrl(repo, number) {
    return `${this.serverUrl}/${repo}/pull/${number}`;
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
    if (!existsSync2(this.bare(pr.repo))) throw new ConveyorError("forge-failed", `repository ${pr.repo} does not exist in ${this.remotesDir}`);
    for (const b of [pr.branch, pr.base]) {
      if (!await this.branchHead(pr.repo, b)) throw new ConveyorError("forge-failed", `branch "${b}" does not exist in ${pr.repo}`);
    }
    const now = (/* @__PURE__ */ new Date()).toISOString();
    const insert = this.db.transaction(() => {
      const open = this.db.prepare("SELECT number FROM pull_requests WHERE repo = ? AND branch = ? AND state = 'open'").get(pr.repo, pr.branch);
      if (open) throw new ConveyorError("forge-failed", `a pull request for ${pr.repo}:${pr.branch} already exists (#${open.number})`);
      const next = nextNumber(this.db, pr.repo);
      this.db.prepare("INSERT INTO pull_requests (repo, number, branch, base, title, body, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?)").run(pr.repo, next, pr.branch, pr.base, pr.title, pr.body, now, now);
      return next;
    });
    const number = insert.immediate();
    return this.toPullRequest(this.row(pr.repo, number));
  }
  /** Opens an issue in `repo` (see local-issues.ts): the number of a run's issue comes from here. */
  openIssue(issue) {
    if (!existsSync2(this.bare(issue.repo))) throw new ConveyorError("forge-failed", `repository ${issue.repo} does not exist in ${this.remotesDir}`);
    return this.issues.open(issue);
  }
  issueUrl(repo, number) {
    return `${this.serverUrl}/${repo}/issues/${number}`;
  }
  async updatePullRequest(repo, number, change) {
    const row = this.row(repo, number);
    this.db.prepare("UPDATE pull_requests SET title = ?, body = ?, updated_at = ? WHERE repo = ? AND number = ?").run(change.title ?? row.title, change.body ?? row.body, (/* @__PURE__ */ new Date()).toISOString(), repo, number);
    return this.toPullRequest(this.row(repo, number));
  }
  /**
   * Rewrites a PR's body from what it is at this moment, in one write transaction: a step process
   * rewriting the same body meanwhile is neither lost nor overwritten with an older text. Says
   * whether the body changed.
   */
  editPullRequestBody(repo, number, edit) {
    const change = this.db.transaction(() => {
      const row = this.row(repo, number);
      const body = edit(row.body);
      if (body === row.body) return false;
      this.db.prepare("UPDATE pull_requests SET body = ?, updated_at = ? WHERE repo = ? AND number = ?").run(body, (/* @__PURE__ */ new Date()).toISOString(), repo, number);
      return true;
    });
    return change.immediate();
  }
  /** The PR's diff as GitHub's Files tab shows it: its head against where it left its base. */
  async pullRequestDiff(pr) {
    if (!pr.head) return "";
    return new GitRepo(this.bare(pr.repo)).diff(`refs/heads/${pr.base}...${pr.head}`);
  }
  /** With its mergeability, as GitHub gives it for one PR: clean, or dirty (a conflict with its base). */
  async getPullRequest(repo, number) {
    const pr = await this.toPullRequest(this.row(repo, number));
    if (pr.state !== "open" || !pr.head) return pr;
    const clean = await new GitRepo(this.bare(repo)).mergesCleanly(`refs/heads/${pr.base}`, pr.head);
    return { ...pr, mergeable: clean, mergeableState: clean ? "clean" : "dirty" };
  }
  async branchRules(repo, branch) {
    return readBranchRules(this.remotesDir, repo, branch);
  }
  /** Commits of `base` that `head` lacks. */
  async commitsBehind(repo, base, head) {
    return new GitRepo(this.bare(repo)).countCommits(`${head}..refs/heads/${base}`);
  }
  async listPullRequests(repo, options) {
    const rows = this.db.prepare("SELECT * FROM pull_requests WHERE repo = ? ORDER BY number").all(repo);
    const state = options.state ?? "all";
    const wanted = rows.filter((r) => options.branches.includes(r.branch) && (state === "all" || (state === "open" ? r.state === "open" : r.state !== "open")));
    return Promise.all(wanted.map((r) => this.toPullRequest(r)));
  }
  async createReview(request) {
    this.row(request.repo, request.number);
    return this.reviews.create(request);
  }
  async listReviews(repo, number) {
    this.row(repo, number);
    return this.reviews.list(repo, number);
  }
  async dismissReview(repo, number, id, message) {
    this.reviews.dismiss(repo, number, id, message);
  }
  async editReview(repo, number, id, body) {
    this.reviews.edit(repo, number, id, body);
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
        this.db.transaction(() => {
          this.db.prepare("UPDATE pull_requests SET state = 'merged', head = ?, merge_commit = ?, updated_at = ? WHERE repo = ? AND number = ?").run(head, outcome.sha, (/* @__PURE__ */ new Date()).toISOString(), repo, number);
          this.db.prepare("INSERT OR REPLACE INTO pull_request_merges (repo, number, base_before) VALUES (?, ?, ?)").run(repo, number, outcome.base);
        })();
        return { merged: true, sha: outcome.sha };
      }
      if (tries >= MERGE_TRIES) {
        throw new ConveyorError("merge-failed", `${repo}#${number}: ${row.base} kept moving while merging (${tries} tries): ${outcome.reason}`);
      }
    }
  }
  /**
   * As GitHub's revert: a commit undoing what the PR merged, on the base as it is now, pushed to
   * `revert-<number>-<branch>`, and a PR of it. Asked again (a command given twice, or after a
   * crash) it answers the revert PR already open.
   */
  async revertPullRequest(repo, number, pr) {
    const row = this.row(repo, number);
    if (row.state !== "merged" || !row.merge_commit) {
      throw new ConveyorError("forge-failed", `${repo}#${number} is ${row.state}: only a merged pull request can be reverted`);
    }
    const branch = `revert-${number}-${row.branch}`;
    const open = await this.findPullRequest(repo, branch);
    if (open) return open;
    const recorded = this.db.prepare("SELECT base_before FROM pull_request_merges WHERE repo = ? AND number = ?").get(repo, number);
    const work = await makePrivateTemp("revert-");
    const git = new GitRepo(join2(work, "repo"), { code: "forge-failed" });
    try {
      await git.clone(this.bare(repo));
      await git.checkout(row.base, `origin/${row.base}`);
      const from = recorded?.base_before ?? await git.revParse(`${row.merge_commit}^1`);
      const message = `${pr.title}

This reverts ${repo}#${number} (${row.merge_commit}).
`;
      const reverted = await git.revertChanges(from, row.merge_commit, message);
      if (!reverted.merged) {
        const files = reverted.conflicts.length ? ` (conflicts in ${reverted.conflicts.join(", ")})` : "";
        throw new ConveyorError(
          "forge-failed",
          `the revert of ${repo}#${number} does not apply cleanly onto ${row.base} as it is now${files}: ${reverted.output}. Revert it by hand.`
        );
      }
      const pushed = await git.push({ to: "origin", ref: "HEAD", branch, lease: await this.branchHead(repo, branch) ?? "" });
      if (!pushed.pushed) throw new ConveyorError("forge-failed", `pushing the revert of ${repo}#${number} to ${branch} failed: ${pushed.output}`);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return this.openPullRequest({ repo, branch, base: row.base, title: pr.title, body: pr.body });
  }
  /** One try: merge into a fresh clone of the base and push; `merged: false` when the base moved. */
  async mergeOnce(repo, number, row, options) {
    const work = await makePrivateTemp("merge-");
    const git = new GitRepo(join2(work, "repo"), { code: "merge-failed" });
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
      return { merged: true, sha, base };
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
//# sourceMappingURL=local-QSZYFKHU.js.map
